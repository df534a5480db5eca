"""The call record AgentBoard's tool envs keep (`action_path`): one entry per tool call, the
subgoal it produced included, which the progress rate reads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CallRecord:
    """One logged tool call: `Action`, `Action Input` (the kwargs' repr), `Observation`, `Subgoal`."""

    action: str
    action_input: str
    observation: Any
    subgoal: Any

    def as_dict(self) -> dict[str, Any]:
        return {
            "Action": self.action,
            "Action Input": self.action_input,
            "Observation": self.observation,
            "Subgoal": self.subgoal,
        }


def failed_subgoal(tool: str, kwargs: dict[str, Any]) -> str:
    """The subgoal of a call that failed, in the original's words."""
    return f"Calling {tool} with {kwargs} failed"
