"""Per-env ReAct prompts in AgentGym's conversation style.

An episode's conversation starts with an instruction turn from the user and a short
acknowledgement from the agent (AgentGym trains with `loss: False` on it), then alternates
observations (user) and ReAct replies (assistant):

    Thought: a short reasoning step
    Action: one action in the env's own syntax

The format is taught by a worked example from the env (its `action_example`), never by a
"<placeholder>" template: SmolLM2-135M copied "Thought: <one short sentence of reasoning>"
word for word.

Envs with no dedicated prompt get a generic one built from their `/info` action format, so a
newly registered env is playable by every policy at once. The wording is ours; the shape
(instruction, acknowledgement, observation turns, "AVAILABLE ACTIONS" lists) follows AgentGym.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from coevo.client.policies.base import Message

ACKNOWLEDGEMENT = "OK. I will think briefly, then give exactly one action per turn."



def react_format(example: tuple[str, str] = ("", "")) -> str:
    """How to reply: two labelled lines, shown by a worked example when the env gives one."""
    thought, action = example
    if not action:
        return (
            'Reply with two lines: "Thought:" followed by one short sentence of reasoning, then '
            '"Action:" followed by your next action.'
        )
    return f"Reply with two lines, a short thought and then your action, like this:\nThought: {thought}\nAction: {action}"


@dataclass(frozen=True)
class EnvPrompt:
    """How to talk to one env: its instruction, how observations are shown, how actions are read."""

    env: str
    instruction: str
    #: Actions are one line (ALFWorld commands); otherwise everything after "Action:" counts.
    single_line_action: bool = False
    #: Append the env's finite action set (info["available_actions"]) to each observation.
    show_available_actions: bool = True
    #: Turns the expert's raw action into the thought a ReAct trajectory shows before it.
    expert_thought: Callable[[str], str] = field(default=lambda action: "I will do the next step of the plan.")
    #: Renders info["available_actions"] (an env may list its actions more compactly).
    render_actions: Callable[[Any], str] = field(default=lambda available: render_available_actions(available))
    #: The env's worked example (thought, action), repeated when a reply cannot be read.
    example: tuple[str, str] = ("", "")

    def start(self) -> list[Message]:
        """The instruction turn and the agent's acknowledgement."""
        return [
            {"role": "user", "content": self.instruction},
            {"role": "assistant", "content": ACKNOWLEDGEMENT},
        ]

    def render_observation(self, observation: str, info: Mapping[str, Any], *, first: bool = False) -> str:
        """The user turn for one observation: the text, the task on the first turn when the
        observation does not already contain it, and the available actions."""
        parts = [observation.strip()]
        task = info.get("task")
        if first and isinstance(task, str) and task.strip() and task.strip() not in observation:
            parts.append(f"Your task: {task.strip()}")
        if self.show_available_actions:
            actions = self.render_actions(info.get("available_actions"))
            if actions:
                parts.append(actions)
        return "\n".join(p for p in parts if p)

    def render_invalid(self, reason: str, info: Mapping[str, Any]) -> str:
        """The user turn that tells the agent its reply could not be read (the env is not stepped)."""
        text = f"Invalid action: {reason}\n{react_format(self.example)}"
        if self.show_available_actions:
            actions = self.render_actions(info.get("available_actions"))
            if actions:
                text += "\n" + actions
        return text

    def format_reply(self, thought: str, action: str) -> str:
        return f"Thought: {thought}\nAction: {action}"


def render_available_actions(available: Any) -> str:
    """AgentGym's "AVAILABLE ACTIONS: a, b, c" line; dict-shaped sets (WebShop) one key a line."""
    if isinstance(available, (list, tuple)) and available:
        return "AVAILABLE ACTIONS: " + ", ".join(str(a) for a in available)
    if isinstance(available, Mapping) and available:
        lines = [f"{key}: {value}" for key, value in available.items()]
        return "AVAILABLE ACTIONS:\n" + "\n".join(lines)
    return ""


# ---------------------------------------------------------------------------- ALFWorld
_ALFWORLD_EXAMPLE = ("The task needs an apple; apples are often on the countertop.", "go to countertop 1")
_ALFWORLD_INSTRUCTION = (
    "You are an agent in a household. Complete the task you are given by acting on the "
    "receptacles and objects in the room, one command per turn; the environment answers each "
    "command. Commands: go to X, open X, close X, take X from Y, move X to Y, heat X with Y, "
    "cool X with Y, clean X with Y, use X, examine X, look, inventory. When available actions "
    "are listed, choose one of them. \"Nothing happens.\" means the command had no effect.\n"
    + react_format(_ALFWORLD_EXAMPLE)
)

