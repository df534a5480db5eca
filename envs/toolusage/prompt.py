"""The agent prompt of a tool env, built from its data: the tool list (data/tools.json) between
an introduction and the env's hint (data/prompt.json), then the one-line action format."""

from __future__ import annotations

import json
from pathlib import Path

from coevo.envs.toolusage.spec import ToolSpec
from coevo.wire import AgentPrompt

FORMAT = (
    "Your response must be in the format of:\nThought: [your thought]\n\n"
    "Action: [your action] with Action Input: [your action input]\n"
    "The action input is a Python dict literal of the arguments, e.g. {'name': 'Paris'}; "
    "expressions are not evaluated."
)


def tool_prompt(specs: tuple[ToolSpec, ...], prompt_file: Path) -> AgentPrompt:
    texts = json.loads(prompt_file.read_text(encoding="utf-8"))
    tools = "\n\n".join(spec.prompt_entry() for spec in specs if spec.listed)
    instruction = f"{texts['intro']}\n\n{tools}\n\n{texts['hint']}\n\n{FORMAT}"
    return AgentPrompt(
        instruction=instruction,
        single_line_action=True,
        show_available_actions=False,
        expert_thought=texts.get("expert_thought", "I will call the next tool."),
    )
