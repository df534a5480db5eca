"""The GenEnv loop (Algorithm 1 of Guo et al. 2025), and its two baselines in the same code.

Per epoch and arm:
  1. tasks: pi_env generates a batch (genenv, random) or a batch is drawn from the fixed pool
     the initial simulator generated once (static); with replay_fraction / replay_base_fraction,
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
import random
import shutil
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from coevo.genenv import curriculum
from coevo import hardware
from coevo.client.policies.base import Message
from coevo.genenv.config import GenEnvConfig, load_config
from coevo.genenv.heldout import AgentHeldout, HeldoutResult, parse_splits
from coevo.genenv.pools import EnvSample, Pools, Trace
from coevo.genenv.simulator import BatchTask, LocalSimulator, RemoteSimulator, Simulator, TaskBatch
from coevo.store.genenv import GenEnvEnvSample

log = logging.getLogger(__name__)

#: LLM warm-up: example sets shown per target task.
WARMUP_CONTEXTS_PER_TASK = 4
#: The seed streams of tasks drawn outside the epochs (see _epoch_seed): the static pool's and
#: the agent warm-up's, apart from each other and from every epoch's.
STATIC_POOL_EPOCH = -1
WARMUP_EPOCH = -2
#: Config fields that may change between a run and its resume (they do not change results).
RESUMABLE_CHANGES = {"epochs", "arms", "cpu_threads", "simulator_urls", "admin_token", "use_vllm", "heldout_urls",
                     "dist_timeout_s", "env_reference"}


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


def _others_busy_cores(sample_s: float = 1.0) -> float | None:
    """How many cores other processes keep busy now: the machine's busy CPU time over a short
    sample minus this process's own (Linux; None where /proc/stat cannot be read)."""
    before = hardware.cpu_sample()
    if before is None:
        return None
    time.sleep(sample_s)
    after = hardware.cpu_sample()
    return None if after is None else hardware.others_busy_cores(before, after)


def _epoch_seed(seed: int, epoch: int) -> int:
    """The generation seed of an epoch: the same for every arm, so arms start from the same tasks."""
    return random.Random(f"genenv:{seed}:{epoch}").randrange(2**62)


