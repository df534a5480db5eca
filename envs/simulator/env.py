"""The generative environment simulator as an env server (`coevo serve simulator`).

- reset without a task id (or with split "generated") draws a NEW task from the environment
  policy pi_env, seeded by the reset seed; the task is validity-gated, recorded in the SQL store
  under a content-addressed id, and served. Same seed and same weights: same task.
- reset with a task id replays a recorded (or base) task exactly — any episode can be replayed
  from (task_id, seed, actions), whatever the policy has become since.
- step scores the answer with the agent reward (tool-call match, exact match or token F1, in
  [0, 1]) and ends the episode.
- admin commands (POST /admin/{command}, behind the server's token): `load_policy` hot-loads
  new pi_env weights, `generate` draws a validity-gated batch, `set_context` sets the LLM
  policy's difficulty context, `stats` and `policy` report.

Splits: "base" (the base tasks: procedural samples or single steps of other envs, in memory),
"generated" (everything recorded in the store) and "heldout" (tasks of combinations that no
training generation produces, for evaluation only; tasks.heldout_tasks).
"""

from __future__ import annotations

import random
import threading
from collections import Counter, OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from sqlalchemy import Engine

from coevo.envs.base import Env, EnvError, InvalidPayload, ResetResult, StepResult, UnknownTask
from coevo.envs.simulator.admin_payloads import MAX_BATCH, Generate, LoadPolicy
from coevo.envs.simulator.expert import gold_answer_text
from coevo.envs.simulator.policies.base import EnvPolicy, Proposal
from coevo.envs.simulator.scoring import score
from coevo.envs.simulator.task_record import SimTask
from coevo.envs.simulator.tasks import build_base_pool, heldout_tasks
from coevo.envs.simulator.validity import InvalidTask, check
from coevo.store import genenv as store
from coevo.store.db import make_engine

PayloadT = TypeVar("PayloadT", bound=BaseModel)

GENERATED = "generated"
BASE = "base"
HELDOUT = "heldout"
#: Largest "heldout" split per family (it is built in memory when the server starts).
MAX_HELDOUT_SIZE = 10_000


class GenerationFailed(EnvError):
    code = "generation_failed"


