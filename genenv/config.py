"""GenEnv run configuration: one dataclass, named presets, `key=value` overrides.

Paper settings (Guo et al. 2025): AdamW, agent lr 1e-6, environment lr 5e-7, batch 64,
10 epochs; public config: GRPO group 8, KL 0.001, alpha 0.5, beta 2.0, k_min 0.1. The presets
for small CPU runs change what a 135M model on two cores needs, and say so.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from coevo.genenv.curriculum import RWR_AVERAGES
from coevo.hardware import SETTINGS as BF16_SETTINGS

ARMS = ("genenv", "random", "static")


@dataclass
class GenEnvConfig:
    # ---------------------------------------------------------------- run
    output_dir: str = "runs/genenv"
    #: Which arms to run, in order: genenv (pi_env trained by RWR), random (pi_env frozen),
    #: static (a fixed pool of generated tasks, reused every epoch).
    arms: tuple[str, ...] = ARMS
    epochs: int = 10
    #: Tasks generated per epoch (the paper's batch).
    tasks_per_epoch: int = 64
    seed: int = 0
    #: SQL store for generated tasks and the pools; None: a SQLite file in output_dir.
    db_url: str | None = None
    #: Under several processes: how long one may wait for the others at a collective (the main
    #: process alone generates tasks, scores held-out splits and saves, which takes long at scale).
    dist_timeout_s: float = 10800.0
    # ---------------------------------------------------------------- alpha-curriculum
    alpha: float = 0.5
    beta: float = 2.0
    k_min: float = 0.1
    #: The RWR weights' inverse temperature: weights ~ exp(rwr_lambda * R_env). Inside the band
    #: R_env lies within 0.02 of its peak, so at 1 every in-band task weighed the same to 2% and
    #: beta and alpha barely shaped the update; at 10 a task at the band's edge weighs 0.82 of one
    #: at alpha, one at |p_hat - alpha| = 0.3 (soft_band) 0.19 (see coevo.genenv.curriculum).
    rwr_lambda: float = 10.0
    #: D_env epochs used by each environment update (0: the whole pool so far). A short window
    #: fits the current agent's in-band tasks; the whole pool keeps pulling toward the easy
    #: tasks a weak early agent could solve long after it has outgrown them.
    env_pool_window: int = 2
    #: What the RWR log-likelihood is averaged over. "in_band": the in-band samples (their
    #: weights normalised to sum 1, so one lucky task pulls as hard as twenty); "generated":
    #: every task generated in the window, out-of-band ones weighing 0 (the Monte-Carlo estimate
    #: of E_{task ~ pi_env}[w log pi_env]), so the pull grows with the share of tasks in band
    #: and the KL penalty holds pi_env when few land there; "soft_band": like "generated" but over
    #: every task of the window, each weighted by exp(rwr_lambda (R_env - 1)), with no hard cut at
    #: k_min (a task just outside the band still counts a little).
    env_rwr_average: str = "in_band"
    # ---------------------------------------------------------------- agent (GRPO via TRL)
    #: "smollm2-135m" (packaged SmolLM2-135M-Instruct), "tiny", or a local model directory.
    agent_model: str = "smollm2-135m"
    agent_lr: float = 1e-6
    #: GRPO group size: completions per task, which also give p_hat.
    group_size: int = 8
    #: Tasks per GRPO optimizer step (the step's batch is tasks_per_step x group_size
    #: completions); more per step means fewer, larger steps and batched generation.
    tasks_per_step: int = 1
    #: 0: GRPO on every task of the epoch's batch, its groups giving p_hat (Algorithm 1). > 0:
    #: a sampling pass draws group_size completions for every task first, without training
    #: (p_hat, R_env, D_env and the metrics come from it), then GRPO trains on at most this many
    #: tasks whose group had unequal rewards, those with p_hat nearest alpha first (dynamic
    #: sampling, as in DAPO): a group of equal rewards has zero advantage, so GRPO learns
    #: nothing from it, and generation alone costs a fraction of a GRPO step per completion.
    grpo_tasks_per_epoch: int = 0
    kl_beta: float = 0.001
    temperature: float = 1.0
    max_completion_length: int = 64
    agent_system_prompt: str = (
        "Answer with exactly one reply and nothing else: one function call such as "
        "name(arg=\"value\"), one action, or a short answer."
    )
    #: Show one solved base task of the same family as a previous chat turn (one-shot).
    agent_demo: bool = True
    #: SFT warm-up of the agent before co-evolution (0 steps: none): AdamW steps on the gold
    #: answers of tasks the initial simulator generates on a seed stream of their own, in the
    #: prompts GRPO will show, loss on the answer. Every arm starts from the warmed model, which
    #: is also GRPO's KL reference; it is made once per output directory.
    agent_warmup_steps: int = 0
    agent_warmup_lr: float = 5e-5
    agent_warmup_tasks: int = 64
    agent_warmup_batch_size: int = 8
    #: "auto": vLLM for agent generation when it is installed and a GPU is present.
    use_vllm: str = "auto"
    #: Engine of the sampling pass (grpo_tasks_per_epoch > 0) and of held-out scoring: "auto"
    #: (GRPO's colocated vLLM engine when GRPO generates on vLLM; llama.cpp on a CPU host where it
    #: is installed; each with the weights synced before every pass; else GRPO's model through
    #: transformers), "vllm", "llamacpp", "transformers" (genenv.agent.sample_engine).
    sample_backend: str = "auto"
    #: torch CPU threads; 0: chosen before every epoch: all cores, or one while other processes
    #: keep half the cores busy (two OpenMP threads on a busy 2-core box run 2-20x slower than one).
    cpu_threads: int = 0
    #: bf16 mixed precision for the agent: "auto" (a GPU with bf16, or a CPU with AMX, where it
    #: is several times faster), "true", "false". Weights and optimizer state stay fp32.
    bf16: str = "auto"
    #: Activation checkpointing for the agent (saves GPU memory; only costs time on CPU).
    gradient_checkpointing: bool = False
    #: TRL's GRPO loss normalisation ("grpo": per sequence, as in the GRPO paper).
    loss_type: str = "grpo"
    #: Keep AdamW state in checkpoints (exact resume; twice the model size on disk).
    save_optimizer: bool = True
    # ---------------------------------------------------------------- D_train replay
    #: Share of each epoch's GRPO tasks replayed from this arm's D_train: past tasks whose group
    #: had unequal rewards (0 < p_hat < 1), the latest epoch first and nearest alpha first within
    #: it (GenEnvTrainer._batch). They take that share of the GRPO tasks rather than adding to
    #: them: under Algorithm 1 pi_env generates that many fewer tasks, with dynamic sampling GRPO
    #: trains on that many fewer fresh ones. Their rollouts go to D_train (source "replay"), not
    #: to D_env or the epoch's metrics. None in the first epoch (nothing to replay yet).
    replay_fraction: float = 0.0
    #: Share of each epoch's GRPO tasks drawn from the simulator's base tasks (the data the
    #: paper's D_train starts from), a seeded sample per epoch, the same for every arm.
    replay_base_fraction: float = 0.0
    # ---------------------------------------------------------------- environment policy
    #: "parametric" (knob distribution) or "llm".
    env_backend: str = "parametric"
    families: tuple[str, ...] = ("function_calling",)
    #: Base-task sources for the LLM policy's examples (families and env names).
    base_sources: tuple[str, ...] = ("function_calling", "bfcl", "alfworld")
    base_size: int = 64
    #: Parametric RWR: gradient steps on the weighted log-likelihood per update and their size.
    param_lr: float = 0.5
    param_steps: int = 50
    #: LLM RWR: AdamW learning rate and steps per update (weighted SFT).
    env_lr: float = 5e-7
    env_update_steps: int = 8
    env_batch_size: int = 8
    #: KL(pi_env || initial simulator) penalty, and the cap on how far one update may move.
    #: Strong enough that a handful of in-band samples cannot collapse pi_env onto their knobs
    #: (at 0.05 and a cap of 0.5 it reached 0.99 on the easiest setting of every knob and drew
    #: harder tasks under 1% of the time, so it could not follow an improving agent).
    env_kl_coef: float = 0.3
    env_kl_cap: float = 0.3
    #: LLM policy: model ("tiny", a local directory, or the served name with llm_endpoint).
    env_model: str | None = None
    llm_endpoint: str | None = None
    llm_temperature: float = 0.8
    #: Base tasks shown to the LLM policy per generation.
    llm_examples: int = 2
    llm_max_new_tokens: int = 200
    #: LLM update at GPU scale: the weights' dtype ("auto": bf16 on a CUDA GPU with bf16, else
    #: fp32), where the frozen KL reference lives ("auto": beside the model when the card has room
    #: for it, else offloaded to CPU memory layer by layer; "device"; "cpu_offload"), and
    #: activation checkpointing (a 7B update on one 80 GB card needs all three; docs/genenv.md).
    env_dtype: str = "auto"
    env_reference: str = "auto"
    env_gradient_checkpointing: bool = False
    #: Plain SFT steps on base tasks before co-evolution (teaches a fresh LLM the task format).
    env_warmup_steps: int = 0
    env_warmup_lr: float = 1e-3
    # ---------------------------------------------------------------- baselines
    #: Static augmentation: the fixed pool the initial simulator generates once holds this many
    #: epochs' worth of tasks (round(static_pool_epochs * tasks_per_epoch)); every epoch draws
    #: its batch from it. See docs/genenv.md on how this differs from the paper's baseline.
    static_pool_epochs: float = 4.0
    # ---------------------------------------------------------------- held-out evaluation
    #: Real benchmark splits the agent is scored on, before training and after every epoch of
    #: every arm, as ENV:SPLIT[:N] (e.g. bfcl:simple_python:100); empty: none. The task lists
    #: are fixed by `seed`; tasks are shown as simulator tasks (see coevo.genenv.heldout).
    heldout: tuple[str, ...] = ()
    #: Tasks per held-out split when an entry gives no N (0: the whole split).
    heldout_n: int = 100
    #: env -> base URL of its server; envs not listed here are served by local subprocesses.
    heldout_urls: dict[str, str] = field(default_factory=dict)
    # ---------------------------------------------------------------- remote simulators
    #: arm -> URL of a `coevo serve simulator --admin-token ...` server (else in-process).
    simulator_urls: dict[str, str] = field(default_factory=dict)
    admin_token: str | None = None

    def validated(self) -> GenEnvConfig:
        unknown = set(self.arms) - set(ARMS)
        if unknown or not self.arms:
            raise ValueError(f"arms must be among {ARMS}, got {self.arms}")
        if self.group_size < 2:
            raise ValueError("GRPO needs a group of at least 2 completions per task")
        if self.tasks_per_step < 1:
            raise ValueError("tasks_per_step must be at least 1")
        if self.grpo_tasks_per_epoch < 0:
            raise ValueError("grpo_tasks_per_epoch must be >= 0 (0: GRPO on every task)")
        if self.agent_warmup_steps < 0 or self.agent_warmup_tasks < 1 or self.agent_warmup_batch_size < 1:
            raise ValueError("agent_warmup_steps must be >= 0, agent_warmup_tasks and agent_warmup_batch_size >= 1")
        if self.bf16 not in BF16_SETTINGS:
            raise ValueError(f"bf16 is one of {', '.join(BF16_SETTINGS)}")
        from coevo.client.policies.factory import BACKENDS

        if self.sample_backend not in BACKENDS:
            raise ValueError(f"sample_backend is one of {', '.join(BACKENDS)}")
        from coevo.genenv.env_update import DTYPES, REFERENCE_PLACEMENTS

        if self.env_dtype not in DTYPES or self.env_reference not in REFERENCE_PLACEMENTS:
            raise ValueError(f"env_dtype is one of {', '.join(DTYPES)}; env_reference one of {', '.join(REFERENCE_PLACEMENTS)}")
        if not self.dist_timeout_s > 0:
            raise ValueError("dist_timeout_s must be > 0")
        if self.env_rwr_average not in RWR_AVERAGES:
            raise ValueError(f"env_rwr_average is one of {', '.join(RWR_AVERAGES)}")
        if self.env_backend not in ("parametric", "llm"):
            raise ValueError("env_backend is parametric or llm")
        if self.env_backend == "llm" and not (self.env_model or self.llm_endpoint):
            raise ValueError("the llm backend needs env_model (a model directory or 'tiny')")
        if not 0 < self.alpha < 1 or self.k_min < 0 or self.beta <= 0:
            raise ValueError("need 0 < alpha < 1, k_min >= 0, beta > 0")
        if self.epochs < 1 or self.tasks_per_epoch < 1:
            raise ValueError("epochs and tasks_per_epoch must be positive")
        if self.rwr_lambda < 0:
            raise ValueError("rwr_lambda must be >= 0 (0: every kept task weighs the same)")
        self._check_replay()
        if not self.static_pool_epochs > 0:
            raise ValueError("static_pool_epochs must be > 0")
        if self.heldout_n < 0:
            raise ValueError("heldout_n must be >= 0 (0: every task of the split)")
        from coevo.client.heldout import HeldoutSplit

        for item in self.heldout:
            HeldoutSplit.parse(item, self.heldout_n)  # raises ValueError naming the entry
        return self

    def _check_replay(self) -> None:
        for name in ("replay_fraction", "replay_base_fraction"):
            if not 0 <= getattr(self, name) < 1:
                raise ValueError(f"{name} must be in [0, 1)")
        if self.replay_fraction + self.replay_base_fraction >= 1:
            raise ValueError("replay_fraction + replay_base_fraction must be below 1: an epoch needs fresh tasks")

    @property
    def static_pool_size(self) -> int:
        """Tasks in the static-augmentation pool."""
        return max(1, round(self.static_pool_epochs * self.tasks_per_epoch))

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["admin_token"] = None  # never written to disk
        return data

    def with_overrides(self, overrides: dict[str, str]) -> GenEnvConfig:
        return dataclasses.replace(self, **{k: parse_value(self, k, v) for k, v in overrides.items()})


def parse_value(config: GenEnvConfig, key: str, raw: str) -> Any:
    """A `--set key=value` string as the field's type."""
    types = {f.name: f for f in fields(config)}
    if key not in types:
        raise KeyError(f"unknown config field {key!r}; fields: {', '.join(sorted(types))}")
    current = getattr(config, key)
    if isinstance(current, bool):
        if raw.lower() not in ("true", "false", "1", "0", "yes", "no"):
            raise ValueError(f"{key} must be true or false")
        return raw.lower() in ("true", "1", "yes")
    if isinstance(current, tuple):
        return tuple(v.strip() for v in raw.split(",") if v.strip())
    if isinstance(current, dict):
        pairs = [p.split("=", 1) if "=" in p else p.split(":", 1) for p in raw.split(",") if p.strip()]
        return {k.strip(): v.strip() for k, v in pairs}
    if isinstance(current, int) and not isinstance(current, bool):
        return int(raw)
    if isinstance(current, float):
        return float(raw)
    if current is None:
        if raw.lower() == "none":
            return None
        for cast in (int, float):
            try:
                return cast(raw)
            except ValueError:
                pass
        return raw
    return raw


