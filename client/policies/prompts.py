"""Per-env ReAct prompts in AgentGym's conversation style.

An episode's conversation starts with an instruction turn from the user and a short
acknowledgement from the agent (AgentGym trains with `loss: False` on it), then alternates
observations (user) and ReAct replies (assistant):

    Thought: a short reasoning step
    Action: one action in the env's own syntax

The format is taught by a worked example from the env (its `action_example`), never by a
"<placeholder>" template: SmolLM2-135M copied "Thought: <one short sentence of reasoning>"
word for word.

Everything env-specific comes from the server's `/info`: the env's `agent_prompt` (its
instruction, whether actions are one line, how expert actions are explained, how its action list
is folded), its action format and worked example. An env that declares no prompt gets the generic
one built from its action format, so a newly registered env is playable by every policy at once.
The wording is ours; the shape (instruction, acknowledgement, observation turns, "AVAILABLE
ACTIONS" lists) follows AgentGym.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from coevo.client.policies.base import Message
from coevo.client.policies.parsing import ParsedReply, parse_react, strip_special_tokens
from coevo.wire import ActionFold, AgentPrompt, InfoResponse, ReplyWithoutAction

ACKNOWLEDGEMENT = "OK. I will think briefly, then give exactly one action per turn."


def react_format(example: tuple[str, str] = ("", "")) -> str:
    """How to reply: two labelled lines, shown by a worked example when the env gives one."""
    thought, action = example
    if not action:
        return (
            'Reply with two lines: "Thought:" followed by one short sentence of reasoning, then '
            '"Action:" followed by your next action.'
        )
    return (
        f"Reply with two lines, a short thought and then your action, like this:\nThought: {thought}\nAction: {action}"
    )


@dataclass(frozen=True)
class EnvPrompt:
    """How to talk to one env: its instruction, how observations are shown, how actions are read."""

    env: str
    instruction: str
    #: Actions are one line (text-game commands); otherwise everything after "Action:" counts.
    single_line_action: bool = False
    #: Append the env's finite action set (info["available_actions"]) to each observation.
    show_available_actions: bool = True
    #: Turns the expert's raw action into the thought a ReAct trajectory shows before it.
    expert_thought: Callable[[str], str] = field(default=lambda action: "I will do the next step of the plan.")
    #: Renders info["available_actions"] (an env may list its actions more compactly).
    render_actions: Callable[[Any], str] = field(default=lambda available: render_available_actions(available))
    #: The env's worked example (thought, action), repeated when a reply cannot be read.
    example: tuple[str, str] = ("", "")
    #: "step": a reply with no readable action is the action, whole (see AgentPrompt).
    reply_without_action: ReplyWithoutAction = "ask_again"

    def read(self, reply: str) -> ParsedReply:
        """The action in an agent's reply by this env's rules, or why there is none (then the
        agent is shown the reason and asked again)."""
        parsed = parse_react(reply, single_line=self.single_line_action)
        if parsed.ok or self.reply_without_action != "step":
            return parsed
        whole = strip_special_tokens(reply)
        return ParsedReply(parsed.thought, whole) if whole else parsed

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
    """AgentGym's "AVAILABLE ACTIONS: a, b, c" line; dict-shaped sets one key a line."""
    if isinstance(available, (list, tuple)) and available:
        return "AVAILABLE ACTIONS: " + ", ".join(str(a) for a in available)
    if isinstance(available, Mapping) and available:
        lines = [f"{key}: {value}" for key, value in available.items()]
        return "AVAILABLE ACTIONS:\n" + "\n".join(lines)
    return ""


GENERIC_INSTRUCTION = (
    "You are an agent solving a task by interacting with an environment. Each turn you see an "
    "observation and send one action; the environment answers with the next observation.\n"
    "Actions look like: {action_format}"
)


def expert_thoughts(spec: AgentPrompt) -> Callable[[str], str]:
    """The env's explanation of an expert action: its first matching rule, else its default."""
    rules = [(re.compile(rule.pattern), rule.thought) for rule in spec.expert_thoughts]

    def thought(action: str) -> str:
        stripped = action.strip()
        for pattern, template in rules:
            m = pattern.match(stripped)
            if m:
                return template.format(*m.groups(), action=stripped)
        return spec.expert_thought.format(action=stripped)

    return thought


def folded_actions(fold: ActionFold) -> Callable[[Any], str]:
    """An available-action list with the `fold.prefix` entries (e.g. one "go to" per receptacle,
    most of the list, all named in the observation) folded into one `fold.label`: the specific
    actions stay, at a fraction of the tokens."""
    last = frozenset(fold.listed_last)

    def render(available: Any) -> str:
        if not isinstance(available, (list, tuple)) or not available:
            return ""
        actions = [str(a) for a in available]
        specific = [a for a in actions if not a.startswith(fold.prefix) and a not in last]
        if any(a.startswith(fold.prefix) for a in actions):
            specific.append(fold.label)
        return "AVAILABLE ACTIONS: " + ", ".join(specific + sorted(last & set(actions)))

    return render


def prompt_for(
    env: str,
    action_format: str = "free text",
    example: Sequence[str] = ("", ""),
    spec: AgentPrompt | None = None,
) -> EnvPrompt:
    """The prompt an env's /info describes: its `agent_prompt` (instruction, reply rules, expert
    thoughts, action-list folding), its action format and its worked example."""
    spec = spec or AgentPrompt()
    thought, action = (list(example) + ["", ""])[:2]
    body = spec.instruction if spec.instruction is not None else GENERIC_INSTRUCTION.format(action_format=action_format)
    fold = spec.fold_actions
    return EnvPrompt(
        env=env,
        instruction=body + "\n" + react_format((thought, action)),
        example=(thought, action),
        single_line_action=spec.single_line_action,
        show_available_actions=spec.show_available_actions,
        expert_thought=expert_thoughts(spec),
        render_actions=folded_actions(fold) if fold else render_available_actions,
        reply_without_action=spec.reply_without_action,
    )


def prompt_from_info(info: InfoResponse) -> EnvPrompt:
    """The prompt of the env a server serves, from its GET /info."""
    return prompt_for(info.env, info.action_format, info.action_example, info.agent_prompt)
