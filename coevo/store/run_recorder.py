"""Recording rollout runs: one run row and its trajectories, for `coevo eval`, the demo and
AgentEvol's rollouts (or nothing, when recording is off, so callers need no branches)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol


class Recordable(Protocol):
    """A finished episode that can be stored (the client's Trajectory is one); the store takes
    plain dicts, so it does not depend on the client package."""

    def to_record(self) -> dict[str, Any]: ...


class RunRecorder:
    """Writes one rollout run and its trajectories to the SQL store (or nothing, when disabled)."""

    def __init__(self, db_url: str | None, *, enabled: bool = True) -> None:
        self.engine = None
        if enabled:
            from coevo.store import make_engine
            from coevo.store import rollouts  # noqa: F401  (registers the tables before create_all)

            self.engine = make_engine(db_url)

    def start(self, *, name: str, kind: str, policy: str, config: Mapping[str, Any]) -> str | None:
        if self.engine is None:
            return None
        from coevo.store.rollouts import create_run

        return create_run(self.engine, name=name, kind=kind, policy=policy, config=config)

    def save(self, run_id: str | None, trajectories: Sequence[Recordable], summary: Mapping[str, Any]) -> None:
        if self.engine is None or run_id is None:
            return
        from coevo.store.rollouts import finish_run, save_trajectories

        save_trajectories(self.engine, run_id, [t.to_record() for t in trajectories])
        finish_run(self.engine, run_id, summary)

    @property
    def url(self) -> str | None:
        return None if self.engine is None else self.engine.url.render_as_string(hide_password=True)
