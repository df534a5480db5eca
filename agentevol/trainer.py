"""The AgentEvol trainer (Xi et al. 2024): behavioral cloning, then M rounds of explore and learn.

    base ─eval→ BC on expert trajectories ─eval→ for m in 1..M:
        explore: K samples per instruction of a broader instruction set with π_{m-1}
        learn:   train on D_s ∪ D_m (reward-weighted, or reward-filtered), from the base model
                 (the paper) or from π_{m-1}
        eval

over one or several envs at once: BC data, exploration and evaluation cover every env of the
run, and each stage trains on all envs' examples together. Three instruction sets stay apart:
BC's, exploration's (its own split, minus BC's instructions when the splits coincide) and the
held-out lists every stage is evaluated on.

Everything runs over the env servers' HTTP API (started locally unless URLs are given). Every
stage leaves its checkpoint, data and evaluation in `output_dir`, one line in metrics.jsonl
and its trajectories in the SQL store; a restarted run skips finished stages, evaluates a stage
whose model was saved but not evaluated, and resumes an interrupted training from its last
epoch checkpoint.

Under `accelerate launch` (several processes), only the main process starts servers, rolls
out, evaluates and writes state; the others wait at a barrier, read the stage's data files,
and join the distributed training. One learning stage (BC or an iteration's learn step) is
stage.py's train_stage; this module runs the stages, as genenv/trainer.py runs GenEnv's epochs.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import json
import os
import shutil
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coevo.agentevol.config import AgentEvolConfig
from coevo import end_status
from coevo.agentevol.data import BC_OBJECTIVE, instruction_of
from coevo.agentevol.explore_picks import iteration_picks
from coevo.client import AsyncEnvClient
from coevo.client.agenttraj import read_records, write_jsonl
from coevo.client.evaluation import TaskRef, pick_tasks, results_document, rollout_tasks, spread_indices
from coevo.client.heldout import HeldoutEvaluator, HeldoutSplit
from coevo.client.stats import wilson_interval
from coevo.client.policies.base import Policy, Sampling
from coevo.client.rollout import shard_clients
from coevo.client.summary import summarize
from coevo.client.trajectory import Trajectory, scored_only
from coevo.models.memory import release_freed_memory, resident_mb
from coevo.training import LogHeldout, LogRows, PlotAtEnd, RunDirectory, TrainingRun, write_json

if TYPE_CHECKING:
    from rich.table import Table

Log = Callable[[str], None]

#: Beside a stage's checkpoint: what its learning measured, written once the model is saved, so a
#: run stopped during the stage's evaluation evaluates the saved model instead of training again.
LEARNED_ROW = "learned_row.json"


class Layout(RunDirectory):
    """Where a run keeps things: config.json and metrics.jsonl (every trainer's), and AgentEvol's
    stages, checkpoints, data and evaluations."""

    @property
    def state(self) -> Path:
        return self.root / "state.json"

    @property
    def inherited_tags_file(self) -> Path:
        """Present in a branched run (branch.py): the policy tags of the explorers that played
        before the branch point, under which the source's episodes left their estimates."""
        return self.root / "inherited-tags.json"

    def stats_namespace(self) -> str:
        """What qualifies the run's own policy tags on the env servers: the run directory's
        digest, so runs sharing servers (one PostgreSQL store) keep apart."""
        return hashlib.sha1(str(self.root.resolve()).encode()).hexdigest()[:10]

    def policy_tag(self, version: str) -> str:
        """The tag under which `version`'s episodes count on the env servers: in a branch, the
        source's tag for the explorers that played before the branch point (their estimates are
        the source's), the branch's own for every later one."""
        if self.inherited_tags_file.is_file():
            inherited: dict[str, str] = json.loads(self.inherited_tags_file.read_text())
            if version in inherited:
                return inherited[version]
        return policy_tag(self.stats_namespace(), version)

    @property
    def store(self) -> Path:
        """The SQLite store of the run's trajectories and of its local servers' statistics (when
        no db_url is configured)."""
        return self.root / "trajectories.db"

    def checkpoint(self, stage: str) -> Path:
        return self.root / "checkpoints" / stage

    def trainer_dir(self, stage: str) -> Path:
        return self.root / "trainer" / stage

    def data(self, name: str) -> Path:
        return self.root / "data" / f"{name}.jsonl"

    def explored(self, stage: str) -> Path:
        """D_m of one iteration: the trajectories its exploration kept."""
        return self.data(f"{stage}-explore")

    def selection(self, stage: str) -> Path:
        """How an explore_band iteration chose its instructions (in band, filled uniformly)."""
        return self.root / "data" / f"{stage}-explore-selection.json"

    def eval_file(self, stage: str) -> Path:
        return self.root / "eval" / f"{stage}.json"

    @property
    def plot(self) -> Path:
        return self.root / "success_by_stage.png"

    @property
    def tiny_base(self) -> Path:
        return self.root / "base-model"


def _describe_stage(row: dict[str, Any]) -> str:
    """The log line of a finished stage."""
    return (
        f"[{row['stage']}] success {100 * row['success_rate']:.1f}%  mean reward {row['mean_reward']:.3f}  "
        f"({row['eval_n']} eval episodes, {row['duration_s']:.0f}s)"
    )


def _plot_stages(run: TrainingRun, rows: Sequence[dict[str, Any]], path: Path) -> None:
    from coevo.plots import plot_stages

    plot_stages(rows, path)


def policy_tag(namespace: str, version: str) -> str:
    """The tag of one policy version's episodes on the env servers (AgentEvolTrainer.policy_tag)."""
    return f"agentevol-{namespace}:{version}"


def stage_names(iterations: int) -> list[str]:
    return ["base", "bc", *(f"iter{m}" for m in range(1, iterations + 1))]


async def tasks_at(client: AsyncEnvClient, env: str, split: str, indices: Sequence[int]) -> list[TaskRef]:
    """The tasks at `indices` of a split, with their catalogue metadata."""

    async def one(index: int) -> TaskRef:
        page = await client.tasks(split, offset=index, limit=1)
        entry = page.tasks[0]
        return TaskRef(env, entry.task_id, entry.split, entry.meta)

    return list(await asyncio.gather(*(one(i) for i in indices)))


class AgentEvolTrainer:
    def __init__(self, config: AgentEvolConfig, *, log: Log = print) -> None:
        self.config = config
        self.layout = Layout(Path(config.output_dir))
        self.log = log
        self.prompt_options: dict[str, Any] = (
            {} if config.show_available_actions is None else {"show_available_actions": config.show_available_actions}
        )
        self.clients: dict[str, list[AsyncEnvClient]] = {}
        self._heldout: HeldoutEvaluator | None = None
        self.recorder: Any = None
        #: Launched as one of several processes (accelerate launch, torchrun): rank 0 leads.
        self.world_size = int(os.environ.get("WORLD_SIZE", "1"))
        self.rank = int(os.environ.get("RANK", "0"))
        #: The run's directory, metrics.jsonl and callbacks (progress lines per held-out split and
        #: stage, the plot).
        self.run_log = TrainingRun(
            config, self.layout, writer=self.main,
            callbacks=[LogHeldout(log), LogRows(_describe_stage, log), PlotAtEnd(self.layout.plot, _plot_stages)],
        )  # fmt: skip
        self._begun = False
        #: explore_tasks' last choice with explore_band, per env: in-band and uniformly filled counts.
        self.selection: dict[str, dict[str, Any]] = {}

    @property
    def main(self) -> bool:
        """Whether this process rolls out and writes (always, unless launched on several processes)."""
        return self.rank == 0

    def barrier(self) -> None:
        """Wait for every process (the Trainer later reuses the same process group)."""
        if self.world_size <= 1:
            return
        import torch
        import torch.distributed as dist

        if not dist.is_initialized():
            # The group's timeout bounds every barrier: the others wait here while the main
            # process explores, which at GPU scale takes far longer than torch's default.
            timeout = timedelta(seconds=self.config.dist_timeout_s)
            dist.init_process_group(backend="nccl" if torch.cuda.is_available() else "gloo", timeout=timeout)
        dist.barrier()

    async def main_first(self, produce: Callable[[], Awaitable[list[dict[str, Any]]]]) -> list[dict[str, Any]]:
        """`produce` on the main process, which rolls out and writes the stage's data file,
        then, after a barrier, on the other processes, which read that file."""
        records = await produce() if self.main else None
        self.barrier()
        return records if records is not None else await produce()

    # ------------------------------------------------------------------ bookkeeping
    def completed(self) -> dict[str, dict[str, Any]]:
        if not self.layout.state.is_file():
            return {}
        return dict(json.loads(self.layout.state.read_text()).get("stages", {}))

    def _record_stage(self, row: dict[str, Any]) -> None:
        """The stage's row in state.json (what a resume skips), then its held-out rows and its
        own row in metrics.jsonl, in one write."""
        if not self.main:
            return
        stages = self.completed()
        stages[row["stage"]] = row
        write_json(self.layout.state, {"stages": stages}, indent=2)
        at = {"stage": row["stage"], "arm": "agentevol"}
        self.run_log.record({"kind": "stage", **row}, at=at, heldout=row.get("heldout", []))

    def learned_row(self, stage: str) -> dict[str, Any] | None:
        """The row of a stage whose model was trained and saved but not yet evaluated (a run
        stopped during the evaluation resumes there instead of training again), else None."""
        path = self.layout.checkpoint(stage) / LEARNED_ROW
        return dict(json.loads(path.read_text())) if path.is_file() else None

    def keep_learned_row(self, row: Mapping[str, Any]) -> None:
        """Save what learning measured beside the stage's checkpoint (see learned_row)."""
        if self.main:
            write_json(self.layout.checkpoint(row["stage"]) / LEARNED_ROW, dict(row), indent=2)

    def results_tables(self) -> list[Table]:
        """The end-of-run table (rich): the held-out evaluation after each stage."""
        from coevo.agentevol.results_table import STAGES

        done = self.completed()
        return [STAGES.render([done[s] for s in stage_names(self.config.iterations) if s in done])]

    # ------------------------------------------------------------------ models
    def base_model_path(self) -> Path:
        from coevo.models.checkpoints import resolve_model

        return resolve_model(self.config.model, self.layout.tiny_base, seed=self.config.seed)

    def load(self, path: Path) -> tuple[Any, Any]:
        from coevo.models.loading import load_model

        return load_model(path)

    def save(self, model: Any, tokenizer: Any, stage: str) -> Path:
        from coevo.models.checkpoints import AGENT_FILE

        out = self.layout.checkpoint(stage)
        if not self.main:
            return out
        tmp = out.with_name(out.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        (tmp / AGENT_FILE).write_text(json.dumps({"prompt_options": self.prompt_options, "stage": stage}))
        shutil.rmtree(out, ignore_errors=True)
        tmp.rename(out)
        return out

    def policy(self, model: Any, tokenizer: Any, name: str, seed: int | None = None) -> Policy:
        """The in-memory model as a rollout policy on the configured engine (llama.cpp on CPU
        hosts: a GGUF copy of the current weights under output_dir/policy, i.e. a weight sync)."""
        from coevo.client.policies.factory import in_memory_policy

        c = self.config
        policy = in_memory_policy(
            model, tokenizer, workdir=self.layout.root / "policy", backend=c.backend, name=name, seed=seed,
            max_batch_size=c.gen_batch_size, max_prompt_tokens=c.max_prompt_tokens,
            gpu_memory_utilization=c.vllm_gpu_memory_utilization, sampling=Sampling(max_new_tokens=c.max_new_tokens),
        )  # fmt: skip
        policy.prompt_options = dict(self.prompt_options)
        synced = getattr(policy, "last_sync_s", None)
        if synced is not None:
            self.log(f"[{name}] weights synced to {policy.describe()['kind']} in {synced:.1f}s")
        return policy

    # ------------------------------------------------------------------ rollouts
    async def heldout_evaluator(self) -> HeldoutEvaluator:
        """The run's held-out task lists (drawn once by the run's seed; every stage is scored on
        the same tasks): the `heldout` entries, then, for each env they do not name, eval_split or
        the env's first held-out split; so every env of the run is evaluated."""
        if self._heldout is None:
            c = self.config
            splits = [HeldoutSplit.parse(item, c.eval_tasks) for item in c.heldout]
            named = {s.env for s in splits}
            for env, group in self.clients.items():
                if env in named:
                    continue
                info = await group[0].info()
                split = c.eval_split or next(iter(info.heldout_splits), None)
                if split is None:
                    raise ValueError(f"{env} lists no held-out split; name one with --heldout ENV:SPLIT")
                splits.append(HeldoutSplit(env, split, c.eval_tasks))
            self._heldout = HeldoutEvaluator(
                self.clients, splits, seed=c.seed, max_rounds=c.max_rounds, concurrency=c.concurrency
            )
        return self._heldout

    async def train_split(self, env: str, wanted: str | None) -> tuple[str, int]:
        """The split `wanted` (default: the split the env names for training, `/info` train_split,
        else its default split) and its size; never a held-out split."""
        info = await self.clients[env][0].info()
        chosen = wanted or info.train_split or info.default_split
        if chosen not in info.splits:
            raise ValueError(f"{env} has no split {chosen!r}; it has {sorted(info.splits)}")
        if chosen in info.heldout_splits:
            raise ValueError(
                f"{env}'s split {chosen!r} is held out for evaluation; train on another (--bc-split / --explore-split)"
            )
        return chosen, info.splits[chosen]

    async def bc_tasks(self) -> list[TaskRef]:
        """bc_tasks instructions per env, spread evenly over its BC split."""
        c = self.config
        tasks: list[TaskRef] = []
        for env, group in self.clients.items():
            split, _ = await self.train_split(env, c.bc_split_of(env))
            tasks += await pick_tasks(group[0], env, split, c.bc_tasks)
        await self.refuse_heldout(tasks, "BC")
        return tasks

    async def explore_tasks(self, iteration: int, demonstrations: Sequence[Mapping[str, Any]]) -> list[TaskRef]:
        """explore_tasks instructions per env from its exploration split, spread evenly over the
        instructions BC did not use (the split's BC picks when BC rolled the expert out on the same
        split, and any instruction of D_s), none an earlier iteration explored while the pool
        still holds enough (iteration_picks). With explore_band: the pool's in-band instructions
        first, the uniform picks filling the rest (explore_band.py); `self.selection` then counts
        both."""
        c = self.config
        band = c.band()
        demonstrated = {instruction_of(str(r.get("item_id", "")))[0] for r in demonstrations}
        tasks: list[TaskRef] = []
        self.selection = {}
        for env, group in self.clients.items():
            split, total = await self.train_split(env, c.explore_split_of(env))
            used: set[int] = set()
            if not c.bc_data and (await self.train_split(env, c.bc_split_of(env)))[0] == split:
                used = set(spread_indices(total, c.bc_tasks))  # the indices bc_tasks() picked
            picked = iteration_picks([i for i in range(total) if i not in used], c.explore_tasks, iteration)
            refs = [t for t in await tasks_at(group[0], env, split, picked) if f"{env}_{t.task_id}" not in demonstrated]
            if band is not None:
                in_band, tag = await self.in_band_tasks(env, split, iteration, excluded=demonstrated | {
                    f"{env}_{t.task_id}" for t in await tasks_at(group[0], env, split, sorted(used))
                })  # fmt: skip
                chosen = {t.task_id for t in in_band}
                fill = [t for t in refs if t.task_id not in chosen][: max(0, c.explore_tasks - len(in_band))]
                self.selection[env] = {"in_band": len(in_band), "uniform_fill": len(fill), "estimates_of": tag}
                refs = [*in_band, *fill]
            tasks += refs
        await self.refuse_heldout(tasks, "exploration")
        return tasks

    def policy_tag(self, version: str) -> str:
        """The tag a policy version's episodes carry on the env servers (their per-task
        statistics): the version (bc, iter1, ...) qualified by the run directory, so runs
        sharing servers keep apart (a branch reads its source's for the versions it inherited:
        branch.py)."""
        return self.layout.policy_tag(version)

    async def in_band_tasks(
        self, env: str, split: str, iteration: int, *, excluded: set[str]
    ) -> tuple[list[TaskRef], str | None]:
        """Up to explore_tasks instructions of `split` (none of `excluded`, ENV_TASK ids) whose
        estimated success lies in the band, nearest its centre first, and the tag whose estimates
        chose them: the freshest policy version with statistics on the split (the explorer
        π_{m-1}, else its predecessors), None when none has any."""
        from coevo.client.difficulty import tasks_by_difficulty

        c = self.config
        band = c.band()
        assert band is not None
        client = self.clients[env][0]
        versions = list(reversed(stage_names(iteration - 1)[1:]))  # π_{m-1}, π_{m-2}, ..., bc
        for version in versions:
            tag, least = self.policy_tag(version), c.explore_band_min_episodes
            found = await tasks_by_difficulty(
                client, split, p_min=band.low, p_max=band.high, policy=tag, min_episodes=least
            )
            if not found and not (await client.tasks(split, limit=1, policy=tag, min_episodes=least)).total:
                continue  # this version has no estimates on the split: ask its predecessor
            inside = [
                (abs(e.stats.success_rate - band.centre) if e.stats else 1.0, order, e)
                for order, e in enumerate(found)
                if f"{env}_{e.task_id}" not in excluded
            ]
            inside.sort(key=lambda item: item[:2])
            return [TaskRef(env, e.task_id, e.split, e.meta) for _, _, e in inside[: c.explore_tasks]], tag
        return [], None

    async def refuse_heldout(self, tasks: Sequence[TaskRef], what: str) -> None:
        """Refuse training instructions that are also on the run's held-out lists."""
        lists = await (await self.heldout_evaluator()).task_lists()
        heldout = {(t.env, t.task_id) for refs in lists.values() for t in refs}
        overlap = sorted(f"{t.env}:{t.task_id}" for t in tasks if (t.env, t.task_id) in heldout)
        if overlap:
            raise ValueError(f"{what} instructions are also held-out evaluation tasks: {', '.join(overlap[:5])}")

    async def rollout(
        self, policy: Policy, tasks: Sequence[TaskRef], *, kind: str, stage: str, samples: int = 1,
        sampling: Sampling | None = None, capped: bool = True,
    ) -> list[Trajectory]:  # fmt: skip
        """Roll `policy` out; `capped`: at most max_rounds turns (the expert always gets the env's own cap)."""
        c = self.config
        run_id = self.recorder.start(
            name=f"agentevol {c.output_dir} {stage} {kind}", kind=kind, policy=policy.name,
            config={"stage": stage, "samples": samples, "n": len(tasks)},
        )  # fmt: skip
        started = time.monotonic()
        trajectories = await rollout_tasks(
            policy, self.clients, tasks, samples=samples, seed=c.seed, max_rounds=c.max_rounds if capped else None,
            concurrency=c.concurrency, sampling=sampling, prompt_options=self.prompt_options,
        )  # fmt: skip
        summary = summarize(trajectories)
        self.recorder.save(run_id, trajectories, summary)
        self.log(
            f"[{stage}] {kind}: {len(trajectories)} episodes, success {100 * summary['success_rate']:.1f}%, "
            f"{time.monotonic() - started:.0f}s"
        )
        return trajectories

    async def evaluate(self, policy: Policy, stage: str) -> dict[str, Any]:
        """Held-out evaluation of one stage: the stage's summary, and one row per held-out split
        (n, success rate, its Wilson 95% interval, mean reward) under "heldout"."""
        c = self.config
        evaluator = await self.heldout_evaluator()
        run_id = self.recorder.start(
            name=f"agentevol {c.output_dir} {stage} eval", kind="eval", policy=policy.name, config={"stage": stage},
        )  # fmt: skip
        started = time.monotonic()
        played: list[Trajectory] = []
        rows = await evaluator.evaluate(policy, prompt_options=self.prompt_options, on_done=played.append)
        summary = summarize(played)
        self.recorder.save(run_id, played, summary)
        self.log(f"[{stage}] eval: {len(played)} held-out episodes, success {100 * summary['success_rate']:.1f}%, "
                 f"{time.monotonic() - started:.0f}s")  # fmt: skip
        document = results_document(played, policy=policy, config={"stage": stage, **c.to_dict()})
        document["heldout"] = [asdict(row) for row in rows]
        document["task_lists"] = evaluator.recorded_lists()
        path = self.layout.eval_file(stage)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(document, indent=2, default=str))
        s = document["summary"]
        scored = [t for t in played if t.scored]  # unscored episodes are left out, and counted
        low, high = wilson_interval(sum(t.success for t in scored), len(scored)) if scored else (0.0, 0.0)
        return {
            "success_rate": s["success_rate"], "ci95_low": low, "ci95_high": high, "mean_reward": s["mean_reward"],
            "mean_steps": s["mean_steps"], "invalid_reply_rate": s["invalid_reply_rate"],
            "accepted_action_rate": s["accepted_action_rate"], "eval_n": s["n"], "eval_unscored": s["unscored"],
            "eval_status": s["status"],
            "by_env": {env: {"success_rate": v["success_rate"], "mean_reward": v["mean_reward"]} for env, v in document["by_env"].items()},
            "by_task_type": {k: v["success_rate"] for k, v in s["by_task_type"].items()},
            "heldout": [row.metrics() for row in rows],
        }  # fmt: skip

    # ------------------------------------------------------------------ data
    async def bc_records(self) -> list[dict[str, Any]]:
        """The expert set D_s: the user's AgentTraj file, or successful expert rollouts."""
        c = self.config
        if c.bc_data:
            records = read_records(c.bc_data)
            self.log(f"[bc] {len(records)} trajectories from {c.bc_data}")
            return records
        path = self.layout.data("bc")
        if path.is_file():
            return read_records(path)
        if not self.main:
            raise RuntimeError(f"{path} should have been written by the main process")
        from coevo.client.policies.expert import ExpertPolicy

        trajectories = await self.rollout(ExpertPolicy(), await self.bc_tasks(), kind="bc", stage="bc", capped=False)
        records = [t.to_agentgym() for t in trajectories if t.success]
        write_jsonl(path, records)
        return records

    async def explore(self, explorer: tuple[Any, Any], name: str, stage: str, iteration: int) -> list[dict[str, Any]]:
        """D_m: K samples per instruction with the current policy, scored by the env reward."""
        import torch

        c = self.config
        path = self.layout.explored(stage)
        if path.is_file():
            return read_records(path)
        if not self.main:
            raise RuntimeError(f"{path} should have been written by the main process")
        torch.manual_seed(c.seed + iteration)
        tasks = await self.explore_tasks(iteration, await self.bc_records())
        sampling = Sampling(temperature=c.explore_temperature, top_p=c.explore_top_p, max_new_tokens=c.max_new_tokens)
        if self.selection:
            write_json(self.layout.selection(stage), self.selection, indent=2)
        policy = self.explore_policy(explorer, name=name, seed=c.seed + iteration)
        policy.name = self.policy_tag(name)  # the servers count its episodes under its version
        try:
            trajectories = await self.rollout(
                policy, tasks, kind="explore", stage=stage, samples=c.samples_per_task, sampling=sampling
            )
        finally:
            await policy.aclose()
        # Only episodes the env judged become data; the others (coevo.end_status) are left out.
        records = [t.to_agentgym(f"{t.item_id}#{t.sample}") for t in scored_only(trajectories)]
        unscored = end_status.count(t.status for t in trajectories if not t.scored)
        if any(unscored.values()):
            self.log(f"[{stage}] explore: left out {sum(unscored.values())} unscored episodes "
                     f"{ {k: v for k, v in unscored.items() if v} }")  # fmt: skip
        write_jsonl(path, records)
        return records

    def explored_so_far(self, iteration: int, new: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """D_m at `iteration`: the earlier iterations' explored trajectories (their data files)
        and this iteration's `new` ones, each distinct trajectory once."""
        from coevo.agentevol.data import distinct_records

        files = [self.layout.explored(stage) for stage in stage_names(iteration - 1)[2:]]
        earlier = [record for path in files if path.is_file() for record in read_records(path)]
        return distinct_records([*earlier, *new])

    def explore_policy(self, explorer: tuple[Any, Any], name: str, seed: int) -> Policy:
        """The policy that explores: the current model (a seam for tests and other explorers)."""
        return self.policy(*explorer, name=name, seed=seed)

    # ------------------------------------------------------------------ learning
    def env_of(self, item_id: str) -> str:
        """The run's env an AgentTraj item id (`ENV_TASK`) belongs to ("other" for none of them)."""
        matches = [env for env in self.config.envs if item_id.startswith(f"{env}_")]
        return max(matches, key=len) if matches else "other"

    def learn(
        self, start: tuple[Any, Any], stage: str, *, demonstrations: Sequence[Mapping[str, Any]],
        explored: Sequence[Mapping[str, Any]] = (), objective: str, epochs: float | None = None,
    ) -> tuple[Any, dict[str, Any]]:  # fmt: skip
        """Train on D_s (and D_m) under `objective`; all envs' examples form one training set,
        which the trainer's seeded sampler shuffles every epoch."""
        from coevo.agentevol.data import learning_examples
        from coevo.agentevol.stage import train_stage

        c = self.config
        model, tokenizer = start
        examples = learning_examples(
            tokenizer, demonstrations, explored, max_length=c.max_length, objective=objective, threshold=c.filter_threshold
        )  # fmt: skip
        by_env: dict[str, int] = {}
        for example in examples:
            env = self.env_of(example.item_id)
            by_env[env] = by_env.get(env, 0) + 1
        self.log(
            f"[{stage}] learning on {len(examples)} trajectories ({sum(e.trained_tokens for e in examples)} trained tokens)"
        )
        result = train_stage(model, tokenizer, examples, c, self.layout.trainer_dir(stage), seed=c.seed, epochs=epochs)
        self.save(result.model, tokenizer, stage)
        if self.main:
            shutil.rmtree(
                self.layout.trainer_dir(stage), ignore_errors=True
            )  # optimizer states: large, no longer needed
        released = release_freed_memory()  # what training freed, before the evaluation needs memory
        self.log(f"[{stage}] training's freed memory handed back: {released} MiB, {resident_mb()} MiB resident")
        return result.model, {
            "train_examples": result.examples, "train_examples_by_env": dict(sorted(by_env.items())),
            "train_tokens": result.trained_tokens,
            "train_loss": result.train_loss, "train_steps": result.steps,
        }  # fmt: skip

    # ------------------------------------------------------------------ the loop
    async def _run(self) -> list[dict[str, Any]]:
        c = self.config
        done = self.completed()
        if self.main:
            self.base_model_path()  # builds or converts it once, before the other processes look
        self.barrier()
        base_path = self.base_model_path()
        current: tuple[Any, Any] | None = None  # the latest stage's model, in memory
        previous_stage = "base"

        def model_of(stage: str) -> tuple[Any, Any]:
            return self.load(base_path if stage == "base" else self.layout.checkpoint(stage))

        for stage in stage_names(c.iterations):
            if stage in done and (stage == "base" or self.layout.checkpoint(stage).is_dir()):
                previous_stage, current = stage, None
                continue
            started = time.monotonic()
            row: dict[str, Any] = {"stage": stage}
            learned = self.learned_row(stage)
            if stage == "base":
                current = model_of("base")
            elif learned is not None:  # stopped after learning, before its evaluation ended
                self.log(f"[{stage}] learned before the restart: evaluating {self.layout.checkpoint(stage)}")
                current = model_of(stage)
                row.update(learned)
            elif stage == "bc":
                bc = await self.main_first(self.bc_records)
                start = model_of("base")
                model, train_row = self.learn(
                    start, stage, demonstrations=bc, objective=BC_OBJECTIVE, epochs=c.bc_epochs
                )
                current = (model, start[1])
                row.update(bc_trajectories=len(bc), **train_row)
                self.keep_learned_row(row)
            else:
                iteration = int(stage[len("iter") :])
                explorer = current if current is not None else model_of(previous_stage)
                explore = functools.partial(self.explore, explorer, previous_stage, stage, iteration)
                new = await self.main_first(explore)
                row.update(
                    explore_episodes=len(new),
                    explore_success_rate=(sum(r["success"] for r in new) / len(new)) if new else 0.0,
                    explore_mean_reward=(sum(r["reward"] for r in new) / len(new)) if new else 0.0,
                )
                if self.layout.selection(stage).is_file():  # explore_band: how the instructions were chosen
                    selection = json.loads(self.layout.selection(stage).read_text())
                    row.update(
                        explore_in_band=sum(v["in_band"] for v in selection.values()),
                        explore_uniform_fill=sum(v["uniform_fill"] for v in selection.values()),
                        explore_selection=selection,
                    )
                bc = await self.bc_records()
                start = model_of("base") if c.restart_from_base else explorer
                # Drop every reference to the explorer (the partial holds one) so gc can free it.
                current = None
                del explorer, explore
                release_freed_memory()
                explored = self.explored_so_far(iteration, new) if c.accumulate_explored else new
                model, train_row = self.learn(start, stage, demonstrations=bc, explored=explored, objective=c.objective)
                current = (model, start[1])
                row.update(train_row, explored_trajectories=len(explored))
                self.keep_learned_row(row)
            if self.main:
                policy = self.policy(*current, name=stage)
                try:
                    row.update(await self.evaluate(policy, stage))
                finally:
                    await policy.aclose()
                row.update(
                    duration_s=round(time.monotonic() - started, 1), finished_at=datetime.now(timezone.utc).isoformat()
                )
                self._record_stage(row)
            self.barrier()
            previous_stage = stage
        return [self.completed()[s] for s in stage_names(c.iterations)]

    def _prepare_run(self) -> None:
        from coevo.store.run_recorder import RunRecorder

        if not self._begun:  # run() prepares, then run_with() again
            self.run_log.begin()  # refuses a directory holding a run with another config
            self._begun = True
        self.barrier()
        if self.recorder is None:
            self.recorder = RunRecorder(self.db_url, enabled=self.main)

    @property
    def db_url(self) -> str:
        return self.config.db_url or f"sqlite:///{self.layout.store.resolve()}"

    async def run_with(self, clients: Mapping[str, Sequence[AsyncEnvClient]]) -> list[dict[str, Any]]:
        """Run (or resume) every stage against already-connected clients; returns the metrics rows."""
        self._prepare_run()
        self.clients = {env: list(clients[env]) for env in self.config.envs} if self.main else {}
        rows = await self._run()
        self.run_log.end(rows)
        return rows

    def run(self) -> list[dict[str, Any]]:
        """Start (or reach) the env servers, then run or resume every stage; returns the metrics rows."""
        from coevo.client.launcher import env_servers

        c = self.config
        self._prepare_run()

        async def main(servers: dict[str, list[str]]) -> list[dict[str, Any]]:
            clients = {env: shard_clients(servers[env], c.concurrency) for env in servers}
            try:
                return await self.run_with(clients)
            finally:
                for group in clients.values():
                    for client in group:
                        await client.aclose()

        servers_cm: contextlib.AbstractContextManager[dict[str, list[str]]] = (
            env_servers(c.envs, urls=c.server_urls(), options=c.server_options(), db_url=self.db_url)
            if self.main
            else contextlib.nullcontext({})
        )
        with servers_cm as servers:
            return asyncio.run(main(servers))
