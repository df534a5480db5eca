"""What every tool env's fixtures/record_original.py shares: it plays the sessions of its
fixtures/cases.json through AgentGym's own tool server code (agentenv-tool) and writes each
answer as original.json, which test_<env>_original.py replays (tests/toolusage/original_sessions.py).

Runs outside coevo, in the recording script's throwaway venv beside a checkout of
WooooDyy/AgentGym (nothing of it is copied here): it imports nothing of coevo or of the tests.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def enter_agentgym_tool(tool_root: str) -> None:
    """Make agentenv-tool's server modules importable as its servers run: PROJECT_PATH set, its
    Toolusage/toolusage and its root first on the import path, its root the working directory
    (server modules open their data files relative to it)."""
    root = Path(tool_root)
    os.environ["PROJECT_PATH"] = str(root / "Toolusage")
    sys.path.insert(0, str(root / "Toolusage" / "toolusage"))
    sys.path.insert(0, str(root))
    os.chdir(root)


def agentgym_dataset(task: dict[str, Any], tool: str, ground_truth: Any) -> dict[str, Any]:
    """The one-task dataset an AgentGym tool server's `create` hands its env, for a case's task."""
    return {
        "goal": task["goal"],
        "ground_truth": ground_truth,
        "ground_truth_subgoals": task["subgoals"],
        "tool": tool,
    }


def server_over(server_class: type, env: Any) -> Any:
    """An AgentGym tool server whose session 0 is `env`, made without its `__init__` (which loads
    the env's whole data file)."""
    server: Any = object.__new__(server_class)
    server.env = {0: env}
    return server


def record_sessions(cases_file: Path, tool: str, server_for: Callable[[dict[str, Any]], Any]) -> None:
    """Each case's actions through the server `server_for(case's task)` gives (its session 0):
    the first observation, every step's answer and the last observation, as JSON on stdout."""
    out: list[dict[str, Any]] = []
    for case in json.loads(cases_file.read_text())["cases"]:
        server = server_for(case["task"])
        first = server.observation(0)
        steps = []
        for action in case["actions"]:
            observation, reward, done, _ = server.step(0, action)
            steps.append({"action": action, "observation": observation, "reward": float(reward), "done": done})
        out.append({"name": case["name"], "first": first, "steps": steps, "observation_after": server.observation(0)})
    json.dump(
        {"recorded_with": f"WooooDyy/AgentGym agentenv-tool (agentenv_{tool})", "sessions": out},
        sys.stdout,
        indent=1,
        ensure_ascii=False,
    )


def record_dataset_env(tool_root: str, cases_file: Path, tool: str) -> None:
    """The recording for a tool whose AgentGym env is built from the one-task dataset alone, the
    ground truth its last subgoal (academia, movie): `<Tool>EnvServer` of
    agentenv_<tool>.<tool>_environment over `<Tool>Env` of environment.<tool>_env."""
    enter_agentgym_tool(tool_root)
    name = tool.capitalize()
    server_class = getattr(importlib.import_module(f"agentenv_{tool}.{tool}_environment"), f"{name}EnvServer")
    env_class = getattr(importlib.import_module(f"environment.{tool}_env"), f"{name}Env")

    def server_for(task: dict[str, Any]) -> Any:
        dataset = agentgym_dataset(task, tool, ground_truth=task["subgoals"][-1])
        return server_over(server_class, env_class(dataset=dataset))

    record_sessions(cases_file, tool, server_for)
