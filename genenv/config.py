"""GenEnv run configuration: one dataclass on the trainers' config base (coevo.trainer_config:
every field documented, checks in __post_init__, `--field value` flags generated from the class)
and named presets.

Paper settings (Guo et al. 2025): AdamW, agent lr 1e-6, environment lr 5e-7, batch 64,
10 epochs; public config: GRPO group 8, KL 0.001, alpha 0.5, beta 2.0, k_min 0.1. The presets
for small CPU runs change what a 135M model on two cores needs, and say so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from coevo.genenv import curriculum
from coevo.genenv.curriculum import BASELINE_SELECTIONS, RWR_AVERAGES
from coevo.hardware import SETTINGS as BF16_SETTINGS
from coevo.simulator.curriculum_context import ALPHA, BAND, BETA, LAMBDA, CurriculumContext

#: The config's name of each curriculum contract field.
CONTRACT_FIELDS = {"alpha": "alpha", "band": "k_min", "beta": "beta", "lam": "rwr_lambda"}
from coevo.trainer_config import TrainerConfig

#: The arms whose tasks come from the simulator (the default arms of a run).
SIMULATOR_ARMS = ("genenv", "random", "static")
#: The real-task arms: a real env's train split, by the alpha-curriculum or uniformly
#: (coevo.genenv.real_tasks).
REAL_ARMS = ("real", "real-uniform")
#: The arms whose task source follows the alpha-curriculum; under dynamic sampling they also keep
#: the learnable tasks nearest alpha (the others as drawn, unless baseline_selection says alpha).
CURRICULUM_ARMS = ("genenv", "real")
ARMS = SIMULATOR_ARMS + REAL_ARMS


@dataclass
class GenEnvConfig(TrainerConfig):
    #: `--simulator-url ARM=URL` (repeatable): one entry of simulator_urls.
    ALIASES = {"simulator_url": "simulator_urls"}

    # ---------------------------------------------------------------- run
    output_dir: str = field(
        default="runs/genenv",
        metadata={"help": "Checkpoints, pools, metrics.jsonl and the plot; re-running resumes it"},
    )
    arms: tuple[str, ...] = field(
        default=SIMULATOR_ARMS,
        metadata={
            "help": "Which arms to run, in order: genenv (pi_env trained by RWR), random (pi_env frozen), static (a "
            "fixed pool of generated tasks, reused every epoch), real (a real env's train split, chosen by the "
            "alpha-curriculum over the server's per-task statistics), real-uniform (the same split, uniformly)."
        },
    )
    epochs: int = field(default=10, metadata={"help": "Co-evolution epochs per arm"})
    tasks_per_epoch: int = field(default=64, metadata={"help": "Tasks generated per epoch (the paper's batch)."})
    seed: int = field(default=0, metadata={"help": "Seed of task generation, sampling and training"})
    db_url: str | None = field(
        default=None,
        metadata={"help": "SQL store for generated tasks and the pools; None: a SQLite file in output_dir."},
    )
    dist_timeout_s: float = field(
        default=10800.0,
        metadata={
            "help": "Under several processes: how long one may wait for the others at a collective (the main "
            "process alone generates tasks, scores held-out splits and saves, which takes long at scale)."
        },
    )
    # ---------------------------------------------------------------- alpha-curriculum
    alpha: float = field(default=ALPHA, metadata={"help": "The target success rate the curriculum aims tasks at"})
    beta: float = field(default=BETA, metadata={"help": "Sharpness of R_env = exp(-beta (p_hat - alpha)^2)"})
    k_min: float = field(
        default=BAND,
        metadata={
            "help": "Half-width of the band around alpha: tasks with |p_hat - alpha| > k_min are excluded from RWR"
        },
    )
    rwr_lambda: float = field(
        default=LAMBDA,
        metadata={
            "help": "The RWR weights' inverse temperature: weights ~ exp(rwr_lambda * R_env). Inside the band R_env "
            "lies within 0.02 of its peak, so at 1 every in-band task weighed the same to 2% and beta and "
            "alpha barely shaped the update; at 10 a task at the band's edge weighs 0.82 of one at alpha, one "
            "at |p_hat - alpha| = 0.3 (soft_band) 0.19 (see coevo.genenv.curriculum)."
        },
    )
    env_pool_window: int = field(
        default=2,
        metadata={
            "help": "D_env epochs used by each environment update (0: the whole pool so far). A short window fits the "
            "current agent's in-band tasks; the whole pool keeps pulling toward the easy tasks a weak early "
            "agent could solve long after it has outgrown them."
        },
    )
    env_rwr_average: str = field(
        default="in_band",
        metadata={
            "help": 'What the RWR log-likelihood is averaged over. "in_band": the in-band samples (their weights '
            'normalised to sum 1, so one lucky task pulls as hard as twenty); "generated": every task '
            "generated in the window, out-of-band ones weighing 0 (the Monte-Carlo estimate of E_{task ~ "
            "pi_env}[w log pi_env]), so the pull grows with the share of tasks in band and the KL penalty "
            'holds pi_env when few land there; "soft_band": like "generated" but over every task of the '
            "window, each weighted by exp(rwr_lambda (R_env - 1)), with no hard cut at k_min (a task just "
            "outside the band still counts a little)."
        },
    )
    # ---------------------------------------------------------------- agent (GRPO via TRL)
    agent_model: str = field(
        default="smollm2-135m",
        metadata={"help": '"smollm2-135m" (packaged SmolLM2-135M-Instruct), "tiny", or a local model directory.'},
    )
    agent_lr: float = field(default=1e-6, metadata={"help": "The agent's GRPO learning rate (AdamW)"})
    group_size: int = field(
        default=8,
        metadata={"help": "GRPO group size: completions per task, which also give p_hat."},
    )
    tasks_per_step: int = field(
        default=1,
        metadata={
            "help": "Tasks per GRPO optimizer step (the step's batch is tasks_per_step x group_size completions); "
            "more per step means fewer, larger steps and batched generation."
        },
    )
    grpo_tasks_per_epoch: int = field(
        default=0,
        metadata={
            "help": "0: GRPO on every task of the epoch's batch, its groups giving p_hat (Algorithm 1). > 0: a "
            "sampling pass draws group_size completions for every task first, without training (p_hat, R_env, "
            "D_env and the metrics come from it), then GRPO trains on at most this many tasks whose group had "
            "unequal rewards, those with p_hat nearest alpha first (dynamic sampling, as in DAPO): a group of "
            "equal rewards has zero advantage, so GRPO learns nothing from it, and generation alone costs a "
            "fraction of a GRPO step per completion."
        },
    )
    baseline_selection: str = field(
        default="drawn",
        metadata={
            "help": "With dynamic sampling, which learnable tasks the baselines (random, static, real-uniform) "
            "train on: drawn (in the order the tasks were drawn, a uniform pick, as DAPO's dynamic sampling) or "
            "alpha (nearest alpha first, as the curriculum arms genenv and real always do). Picking by p_hat near "
            "alpha is half of a curriculum arm's curriculum, so a baseline that does it too compares only the task "
            "source (GenEnv's runs 2-6 did; docs/genenv.md)."
        },
    )
    kl_beta: float = field(
        default=0.001,
        metadata={"help": "GRPO's KL coefficient to the reference (the starting agent)"},
    )
    temperature: float = field(default=1.0, metadata={"help": "The agent's sampling temperature"})
    max_completion_length: int = field(default=64, metadata={"help": "Longest agent answer, in tokens"})
    agent_system_prompt: str = field(
        default=(
            "Answer with exactly one reply and nothing else: one function call such as "
            'name(arg="value"), one action, or a short answer.'
        ),
        metadata={"help": "The agent's system prompt"},
    )
    agent_demo: bool = field(
        default=True,
        metadata={"help": "Show one solved base task of the same family as a previous chat turn (one-shot)."},
    )
    agent_warmup_steps: int = field(
        default=0,
        metadata={
            "help": "SFT warm-up of the agent before co-evolution (0 steps: none): AdamW steps on the gold answers of "
            "tasks the initial simulator generates on a seed stream of their own, in the prompts GRPO will "
            "show, loss on the answer. Every arm starts from the warmed model, which is also GRPO's KL "
            "reference; it is made once per output directory."
        },
    )
    agent_warmup_lr: float = field(default=5e-5, metadata={"help": "Learning rate of the agent warm-up"})
    agent_warmup_tasks: int = field(default=64, metadata={"help": "Generated tasks the agent warm-up trains on"})
    agent_warmup_batch_size: int = field(default=8, metadata={"help": "Answers per agent warm-up step"})
    use_vllm: str = field(
        default="auto",
        metadata={"help": '"auto": vLLM for agent generation when it is installed and a GPU is present.'},
    )
    sample_backend: str = field(
        default="auto",
        metadata={
            "help": 'Engine of the sampling pass (grpo_tasks_per_epoch > 0) and of held-out scoring: "auto" '
            "(GRPO's colocated vLLM engine when GRPO generates on vLLM; llama.cpp on a CPU host where it is "
            "installed; each with the weights synced before every pass; else GRPO's model through "
            'transformers), "vllm", "llamacpp", "transformers" (genenv.agent.sample_engine).'
        },
    )
    cpu_threads: int = field(
        default=0,
        metadata={
            "help": "torch CPU threads; 0: chosen before every epoch: all cores, or one while other processes keep "
            "half the cores busy (two OpenMP threads on a busy 2-core box run 2-20x slower than one)."
        },
    )
    bf16: str = field(
        default="auto",
        metadata={
            "help": 'bf16 mixed precision for the agent: "auto" (a GPU with bf16, or a CPU with native bf16: AMX or AVX-512 BF16, where it is '
            'several times faster), "true", "false". Weights and optimizer state stay fp32.'
        },
    )
    gradient_checkpointing: bool = field(
        default=False,
        metadata={"help": "Activation checkpointing for the agent (saves GPU memory; only costs time on CPU)."},
    )
    loss_type: str = field(
        default="grpo",
        metadata={"help": 'TRL\'s GRPO loss normalisation ("grpo": per sequence, as in the GRPO paper).'},
    )
    save_optimizer: bool = field(
        default=True,
        metadata={"help": "Keep AdamW state in checkpoints (exact resume; twice the model size on disk)."},
    )
    # ---------------------------------------------------------------- D_train replay
    replay_fraction: float = field(
        default=0.0,
        metadata={
            "help": "Share of each epoch's GRPO tasks replayed from this arm's D_train: past tasks whose group had "
            "unequal rewards (0 < p_hat < 1), the latest epoch first and nearest alpha first within it "
            "(GenEnvTrainer._batch). They take that share of the GRPO tasks rather than adding to them: under "
            "Algorithm 1 pi_env generates that many fewer tasks, with dynamic sampling GRPO trains on that "
            'many fewer fresh ones. Their rollouts go to D_train (source "replay"), not to D_env or the '
            "epoch's metrics. None in the first epoch (nothing to replay yet)."
        },
    )
    replay_base_fraction: float = field(
        default=0.0,
        metadata={
            "help": "Share of each epoch's GRPO tasks drawn from the simulator's base tasks (the data the paper's "
            "D_train starts from), a seeded sample per epoch, the same for every arm."
        },
    )
    # ---------------------------------------------------------------- environment policy
    env_backend: str = field(default="parametric", metadata={"help": '"parametric" (knob distribution) or "llm".'})
    families: tuple[str, ...] = field(
        default=("function_calling",),
        metadata={"help": "Task families of the parametric pi_env (and its base tasks)"},
    )
    base_sources: tuple[str, ...] = field(
        default=("function_calling", "bfcl", "alfworld"),
        metadata={"help": "Base-task sources for the LLM policy's examples (families and env names)."},
    )
    base_size: int = field(
        default=64,
        metadata={"help": "Base tasks the simulator builds (examples, replayed base tasks)"},
    )
    param_lr: float = field(
        default=0.5,
        metadata={"help": "Parametric RWR: step size of the gradient steps on the weighted log-likelihood"},
    )
    param_steps: int = field(default=50, metadata={"help": "Parametric RWR: gradient steps per update"})
    env_lr: float = field(default=5e-7, metadata={"help": "LLM RWR: AdamW learning rate per update (weighted SFT)"})
    env_update_steps: int = field(default=8, metadata={"help": "LLM RWR: AdamW steps per update"})
    env_batch_size: int = field(default=8, metadata={"help": "LLM RWR (and the LLM warm-up): examples per step"})
    env_kl_coef: float = field(
        default=0.3,
        metadata={
            "help": "KL(pi_env || initial simulator) penalty. Strong "
            "enough that a handful of in-band samples cannot collapse pi_env onto their knobs (at 0.05 and a "
            "cap of 0.5 it reached 0.99 on the easiest setting of every knob and drew harder tasks under 1% "
            "of the time, so it could not follow an improving agent)."
        },
    )
    env_kl_cap: float = field(
        default=0.3,
        metadata={"help": "The cap on KL(pi_env || initial simulator) one update may reach"},
    )
    env_model: str | None = field(
        default=None,
        metadata={"help": 'LLM policy: model ("tiny", a local directory, or the served name with llm_endpoint).'},
    )
    llm_endpoint: str | None = field(
        default=None,
        metadata={"help": "LLM policy: an OpenAI-compatible endpoint serving env_model (else a local model)"},
    )
    llm_temperature: float = field(default=0.8, metadata={"help": "LLM policy: sampling temperature"})
    llm_examples: int = field(default=2, metadata={"help": "Base tasks shown to the LLM policy per generation."})
    llm_max_new_tokens: int = field(default=200, metadata={"help": "LLM policy: longest generated task, in tokens"})
    env_dtype: str = field(
        default="auto",
        metadata={
            "help": 'LLM update at GPU scale: the weights\' dtype ("auto": bf16 on a CUDA GPU with bf16, else '
            "fp32); a 7B update on one 80 GB card needs it with env_reference and env_gradient_checkpointing"
        },
    )
    env_reference: str = field(
        default="auto",
        metadata={
            "help": 'Where the LLM update\'s frozen KL reference lives: "auto" (beside the model when the card has '
            'room for it, else offloaded to CPU memory layer by layer), "device", "cpu_offload"'
        },
    )
    env_gradient_checkpointing: bool = field(
        default=False,
        metadata={"help": "Activation checkpointing in the LLM update (docs/genenv.md, at GPU scale)"},
    )
    env_warmup_steps: int = field(
        default=0,
        metadata={"help": "Plain SFT steps on base tasks before co-evolution (teaches a fresh LLM the task format)."},
    )
    env_warmup_lr: float = field(default=1e-3, metadata={"help": "Learning rate of the LLM simulator warm-up"})
    # ---------------------------------------------------------------- baselines
    static_pool_epochs: float = field(
        default=4.0,
        metadata={
            "help": "Static augmentation: the fixed pool the initial simulator generates once holds this many epochs' "
            "worth of tasks (round(static_pool_epochs * tasks_per_epoch)); every epoch draws its batch from "
            "it. See docs/genenv.md on how this differs from the paper's baseline."
        },
    )
    # ---------------------------------------------------------------- held-out evaluation
    heldout: tuple[str, ...] = field(
        default=(),
        metadata={
            "help": "Real benchmark splits the agent is scored on, before training and after every epoch of every "
            "arm, as ENV:SPLIT[:N] (e.g. bfcl:simple_python:100); empty: none. The task lists are fixed by "
            "`seed`; tasks are shown as simulator tasks (see coevo.genenv.heldout)."
        },
    )
    heldout_n: int = field(
        default=100,
        metadata={"help": "Tasks per held-out split when an entry gives no N (0: the whole split)."},
    )
    heldout_urls: dict[str, str] = field(
        default_factory=dict,
        metadata={"help": "env -> base URL of its server; envs not listed here are served by local subprocesses."},
    )
    # ---------------------------------------------------------------- real-task arms
    real_env: str = field(
        default="apibank",
        metadata={
            "help": "The real env the real-task arms train on; its episodes must end after one reply (API-Bank with "
            "decisions=first: the dialogue's first API call)."
        },
    )
    real_split: str = field(
        default="train",
        metadata={"help": "The real env's split the real-task arms draw from; a held-out split is refused."},
    )
    real_options: dict[str, str] = field(
        default_factory=lambda: {"decisions": "first"},
        metadata={
            "help": "Env options of the real env's local server (also the held-out server of real_env, so both score "
            "the same episodes)."
        },
    )
    real_url: str | None = field(
        default=None,
        metadata={"help": "Base URL of a running real_env server (else a local subprocess with real_options)."},
    )
    real_min_episodes: int = field(
        default=2,
        metadata={"help": "Judged episodes a task needs under a policy tag before the real arm uses its estimate."},
    )
    real_retries: int = field(
        default=2,
        metadata={
            "help": "Times a real-task episode without the env's verdict is played again before its reply is left "
            "out (no reward, never 0)."
        },
    )
    # ---------------------------------------------------------------- remote simulators
    simulator_urls: dict[str, str] = field(
        default_factory=dict,
        metadata={"help": "arm -> URL of a `coevo serve simulator --admin-token ...` server (else in-process)."},
    )
    admin_token: str | None = field(
        default=None,
        metadata={
            "help": "Admin token of the remote simulators (never written to config.json)",
            "secret": True,
            "env": "COEVO_ADMIN_TOKEN",
        },
    )

    def check(self) -> None:
        unknown = set(self.arms) - set(ARMS)
        if unknown or not self.arms:
            raise ValueError(f"arms must be among {ARMS}, got {self.arms}")
        if self.group_size < 2:
            raise ValueError("GRPO needs a group of at least 2 completions per task")
        self._check_real_arms()
        if self.tasks_per_step < 1:
            raise ValueError("tasks_per_step must be at least 1")
        if self.grpo_tasks_per_epoch < 0:
            raise ValueError("grpo_tasks_per_epoch must be >= 0 (0: GRPO on every task)")
        if self.baseline_selection not in BASELINE_SELECTIONS:
            raise ValueError(f"baseline_selection is one of {', '.join(BASELINE_SELECTIONS)}")
        if self.agent_warmup_steps < 0 or self.agent_warmup_tasks < 1 or self.agent_warmup_batch_size < 1:
            raise ValueError("agent_warmup_steps must be >= 0, agent_warmup_tasks and agent_warmup_batch_size >= 1")
        if self.bf16 not in BF16_SETTINGS:
            raise ValueError(f"bf16 is one of {', '.join(BF16_SETTINGS)}")
        from coevo.models.registry import BACKENDS

        if self.sample_backend not in BACKENDS:
            raise ValueError(f"sample_backend is one of {', '.join(BACKENDS)}")
        from coevo.genenv.env_update import DTYPES, REFERENCE_PLACEMENTS

        if self.env_dtype not in DTYPES or self.env_reference not in REFERENCE_PLACEMENTS:
            raise ValueError(
                f"env_dtype is one of {', '.join(DTYPES)}; env_reference one of {', '.join(REFERENCE_PLACEMENTS)}"
            )
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
        self._check_band_reachable()
        if self.epochs < 1 or self.tasks_per_epoch < 1:
            raise ValueError("epochs and tasks_per_epoch must be positive")
        if self.rwr_lambda < 0:
            raise ValueError("rwr_lambda must be >= 0 (0: every kept task weighs the same)")
        try:  # what the simulator contract adds to the checks above (k_min <= 1)
            self.curriculum_context()
        except ValidationError as exc:
            error = exc.errors()[0]
            name = CONTRACT_FIELDS.get(str(error["loc"][0]), str(error["loc"][0]))
            raise ValueError(f"{name}: {error['msg']}") from None
        self._check_replay()
        if not self.static_pool_epochs > 0:
            raise ValueError("static_pool_epochs must be > 0")
        if self.heldout_n < 0:
            raise ValueError("heldout_n must be >= 0 (0: every task of the split)")
        from coevo.client.heldout import HeldoutSplit

        for item in self.heldout:
            split = HeldoutSplit.parse(item, self.heldout_n)  # raises ValueError naming the entry
            if split.env == "simulator" and split.split != "heldout":
                raise ValueError(
                    f"held-out entry {item!r}: the simulator's {split.split!r} split is what the agent trains on; "
                    "score generated tasks on simulator:heldout (combinations no training generation produces)"
                )

    def _check_band_reachable(self) -> None:
        """A group of G completions estimates p_hat in steps of 1/G; when none of them lies in
        the band and nothing outside the band counts (soft_band), no epoch can ever have a task
        in band, and pi_env would never be updated: refused before any work starts."""
        reachable = [k / self.group_size for k in range(self.group_size + 1)]
        if self.env_rwr_average != "soft_band" and not any(
            curriculum.in_band(p, self.alpha, self.k_min) for p in reachable
        ):
            raise ValueError(
                f"no task can ever be in band: a group of {self.group_size} gives p_hat in steps of "
                f"1/{self.group_size}, none within k_min={self.k_min} of alpha={self.alpha}; widen k_min, change "
                'group_size, or use env_rwr_average="soft_band" (every task counts, weighted by R_env)'
            )

    def _check_real_arms(self) -> None:
        """The real-task arms: never the held-out entries' split, no demo turn (the start agent is
        scored once for every arm, in one view), no base tasks to replay."""
        if not set(self.arms) & set(REAL_ARMS):
            return
        if self.real_min_episodes < 1 or self.real_retries < 0:
            raise ValueError("real_min_episodes must be >= 1 and real_retries >= 0")
        from coevo.client.heldout import HeldoutSplit

        for item in self.heldout:
            split = HeldoutSplit.parse(item, self.heldout_n)
            if split.env == self.real_env and split.split == self.real_split:
                raise ValueError(
                    f"real_split {self.real_split!r} is also the held-out entry {item!r}: the real-task arms never "
                    "train on held-out tasks"
                )
        if self.agent_demo:
            raise ValueError(
                "the real-task arms show no demo turn, and the starting agent is scored once for every arm: set "
                "agent_demo=false so that every arm is scored in the same view"
            )
        if self.replay_base_fraction > 0:
            raise ValueError("the real-task arms have no base tasks to replay: set replay_base_fraction=0")

    def _check_replay(self) -> None:
        for name in ("replay_fraction", "replay_base_fraction"):
            if not 0 <= getattr(self, name) < 1:
                raise ValueError(f"{name} must be in [0, 1)")
        if self.replay_fraction + self.replay_base_fraction >= 1:
            raise ValueError("replay_fraction + replay_base_fraction must be below 1: an epoch needs fresh tasks")

    def curriculum_context(self, agent_success: float | None = None) -> CurriculumContext:
        """The run's curriculum as the simulator contract carries it (k_min is its band,
        rwr_lambda its lam), with the agent's latest success rate."""
        return CurriculumContext(
            alpha=self.alpha, band=self.k_min, beta=self.beta, lam=self.rwr_lambda, agent_success=agent_success
        )

    @property
    def static_pool_size(self) -> int:
        """Tasks in the static-augmentation pool."""
        return max(1, round(self.static_pool_epochs * self.tasks_per_epoch))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GenEnvConfig:
        data = dict(data)
        if "static_pool_size" in data:  # written before static_pool_epochs
            data["static_pool_epochs"] = data.pop("static_pool_size") / data["tasks_per_epoch"]
        return super().from_dict(data)


