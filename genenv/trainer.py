"""The GenEnv loop (Algorithm 1 of Guo et al. 2025), and its two baselines in the same code.

Per epoch and arm:
  1. tasks: pi_env generates a batch (genenv, random), a batch is drawn from the fixed pool
     the initial simulator generated once (static), or from a real env's train split by the
     alpha-curriculum over the server's per-task statistics (real) or uniformly (real-uniform;
     coevo.genenv.real_tasks, whose env scores the agent's replies); with replay_fraction / replay_base_fraction,
     past tasks of the arm and base tasks replayed from D_train take a share of the GRPO tasks;
  2. agent: GRPO on the batch; each task's group of completions gives p_hat (with dynamic
     sampling, grpo_tasks_per_epoch > 0: a sampling pass over the fresh tasks gives p_hat, then
     GRPO trains on the replayed tasks and the fresh ones with unequal rewards nearest alpha);
  3. R_env = exp(-beta (p_hat - alpha)^2); tasks with |p_hat - alpha| > k_min are excluded
     (env_rwr_average=soft_band: none, each weighted by its R_env instead);
  4. genenv only: pi_env is updated by RWR (weights ~ exp(lambda R_env)) on the in-band part
     of D_env's window, saved, and hot-loaded into the simulator;
  5. D_train (every completion with its reward) and D_env (context -> task, p_hat, R_env,
     weight) grow in the SQL store; one metrics line per epoch and arm goes to metrics.jsonl.

Output directory: config.json, metrics.jsonl, genenv.png, store.db (unless --db-url),
agent_warmup/ (the warmed starting agent and its warmup.json, with agent_warmup_steps), heldout/
(with `heldout`: per-task outcomes and task lists of every held-out evaluation; metrics.jsonl
gets their rows with kind "heldout"), and per arm: state.json (epochs done), agent/ (weights,
optimizer), env_policy/ (pi_env versions).
Re-running with the same directory resumes after the last finished epoch.
"""

from __future__ import annotations

import contextlib
import json
import logging
import shutil
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from coevo.genenv import curriculum
from coevo import hardware
from coevo.genenv.batches import EpochBatches, epoch_seed
from coevo.genenv.config import CURRICULUM_ARMS, REAL_ARMS, GenEnvConfig
from coevo.genenv.heldout import HeldoutScoring
from coevo.genenv.pools import EnvSample, Pools, Trace
from coevo.genenv.real_tasks import RealTasks
from coevo.genenv.simulator import BatchTask, LocalSimulator, RemoteSimulator, Simulator, TaskBatch
from coevo.genenv.starting_models import StartingModels
from coevo.genenv.pool_tables import GenEnvEnvSample
from coevo.models.memory import release_freed_memory, resident_mb
from coevo.training import LogHeldout, LogRows, OnRecord, PlotAtEnd, RunDirectory, TrainingRun, write_json

if TYPE_CHECKING:
    from rich.table import Table

log = logging.getLogger(__name__)


class Agent(Protocol):
    """What the loop needs from an agent: learn on a batch (returning every scored rollout),
    sample a group per task without learning (dynamic sampling), and checkpoint."""

    def train_epoch(self, tasks: Sequence[BatchTask]) -> list[Trace]: ...
    def sample(self, tasks: Sequence[BatchTask], seed: int) -> list[Trace]: ...
    def save(self, directory: Path, optimizer: bool) -> None: ...
    def load(self, directory: Path) -> None: ...