PRESETS: dict[str, dict[str, Any]] = {
    # The paper's settings (GPU scale), with its LLM environment policy: set agent_model and
    # env_model to the model directories (the paper starts both from one instruction model).
    "paper": {"env_backend": "llm", "env_model": "smollm2-135m"},
    # SmolLM2-135M on two CPU cores, parametric pi_env over two task families: GenEnv beside
    # GenEnv-Random in under an hour (add the static arm with --set arms=genenv,random,static).
    # Differences from the paper, all for a 135M model on a CPU budget: 48 tasks per epoch and 6
    # epochs (not 64 and 10); dynamic sampling: p_hat from a sampling pass over the 48 tasks, GRPO
    # on the 8 learnable ones nearest alpha (on 2 AVX2 cores in fp32 a sampled completion costs 0.5 s
    # and a GRPO one 2.9 s, and 62-83% of GRPO groups had equal rewards: GRPO on 30 tasks an epoch
    # would need about 87 minutes there); a group of 5 (not 8), so that p_hat can land in the band
    # at 0.4 and 0.6 (of 8 rollouts only 4/8 is in band), two tasks a GRPO step (10 completions);
    # sampling temperature 0.7 (at 1.0 SmolLM2-135M rarely writes a well-formed call even for the
    # easiest tasks); agent lr 1e-5 (1e-6 moves a 135M model nowhere in 90 steps); 10 SFT warm-up
    # steps on gold answers before GRPO (about 2 minutes): SmolLM2-135M writes no right call at
    # first (0 of 200 completions, so no GRPO group has a signal). No one-shot demo once the warm-up
    # teaches the format: prompts 41% shorter, and before training outcomes less all-or-nothing (44%
    # of tasks at p_hat 0 or 1 over 8 samples, against 64% with the demo; GRPO sharpens them back to
    # 62-83% within the run). 32-token answers: 20 cut off long three-argument calls. Arithmetic
    # beside function calling: a task type this agent can barely do, which pi_env has to learn to
    # avoid or pitch at its easiest (the warmed agent's success: function calling 0.37, arithmetic
    # 0.01). Measured runs and what they show: docs/genenv.md.
    "cpu-demo": {
        "arms": ("genenv", "random"),
        "agent_model": "smollm2-135m",
        "env_backend": "parametric",
        "epochs": 6,
        "families": ("function_calling", "arithmetic"),
        "tasks_per_epoch": 48,
        "grpo_tasks_per_epoch": 8,
        "group_size": 5,
        "tasks_per_step": 2,
        "temperature": 0.7,
        "max_completion_length": 32,
        "agent_demo": False,
        "agent_lr": 1e-5,
        "agent_warmup_steps": 10,
        # pi_env's pull scales with the share of generated tasks in band (one in-band task
        # out of 40 no longer decides it), so a weaker KL anchor is enough; see docs/genenv.md.
        "env_rwr_average": "generated",
        "env_kl_coef": 0.05,
        # With a group of 5 the in-band p_hat are 0.4 and 0.6, equally far from alpha, so lambda
        # only scales the band mass here; 1 keeps the scale runs 11-14 were measured with (in the
        # curriculum bench lambda 10 ended above Random in 90% of seeds against 92.5%).
        "rwr_lambda": 1.0,
        "base_size": 32,
        "save_optimizer": False,
    },
    # Seconds: a tiny random agent, the whole loop, every arm.
    "ci": {
        "agent_model": "tiny",
        "env_backend": "parametric",
        "epochs": 2,
        "tasks_per_epoch": 3,
        "group_size": 2,
        "max_completion_length": 6,
        "agent_lr": 1e-4,
        "base_size": 8,
        "param_steps": 10,
        # Held-out rows in seconds: a few official BFCL tasks, scored like every real run's.
        "heldout": ("bfcl:simple_python:3", "bfcl:multiple:2"),
    },
}


def preset(name: str, **overrides: Any) -> GenEnvConfig:
    try:
        values = PRESETS[name]
    except KeyError:
        raise KeyError(f"unknown preset {name!r}; presets: {', '.join(PRESETS)}") from None
    return GenEnvConfig(**{**values, **overrides}).validated()


def load_config(path: str | Path) -> GenEnvConfig:
    data = json.loads(Path(path).read_text())
    data["arms"] = tuple(data["arms"])
    data["families"] = tuple(data["families"])
    data["base_sources"] = tuple(data["base_sources"])
    if "static_pool_size" in data:  # written before static_pool_epochs
        data["static_pool_epochs"] = data.pop("static_pool_size") / data["tasks_per_epoch"]
    data["heldout"] = tuple(data.get("heldout", ()))
    return GenEnvConfig(**data)
