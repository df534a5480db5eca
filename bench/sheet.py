"""Sheet benchmark: expert rate (exceptions listed), step latency in process and over HTTP,
memory per session with its own workbook (bench/tool_envs.py).

    python bench/sheet.py --json [--data-dir /path/to/AgentGym/agentenv-tool/Toolusage/data]
"""

from __future__ import annotations

from tool_envs import main

if __name__ == "__main__":
    main("sheet")