class _CpuThreads:
    """torch's CPU threads, chosen before every epoch: as requested, or (0) all cores unless
    other processes keep the cores busy — then one, since OpenMP threads that wait on each other
    for a shared core run several times slower than a single thread. Other processes' load is
    sampled over a second from /proc/stat, net of this process's own CPU time, so a run neither
    mistakes its own work for a neighbour's nor waits out the load average's minute-long memory
    of a job that has just ended. Where /proc/stat is missing: the 1-minute load average minus
    this process's CPU use since the last choice."""

    def __init__(self, requested: int) -> None:
        self.requested = requested
        self._mark = (time.monotonic(), time.process_time())

    def choose(self) -> int:
        import os

        import torch

        if self.requested > 0:
            threads, why = self.requested, "as requested"
        else:
            others = _others_busy_cores()
            if others is None:
                others = self._others_from_load_average()
            cores = os.cpu_count() or 1
            threads = 1 if others >= cores / 2 else cores
            why = f"other processes keep about {others:.1f} of {cores} cores busy"
        self._mark = (time.monotonic(), time.process_time())
        if threads != torch.get_num_threads():
            torch.set_num_threads(threads)
            log.info("torch CPU threads: %d (%s)", threads, why)
        return threads

    def _others_from_load_average(self) -> float:
        import os

        wall, cpu = time.monotonic() - self._mark[0], time.process_time() - self._mark[1]
        own = cpu / wall if wall > 1.0 else 0.0
        return max(0.0, os.getloadavg()[0] - own)


def _rewards_by_task(traces: Sequence[Trace]) -> dict[str, list[float]]:
    """Each task's group: the rewards of its rollouts, by task id."""
    by_task: dict[str, list[float]] = defaultdict(list)
    for t in traces:
        by_task[t.task_id].append(t.reward)
    return by_task


def _distinct(tasks: Sequence[BatchTask]) -> list[BatchTask]:
    """The batch's tasks once each, in order (a content-addressed task can be generated twice)."""
    return list({t.task_id: t for t in tasks}.values())


def _describe_epoch(row: dict[str, Any]) -> str:
    """The log line of an arm's epoch."""
    shown = {k: row[k] for k in ("success_rate", "in_band_fraction", "mean_r_env", "validity_rate")}
    return f"{row['arm']} epoch {row['epoch']}: {shown}"


def _others_busy_cores(sample_s: float = 1.0) -> float | None:
    """How many cores other processes keep busy now: the machine's busy CPU time over a short
    sample minus this process's own (Linux; None where /proc/stat cannot be read)."""
    before = hardware.cpu_sample()
    if before is None:
        return None
    time.sleep(sample_s)
    after = hardware.cpu_sample()
    return None if after is None else hardware.others_busy_cores(before, after)


