"""`check_env`: the env contract, checked in process, for plugin authors and the tests.

Like Gymnasium's `check_env`, it takes an env (a registered name, "module:Class", or an `Env`
subclass), plays a few short episodes and checks what the platform relies on (docs/protocol.md):
the declarations, the task catalogue, determinism by seed, snapshot/restore, refusal after the
end, the step cap and the AgentGym profile. Every check runs, and a failure names the check and
what it saw, so one run lists everything to fix. Envs know nothing of HTTP and neither does this;
the HTTP contract is tests/server/test_contract.py.

Episodes are played with the env's expert where it has one, else with `probe_action`, an action
no env should take for a real one (a bad action is an observation, not an exception).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from coevo.envs import registry
from coevo.envs.agentgym import AgentGymAdapter, AgentGymProfile
from coevo.envs.base import (
    Env,
    EpisodeFinished,
    EpisodeNotStarted,
    ResetResult,
    StepResult,
    UnknownSplit,
    UnknownTask,
)

#: What the checks play when the env has no expert, and to run episodes into the step cap.
PROBE_ACTION = "check_env: this is not an action"
#: Caps above this are treated as "no cap": the step-cap check is skipped, not played out.
PLAYABLE_CAP = 1000
#: Steps the determinism and snapshot checks play before they compare.
COMPARED_STEPS = 4

EnvFactory = Callable[[], Env]


class CheckFailed(Exception):
    """One check's finding: what the env did against what the contract wants."""


@dataclass(frozen=True)
class EnvCheckReport:
    """What `check_env` found: the checks passed, skipped (with why) and failed (with what)."""

    env: str
    passed: tuple[str, ...] = ()
    skipped: dict[str, str] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.failures

    def __str__(self) -> str:
        lines = [f"check_env({self.env}): {len(self.passed)} passed, {len(self.failures)} failed"]
        lines += [f"  FAILED {name}: {why}" for name, why in self.failures.items()]
        lines += [f"  skipped {name}: {why}" for name, why in self.skipped.items()]
        return "\n".join(lines)


class EnvCheckFailed(AssertionError):
    """Raised by `check_env` when a check fails; `report` holds every finding."""

    def __init__(self, report: EnvCheckReport) -> None:
        super().__init__(str(report))
        self.report = report

    @property
    def failures(self) -> dict[str, str]:
        return self.report.failures


class _Skip(Exception):
    """A check that cannot run on this env (say why)."""


@dataclass
class _Subject:
    """The env under check: its class, a factory of instances sharing one load of data, and the
    actions the checks play."""

    cls: type[Env]
    make: EnvFactory
    seed: int
    probe: str

    def action(self, env: Env) -> str:
        """The expert's next action, or the probe where it has none."""
        expert = env.expert_action()
        return self.probe if expert is None else expert

    def play(self, env: Env, steps: int) -> list[StepResult]:
        """Up to `steps` steps (fewer if the episode ends)."""
        results: list[StepResult] = []
        while len(results) < steps and not env.done:
            results.append(env.step(self.action(env)))
        return results


def _fields(result: ResetResult | StepResult) -> tuple[Any, ...]:
    if isinstance(result, ResetResult):
        return (result.observation, result.info)
    return (result.observation, result.reward, result.done, result.truncated, result.info)


