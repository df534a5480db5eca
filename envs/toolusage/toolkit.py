"""A toolkit: the functions one tool env offers, each returning (success, result) as AgentBoard's
toolkits do, and the dispatch that reads their arguments from the parsed input.

The arguments are read one by one in the order the original's env reads them (`params["x"]`),
so a missing one raises the same KeyError and an input of the wrong kind (a list, a string,
None) the same TypeError as there. A successful call's subgoal is its result, cleaned by the
toolkit's `subgoal` (Weather drops the temperature series); a failed call's is the failure text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from coevo.envs.toolusage.record import CallRecord, failed_subgoal
from coevo.envs.toolusage.spec import ToolSpec


class Toolkit:
    """Subclasses define one method per tool spec (same name), returning (success, result)."""

    def __init__(self, specs: Sequence[ToolSpec]) -> None:
        self.specs = {spec.name: spec for spec in specs}
        self.record: list[CallRecord] = []

    def knows(self, name: str) -> bool:
        return name in self.specs

    def subgoal(self, tool: str, result: Any) -> Any:
        """The subgoal a successful call leaves in the record; default: the result itself."""
        return result

    def call(self, name: str, params: Any) -> Any:
        """Run tool `name` with the parsed input, record it and return its result (raises
        whatever reading the input or the tool raises; the env turns that into text)."""
        spec = self.specs[name]
        kwargs = {arg: params[arg] for arg in spec.reads}
        method: Callable[..., tuple[bool, Any]] = getattr(self, name)
        success, result = method(**kwargs)
        subgoal = self.subgoal(name, result) if success else failed_subgoal(name, kwargs)
        self.record.append(CallRecord(name, str(kwargs), result, subgoal))
        return result

    def subgoals(self) -> list[Any]:
        return [entry.subgoal for entry in self.record]

    @staticmethod
    def finish(answer: Any) -> tuple[bool, Any]:
        """`finish`: the answer itself (a list sorted, as the original sorts it)."""
        if isinstance(answer, list):
            answer = sorted(answer)  # a mixed list raises TypeError there too
        return True, answer