class GenEnvTrainer:
    def __init__(
        self,
        config: GenEnvConfig,
        *,
        on_epoch: Callable[[dict[str, Any]], None] | None = None,
        agent_factory: Callable[[str, str, Path, Simulator], Agent] | None = None,
    ) -> None:
        """`agent_factory(arm, agent_model, arm_dir, simulator)` builds an arm's agent;
        the default is GRPO through TRL (`coevo.genenv.agent.GRPOAgent`)."""
        from datetime import timedelta

        from accelerate import PartialState

        self.config = config.validated()
        self.agent_factory = agent_factory or self._grpo_agent
        self.cpu_threads = _CpuThreads(config.cpu_threads)
        self.cpu_threads.choose()
        self.out = Path(config.output_dir)
        import torch

        # The process group is made here, once: its timeout bounds every later collective (the
        # trainers' accelerators reuse it), so it must outlast the main process's solo work.
        # accelerate sees several CPU processes (torchrun, gloo) only when told it runs on CPU.
        self.state = PartialState(cpu=not torch.cuda.is_available(), timeout=timedelta(seconds=config.dist_timeout_s))
        callbacks = [
            LogHeldout(log.info),
            LogRows(_describe_epoch, log.info),
            *([OnRecord(on_epoch)] if on_epoch else []),
        ]
        callbacks.append(PlotAtEnd(self.out / "genenv.png", self._plot))
        #: The run's directory, metrics.jsonl (epoch rows carry no "kind") and callbacks.
        self.run_log = TrainingRun(
            self.config, RunDirectory(self.out), writer=self.state.is_main_process, callbacks=callbacks,
            default_kind="epoch",
        )  # fmt: skip
        self.run_log.begin()
        from coevo.store.db import make_engine

        self.db_url = config.db_url or f"sqlite:///{(self.out / 'store.db').resolve()}"
        self.engine = make_engine(self.db_url)
        self.pools = Pools(self.engine, run_id=str(self.out.resolve()))
        self.heldout = HeldoutScoring(self.config, self.out, self.state.is_main_process)
        self.models = StartingModels(self.config, self.out, self.state, self._simulator)
        self.batches = EpochBatches(self.config, self.pools, self.state)
        #: The real env's server while a run with real-task arms is in progress (_real_server).
        self.real_url: str | None = None

    # ------------------------------------------------------------------ bookkeeping
    def _arm_state(self, arm: str) -> dict[str, Any]:
        path = self.out / arm / "state.json"
        return json.loads(path.read_text()) if path.exists() else {"epochs_done": 0}

    def _save_arm_state(self, arm: str, state: dict[str, Any]) -> None:
        write_json(self.out / arm / "state.json", state)

    def metrics(self) -> list[dict[str, Any]]:
        """The epoch rows (one per epoch and arm)."""
        return self.run_log.metrics.rows("epoch")

    def heldout_metrics(self) -> list[dict[str, Any]]:
        """The held-out rows: one per split, arm and epoch (epoch -1: the starting agent)."""
        return self.run_log.heldout()

    def _plot(self, run: TrainingRun, rows: Sequence[dict[str, Any]], path: Path) -> None:
        from coevo.plots import plot_epochs

        plot_epochs(self.metrics(), path, self.config.alpha, self.config.k_min, heldout=self.heldout_metrics())

    def results_tables(self) -> list[Table]:
        """The end-of-run tables (rich): every arm's epochs, and the held-out rows if any."""
        from coevo.genenv.results_tables import EPOCHS, HELDOUT

        heldout = self.heldout_metrics()
        return [EPOCHS.render(self.metrics()), *([HELDOUT.render(heldout)] if heldout else [])]

    # ------------------------------------------------------------------ components
    def _grpo_agent(self, arm: str, model: str, arm_dir: Path, simulator: Simulator) -> Agent:
        from coevo.genenv.agent import GRPOAgent

        return GRPOAgent(self.models.model_dir(model), self.config, arm_dir, simulator)

    def _simulator(self, arm: str, policy_path: Path) -> Simulator:
        cfg = self.config
        if arm in REAL_ARMS:
            if self.real_url is None:
                raise RuntimeError("the real-task arms' env server is up only while run() lasts")
            return RealTasks(self.real_url, cfg, arm)
        if arm in cfg.simulator_urls:
            if not cfg.admin_token:
                raise ValueError("remote simulators need admin_token")
            sim: Simulator = RemoteSimulator(cfg.simulator_urls[arm], cfg.admin_token)
            sim.load_policy(str(policy_path.resolve()))
            return sim
        options: dict[str, Any] = {
            "backend": cfg.env_backend,
            "families": list(cfg.families),
            "db_url": self.db_url,
            "base_size": cfg.base_size,
            "base_seed": cfg.seed,
        }
        if cfg.env_backend == "parametric":
            options["policy_path"] = str(policy_path)
            options["base_sources"] = list(cfg.families)
        else:
            options.update(
                policy_path=str(policy_path),
                base_sources=list(cfg.base_sources),
                llm_endpoint=cfg.llm_endpoint,
                llm_temperature=cfg.llm_temperature,
                llm_max_new_tokens=cfg.llm_max_new_tokens,
                llm_examples=cfg.llm_examples,
            )
        return LocalSimulator(options)

    # ------------------------------------------------------------------ the run
    def _build_tiny_models(self) -> None:
        """Tiny models are built by the main process before any process reads one (each process
        building its own into the same directory raced: one loaded a half-written model)."""
        if self.state.is_main_process:
            for spec in {self.config.agent_model, str(self.config.env_model)} & {"tiny"}:
                self.models.model_dir(spec)
        self.state.wait_for_everyone()

    def run(self) -> list[dict[str, Any]]:
        self._build_tiny_models()
        # The servers come up first: with a real-task arm first, the agent warm-up draws its
        # tasks from the real env's train split (RealTasks.generate).
        with self.heldout.servers(), self._real_server():
            initial = self.models.initial_env_policy()
            agent_model = self.models.starting_agent(initial)
            for arm in self.config.arms:
                self.run_arm(arm, agent_model, initial)
        rows = self.metrics()
        self.run_log.end(rows)
        return rows

    @contextlib.contextmanager
    def _real_server(self) -> Iterator[None]:
        """The real env's server while the run lasts, for the real-task arms: real_url, else the
        run's held-out server of real_env (launched with real_options, so both score the same
        one-reply episodes), else a local subprocess with real_options."""
        cfg = self.config
        if not set(cfg.arms) & set(REAL_ARMS):
            yield
            return
        if self.state.num_processes > 1 and not cfg.real_url:  # checked on every process alike
            raise ValueError("real-task arms under several processes need real_url (a server every process reaches)")
        if cfg.real_url or cfg.real_env in self.heldout.urls:
            self.real_url = cfg.real_url or self.heldout.urls[cfg.real_env]
            yield
            return
        from coevo.client.launcher import ServerSpec, launch_local

        with launch_local([ServerSpec(cfg.real_env, dict(cfg.real_options))], log_dir=str(self.out)) as urls:
            self.real_url = urls[cfg.real_env]
            try:
                yield
            finally:
                self.real_url = None

    def base_agent(self) -> str:
        """The model directory of `agent_model`, before any training."""
        return self.models.model_dir(self.config.agent_model)

    def starting_agent(self) -> str:
        """The model directory every arm starts from: `agent_model`, or after the SFT warm-up on
        generated tasks (made once per output directory)."""
        return self.models.model_dir(self.models.starting_agent(self.models.initial_env_policy()))

    def run_arm(self, arm: str, agent_model: str, initial_policy: Path) -> None:
        cfg = self.config
        arm_dir = self.out / arm
        state = self._arm_state(arm)
        start = int(state["epochs_done"])
        if start >= cfg.epochs:
            return
        policy_path = Path(state.get("policy_path") or initial_policy)
        simulator = self._simulator(arm, policy_path)
        agent = self.agent_factory(arm, agent_model, arm_dir, simulator)
        if start > 0 and (arm_dir / "agent" / "config.json").exists():
            agent.load(arm_dir / "agent")
        if self.state.is_main_process:
            # What an interrupted epoch left behind is redone, not doubled.
            self.pools.forget_from(arm, start)
            self.run_log.metrics.forget(lambda r: r["arm"] == arm and r["epoch"] >= start)
        heldout = self.heldout.evaluator(simulator) if self.state.is_main_process else None
        if heldout is not None and not any(r["arm"] == arm and r["epoch"] < 0 for r in self.heldout_metrics()):
            scored = self.heldout.score(heldout, arm, -1, self.models.model_dir(agent_model))
            self.run_log.record(None, at={"arm": arm, "epoch": -1}, heldout=scored)
        try:
            if arm == "static" and "static_pool" not in state:
                state["static_pool"] = self.batches.static_pool(simulator)
                if self.state.is_main_process:
                    self._save_arm_state(arm, state)
            for epoch in range(start, cfg.epochs):
                t0 = time.time()
                threads = self.cpu_threads.choose()
                batch = self.batches.shared_batch(arm, epoch, simulator, state)
                # No valid task this epoch (an LLM simulator can fail the gate): nothing to learn
                # from, but the epoch and its validity rate are still recorded.
                sampled, trained = self._rollouts(arm, agent, epoch, batch)
                row = self._after_rollouts(arm, epoch, batch, sampled, trained, simulator, state, policy_path)
                released = release_freed_memory()  # what the updates freed, before the held-out scoring
                log.info(
                    "epoch %d: %d MiB of freed memory handed back, %d MiB resident", epoch, released, resident_mb()
                )
                policy_path = Path(state.get("policy_path") or policy_path)
                row["elapsed_s"] = round(time.time() - t0, 1)
                row["cpu_threads"] = threads
                if self.state.is_main_process:
                    tmp = arm_dir / "agent.tmp"
                    shutil.rmtree(tmp, ignore_errors=True)
                    agent.save(tmp, optimizer=cfg.save_optimizer)
                    shutil.rmtree(arm_dir / "agent", ignore_errors=True)
                    tmp.replace(arm_dir / "agent")
                    scored = self.heldout.score(heldout, arm, epoch, arm_dir / "agent") if heldout is not None else []
                    # The epoch's held-out rows and its own row, in one write; callbacks log and show it.
                    self.run_log.record(row, at={"arm": arm, "epoch": epoch}, heldout=scored)
                    state["epochs_done"] = epoch + 1  # the commit point of the epoch
                    self._save_arm_state(arm, state)
                self.state.wait_for_everyone()
        finally:
            simulator.close()
            del agent

    # ------------------------------------------------------------------ steps of an epoch
    def _rollouts(self, arm: str, agent: Agent, epoch: int, batch: TaskBatch) -> tuple[list[Trace], list[Trace]]:
        """The epoch's rollouts: (the traces p_hat is estimated from, GRPO's traces). Algorithm 1
        (grpo_tasks_per_epoch 0): GRPO on every task, fresh and replayed, and its groups are the
        p_hat sample. Dynamic sampling: a sampling pass over every fresh task gives p_hat before
        any training on them (so it is not biased by the selection), then GRPO trains on the
        replayed tasks and, for the rest of grpo_tasks_per_epoch, learnable fresh tasks: nearest
        alpha first for the curriculum arms (genenv, real), in the order drawn for the baselines
        (baseline_selection)."""
        cfg = self.config
        replayed = [*batch.replayed, *batch.replayed_base]
        if cfg.grpo_tasks_per_epoch <= 0:
            tasks = [*batch.tasks, *replayed]
            traces = agent.train_epoch(tasks) if tasks else []
            return traces, traces
        sampled = self._sampling_pass(agent, epoch, batch.tasks)
        by_task = _rewards_by_task(sampled)
        unique = _distinct(batch.tasks)
        limit = max(0, cfg.grpo_tasks_per_epoch - len(replayed))
        nearest_alpha = arm in CURRICULUM_ARMS or cfg.baseline_selection == "alpha"
        groups = [by_task[t.task_id] for t in unique]
        chosen = curriculum.learnable_first(groups, limit, cfg.alpha, nearest_alpha=nearest_alpha)
        grpo = [*(unique[i] for i in chosen), *replayed]
        return sampled, agent.train_epoch(grpo) if grpo else []

    def _sampling_pass(self, agent: Agent, epoch: int, tasks: Sequence[BatchTask]) -> list[Trace]:
        """Dynamic sampling's pass: a group per task, no training."""
        if not tasks:
            return []
        t0 = time.time()
        sampled = agent.sample(tasks, epoch_seed(self.config.seed, epoch))
        log.info("epoch %d: sampled %d completions in %.1f s", epoch, len(sampled), time.time() - t0)
        return sampled

    def _after_rollouts(
        self,
        arm: str,
        epoch: int,
        batch: TaskBatch,
        traces: list[Trace],
        trained: list[Trace],
        simulator: Simulator,
        state: dict[str, Any],
        policy_path: Path,
    ) -> dict[str, Any]:
        """Metrics, D_env and the pi_env update from the p_hat sample `traces` of the fresh tasks
        (replayed tasks are not pi_env's output this epoch: they count in neither); D_train gets
        every trace (the GRPO rollouts `trained` are the same list under Algorithm 1)."""
        cfg = self.config
        dynamic = cfg.grpo_tasks_per_epoch > 0
        shown = self._env_samples(batch.tasks, traces)
        samples = [s for _, s in shown]
        ps = np.array([s.p_hat for s in samples]) if samples else np.zeros(0)
        row: dict[str, Any] = {
            "arm": arm,
            "epoch": epoch,
            "success_rate": float(ps.mean()) if len(ps) else 0.0,
            "in_band_fraction": float(np.mean([s.in_band for s in samples])) if samples else 0.0,
            "mean_r_env": float(np.mean([s.r_env for s in samples])) if samples else 0.0,
            "validity_rate": batch.validity_rate,
            "tasks": len(samples),
            "rollouts": len(traces) + (len(trained) if dynamic else 0),
            "grpo_tasks": len({t.task_id for t in trained}),
            "policy_version": batch.policy_version,
            "replayed_tasks": len(batch.replayed) + len(batch.replayed_base),
            "replayed_base_tasks": len(batch.replayed_base),
        }
        state["last_success"] = row["success_rate"]
        if self.state.is_main_process:
            self._record_pools(arm, epoch, batch, shown, traces if dynamic else [], trained)
        if isinstance(simulator, RealTasks):
            row.update(simulator.row())
        if arm == "genenv":
            row["env_update"] = self._update_env(epoch, simulator, state, policy_path)
        if self.state.is_main_process:
            row["d_train"], row["d_env"] = self.pools.sizes(arm)
            if cfg.env_backend == "parametric":
                row["pi_env"] = simulator.policy_info().get("marginals")
        return row

    def _env_samples(self, tasks: Sequence[BatchTask], traces: Sequence[Trace]) -> list[tuple[BatchTask, EnvSample]]:
        """The D_env sample of every fresh task with rollouts, beside the task (a task generated
        twice counts once)."""
        cfg = self.config
        by_task = _rewards_by_task(traces)
        shown = []
        for task in _distinct(tasks):
            rewards = by_task.get(task.task_id)
            if not rewards:
                continue
            p = curriculum.p_hat(rewards)
            shown.append(
                (
                    task,
                    EnvSample(
                        task.task_id,
                        task.context,
                        task.output,
                        p,
                        len(rewards),
                        float(curriculum.r_env(p, cfg.alpha, cfg.beta)),
                        curriculum.in_band(p, cfg.alpha, cfg.k_min),
                    ),
                )
            )
        return shown

    def _record_pools(
        self,
        arm: str,
        epoch: int,
        batch: TaskBatch,
        shown: Sequence[tuple[BatchTask, EnvSample]],
        sampled: list[Trace],
        trained: list[Trace],
    ) -> None:
        """D_train: the sampling pass's traces and GRPO's, each under its source (fresh tasks:
        on_policy, or static; replayed: replay or base); D_env: the fresh tasks' samples, with what
        the agent was shown (so they can be replayed)."""
        if sampled:
            self.pools.add_traces(arm, epoch, "sampled", sampled)
        sources = {t.task_id: "replay" for t in batch.replayed} | {t.task_id: "base" for t in batch.replayed_base}
        fresh = "static" if arm == "static" else "on_policy"
        by_source: dict[str, list[Trace]] = defaultdict(list)
        for trace in trained:
            by_source[sources.get(trace.task_id, fresh)].append(trace)
        for source, traces in by_source.items():
            self.pools.add_traces(arm, epoch, source, traces)
        self.pools.add_env_samples(arm, epoch, [s for _, s in shown])
        self.pools.add_tasks_shown(arm, epoch, [t for t, _ in shown])

    def _rwr_window(self, epoch: int) -> tuple[list[GenEnvEnvSample], list[float], float]:
        """The D_env rows the epoch's pi_env update fits (of the last env_pool_window epochs), their
        RWR weights and the scale of their log-likelihood."""
        cfg = self.config
        first = 0 if cfg.env_pool_window <= 0 else max(0, epoch - cfg.env_pool_window + 1)
        window = self.pools.env_samples("genenv", first_epoch=first, in_band_only=False)
        at, weights, scale = curriculum.rwr_fit(
            [r.r_env for r in window], [r.in_band for r in window], cfg.env_rwr_average, cfg.rwr_lambda
        )
        return [window[i] for i in at], [float(w) for w in weights], scale

    def _update_env(self, epoch: int, simulator: Simulator, state: dict[str, Any], policy_path: Path) -> dict[str, Any]:
        """RWR on D_env's window (the tasks, weights and scale of curriculum.rwr_fit); the new
        pi_env is saved and hot-loaded. Called on every process: the main one picks the window and
        records its weights, and under several processes sends the plan to the others, since the
        LLM update trains on all of them (accelerate's prepare and every step are collectives)."""
        plan = self._env_update_plan(epoch, policy_path) if self.state.is_main_process else None
        if self.state.num_processes > 1:
            from accelerate.utils import broadcast_object_list

            box = [plan]
            broadcast_object_list(box)
            plan = box[0]
        assert plan is not None  # the main process made it
        if "skipped" in plan:
            return dict(plan)
        cfg = self.config
        out = Path(plan["out"])
        stats: dict[str, Any] = {}
        if cfg.env_backend == "parametric":
            if self.state.is_main_process:  # numpy on one process
                from coevo.genenv.env_update import update_parametric

                stats.update(update_parametric(
                    plan["policy_path"], self.out / "env_policy_initial.json", out, plan["samples"], plan["weights"],
                    lr=cfg.param_lr, steps=cfg.param_steps, kl_coef=cfg.env_kl_coef, kl_cap=cfg.env_kl_cap,
                    likelihood_scale=plan["scale"],
                ))  # fmt: skip
        else:
            from coevo.simulator.policies.llm import TASK_HEADER
            from coevo.genenv.env_update import LLMExample, update_llm

            examples = [LLMExample(m, o, w) for m, o, w in plan["examples"]]
            stats.update(update_llm(
                plan["policy_path"], self.out / "env_policy_initial", out, examples, lr=cfg.env_lr,
                steps=cfg.env_update_steps, batch_size=cfg.env_batch_size, kl_coef=cfg.env_kl_coef,
                kl_cap=cfg.env_kl_cap, prefix=TASK_HEADER, seed=cfg.seed + epoch, likelihood_scale=plan["scale"],
                dtype=cfg.env_dtype, reference=cfg.env_reference, gradient_checkpointing=cfg.env_gradient_checkpointing,
            ))  # fmt: skip
        stats["likelihood_scale"] = plan["scale"]
        if self.state.is_main_process:
            stats["version"] = simulator.load_policy(str(out.resolve()))
        state["policy_path"] = str(out)
        return stats

    def _env_update_plan(self, epoch: int, policy_path: Path) -> dict[str, Any]:
        """What the epoch's pi_env update fits (main process): the window's samples with their
        RWR weights (recorded in D_env), the likelihood scale, the current and the new policy's
        paths; or why there is nothing to fit."""
        cfg = self.config
        kept, weights, scale = self._rwr_window(epoch)
        if not kept:
            return {
                "samples": 0,
                "skipped": "no task in the window" if cfg.env_rwr_average == "soft_band" else "no task in band",
            }
        self.pools.set_weights([r.id for r in kept], weights)
        versions = self.out / "genenv" / "env_policy"
        plan: dict[str, Any] = {"scale": scale, "policy_path": str(policy_path)}
        if cfg.env_backend == "parametric":
            plan["out"] = str(versions / f"epoch-{epoch:03d}.json")
            plan["samples"] = [(r.context["family"], r.context["knobs"]) for r in kept]
            plan["weights"] = weights
        else:
            plan["out"] = str(versions / f"epoch-{epoch:03d}")
            plan["examples"] = [(r.context["messages"], r.output, float(w)) for r, w in zip(kept, weights)]
        return plan
