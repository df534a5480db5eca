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
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from coevo.envs.base import Env, EnvError, InvalidPayload, ResetResult, StepResult, UnknownTask
from coevo.envs.simulator.admin_payloads import Generate, LoadPolicy
from coevo.simulator import records
from coevo.simulator.build import build_state
from coevo.simulator.curriculum_context import CurriculumContext
from coevo.simulator.expert import gold_answer_text
from coevo.simulator.scoring import score
from coevo.simulator.state import NoValidTask, SimulatorState

PayloadT = TypeVar("PayloadT", bound=BaseModel)

GENERATED = "generated"
BASE = "base"
HELDOUT = "heldout"


class GenerationFailed(EnvError):
    code = "generation_failed"


class BadAdminPayload(InvalidPayload):
    """A load_policy path that would not load, or a payload of the wrong shape (HTTP 422)."""


def _payload(model: type[PayloadT], payload: Mapping[str, Any]) -> PayloadT:
    """The payload checked by its model; in-process callers (LocalSimulator) get the same rules
    and the same message the server gives (`field: reason`, up to five), without the path
    confinement, which is the server's."""
    try:
        return model.model_validate(dict(payload), strict=True)
    except ValidationError as exc:
        reasons = [f"{'.'.join(str(p) for p in e['loc']) or 'payload'}: {e['msg']}" for e in exc.errors()[:5]]
        raise BadAdminPayload("; ".join(reasons)) from None


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
    def load_shared(cls, **options: Any) -> SimulatorState:
        """The simulator built from its options (coevo.simulator.build.build_state lists them;
        all are also `--option key=value` on `coevo serve simulator`)."""
        return build_state(**options)

    admin_payloads = {"load_policy": LoadPolicy, "generate": Generate, "set_context": CurriculumContext}

    @classmethod
    def admin(cls, shared: SimulatorState, command: str, payload: Mapping[str, Any]) -> dict[str, Any]:
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
            context = _payload(CurriculumContext, payload)
            if not hasattr(shared.policy, "context"):
                raise BadAdminPayload(f"the {shared.backend} policy takes no difficulty context")
            shared.policy.context = context
            return {"context": context.model_dump()}
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
            GENERATED: records.count_tasks(self.shared.engine),
            HELDOUT: len(self.shared.heldout),
        }

    def task_ids(self, split: str, offset: int = 0, limit: int | None = None) -> Sequence[str]:
        if split == BASE:
            stop = None if limit is None else offset + limit
            return [t.task_id for t in self.shared.base[offset:stop]]
        if split == GENERATED:
            return records.list_task_ids(self.shared.engine, offset, limit)
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
            try:
                task_id = self.shared.generate_one(seed).task_id
            except NoValidTask as exc:
                raise GenerationFailed(str(exc)) from None
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
