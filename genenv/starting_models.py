"""The models a GenEnv run starts from, each made once per output directory and shared by every
arm: pi_env at epoch 0 (the uniform knob distribution, or the LLM simulator after its optional
warm-up SFT) and the starting agent (`agent_model`, or that model after the SFT warm-up on gold
answers of generated tasks), with model names resolved to local directories."""

from __future__ import annotations

import json
import logging
import random
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from coevo.genenv.batches import WARMUP_EPOCH, epoch_seed
from coevo.genenv.config import GenEnvConfig
from coevo.genenv.simulator import Simulator

log = logging.getLogger(__name__)

#: LLM warm-up: example sets shown per target task.
WARMUP_CONTEXTS_PER_TASK = 4


class StartingModels:
    def __init__(
        self, config: GenEnvConfig, out: Path, state: Any, simulator: Callable[[str, Path], Simulator]
    ) -> None:
        """`state`: accelerate's PartialState (the main process writes, the others wait);
        `simulator(arm, policy_path)`: the run's simulator, which the agent warm-up draws tasks from."""
        self.config, self.out, self.state, self.simulator = config, out, state, simulator

    def _texts_for_tiny_model(self) -> list[str]:
        """A tiny model's tokenizer is trained on what it will read: base tasks and prompts."""
        from coevo.simulator.tasks import build_base_pool
        from coevo.simulator.families import family_names
        from coevo.simulator.policies.llm import build_messages, render_example

        sources = self.config.families if self.config.env_backend == "parametric" else self.config.base_sources
        pool, _ = build_base_pool([s for s in sources if s in family_names()], 32, self.config.seed)
        texts = [render_example(t) for t in pool]
        texts += [
            m["content"]
            for t in pool[:4]
            for m in build_messages([t], self.config.curriculum_context(agent_success=0.3))
        ]
        return texts + [self.config.agent_system_prompt]

    def model_dir(self, spec: str) -> str:
        from coevo.models.checkpoints import resolve_model

        texts = self._texts_for_tiny_model() if spec == "tiny" else []
        return str(resolve_model(spec, self.out / "tiny-model", corpus=texts, seed=self.config.seed))

    def initial_env_policy(self) -> Path:
        """pi_env at epoch 0, shared by every arm: the uniform knob distribution, or the LLM
        simulator after its optional warm-up SFT."""
        cfg = self.config
        if cfg.env_backend == "parametric":
            from coevo.simulator.policies.parametric import ParametricPolicy

            path = self.out / "env_policy_initial.json"
            if not path.exists() and self.state.is_main_process:
                ParametricPolicy(list(cfg.families)).save(path)
            self.state.wait_for_everyone()
            return path
        if cfg.llm_endpoint:
            return Path(str(cfg.env_model))

        def make(partial: Path) -> None:
            source = self.model_dir(str(cfg.env_model))
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
        from coevo.simulator.tasks import build_base_pool
        from coevo.simulator.policies.llm import TASK_HEADER, build_messages, render_example
        from coevo.genenv.env_update import LLMExample, update_llm

        cfg = self.config
        pool, _ = build_base_pool(list(cfg.base_sources), cfg.base_size, cfg.seed)
        rng = random.Random(cfg.seed)
        examples = []
        for task in pool:
            others = [t for t in pool if t.family == task.family and t.task_id != task.task_id]
            output = render_example(task)[len(TASK_HEADER) :]
            # Several example sets and difficulty contexts per target: the task written must
            # not hinge on which examples were shown, only on their kind, and the prompts the
            # loop will send (with the agent's success rate) must not be new to the model.
            for i in range(WARMUP_CONTEXTS_PER_TASK):
                shown = rng.sample(others, min(cfg.llm_examples, len(others)))
                context = cfg.curriculum_context(agent_success=None if i == 0 else rng.random())
                examples.append(LLMExample(build_messages(shown, context), output, 1.0))
        stats = update_llm(
            source,
            None,
            target,
            examples,
            lr=cfg.env_warmup_lr,
            steps=cfg.env_warmup_steps,
            batch_size=cfg.env_batch_size,
            kl_coef=0.0,
            kl_cap=float("inf"),
            prefix=TASK_HEADER,
            seed=cfg.seed,
        )
        log.info("LLM simulator warm-up: %s", stats)

    def starting_agent(self, initial_policy: Path) -> str:
        """The model every arm starts from (and GRPO's KL reference): `agent_model`, or with
        `agent_warmup_steps` that model after SFT on gold answers of tasks the initial simulator
        generated (see coevo.genenv.agent_warmup), made once and reused on resume."""
        cfg = self.config
        if cfg.agent_warmup_steps == 0:
            return cfg.agent_model

        def make(partial: Path) -> None:
            from coevo.genenv.agent_warmup import warm_up_agent

            t0 = time.time()
            simulator = self.simulator(cfg.arms[0], initial_policy)
            try:
                stats = warm_up_agent(
                    self.model_dir(cfg.agent_model), partial, simulator, cfg, epoch_seed(cfg.seed, WARMUP_EPOCH)
                )
            finally:
                simulator.close()
            stats["elapsed_s"] = round(time.time() - t0, 1)
            log.info("agent warm-up: %s", stats)
            if self.state.is_main_process:
                (partial / "warmup.json").write_text(json.dumps(stats, indent=1))

        return str(self._model_once(self.out / "agent_warmup", make))
