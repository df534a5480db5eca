"""Replay the ground-truth API calls of recorded dialogues through the sandbox.

Each dialogue runs in a fresh session, its calls in order (so a later call sees what earlier ones
wrote), and each result is judged with API-Bank's own rule against the recorded one (the
corrected mode's rules: the original's DeleteMeeting rule can accept nothing). This is
the acceptance test of the sandbox: a faithful sandbox reproduces every recorded result that the
released databases and code can produce.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from coevo.envs.apibank.sandbox import SandboxSession, hints_from_record
from coevo.envs.apibank.scoring import is_correct
from coevo.envs.apibank.tasks import Dialogue


@dataclass
class ReplayMismatch:
    task_id: str
    turn: int
    api_name: str
    arguments: dict[str, Any]
    recorded: Any
    replayed: Any


@dataclass
class ReplayReport:
    calls: int = 0
    reproduced: int = 0
    by_api: dict[str, list[int]] = field(default_factory=dict)
    mismatches: list[ReplayMismatch] = field(default_factory=list)

    @property
    def accuracy(self) -> float:
        return self.reproduced / self.calls if self.calls else 0.0


def replay(dialogues: Iterable[Dialogue], resources: Any) -> ReplayReport:
    report = ReplayReport()
    for dialogue in dialogues:
        session = SandboxSession(resources, dialogue.level)
        for index in dialogue.api_turns:
            turn = dialogue.turns[index]
            outcome = session.call(turn.api_name, turn.param_dict, hints_from_record(turn.api_name, turn.result))
            ok = outcome.valid and is_correct(
                dialogue.level, turn.api_name, outcome.result, turn.result or {}, mode="corrected"
            )
            counts = report.by_api.setdefault(turn.api_name, [0, 0])
            counts[1] += 1
            report.calls += 1
            if ok:
                counts[0] += 1
                report.reproduced += 1
            else:
                report.mismatches.append(
                    ReplayMismatch(
                        dialogue.task_id,
                        index,
                        turn.api_name,
                        dict(turn.param_dict),
                        {k: (turn.result or {}).get(k) for k in ("output", "exception")},
                        {k: outcome.result.get(k) for k in ("output", "exception")},
                    )
                )
    return report
