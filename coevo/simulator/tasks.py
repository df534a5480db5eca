"""The task source: the base tasks, the pool the LLM environment policy imitates and the
simulator's "base" split (generated tasks come from the environment policy, policies/; the
task record itself is task_record.SimTask, which the families build).

Two sources, both producing validity-gated SimTasks:

- a procedural family name ("function_calling"): tasks at uniformly drawn knob settings;
- any registered env with an expert ("bfcl", "alfworld", "apibank", ...): single steps
  (family "<env>.step") — reset a task, let the expert act a few steps, and ask for the
  expert's next action. A next action that parses as function calls is checked as a tool
  call, any other as an exact match (against the env's admissible actions, when it lists them).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from typing import Any

from coevo.simulator.families import family_names, get_family
from coevo.simulator.families.base import NoCombination
from coevo.simulator.scoring import Unparsed, parse_calls
from coevo.simulator.task_record import SimTask
from coevo.simulator.validity import InvalidTask, check

log = logging.getLogger(__name__)

#: Longest base prompt kept (base prompts are shown to the LLM policy as examples).
MAX_BASE_PROMPT_CHARS = 3000


def family_tasks(name: str, count: int, seed: int) -> list[SimTask]:
    """The family's worked example first (when it has one), then tasks at random knobs."""
    family = get_family(name)
    tasks = []
    if family.demo_knobs is not None and count > 0:
        tasks.append(family.generate(family.demo_knobs, random.Random(f"demo:{name}")))
    for i in range(len(tasks), count):
        rng = random.Random(f"base:{name}:{seed}:{i}")
        knobs = {k: rng.choice(values) for k, values in family.knobs.items()}
        tasks.append(family.generate(knobs, rng))
    return tasks


def heldout_tasks(families: Sequence[str], per_family: int) -> list[SimTask]:
    """The simulator's held-out split: per family that holds combinations out, `per_family`
    tasks of held-out combinations only (see TaskFamily.combination), so training, which never
    generates those, cannot have seen their requests or gold calls. Their knob settings walk the
    family's whole knob grid in a fixed shuffled order, so the split spans every difficulty knob;
    their RNGs are seeded in a namespace ("heldout:") of their own. Families interleave."""
    import itertools

    per: list[list[SimTask]] = []
    for name in families:
        family = get_family(name)
        if not family.available():
            continue
        grid = [dict(zip(family.knobs, values)) for values in itertools.product(*family.knobs.values())]
        random.Random(f"heldout-grid:{name}").shuffle(grid)
        tasks: list[SimTask] = []
        for i in range(per_family * 4):
            if len(tasks) >= per_family:
                break
            try:
                tasks.append(family.generate_heldout(grid[i % len(grid)], random.Random(f"heldout:{name}:{i}")))
            except NoCombination:
                continue  # a family with none held out, or a setting with none: the next setting
        per.append(tasks)
    return [task for group in itertools.zip_longest(*per) for task in group if task is not None]


def _calls_as_gold(action: str) -> list[dict[str, Any]] | None:
    calls = parse_calls(action)
    if not calls or any(c.positional for c in calls):
        return None
    if any(isinstance(v, Unparsed) for c in calls for v in c.arguments.values()):
        return None
    return [{"name": c.name, "arguments": dict(c.arguments)} for c in calls]


def training_split(env: Any) -> str:
    """The split an env's base tasks come from: its train_split, else its default split. Base
    tasks are shown to the LLM environment policy and can be replayed to the agent, so they must
    never be evaluation tasks: a held-out split is refused."""
    split = str(type(env).train_split or env.default_split)
    if split in type(env).heldout_splits:
        raise ValueError(f"{type(env).__name__}'s training split {split!r} is held out for evaluation; set train_split")
    return split


def env_step_tasks(env_name: str, count: int, seed: int, max_advance: int = 3) -> list[SimTask]:
    """Single-step tasks from a registered env's expert trajectories on a training split."""
    from coevo.envs import registry

    env = registry.make(env_name)
    split = training_split(env)
    rng = random.Random(f"base:{env_name}:{seed}")
    tasks: list[SimTask] = []
    for i in range(count * 3):  # some steps are skipped (no expert, too long)
        if len(tasks) >= count:
            break
        result = env.reset(split=split, seed=seed * 100_003 + i)
        task_text = str(result.info.get("task", ""))
        observation, info = result.observation, result.info
        for _ in range(rng.randrange(max_advance + 1)):
            action = env.expert_action()
            if action is None:
                break
            step = env.step(action)
            if step.done or step.truncated:
                break
            observation, info = step.observation, step.info
        if env.done:
            continue
        expert = env.expert_action()
        if not expert:
            continue
        choices = info.get("available_actions")
        choices = [str(c) for c in choices] if isinstance(choices, list) else None
        lines = [] if task_text and task_text in observation else [f"Task: {task_text}", ""]
        lines += [observation.strip()]
        if choices:
            lines += ["", "Admissible actions: " + ", ".join(choices)]
        lines += ["", "What is the next action?"]
        prompt = "\n".join(lines)
        if len(prompt) > MAX_BASE_PROMPT_CHARS:
            continue
        gold_calls = _calls_as_gold(expert)
        if gold_calls is not None:
            task = SimTask(
                f"{env_name}.step", prompt, gold_calls, "tool_call", meta={"env": env_name, "env_task_id": env.task_id}
            )
        else:
            task = SimTask(
                f"{env_name}.step",
                prompt,
                [expert],
                "exact",
                choices=choices,
                meta={"env": env_name, "env_task_id": env.task_id},
            )
        try:
            check(task)
        except InvalidTask as exc:
            log.debug("skipping %s step: %s", env_name, exc)
            continue
        tasks.append(task)
    return tasks


def build_base_pool(sources: Sequence[str], per_source: int, seed: int = 0) -> tuple[list[SimTask], dict[str, str]]:
    """Tasks from every source that is available; returns the pool and, per source, "ok" or
    why it was skipped (an optional env that is not installed must not stop the simulator)."""
    from coevo.envs import registry

    pool: list[SimTask] = []
    status: dict[str, str] = {}
    for source in sources:
        try:
            if source in family_names():
                if not get_family(source).available():
                    status[source] = "unavailable"
                    continue
                found = [t for t in family_tasks(source, per_source, seed) if _valid(t)]
            elif source in registry.names():
                found = env_step_tasks(source, per_source, seed)
            else:
                status[source] = "unknown source"
                continue
        except Exception as exc:  # noqa: BLE001 — report and keep the other sources
            status[source] = f"failed: {type(exc).__name__}: {exc}"
            log.warning("base source %s failed: %s", source, exc)
            continue
        status[source] = f"ok ({len(found)} tasks)"
        pool += found
    # Content-addressed ids: drop exact duplicates, keep the first.
    unique: dict[str, SimTask] = {}
    for task in pool:
        unique.setdefault(task.task_id, task)
    return list(unique.values()), status


def _valid(task: SimTask) -> bool:
    try:
        check(task)
    except InvalidTask:
        return False
    return True