_ALFWORLD_THOUGHTS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^go to (.+)$"), "I should go to {0} next."),
    (re.compile(r"^take (.+) from (.+)$"), "I found the {0}; I will take it from the {1}."),
    (re.compile(r"^(?:put|move) (.+?) (?:in/on|in|on|to) (.+)$"), "Now I can put the {0} in/on the {1}."),
    (re.compile(r"^open (.+)$"), "The {0} is closed; I will open it to look inside."),
    (re.compile(r"^close (.+)$"), "I will close the {0}."),
    (re.compile(r"^heat (.+) with (.+)$"), "The {0} must be hot; I will heat it with the {1}."),
    (re.compile(r"^cool (.+) with (.+)$"), "The {0} must be cool; I will cool it with the {1}."),
    (re.compile(r"^clean (.+) with (.+)$"), "The {0} must be clean; I will clean it with the {1}."),
    (re.compile(r"^slice (.+) with (.+)$"), "I will slice the {0} with the {1}."),
    (re.compile(r"^use (.+)$"), "I will turn on the {0} to look at the object in its light."),
    (re.compile(r"^examine (.+)$"), "I will examine the {0}."),
]


def _alfworld_thought(action: str) -> str:
    for pattern, template in _ALFWORLD_THOUGHTS:
        m = pattern.match(action.strip())
        if m:
            return template.format(*m.groups())
    return f"I will {action.strip()}."


_ALWAYS_ADMISSIBLE = frozenset({"help", "look", "inventory"})


def _alfworld_actions(available: Any) -> str:
    """ALFWorld's admissible commands, with the "go to" entries (one per receptacle, most of
    the list, and all named in the room description) folded into one: the commands that
    matter — take, move, open, heat, ... with exact object numbers — stay, at a third of the tokens."""
    if not isinstance(available, (list, tuple)) or not available:
        return ""
    actions = [str(a) for a in available]
    specific = [a for a in actions if not a.startswith("go to ") and a not in _ALWAYS_ADMISSIBLE]
    if any(a.startswith("go to ") for a in actions):
        specific.append("go to <a receptacle you have seen>")
    return "AVAILABLE ACTIONS: " + ", ".join(specific + sorted(_ALWAYS_ADMISSIBLE & set(actions)))


ALFWORLD = EnvPrompt(
    env="alfworld",
    instruction=_ALFWORLD_INSTRUCTION,
    single_line_action=True,
    show_available_actions=True,
    expert_thought=_alfworld_thought,
    render_actions=_alfworld_actions,
    example=_ALFWORLD_EXAMPLE,
)


# ---------------------------------------------------------------------------- BFCL
_BFCL_EXAMPLE = ("The user wants the weather in Paris, so I call get_weather with that city.", "[get_weather(city='Paris')]")
BFCL = EnvPrompt(
    env="bfcl",
    instruction=(
        "You are a function-calling agent. Each user turn shows the available functions and a "
        "request. Answer with the function calls that fulfil it, in Python call syntax inside a "
        "list, e.g. [get_weather(city='Paris'), get_time(zone='CET')]. When the functions return "
        "results, continue calling until the request is done; when nothing is left to call, "
        "reply with an action that contains no call to end the turn.\n" + react_format(_BFCL_EXAMPLE)
    ),
    example=_BFCL_EXAMPLE,
    single_line_action=False,
    show_available_actions=False,
    expert_thought=lambda action: (
        "The request is complete, so no more calls are needed."
        if "(" not in action
        else "I will call the functions that fulfil the request."
    ),
)


def generic_prompt(env: str, action_format: str, example: tuple[str, str] = ("", "")) -> EnvPrompt:
    """A ReAct prompt for any env, from the action format and worked example its server reports."""
    return EnvPrompt(
        env=env,
        instruction=(
            "You are an agent solving a task by interacting with an environment. Each turn you "
            "see an observation and send one action; the environment answers with the next "
            f"observation.\nActions look like: {action_format}\n" + react_format(example)
        ),
        example=example,
        single_line_action=False,
        show_available_actions=True,
        expert_thought=lambda action: "I will take the next step towards the goal.",
    )


PROMPTS: dict[str, EnvPrompt] = {p.env: p for p in (ALFWORLD, BFCL)}


def prompt_for(env: str, action_format: str = "free text", example: Sequence[str] = ("", "")) -> EnvPrompt:
    """The env's dedicated prompt, or the generic one for its action format and example."""
    thought, action = (list(example) + ["", ""])[:2]
    return PROMPTS.get(env) or generic_prompt(env, action_format, (thought, action))