def _expect(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def _raises(kind: type[Exception], call: Callable[[], object], what: str) -> None:
    try:
        call()
    except kind:
        return
    except Exception as exc:
        raise CheckFailed(f"{what} raised {type(exc).__name__} ({exc}), not {kind.__name__}") from None
    raise CheckFailed(f"{what} did not raise {kind.__name__}")


#: Env attributes of the AgentGym compatibility before `AgentGymProfile`: an env still setting
#: one would be served as if it had declared nothing, so the check names the profile's field.
RETIRED_AGENTGYM_ATTRIBUTES = {
    "agentgym_style": "style",
    "agentgym_indices": "indices",
    "agentgym_hello": "hello",
    "agentgym_extra_fields": "extra_fields",
    "agentgym_step_info": "step_info",
    "agentgym_steps_after_done": "steps_after_done",
    "agentgym_finished_error": "finished_error",
    "agentgym_observation": "adapter's observation()",
    "agentgym_reset_fields": "adapter's reset_fields()",
    "agentgym_step_fields": "adapter's step_fields()",
    "agentgym_instruction_text": "adapter's instruction_text()",
}


# ---------------------------------------------------------------------------- the checks
def check_declarations(s: _Subject) -> None:
    """Class attributes clients and trainers read: name, action format, cap, splits."""
    cls = s.cls
    retired = [
        f"{name} (now the profile's {RETIRED_AGENTGYM_ATTRIBUTES[name]})"
        for name in RETIRED_AGENTGYM_ATTRIBUTES
        if hasattr(cls, name)
    ]
    _expect(
        not retired,
        f"declares AgentGym attributes that are read no more: {', '.join(retired)};"
        " declare agentgym_profile = AgentGymProfile(...) (envs/agentgym.py)",
    )
    _expect(isinstance(getattr(cls, "name", None), str) and bool(cls.name), "name is not a non-empty string")
    _expect(bool(cls.action_format), "action_format is empty")
    env = s.make()
    _expect(isinstance(env.max_steps, int) and env.max_steps >= 1, f"max_steps is {env.max_steps!r}, not >= 1")
    splits = dict(env.splits())
    _expect(bool(splits), "splits() is empty")
    bad = {k: v for k, v in splits.items() if not isinstance(v, int) or isinstance(v, bool) or v < 0}
    _expect(not bad, f"splits() counts are not task counts: {bad}")
    _expect(cls.default_split in splits, f"default_split {cls.default_split!r} is not a split ({sorted(splits)})")
    if cls.train_split is not None:
        _expect(cls.train_split in splits, f"train_split {cls.train_split!r} is not a split ({sorted(splits)})")
        _expect(cls.train_split not in cls.heldout_splits, f"train_split {cls.train_split!r} is held out")


def check_task_ids(s: _Subject) -> None:
    """Task ids page consistently, belong to their split, and unknown ids and splits are refused."""
    env = s.make()
    for split, count in env.splits().items():
        if count == 0:
            continue
        head = list(env.task_ids(split, 0, min(3, count)))
        _expect(len(head) == min(3, count), f"task_ids({split!r}, 0, {min(3, count)}) gave {len(head)} ids")
        _expect(all(isinstance(t, str) and t for t in head), f"task ids of {split!r} are not strings: {head}")
        _expect(len(set(head)) == len(head), f"task_ids({split!r}) repeats an id: {head}")
        if count >= 2:
            second = list(env.task_ids(split, 1, 1))
            _expect(second == head[1:2], f"task_ids({split!r}, 1, 1) is {second}, not {head[1:2]} (offset ignored?)")
        last = list(env.task_ids(split, count - 1, 1))
        _expect(len(last) == 1, f"task_ids({split!r}, {count - 1}, 1) gave {last}: the split has {count} tasks")
        past = list(env.task_ids(split, count, 1))
        _expect(not past, f"task_ids({split!r}, {count}, 1) gave {past}, past the split's {count} tasks")
        for task_id in (head[0], last[0]):
            found = env.split_of(task_id)
            _expect(found == split, f"split_of({task_id!r}) is {found!r}, not {split!r}")
            _expect(isinstance(env.describe_task(task_id), Mapping), f"describe_task({task_id!r}) is not a mapping")
        started = env.reset(task_id=head[0], seed=s.seed)
        got = (started.info.get("task_id"), started.info.get("split"))
        _expect(got == (head[0], split), f"reset(task_id={head[0]!r}) reports task and split {got}")
    _raises(UnknownTask, lambda: env.reset(task_id="check_env: no such task"), "reset with an unknown task id")
    _raises(UnknownSplit, lambda: env.reset(split="check_env: no such split"), "reset with an unknown split")


def check_seed_determinism(s: _Subject) -> None:
    """The same seed gives the same task and observations, and the same actions the same results."""
    a, b = s.make(), s.make()
    ra, rb = a.reset(seed=s.seed), b.reset(seed=s.seed)
    _expect(a.task_id == b.task_id, f"reset(seed={s.seed}) picked {a.task_id!r}, then {b.task_id!r}")
    _expect(_fields(ra) == _fields(rb), f"reset(seed={s.seed}) gave two different first observations or infos")
    for n in range(1, min(COMPARED_STEPS, a.max_steps) + 1):
        if a.done:
            break
        action = s.action(a)
        sa, sb = a.step(action), b.step(action)
        _expect(_fields(sa) == _fields(sb), f"step {n} ({action!r}) gave two different results on the same episode")


def check_snapshot_restore(s: _Subject) -> None:
    """A JSON round trip of `snapshot()` restores an env indistinguishable from the original."""
    env = s.make()
    _raises(EpisodeNotStarted, env.snapshot, "snapshot before reset")
    env.reset(seed=s.seed)
    s.play(env, 2)
    snap = env.snapshot()
    try:
        carried = json.loads(json.dumps(snap))
    except (TypeError, ValueError) as exc:
        raise CheckFailed(f"snapshot() is not JSON-able: {exc}") from None
    twin = s.make()
    twin.restore(carried)
    _expect(twin.snapshot() == snap, "the restored env's snapshot differs from the one it was restored from")
    state = ("task_id", "split", "seed", "steps", "done")
    mine, theirs = [getattr(env, k) for k in state], [getattr(twin, k) for k in state]
    _expect(mine == theirs, f"restored {dict(zip(state, theirs))}, the original is at {dict(zip(state, mine))}")
    _expect(twin.expert_action() == env.expert_action(), "the restored env's expert suggests another action")
    if not env.done:
        action = s.action(env)
        _expect(
            _fields(env.step(action)) == _fields(twin.step(action)),
            f"after restore, {action!r} gives a different result than on the original",
        )


def check_refusal_after_end(s: _Subject) -> None:
    """Steps are refused before a reset and after the episode ended."""
    env = s.make()
    _raises(EpisodeNotStarted, lambda: env.step(s.probe), "step before reset")
    env.reset(seed=s.seed)
    results = s.play(env, min(env.max_steps, PLAYABLE_CAP))
    if not env.done:
        raise CheckFailed(f"the episode did not end within {len(results)} steps (max_steps {env.max_steps})")
    _raises(EpisodeFinished, lambda: env.step(s.probe), "a step after the episode ended")


def check_step_cap(s: _Subject) -> None:
    """An episode ends by `max_steps`: the step reaching the cap is truncated unless it ended it."""
    env = s.make()
    cap = env.max_steps
    if cap > PLAYABLE_CAP:
        raise _Skip(f"max_steps is {cap}: treated as no cap")
    env.reset(seed=s.seed)
    last: StepResult | None = None
    for n in range(1, cap + 1):
        last = env.step(s.probe)
        _expect(env.steps == n, f"after {n} steps the env counts {env.steps}")
        if last.done or last.truncated:
            break
    assert last is not None
    _expect(last.done or last.truncated, f"step {cap} (max_steps) neither ended nor truncated the episode")
    _expect(env.done, "the episode ended but the env is not done")


def check_agentgym_profile(s: _Subject) -> None:
    """The AgentGym profile's declarations hold on the catalogue AgentGym sessions see, and its
    adapter answers on an AgentGym episode."""
    profile = s.cls.agentgym_profile
    _expect(isinstance(profile, AgentGymProfile), f"agentgym_profile is a {type(profile).__name__}")
    _expect(bool(profile.hello_text(s.cls.name)), "the profile's hello is empty")
    env = s.make()
    env.agentgym = True
    adapter = profile.adapt(env)
    _expect(isinstance(adapter, AgentGymAdapter), f"the profile's adapter is a {type(adapter).__name__}")
    splits = dict(env.splits())
    for split, _ in profile.indices:
        _expect(split in splits, f"indices name split {split!r}, which AgentGym sessions lack ({sorted(splits)})")
    # Each range's first index names a task of its split; the index past the last is refused.
    for split, start in profile.indices:
        if splits[split]:
            task_id = adapter.task(start)
            found = env.split_of(task_id)
            _expect(found == split, f"AgentGym index {start} names {task_id!r} of split {found!r}, not {split!r}")
    if profile.indices:
        last_split, last_start = profile.indices[-1]
        past = last_start + splits[last_split]
    else:
        past = sum(splits.values())
    _raises(UnknownTask, lambda: adapter.task(past), f"AgentGym index {past}, past the catalogue,")

    first_index = next((start for split, start in profile.indices if splits[split]), 0)
    first = env.reset(task_id=adapter.task(first_index), seed=s.seed)
    _expect(first.info.get("agentgym") is True, "an AgentGym episode's reset info lacks agentgym: true")
    fields = adapter.reset_fields()
    _expect(isinstance(fields, dict) and all(isinstance(k, str) for k in fields), f"reset_fields() gave {fields!r}")
    try:
        json.dumps(fields)
    except (TypeError, ValueError) as exc:
        raise CheckFailed(f"reset_fields() is not JSON-able: {exc}") from None
    for hook in (adapter.observation, adapter.instruction_text):
        value = hook()
        _expect(value is None or isinstance(value, str), f"{hook.__name__}() gave {value!r}, not text or None")
    s.play(env, 1)
    step_fields = adapter.step_fields()
    _expect(
        isinstance(step_fields, dict) and all(isinstance(k, str) for k in step_fields),
        f"step_fields() gave {step_fields!r}",
    )
    try:
        json.dumps(step_fields)
    except (TypeError, ValueError) as exc:
        raise CheckFailed(f"step_fields() is not JSON-able: {exc}") from None
    twin = s.make()
    twin.restore(env.snapshot())
    _expect(twin.agentgym, "a restored AgentGym session no longer presents AgentGym's text")
    if profile.steps_after_done:
        s.play(env, min(env.max_steps, PLAYABLE_CAP))
        if env.done:
            env.step(s.probe, after_done=True)  # its server keeps no end state: this must be taken


#: Every check, by the name failures are reported under, in the order they run.
CHECKS: dict[str, Callable[[_Subject], None]] = {
    "declarations": check_declarations,
    "task_ids": check_task_ids,
    "seed_determinism": check_seed_determinism,
    "snapshot_restore": check_snapshot_restore,
    "refusal_after_end": check_refusal_after_end,
    "step_cap": check_step_cap,
    "agentgym_profile": check_agentgym_profile,
}


def _subject(env: str | type[Env], seed: int, probe: str, options: dict[str, Any]) -> tuple[str, _Subject]:
    if isinstance(env, str):
        cls = registry.spec(env).load()
        name = env
        return name, _Subject(cls, lambda: registry.make(name, **options), seed, probe)
    if not (isinstance(env, type) and issubclass(env, Env)):
        raise TypeError(f"check_env takes an env name or an Env subclass, not {env!r}")
    shared = env.load_shared(**options)
    return env.__qualname__, _Subject(env, lambda: env(shared=shared, **options), seed, probe)


def check_env(
    env: str | type[Env],
    *,
    seed: int = 0,
    probe_action: str = PROBE_ACTION,
    raise_on_failure: bool = True,
    **options: Any,
) -> EnvCheckReport:
    """Check an env against the contract the platform relies on; `options` are its env options.

    Returns the report when every check passes (or `raise_on_failure` is False); otherwise
    raises EnvCheckFailed, whose message names each failed check and what it saw.
    """
    name, subject = _subject(env, seed, probe_action, options)
    passed: list[str] = []
    skipped: dict[str, str] = {}
    failures: dict[str, str] = {}
    for check, run in CHECKS.items():
        try:
            run(subject)
        except _Skip as why:
            skipped[check] = str(why)
        except CheckFailed as finding:
            failures[check] = str(finding)
        except Exception as exc:  # an env that crashes fails the check it crashed in
            failures[check] = f"raised {type(exc).__name__}: {exc}"
        else:
            passed.append(check)
    report = EnvCheckReport(name, tuple(passed), skipped, failures)
    if failures and raise_on_failure:
        raise EnvCheckFailed(report)
    return report
