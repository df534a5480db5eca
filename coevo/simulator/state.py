"""The simulator's state and its one job: draw tasks from pi_env, gate them, record them.

One instance per process, shared by every episode: the environment policy (hot-swappable), the
store, the base and held-out tasks, a cache of recorded tasks and the validity counters. The env
adapter (coevo.envs.simulator) serves it over the env protocol; a trainer reaches it through
that adapter, in process or over HTTP.
"""

from __future__ import annotations

import random
import threading
from collections import Counter, OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine

from coevo.simulator import records
from coevo.simulator.policies.base import EnvPolicy, Proposal
from coevo.simulator.task_record import SimTask
from coevo.simulator.validity import InvalidTask, check


class NoValidTask(RuntimeError):
    """No proposal passed the validity gate within the allowed attempts."""


@dataclass(frozen=True)
class GeneratedTask:
    task: SimTask
    generation_id: int
    context: dict[str, Any]
    output: str


class _LRU(OrderedDict):
    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def put(self, key: str, value: SimTask) -> None:
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.size:
            self.popitem(last=False)


@dataclass
class SimulatorState:
    """Per-process state every session shares: the policy (hot-swappable), the store, the
    base tasks, a cache of recorded tasks and the validity counters."""

    engine: Engine
    backend: str
    policy: EnvPolicy
    base: list[SimTask]
    base_sources: dict[str, str]
    max_attempts: int = 8
    heldout: list[SimTask] = field(default_factory=list)
    cache: _LRU = field(default_factory=lambda: _LRU(100_000))
    counters: Counter = field(default_factory=Counter)
    lock: threading.RLock = field(default_factory=threading.RLock)

    def __post_init__(self) -> None:
        self.base_index = {t.task_id: t for t in self.base}
        self.heldout_index = {t.task_id: t for t in self.heldout}

    # ------------------------------------------------------------------ lookup
    def lookup(self, task_id: str) -> SimTask | None:
        task = self.base_index.get(task_id) or self.heldout_index.get(task_id) or self.cache.get(task_id)
        if task is None:
            body = records.get_task_body(self.engine, task_id)
            if body is None:
                return None
            task = SimTask.from_json(body)
            with self.lock:
                self.cache.put(task_id, task)
        return task

    # ------------------------------------------------------------------ generation
    def _record(self, proposals: Sequence[Proposal], seed: int, errors: Counter | None = None) -> list[GeneratedTask]:
        """Gate, record (every attempt, and each valid task once) and count; the reasons of
        rejections are tallied into `errors`."""
        rows, accepted = [], []
        for proposal in proposals:
            error = proposal.error
            task = proposal.task if error is None else None
            if task is not None:
                try:
                    check(task)
                except InvalidTask as exc:
                    error, task = str(exc), None
            if error is not None and errors is not None:
                errors[error.split(":")[0][:80]] += 1
            valid = task is not None
            context = {k: v for k, v in proposal.context.items() if not k.startswith("_")}
            rows.append(
                records.SimGenerationRecord(
                    task_id=task.task_id if task is not None else None,
                    valid=valid,
                    error=error,
                    backend=self.backend,
                    policy_version=self.policy.version,
                    seed=seed,
                    context=context,
                    output=proposal.output,
                )
            )
            accepted.append(proposal if valid else None)
        ids = records.add_generations(self.engine, rows)
        out = []
        for p, gen_id, row in zip(accepted, ids, rows):
            self.counters["attempts"] += 1
            if p is None:
                self.counters["invalid"] += 1
                continue
            self.counters["valid"] += 1
            task = p.task
            assert task is not None
            meta = {**task.meta, "backend": self.backend, "policy_version": row.policy_version}
            task = SimTask(task.family, task.prompt, task.answer, task.checker, task.tools, task.choices, meta)
            records.put_task(self.engine, task.task_id, task.family, task.checker, task.to_json())
            self.cache.put(task.task_id, task)
            out.append(GeneratedTask(task, gen_id, row.context, p.output))
        return out

    def generate(self, count: int, seed: int, family: str | None = None, fill: bool = True) -> dict[str, Any]:
        """`count` valid tasks when `fill` (drawing more rounds, up to max_attempts), else
        whatever one round of `count` proposals yields."""
        if count < 1:
            raise ValueError("count must be >= 1")
        made: list[GeneratedTask] = []
        attempts = 0
        errors: Counter = Counter()
        with self.lock:
            for round_ in range(self.max_attempts if fill else 1):
                want = count - len(made)
                if want <= 0:
                    break
                round_seed = seed if round_ == 0 else _derive(seed, round_)
                proposals = self.policy.propose(want, round_seed, family)
                attempts += len(proposals)
                made += self._record(proposals, round_seed, errors)
        return {"generated": made, "attempts": attempts, "valid": len(made), "errors": dict(errors.most_common(8))}

    def generate_one(self, seed: int, family: str | None = None) -> SimTask:
        with self.lock:
            for attempt in range(self.max_attempts):
                attempt_seed = seed if attempt == 0 else _derive(seed, attempt)
                made = self._record(self.policy.propose(1, attempt_seed, family), attempt_seed)
                if made:
                    return made[0].task
        raise NoValidTask(f"no valid task in {self.max_attempts} attempts for seed {seed}")


def _derive(seed: int, round_: int) -> int:
    return random.Random(f"{seed}/{round_}").randrange(2**62)