class GenEnvTrainer:
    def __init__(
        self, config: GenEnvConfig, *, on_epoch: Callable[[dict[str, Any]], None] | None = None,
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
        self.on_epoch = on_epoch
        self.out.mkdir(parents=True, exist_ok=True)
        self._check_resume()
        from coevo.store.db import make_engine

        self.db_url = config.db_url or f"sqlite:///{(self.out / 'store.db').resolve()}"
        self.engine = make_engine(self.db_url)
        self.pools = Pools(self.engine, run_id=str(self.out.resolve()))
        self.metrics_path = self.out / "metrics.jsonl"
        #: {env: url} of the held-out envs' servers while a run is in progress.
        self._heldout_urls: dict[str, str] = {}

    # ------------------------------------------------------------------ bookkeeping
    def _check_resume(self) -> None:
        path = self.out / "config.json"
        mine = self.config.to_json()
        if path.exists():
            saved = load_config(path).to_json()
            changed = {k for k in mine if mine[k] != saved.get(k)} - RESUMABLE_CHANGES
            if changed:
                raise ValueError(
                    f"{self.out} holds a run with a different config ({', '.join(sorted(changed))}); "
                    "use another --output-dir"
                )
        if self.state.is_main_process:
            path.write_text(json.dumps(mine, indent=1, default=list))

    def _arm_state(self, arm: str) -> dict[str, Any]:
        path = self.out / arm / "state.json"
        return json.loads(path.read_text()) if path.exists() else {"epochs_done": 0}

    def _save_arm_state(self, arm: str, state: dict[str, Any]) -> None:
        path = self.out / arm / "state.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(state, indent=1))
        tmp.replace(path)

    def _write_metrics(self, row: dict[str, Any]) -> None:
        with self.metrics_path.open("a") as f:
            f.write(json.dumps(row) + "\n")

    def _forget_metrics(self, arm: str, first_epoch: int) -> None:
        rows = self._all_rows()
        kept = [r for r in rows if not (r["arm"] == arm and r["epoch"] >= first_epoch)]
        if len(kept) != len(rows):
            tmp = self.metrics_path.with_suffix(".tmp")
            tmp.write_text("".join(json.dumps(r) + "\n" for r in kept))
            tmp.replace(self.metrics_path)

    def _all_rows(self) -> list[dict[str, Any]]:
        if not self.metrics_path.exists():
            return []
        return [json.loads(line) for line in self.metrics_path.read_text().splitlines() if line.strip()]

    def metrics(self) -> list[dict[str, Any]]:
        """The epoch rows (one per epoch and arm)."""
        return [r for r in self._all_rows() if r.get("kind", "epoch") == "epoch"]

    def heldout_metrics(self) -> list[dict[str, Any]]:
        """The held-out rows: one per split, arm and epoch (epoch -1: the starting agent)."""
        return [r for r in self._all_rows() if r.get("kind") == "heldout"]

    # ------------------------------------------------------------------ components
    def _grpo_agent(self, arm: str, model: str, arm_dir: Path, simulator: Simulator) -> Agent:
        from coevo.genenv.agent import GRPOAgent

        return GRPOAgent(self._model_dir(model), self.config, arm_dir, simulator)

    def _texts_for_tiny_model(self) -> list[str]:
        """A tiny model's tokenizer is trained on what it will read: base tasks and prompts."""
        from coevo.envs.simulator.base_tasks import build_base_pool
        from coevo.envs.simulator.families import family_names
        from coevo.envs.simulator.policies.llm import build_messages, render_example

        sources = self.config.families if self.config.env_backend == "parametric" else self.config.base_sources
        pool, _ = build_base_pool([s for s in sources if s in family_names()], 32, self.config.seed)
        texts = [render_example(t) for t in pool]
        texts += [m["content"] for t in pool[:4] for m in build_messages([t], {"agent_success": 0.3})]
        return texts + [self.config.agent_system_prompt]

    def _model_dir(self, spec: str) -> str:
        from coevo.genenv.models import resolve_model

        texts = self._texts_for_tiny_model() if spec == "tiny" else None
        return resolve_model(spec, self.out, texts, seed=self.config.seed)

    def _initial_env_policy(self) -> Path:
        """pi_env at epoch 0, shared by every arm: the uniform knob distribution, or the LLM
        simulator after its optional warm-up SFT."""
        cfg = self.config
        if cfg.env_backend == "parametric":
            from coevo.envs.simulator.policies.parametric import ParametricPolicy

            path = self.out / "env_policy_initial.json"
            if not path.exists() and self.state.is_main_process:
                ParametricPolicy(list(cfg.families)).save(path)
            self.state.wait_for_everyone()
            return path
        if cfg.llm_endpoint:
            return Path(str(cfg.env_model))

        def make(partial: Path) -> None:
            source = self._model_dir(str(cfg.env_model))
            if cfg.env_warmup_steps > 0:
                self._warm_up_llm(source, partial)
            elif self.state.is_main_process:
                shutil.copytree(source, partial)

        return self._model_once(self.out / "env_policy_initial", make)

    def _model_once(self, target: Path, make: Callable[[Path], None]) -> Path:
        """A model directory made once per run: `make(partial)` writes it (on every process, as
        training under accelerate needs; the main process saves) into a partial directory that is
        then renamed into place, so an interrupted run never leaves a model that looks finished
        (config.json present) but is not. An existing `target` is reused."""
        if (target / "config.json").exists():
            return target
        partial = target.with_name(target.name + ".tmp")
        if self.state.is_main_process:
            shutil.rmtree(partial, ignore_errors=True)
        self.state.wait_for_everyone()
        make(partial)
        if self.state.is_main_process:
            shutil.rmtree(target, ignore_errors=True)
            partial.replace(target)
        self.state.wait_for_everyone()
        return target

    def _warm_up_llm(self, source: str, target: Path) -> None:
        """Plain SFT on base tasks in the generator's own format: the simulator learns to write
        a task and its answer before co-evolution starts."""
        from coevo.envs.simulator.base_tasks import build_base_pool
        from coevo.envs.simulator.policies.llm import TASK_HEADER, build_messages, render_example
        from coevo.genenv.env_update import LLMExample, update_llm

        cfg = self.config
        pool, _ = build_base_pool(list(cfg.base_sources), cfg.base_size, cfg.seed)
        rng = random.Random(cfg.seed)
        examples = []
        for task in pool:
            others = [t for t in pool if t.family == task.family and t.task_id != task.task_id]
            output = render_example(task)[len(TASK_HEADER):]
            # Several example sets and difficulty contexts per target: the task written must
            # not hinge on which examples were shown, only on their kind, and the prompts the
            # loop will send (with the agent's success rate) must not be new to the model.
            for i in range(WARMUP_CONTEXTS_PER_TASK):
                shown = rng.sample(others, min(cfg.llm_examples, len(others)))
                context = {} if i == 0 else {"agent_success": rng.random(), "target_success": cfg.alpha}
                examples.append(LLMExample(build_messages(shown, context), output, 1.0))
        stats = update_llm(source, None, target, examples, lr=cfg.env_warmup_lr, steps=cfg.env_warmup_steps,
                           batch_size=cfg.env_batch_size, kl_coef=0.0, kl_cap=float("inf"),
                           prefix=TASK_HEADER, seed=cfg.seed)
        log.info("LLM simulator warm-up: %s", stats)

    def _starting_agent(self, initial_policy: Path) -> str:
        """The model every arm starts from (and GRPO's KL reference): `agent_model`, or with
        `agent_warmup_steps` that model after SFT on gold answers of tasks the initial simulator
        generated (see coevo.genenv.agent_warmup), made once and reused on resume."""
        cfg = self.config
        if cfg.agent_warmup_steps == 0:
            return cfg.agent_model

        def make(partial: Path) -> None:
            from coevo.genenv.agent_warmup import warm_up_agent

            t0 = time.time()
            simulator = self._simulator(cfg.arms[0], initial_policy)
            try:
                stats = warm_up_agent(self._model_dir(cfg.agent_model), partial, simulator, cfg,
                                      _epoch_seed(cfg.seed, WARMUP_EPOCH))
            finally:
                simulator.close()
            stats["elapsed_s"] = round(time.time() - t0, 1)
            log.info("agent warm-up: %s", stats)
            if self.state.is_main_process:
                (partial / "warmup.json").write_text(json.dumps(stats, indent=1))

        return str(self._model_once(self.out / "agent_warmup", make))

    def _simulator(self, arm: str, policy_path: Path) -> Simulator:
        cfg = self.config
        if arm in cfg.simulator_urls:
            if not cfg.admin_token:
                raise ValueError("remote simulators need admin_token")
            sim: Simulator = RemoteSimulator(cfg.simulator_urls[arm], cfg.admin_token)
            sim.load_policy(str(policy_path.resolve()))
            return sim
        options: dict[str, Any] = {
            "backend": cfg.env_backend, "families": list(cfg.families), "db_url": self.db_url,
            "base_size": cfg.base_size, "base_seed": cfg.seed,
        }
        if cfg.env_backend == "parametric":
            options["policy_path"] = str(policy_path)
            options["base_sources"] = list(cfg.families)
        else:
            options.update(policy_path=str(policy_path), base_sources=list(cfg.base_sources),
                           llm_endpoint=cfg.llm_endpoint, llm_temperature=cfg.llm_temperature,
                           llm_max_new_tokens=cfg.llm_max_new_tokens, llm_examples=cfg.llm_examples)
        return LocalSimulator(options)

    # ------------------------------------------------------------------ the run
    def _build_tiny_models(self) -> None:
        """Tiny models are built by the main process before any process reads one (each process
        building its own into the same directory raced: one loaded a half-written model)."""
        if self.state.is_main_process:
            for spec in {self.config.agent_model, str(self.config.env_model)} & {"tiny"}:
                self._model_dir(spec)
        self.state.wait_for_everyone()

    def run(self) -> list[dict[str, Any]]:
        self._build_tiny_models()
        initial = self._initial_env_policy()
        agent_model = self._starting_agent(initial)
        with self._heldout_servers() as self._heldout_urls:
            for arm in self.config.arms:
                self.run_arm(arm, agent_model, initial)
        if self.state.is_main_process:
            from coevo.genenv.plot import plot_metrics

            plot_metrics(self.metrics(), self.out / "genenv.png", self.config.alpha, self.config.k_min,
                         heldout=self.heldout_metrics())
        return self.metrics()

    def base_agent(self) -> str:
        """The model directory of `agent_model`, before any training."""
        return self._model_dir(self.config.agent_model)

    def starting_agent(self) -> str:
        """The model directory every arm starts from: `agent_model`, or after the SFT warm-up on
        generated tasks (made once per output directory)."""
        return self._model_dir(self._starting_agent(self._initial_env_policy()))

    # ------------------------------------------------------------------ held-out evaluation
    @contextlib.contextmanager
    def _heldout_servers(self) -> Iterator[dict[str, str]]:
        """{env: url} of the held-out envs' servers (the main process evaluates): the configured
        URLs, and local subprocesses for the rest, stopped when the run ends."""
        cfg = self.config
        if not cfg.heldout or not self.state.is_main_process:
            yield {}
            return
        from coevo.client.launcher import launch_local

        envs = sorted({s.env for s in parse_splits(cfg.heldout, cfg.heldout_n)} - set(cfg.heldout_urls))
        with launch_local(envs, log_dir=str(self.out)) as started:
            yield {**cfg.heldout_urls, **started}

    def _agent_heldout(self, simulator: Simulator) -> AgentHeldout | None:
        cfg = self.config
        if not self._heldout_urls:
            return None
        from coevo.genenv.agent_prompts import AgentPrompts

        head = AgentPrompts(cfg, simulator).head("function_calling")
        return AgentHeldout.for_run(cfg, self._heldout_urls, [Message(role=m["role"], content=m["content"]) for m in head])  # type: ignore[typeddict-item]

    def _score_heldout(self, heldout: AgentHeldout, arm: str, epoch: int, model_dir: str | Path) -> None:
        """Held-out rows of one agent: the file heldout/ARM-epoch-NNN.json (per-task outcomes and
        task lists, for paired comparisons) and one metrics row per split. Epoch -1 is the
        starting agent, scored once for all arms."""
        t0 = time.time()
        cached = self.out / "heldout" / "start.json"
        if epoch < 0 and cached.exists():
            result = HeldoutResult.load(cached)
        else:
            result = heldout.evaluate(model_dir)
            target = cached if epoch < 0 else self.out / "heldout" / f"{arm}-epoch-{epoch:03d}.json"
            result.save(target, arm=arm, epoch=epoch, model=str(model_dir))
        for row in result.rows:
            self._write_metrics({"kind": "heldout", "arm": arm, "epoch": epoch, **row.metrics()})
            log.info("%s epoch %d held-out %s:%s: %.3f [%.3f, %.3f] of %d (%.0fs)", arm, epoch, row.env, row.split,
                     row.success_rate, row.ci95_low, row.ci95_high, row.n, time.time() - t0)

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
            self._forget_metrics(arm, start)
        heldout = self._agent_heldout(simulator) if self.state.is_main_process else None
        if heldout is not None and not any(r["arm"] == arm and r["epoch"] < 0 for r in self.heldout_metrics()):
            self._score_heldout(heldout, arm, -1, self._model_dir(agent_model))
        try:
            if arm == "static" and "static_pool" not in state:
                state["static_pool"] = self._static_pool(simulator)
                if self.state.is_main_process:
                    self._save_arm_state(arm, state)
            for epoch in range(start, cfg.epochs):
                t0 = time.time()
                threads = self.cpu_threads.choose()
                batch = self._shared_batch(arm, epoch, simulator, state)
                # No valid task this epoch (an LLM simulator can fail the gate): nothing to learn
                # from, but the epoch and its validity rate are still recorded.
                sampled, trained = self._rollouts(agent, epoch, batch)
                row = self._after_rollouts(arm, epoch, batch, sampled, trained, simulator, state, policy_path)
                policy_path = Path(state.get("policy_path") or policy_path)
                row["elapsed_s"] = round(time.time() - t0, 1)
                row["cpu_threads"] = threads
                if self.state.is_main_process:
                    tmp = arm_dir / "agent.tmp"
                    shutil.rmtree(tmp, ignore_errors=True)
                    agent.save(tmp, optimizer=cfg.save_optimizer)
                    shutil.rmtree(arm_dir / "agent", ignore_errors=True)
                    tmp.replace(arm_dir / "agent")
                    if heldout is not None:
                        self._score_heldout(heldout, arm, epoch, arm_dir / "agent")
                    self._write_metrics(row)
                    state["epochs_done"] = epoch + 1  # the commit point of the epoch
                    self._save_arm_state(arm, state)
                    log.info("%s epoch %d: %s", arm, epoch, {k: row[k] for k in (
                        "success_rate", "in_band_fraction", "mean_r_env", "validity_rate")})
                    if self.on_epoch:
                        self.on_epoch(row)
                self.state.wait_for_everyone()
        finally:
            simulator.close()
            del agent

    # ------------------------------------------------------------------ steps of an epoch
    def _static_pool(self, simulator: Simulator) -> dict[str, Any]:
        """The static-augmentation pool: static_pool_epochs x tasks_per_epoch tasks generated once
        by the initial simulator, then fixed (kept in the arm's state, so a resumed run reuses it)."""
        batch = simulator.generate(self.config.static_pool_size, _epoch_seed(self.config.seed, STATIC_POOL_EPOCH))
        return {
            "tasks": [vars(t) for t in batch.tasks],
            "attempts": batch.attempts, "valid": batch.valid, "policy_version": batch.policy_version,
        }

    def _shared_batch(self, arm: str, epoch: int, simulator: Simulator, state: dict[str, Any]) -> TaskBatch:
        """The epoch's tasks, drawn once by the main process and sent to the others (under
        `accelerate launch`), so every GPU trains on the same batch and each task is
        generated and recorded once."""
        if self.state.num_processes == 1:
            return self._batch(arm, epoch, simulator, state)
        from accelerate.utils import broadcast_object_list

        box = [self._batch(arm, epoch, simulator, state) if self.state.is_main_process else None]
        broadcast_object_list(box)
        batch = box[0]
        assert batch is not None  # the main process filled the box
        return batch

    def _batch(self, arm: str, epoch: int, simulator: Simulator, state: dict[str, Any]) -> TaskBatch:
        """The epoch's tasks: fresh ones (generated by pi_env, or drawn from the static pool) and
        those replayed from D_train (`replay_fraction`: past tasks of the arm, see
        Pools.replay_tasks; `replay_base_fraction`: base tasks). The replayed take their share of
        the epoch's GRPO tasks: under Algorithm 1 that many fewer fresh tasks are drawn."""
        cfg = self.config
        past_quota, base_quota = self._replay_quota()
        past = self.pools.replay_tasks(arm, epoch) if past_quota else []
        base = simulator.base_tasks(base_quota, _epoch_seed(cfg.seed, epoch)) if base_quota else []
        replayed = min(past_quota, len(past)) + len(base)
        fresh = cfg.tasks_per_epoch - (replayed if cfg.grpo_tasks_per_epoch <= 0 else 0)
        batch = self._fresh_batch(arm, epoch, simulator, state, fresh)
        taken = {t.task_id for t in batch.tasks}  # a task is trained on once an epoch
        batch.replayed_base = [t for t in base if t.task_id not in taken]
        taken |= {t.task_id for t in batch.replayed_base}
        batch.replayed = [t for t in past if t.task_id not in taken][:past_quota]
        return batch

    def _replay_quota(self) -> tuple[int, int]:
        """How many of an epoch's GRPO tasks may be past tasks and base tasks replayed from
        D_train: their shares of the GRPO tasks, rounded, leaving at least one for a fresh task."""
        cfg = self.config
        budget = cfg.grpo_tasks_per_epoch if cfg.grpo_tasks_per_epoch > 0 else cfg.tasks_per_epoch
        past = min(int(cfg.replay_fraction * budget + 0.5), budget - 1)
        base = min(int(cfg.replay_base_fraction * budget + 0.5), budget - 1 - past)
        return past, base

    def _fresh_batch(self, arm: str, epoch: int, simulator: Simulator, state: dict[str, Any], count: int) -> TaskBatch:
        """`count` tasks new to the epoch: generated by pi_env, or drawn from the static pool."""
        cfg = self.config
        if arm == "static":
            pool = state["static_pool"]
            tasks = [BatchTask(**t) for t in pool["tasks"]]
            rng = random.Random(f"static:{cfg.seed}:{epoch}")
            chosen = rng.sample(tasks, min(count, len(tasks)))
            return TaskBatch(chosen, pool["attempts"], pool["valid"], pool["policy_version"])
        if cfg.env_backend == "llm" and state.get("last_success") is not None:
            simulator.set_context({"agent_success": state["last_success"], "target_success": cfg.alpha})
        return simulator.generate(count, _epoch_seed(cfg.seed, epoch))

    def _rollouts(self, agent: Agent, epoch: int, batch: TaskBatch) -> tuple[list[Trace], list[Trace]]:
        """The epoch's rollouts: (the traces p_hat is estimated from, GRPO's traces). Algorithm 1
        (grpo_tasks_per_epoch 0): GRPO on every task, fresh and replayed, and its groups are the
        p_hat sample. Dynamic sampling: a sampling pass over every fresh task gives p_hat before
        any training on them (so it is not biased by the selection), then GRPO trains on the
        replayed tasks and, for the rest of grpo_tasks_per_epoch, the learnable fresh tasks nearest
        alpha."""
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
        chosen = curriculum.learnable_first([by_task[t.task_id] for t in unique], limit, cfg.alpha)
        grpo = [*(unique[i] for i in chosen), *replayed]
        return sampled, agent.train_epoch(grpo) if grpo else []

    def _sampling_pass(self, agent: Agent, epoch: int, tasks: Sequence[BatchTask]) -> list[Trace]:
        """Dynamic sampling's pass: a group per task, no training."""
        if not tasks:
            return []
        t0 = time.time()
        sampled = agent.sample(tasks, _epoch_seed(self.config.seed, epoch))
        log.info("epoch %d: sampled %d completions in %.1f s", epoch, len(sampled), time.time() - t0)
        return sampled

    def _after_rollouts(
        self, arm: str, epoch: int, batch: TaskBatch, traces: list[Trace], trained: list[Trace],
        simulator: Simulator, state: dict[str, Any], policy_path: Path,
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
            "arm": arm, "epoch": epoch,
            "success_rate": float(ps.mean()) if len(ps) else 0.0,
            "in_band_fraction": float(np.mean([s.in_band for s in samples])) if samples else 0.0,
            "mean_r_env": float(np.mean([s.r_env for s in samples])) if samples else 0.0,
            "validity_rate": batch.validity_rate,
            "tasks": len(samples), "rollouts": len(traces) + (len(trained) if dynamic else 0),
            "grpo_tasks": len({t.task_id for t in trained}), "policy_version": batch.policy_version,
            "replayed_tasks": len(batch.replayed) + len(batch.replayed_base),
            "replayed_base_tasks": len(batch.replayed_base),
        }
        state["last_success"] = row["success_rate"]
        if self.state.is_main_process:
            self._record_pools(arm, epoch, batch, shown, traces if dynamic else [], trained)
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
            shown.append((task, EnvSample(
                task.task_id, task.context, task.output, p, len(rewards),
                float(curriculum.r_env(p, cfg.alpha, cfg.beta)), curriculum.in_band(p, cfg.alpha, cfg.k_min),
            )))
        return shown

    def _record_pools(self, arm: str, epoch: int, batch: TaskBatch, shown: Sequence[tuple[BatchTask, EnvSample]],
                      sampled: list[Trace], trained: list[Trace]) -> None:
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
        at, weights, scale = curriculum.rwr_fit([r.r_env for r in window], [r.in_band for r in window],
                                                cfg.env_rwr_average, cfg.rwr_lambda)
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
            from coevo.envs.simulator.policies.llm import TASK_HEADER
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
            return {"samples": 0, "skipped": "no task in the window" if cfg.env_rwr_average == "soft_band"
                    else "no task in band"}
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

