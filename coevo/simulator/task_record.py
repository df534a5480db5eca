"""The task record: what the agent sees, the gold answer, and how an answer is scored.

Task ids are content-addressed: a hash of the fields that decide the episode (prompt, answer,
checker, tools, choices). The same content always gets the same id, in any process, so an id
is enough to find the task in the store and replay its episode exactly. Its own module, below
the families that build tasks and the task source (tasks.py) that draws from them.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any

#: How an answer is scored (see coevo.simulator.scoring).
CHECKERS = ("tool_call", "exact", "f1")


def unknown_parameters(schema: dict[str, Any], arguments: Any) -> set[str]:
    """The argument names a tool schema does not list (one without "params" lists none): a gold
    call with any is invalid, a predicted call with any is wrong."""
    return set(arguments) - set(schema.get("params", []))


@dataclass(frozen=True)
class SimTask:
    #: Which generator made it: a procedural family ("function_calling") or "llm:<base family>".
    family: str
    #: The observation the agent gets.
    prompt: str
    #: "tool_call": list of {"name", "arguments"}; "exact": list of accepted strings; "f1": list
    #: of reference strings (the best match counts).
    answer: Any
    checker: str
    #: Function schemas for tool calls: [{"name", "params": [names in positional order]}].
    tools: list[dict[str, Any]] | None = None
    #: A finite action set, when the task has one (shown as info["available_actions"]).
    choices: list[str] | None = None
    #: Metadata that does not change the episode: generator knobs, base task ids, backend.
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def task_id(self) -> str:
        return task_id_of(self.content())

    def content(self) -> dict[str, Any]:
        """The fields that decide the episode (and so the id)."""
        return {
            "family": self.family,
            "prompt": self.prompt,
            "answer": self.answer,
            "checker": self.checker,
            "tools": self.tools,
            "choices": self.choices,
        }

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SimTask:
        return cls(
            family=data["family"],
            prompt=data["prompt"],
            answer=data["answer"],
            checker=data["checker"],
            tools=data.get("tools"),
            choices=data.get("choices"),
            meta=dict(data.get("meta") or {}),
        )


def task_id_of(content: dict[str, Any]) -> str:
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sim-" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:24]