PRESETS: dict[str, dict[str, Any]] = {
    # The paper's settings (GPU scale), with its LLM environment policy: set agent_model and
    # env_model to the model directories (the paper starts both from one instruction model).
    "paper": {"env_backend": "llm", "env_model": "smollm2-135m"},
    # SmolLM2-135M on two CPU cores, parametric pi_env over two task families: GenEnv beside
    # GenEnv-Random in under an hour (--set arms=genenv,random,static adds the static arm). Why
    # each value differs from the paper: docs/genenv.md, "The cpu-demo preset".
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
        # Training run 6 was stopped by the OOM killer at 16.3 GB resident in its first GRPO step
        # of 4 tasks x 5 SmolLM2 completions (23 GB machine, other jobs beside it); recomputing
        # activations in the backward pass costs time, not results (run 6's Random epoch 0 with
        # it equals its GenEnv epoch 0 without it).
        "gradient_checkpointing": True,
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


GenEnvConfig.PRESETS = PRESETS
GenEnvConfig.RESUMABLE_CHANGES = frozenset(
    {"epochs", "arms", "cpu_threads", "simulator_urls", "admin_token", "use_vllm", "heldout_urls", "dist_timeout_s",
     "env_reference", "gradient_checkpointing", "real_url"}
)  # fmt: skip
GenEnvConfig.SECTIONS = {
    "run": ("output_dir", "arms", "epochs", "tasks_per_epoch", "seed", "db_url", "static_pool_epochs"),
    "curriculum": ("alpha", "beta", "k_min", "rwr_lambda", "env_pool_window", "env_rwr_average"),
    "agent": (
        "agent_model", "agent_lr", "group_size", "tasks_per_step", "grpo_tasks_per_epoch", "baseline_selection",
        "kl_beta", "temperature",
        "max_completion_length", "agent_system_prompt", "agent_demo", "agent_warmup_steps", "agent_warmup_lr",
        "agent_warmup_tasks", "agent_warmup_batch_size", "loss_type", "save_optimizer", "replay_fraction",
        "replay_base_fraction",
    ),
    "environment policy": (
        "env_backend", "families", "base_sources", "base_size", "param_lr", "param_steps", "env_model", "env_lr",
        "env_update_steps", "env_batch_size", "env_kl_coef", "env_kl_cap", "env_warmup_steps", "env_warmup_lr",
        "llm_endpoint", "llm_temperature", "llm_examples", "llm_max_new_tokens", "env_reference", "simulator_urls",
        "admin_token",
    ),
    "held-out": ("heldout", "heldout_n", "heldout_urls"),
    "real-task arms": ("real_env", "real_split", "real_options", "real_url", "real_min_episodes", "real_retries"),
    "hardware": (
        "use_vllm", "sample_backend", "cpu_threads", "bf16", "gradient_checkpointing", "env_dtype",
        "env_gradient_checkpointing", "dist_timeout_s",
    ),
}  # fmt: skip
from_preset = preset = GenEnvConfig.from_preset
load_config = GenEnvConfig.load