class BadAdminPayload(InvalidPayload):
    """A load_policy path that would not load, or a payload of the wrong shape (HTTP 422)."""


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
class SimulatorShared:
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
            body = store.get_task_body(self.engine, task_id)
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
                store.SimGenerationRecord(
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
        ids = store.add_generations(self.engine, rows)
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
            store.put_task(self.engine, task.task_id, task.family, task.checker, task.to_json())
            self.cache.put(task.task_id, task)
            out.append(GeneratedTask(task, gen_id, row.context, p.output))
        return out

    def generate(self, count: int, seed: int, family: str | None = None, fill: bool = True) -> dict[str, Any]:
        """`count` valid tasks when `fill` (drawing more rounds, up to max_attempts), else
        whatever one round of `count` proposals yields."""
        if not 1 <= count <= MAX_BATCH:
            raise BadAdminPayload(f"count must be between 1 and {MAX_BATCH}")
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
        raise GenerationFailed(f"no valid task in {self.max_attempts} attempts for seed {seed}")


def _derive(seed: int, round_: int) -> int:
    return random.Random(f"{seed}/{round_}").randrange(2**62)


def _payload(model: type[PayloadT], payload: Mapping[str, Any]) -> PayloadT:
    """The payload checked by its model; in-process callers (LocalSimulator) get the same rules
    the server applies (without the path confinement, which is the server's)."""
    try:
        return model.model_validate(dict(payload))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "payload"
        raise BadAdminPayload(f"{where}: {first['msg']}") from None


def _split_list(value: str | Sequence[str] | None, default: Sequence[str]) -> list[str]:
    if value is None:
        return list(default)
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return list(value)


class SimulatorEnv(Env):
    name = "simulator"
    version = "1"
    action_format = "the answer to the task: a function call name(arg=value), an action, or text"
    max_steps = 1
    default_split = BASE
    heldout_splits = (HELDOUT,)
    cpu_heavy = True

    # ------------------------------------------------------------------ shared data
    @classmethod
    def load_shared(
        cls,
        backend: str = "parametric",
        families: str | Sequence[str] | None = None,
        policy_path: str | None = None,
        db_url: str | None = None,
        base_sources: str | Sequence[str] | None = None,
        base_size: int = 64,
        base_seed: int = 0,
        llm_model: str | None = None,
        llm_endpoint: str | None = None,
        llm_api_key: str | None = None,
        llm_temperature: float = 0.8,
        llm_max_new_tokens: int = 256,
        llm_examples: int = 2,
        max_attempts: int = 8,
        heldout_size: int = 1000,
        **_: Any,
    ) -> SimulatorShared:
        """Options (all also `--option key=value` on `coevo serve simulator`):
        backend: "parametric" (knob distribution over `families`) or "llm";
        policy_path: saved weights to start from (a policy JSON, or a model directory);
        base_sources: families and/or env names whose tasks form the base split (and the LLM's
        examples); llm_model: local model directory; llm_endpoint: an OpenAI-compatible URL
        (then llm_model names the served model); heldout_size: tasks per family in the
        "heldout" split (0 to 10,000)."""
        engine = make_engine(db_url)
        family_list = _split_list(families, ["function_calling"])
        sources = _split_list(
            base_sources, family_list if backend == "parametric" else [*family_list, "bfcl", "alfworld"]
        )
        base, status = build_base_pool(sources, int(base_size), int(base_seed))
        policy: EnvPolicy
        if backend == "parametric":
            from coevo.envs.simulator.policies.parametric import ParametricPolicy

            policy = ParametricPolicy(family_list)
            if policy_path:
                policy.load(policy_path)
        elif backend == "llm":
            from coevo.envs.simulator.policies.llm import LLMPolicy
            from coevo.models.text_generators import OpenAIGenerator, TransformersGenerator

            model = policy_path or llm_model
            if not model:
                raise ValueError("the llm backend needs llm_model (or policy_path): a model directory or served name")
            generator = (
                OpenAIGenerator(llm_endpoint, model, llm_api_key) if llm_endpoint else TransformersGenerator(model)
            )
            policy = LLMPolicy(
                generator,
                base,
                examples_per_prompt=int(llm_examples),
                max_new_tokens=int(llm_max_new_tokens),
                temperature=float(llm_temperature),
            )
        else:
            raise ValueError(f"unknown backend {backend!r}: parametric or llm")
        if not 0 <= int(heldout_size) <= MAX_HELDOUT_SIZE:
            raise ValueError(f"heldout_size must be in [0, {MAX_HELDOUT_SIZE}]")
        heldout = heldout_tasks(family_list, int(heldout_size))
        return SimulatorShared(engine, backend, policy, base, status, max_attempts=int(max_attempts), heldout=heldout)

    admin_payloads = {"load_policy": LoadPolicy, "generate": Generate}

    @classmethod
    def admin(cls, shared: SimulatorShared, command: str, payload: Mapping[str, Any]) -> dict[str, Any]:
        if command == "load_policy":
            path = _payload(LoadPolicy, payload).path
            with shared.lock:
                try:
                    shared.policy.load(path)
                except (OSError, ValueError, KeyError) as exc:
                    raise BadAdminPayload(f"cannot load {path}: {exc}") from exc
                shared.counters["loads"] += 1
                return {"version": shared.policy.version}
        if command == "generate":
            gen = _payload(Generate, payload)
            result = shared.generate(gen.count, gen.seed, gen.family, fill=gen.fill)
            return {
                "tasks": [
                    {
                        "task_id": g.task.task_id,
                        "family": g.task.family,
                        "generation_id": g.generation_id,
                        "context": g.context,
                        "output": g.output,
                    }
                    for g in result["generated"]
                ],
                "attempts": result["attempts"],
                "valid": result["valid"],
                "errors": result["errors"],
                "policy_version": shared.policy.version,
            }
        if command == "set_context":
            if not hasattr(shared.policy, "context"):
                raise BadAdminPayload(f"the {shared.backend} policy takes no difficulty context")
            shared.policy.context = dict(payload)
            return {"context": dict(payload)}
        if command == "stats":
            attempts = shared.counters["attempts"]
            return {
                "backend": shared.backend,
                "policy_version": shared.policy.version,
                "attempts": attempts,
                "valid": shared.counters["valid"],
                "invalid": shared.counters["invalid"],
                "validity_rate": shared.counters["valid"] / attempts if attempts else None,
                "policy_loads": shared.counters["loads"],
                "base_tasks": len(shared.base),
                "base_sources": shared.base_sources,
            }
        if command == "policy":
            return shared.policy.describe()
        return super().admin(shared, command, payload)

    # ------------------------------------------------------------------ catalogue
    def splits(self) -> Mapping[str, int]:
        return {
            BASE: len(self.shared.base),
            GENERATED: store.count_tasks(self.shared.engine),
            HELDOUT: len(self.shared.heldout),
        }

    def task_ids(self, split: str, offset: int = 0, limit: int | None = None) -> Sequence[str]:
        if split == BASE:
            stop = None if limit is None else offset + limit
            return [t.task_id for t in self.shared.base[offset:stop]]
        if split == GENERATED:
            return store.list_task_ids(self.shared.engine, offset, limit)
        if split == HELDOUT:
            stop = None if limit is None else offset + limit
            return [t.task_id for t in self.shared.heldout[offset:stop]]
        raise UnknownTask(f"unknown split {split!r}")

    def split_of(self, task_id: str) -> str:
        if task_id in self.shared.base_index:
            return BASE
        if task_id in self.shared.heldout_index:
            return HELDOUT
        if self.shared.lookup(task_id) is not None:
            return GENERATED
        raise UnknownTask(f"unknown task id {task_id!r}")

    def describe_task(self, task_id: str) -> dict[str, Any]:
        task = self.shared.lookup(task_id)
        if task is None:
            raise UnknownTask(f"unknown task id {task_id!r}")
        return {"family": task.family, "checker": task.checker, **{k: v for k, v in task.meta.items() if k == "knobs"}}

    # ------------------------------------------------------------------ episodes
    def reset(self, task_id: str | None = None, seed: int | None = None, split: str | None = None) -> ResetResult:
        if task_id is None and split in (None, GENERATED):
            if seed is None:
                seed = random.SystemRandom().randrange(2**31)
            task_id = self.shared.generate_one(seed).task_id
            split = None
        return super().reset(task_id=task_id, seed=seed, split=split)

    def _reset(self, task_id: str, seed: int) -> ResetResult:
        task = self.shared.lookup(task_id)
        if task is None:
            raise UnknownTask(f"unknown task id {task_id!r}")
        self.task = task
        info: dict[str, Any] = {"task": task.prompt, "family": task.family, "checker": task.checker}
        if task.choices:
            info["available_actions"] = list(task.choices)
        return ResetResult(task.prompt, info)

    def _step(self, action: str) -> StepResult:
        reward = score(self.task, action)
        if reward >= 1.0:
            feedback = "Correct."
        elif reward <= 0.0:
            feedback = "Incorrect."
        else:
            feedback = f"Partly correct (score {reward:.2f})."
        return StepResult(feedback, reward, True, info={"score": reward})

    def expert_action(self) -> str | None:
        if self.task_id is None or self.done:
            return None
        return gold_answer_text(self.task)
