"""The trainer's view of a simulator: in this process, or a `coevo serve simulator` over HTTP.

Both speak the env protocol for episodes (reset with a task id, step with the answer, read
the reward) and the admin commands for the rest (generate a batch, hot-load weights, set the
curriculum context). In process the env comes from the registry, as the server gets it, and
its admin commands are called directly, with the same payload checks the server applies; so
the same seeds give the same run either way (tests/genenv/test_local_and_remote_runs.py).
Each arm of a run gets its own simulator, so each has its own pi_env.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from collections.abc import Sequence
from typing import Any, Protocol

from coevo.simulator.curriculum_context import CurriculumContext
from coevo.simulator.state import SimulatorState


@dataclass
class BatchTask:
    task_id: str
    family: str
    prompt: str
    #: What pi_env was conditioned on, and what it produced (for D_env and the RWR update).
    context: dict[str, Any]
    output: str


@dataclass
class TaskBatch:
    tasks: list[BatchTask]
    attempts: int
    valid: int
    policy_version: str
    #: Tasks the trainer replays beside the fresh ones (GenEnvTrainer._batch): past tasks of the
    #: arm from D_train, and base tasks. Not generated now, so not part of the validity counts.
    replayed: list[BatchTask] = field(default_factory=list)
    replayed_base: list[BatchTask] = field(default_factory=list)

    @property
    def validity_rate(self) -> float:
        return self.valid / self.attempts if self.attempts else 0.0


class Simulator(Protocol):
    def generate(self, count: int, seed: int, family: str | None = None) -> TaskBatch: ...
    def score(self, pairs: list[tuple[str, str]]) -> Sequence[float | None]:
        """The reward of each (task id, answer); None only where the env gave no verdict (a
        real-task arm's unscored episode, coevo.genenv.real_tasks): never learned from as 0."""
        ...

    def expert(self, task_id: str) -> str | None:
        """The gold answer of a generated or base task (None where it has none)."""
        ...

    def demo(self, family: str) -> tuple[str, str] | None:
        """The family's first base task (its worked example), solved: the agent's one-shot demo."""
        ...

    def base_tasks(self, count: int, seed: int) -> list[BatchTask]:
        """A seeded sample of `count` of the simulator's base tasks (all of them if fewer)."""
        ...

    def load_policy(self, path: str) -> str: ...
    def set_context(self, context: CurriculumContext) -> None:
        """Tell pi_env where the curriculum aims and how the agent fares (the LLM policy's
        difficulty context)."""
        ...

    def policy_info(self) -> dict[str, Any]: ...
    def close(self) -> None: ...


def _base_family(family: str) -> str:
    return family.split(":", 1)[1] if family.startswith("llm:") else family


class _AdminCommands:
    """The simulator-wide operations, which both kinds send as admin commands."""

    def _admin(self, command: str, payload: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def _prompt(self, task_id: str) -> str:
        raise NotImplementedError

    def _base_entries(self) -> list[tuple[str, str, dict[str, Any]]]:
        """(task id, family, knobs) of every base task, in the simulator's order."""
        raise NotImplementedError

    def base_tasks(self, count: int, seed: int) -> list[BatchTask]:
        entries = self._base_entries()
        chosen = random.Random(f"base-replay:{seed}").sample(entries, min(count, len(entries)))
        return [
            BatchTask(task_id, family, self._prompt(task_id), {"source": "base", "family": family, "knobs": knobs}, "")
            for task_id, family, knobs in chosen
        ]

    def generate(self, count: int, seed: int, family: str | None = None) -> TaskBatch:
        return _batch(self._admin("generate", {"count": count, "seed": seed, "family": family}), self._prompt)

    def load_policy(self, path: str) -> str:
        return str(self._admin("load_policy", {"path": path})["version"])

    def set_context(self, context: CurriculumContext) -> None:
        self._admin("set_context", context.model_dump())

    def policy_info(self) -> dict[str, Any]:
        return self._admin("policy", {})


class LocalSimulator(_AdminCommands):
    """The simulator env built in this process (its own policy instance), through the registry
    as the server builds it; not `registry.make`, which would share one pi_env between arms."""

    def __init__(self, options: dict[str, Any]) -> None:
        from coevo.envs import registry

        self._cls = registry.spec("simulator").load()
        self.shared: SimulatorState = self._cls.load_shared(**options)
        self._env = self._cls(shared=self.shared, **options)

    def _admin(self, command: str, payload: dict[str, Any]) -> dict[str, Any]:
        return self._cls.admin(self.shared, command, payload)

    def _prompt(self, task_id: str) -> str:
        return self._env.reset(task_id=task_id, seed=0).observation

    def _base_entries(self) -> list[tuple[str, str, dict[str, Any]]]:
        return [(t.task_id, t.family, dict(t.meta.get("knobs") or {})) for t in self.shared.base]

    def score(self, pairs: list[tuple[str, str]]) -> list[float]:
        rewards = []
        for task_id, answer in pairs:
            self._env.reset(task_id=task_id, seed=0)
            rewards.append(self._env.step(answer).reward)
        return rewards

    def expert(self, task_id: str) -> str | None:
        self._env.reset(task_id=task_id, seed=0)
        return self._env.expert_action()

    def demo(self, family: str) -> tuple[str, str] | None:
        base = _base_family(family)
        task = next((t for t in self.shared.base if t.family == base), None)
        if task is None:
            return None
        answer = self.expert(task.task_id)
        return (task.prompt, answer) if answer else None

    def close(self) -> None:
        self.shared.engine.dispose()


class RemoteSimulator(_AdminCommands):
    """A simulator server: episodes through EnvClient, admin commands with the bearer token."""

    def __init__(self, url: str, token: str, timeout: float = 600.0, http: Any = None) -> None:
        """`http`: an httpx.Client to send through (default: a new one)."""
        import httpx

        from coevo.client import EnvClient

        self._http = http or httpx.Client(timeout=timeout)
        self.client = EnvClient(url, timeout=timeout, http=self._http)
        self.url = url.rstrip("/")
        self._auth = {"Authorization": f"Bearer {token}"}

    def _admin(self, command: str, payload: dict[str, Any]) -> dict[str, Any]:
        response = self._http.post(f"{self.url}/admin/{command}", json=payload, headers=self._auth)
        if response.status_code != 200:
            raise RuntimeError(f"admin {command} failed ({response.status_code}): {response.text[:500]}")
        return dict(response.json()["result"])

    def _prompt(self, task_id: str) -> str:
        with self.client.create(task_id=task_id, seed=0) as session:
            return session.observation

    def _base_entries(self) -> list[tuple[str, str, dict[str, Any]]]:
        entries: list[tuple[str, str, dict[str, Any]]] = []
        while True:
            page = self.client.tasks("base", len(entries), 100)
            entries += [(e.task_id, str(e.meta.get("family", "")), dict(e.meta.get("knobs") or {})) for e in page.tasks]
            if not page.tasks or len(entries) >= page.total:
                return entries

    def score(self, pairs: list[tuple[str, str]]) -> list[float]:
        sessions = [self.client.create(task_id=task_id, seed=0) for task_id, _ in pairs]
        try:
            results = self.client.batch_step([(s.session_id, answer) for s, (_, answer) in zip(sessions, pairs)])
        finally:
            for s in sessions:
                s.close()
        rewards = []
        for r in results:
            if not r.ok or r.result is None:
                raise RuntimeError(f"scoring failed: {r.error}")
            rewards.append(r.result.reward)
        return rewards

    def expert(self, task_id: str) -> str | None:
        with self.client.create(task_id=task_id, seed=0) as session:
            return session.expert_action()

    def demo(self, family: str) -> tuple[str, str] | None:
        base, offset = _base_family(family), 0
        while True:
            page = self.client.tasks("base", offset, 100)
            for entry in page.tasks:
                if entry.meta.get("family") == base:
                    with self.client.create(task_id=entry.task_id, seed=0) as session:
                        answer = session.expert_action()
                        return (session.observation, answer) if answer else None
            offset += len(page.tasks)
            if not page.tasks or offset >= page.total:
                return None

    def close(self) -> None:
        self.client.close()


def _batch(result: dict[str, Any], prompt_of: Any) -> TaskBatch:
    tasks = [
        BatchTask(t["task_id"], t["family"], prompt_of(t["task_id"]), dict(t["context"]), t["output"])
        for t in result["tasks"]
    ]
    return TaskBatch(tasks, int(result["attempts"]), int(result["valid"]), str(result["policy_version"]))
