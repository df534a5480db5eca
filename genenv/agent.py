"""The agent side of GenEnv: GRPO (TRL's GRPOTrainer) on simulator tasks.

One GRPOTrainer lives for the whole arm, so AdamW state carries over between epochs and the
KL reference stays the initial agent. Each epoch hands it that epoch's tasks; the reward
function scores every completion through the simulator and records it, so the GRPO group
of each task is also its p_hat sample. With dynamic sampling (grpo_tasks_per_epoch > 0) the
p_hat sample comes from `sample` instead: the same prompts and sampling settings, no training.
"""

from __future__ import annotations

import importlib.util
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from coevo.genenv.agent_prompts import AgentPrompts
from coevo.genenv.config import GenEnvConfig
from coevo.genenv.pools import Trace
from coevo.genenv.simulator import BatchTask, Simulator
from coevo.hardware import use_bf16

log = logging.getLogger(__name__)

#: Tasks per generate() call in `sample` on a CPU (each with group_size completions); a GPU takes
#: as many as its batch_rows allow (tasks_per_call).
SAMPLE_TASKS_PER_CALL = 8


def tasks_per_call(device_type: str, group_size: int) -> int:
    """Tasks whose groups one generate() call of the sampling pass decodes: 8 on a CPU, and on a
    GPU every task that fits the host's batch (coevo.models.registry.batch_rows), since a GPU
    decode step costs about the same for 40 rows as for 256."""
    from coevo.models.registry import batch_rows

    if device_type != "cuda":
        return SAMPLE_TASKS_PER_CALL
    return max(SAMPLE_TASKS_PER_CALL, batch_rows(device_type) // max(group_size, 1))


def _vllm_usable(setting: str) -> bool:
    if setting == "false":
        return False
    import torch

    available = importlib.util.find_spec("vllm") is not None and torch.cuda.is_available()
    if setting == "true" and not available:
        raise RuntimeError("use_vllm=true needs vllm installed and a GPU")
    return available


def sample_engine(
    setting: str, *, trl_vllm: bool, model_on_cpu: bool, repetition_penalty: float, llamacpp: bool
) -> str:
    """The sampling pass's engine for `sample_backend`: "vllm" is GRPO's own colocated vLLM
    engine (TRL's, weights synced before the pass), so it needs GRPO on vLLM (use_vllm); "auto"
    takes it when GRPO has it, else llama.cpp for a CPU model sampled without a repetition
    penalty where llama.cpp is installed, else transformers on GRPO's model; "llamacpp" falls
    back to transformers for a GPU model or a repetition penalty, which llama.cpp does not serve."""
    from coevo.models.registry import BACKENDS

    if setting not in BACKENDS:
        raise ValueError(f"sample_backend is one of {', '.join(BACKENDS)}, got {setting!r}")
    if setting == "vllm" and not trl_vllm:
        raise ValueError(
            "sample_backend vllm samples on GRPO's colocated vLLM engine: it needs use_vllm (vllm installed and a GPU)"
        )
    if setting == "llamacpp" and not llamacpp:
        raise ValueError("sample_backend llamacpp needs llama-cpp-python (scripts/bootstrap.sh builds it)")
    if setting == "vllm" or (setting == "auto" and trl_vllm):
        return "vllm"
    if setting in ("auto", "llamacpp") and llamacpp and model_on_cpu and repetition_penalty == 1.0:
        return "llamacpp"
    return "transformers"


def tasks_per_generation(args: Any, group_size: int) -> int:
    """Distinct tasks in one of GRPO's generation batches: TRL's generation_batch_size (per-device
    batch x processes x steps per generation) completions, group_size per task."""
    return max(1, int(args.generation_batch_size) // group_size)


def pad_rows(rows: list[dict[str, Any]], multiple: int) -> list[dict[str, Any]]:
    """`rows` repeated from the start up to a multiple of `multiple` (none dropped, none added
    beyond the last batch)."""
    missing = -len(rows) % multiple
    return rows + [rows[i % len(rows)] for i in range(missing)]


def _text(completion: Any) -> str:
    """TRL hands conversational completions as [{"role": "assistant", "content": ...}]."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion and isinstance(completion[-1], dict):
        return str(completion[-1].get("content", ""))
    return str(completion)


class GRPOAgent:
    def __init__(self, model_dir: str, config: GenEnvConfig, workdir: Path, simulator: Simulator) -> None:
        import torch
        from datasets import Dataset
        from transformers import AutoTokenizer, PrinterCallback
        from trl import GRPOConfig, GRPOTrainer

        self.config = config
        self.simulator = simulator
        self.workdir = workdir
        #: The llama.cpp copy of the agent the sampling pass decodes with (made on first use).
        self._sampler: Any = None
        self.prompts = AgentPrompts(config, simulator)
        self._records: list[Trace] = []
        tokenizer = AutoTokenizer.from_pretrained(model_dir)
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        use_cuda = torch.cuda.is_available()
        args = GRPOConfig(
            output_dir=str(workdir / "trl"),
            per_device_train_batch_size=config.group_size * config.tasks_per_step,
            num_generations=config.group_size,
            max_completion_length=config.max_completion_length,
            learning_rate=config.agent_lr,
            lr_scheduler_type="constant",
            optim="adamw_torch",
            beta=config.kl_beta,
            loss_type=config.loss_type,
            gradient_checkpointing=config.gradient_checkpointing,
            temperature=config.temperature,
            num_train_epochs=1,
            save_strategy="no",
            report_to=[],
            logging_steps=max(1, config.tasks_per_epoch // config.tasks_per_step),
            disable_tqdm=True,
            seed=config.seed,
            use_vllm=_vllm_usable(config.use_vllm),
            vllm_mode="colocate",
            bf16=use_bf16(config.bf16),
            use_cpu=not use_cuda,
            ddp_timeout=int(config.dist_timeout_s),
            model_init_kwargs={"dtype": "auto"} if use_cuda else None,
        )
        placeholder = Dataset.from_list([{"prompt": [{"role": "user", "content": "-"}], "task_id": "-"}])
        #: The trainer's processing class (TRL types it as any processor; this one is a tokenizer).
        self.tokenizer = tokenizer
        self.trainer = GRPOTrainer(
            model=model_dir,
            reward_funcs=[self.reward],
            args=args,
            train_dataset=placeholder,
            processing_class=tokenizer,
        )
        # The trainer's per-step dict printing; the GenEnv loop logs one line per epoch instead.
        self.trainer.remove_callback(PrinterCallback)

    # ------------------------------------------------------------------ reward
    def reward(self, prompts: list[Any], completions: list[Any], task_id: list[str], **_: Any) -> list[float | None]:
        """The env's reward of every completion. None (a real-task episode without a verdict):
        TRL leaves it out of its group's baseline and gives it zero advantage, and it is not
        recorded (so it counts in neither p_hat nor D_train)."""
        texts = [_text(c) for c in completions]
        rewards = list(self.simulator.score(list(zip(task_id, texts))))
        self._records += [Trace(t, c, r) for t, c, r in zip(task_id, texts, rewards) if r is not None]
        return rewards

    # ------------------------------------------------------------------ one epoch
    def train_epoch(self, tasks: Sequence[BatchTask]) -> list[Trace]:
        """GRPO over `tasks` (each sampled group_size times); returns every scored completion."""
        from accelerate.utils import gather_object
        from datasets import Dataset

        self._records = []
        rows = [{"prompt": self.prompts.messages(t), "task_id": t.task_id} for t in tasks]
        # TRL drops a last generation batch that is not full (tasks_per_step tasks on each
        # process); fill it with the first tasks again (they get a second group, and p_hat
        # counts both), so every task is trained on and scored, however many processes share it.
        rows = pad_rows(rows, tasks_per_generation(self.trainer.args, self.config.group_size))
        self.trainer.train_dataset = Dataset.from_list(rows)
        self.trainer.train()
        records = list(self._records)
        if self.trainer.accelerator.num_processes > 1:
            records = list(gather_object(records))
        return records

    # ------------------------------------------------------------------ sampling without training
    def sample(self, tasks: Sequence[BatchTask], seed: int) -> list[Trace]:
        """group_size completions per task from the current weights, scored by the simulator —
        the prompts, temperature and completion budget GRPO samples with, on a seeded RNG of its
        own (GRPO's stream is left as it was). Under several processes each takes a share of the
        tasks and every process gets all the traces back."""
        from accelerate.utils import gather_object

        accelerator = self.trainer.accelerator
        model = accelerator.unwrap_model(self.trainer.model)
        mine = list(tasks)[accelerator.process_index :: accelerator.num_processes]
        engine = self._sample_engine(model)
        if engine == "vllm":
            pairs = self._sample_vllm(mine)
        elif engine == "llamacpp":
            pairs = self._sample_llamacpp(model, mine, seed + accelerator.process_index)
        else:
            pairs = self._sample_transformers(model, mine, seed + accelerator.process_index)
        rewards = self.simulator.score(pairs) if pairs else []
        records = [Trace(t, c, r) for (t, c), r in zip(pairs, rewards) if r is not None]
        if accelerator.num_processes > 1:
            records = list(gather_object(records))
        return records

    def _sample_engine(self, model: Any) -> str:
        from coevo.models.llamacpp_engine import llama_cpp_available

        return sample_engine(
            self.config.sample_backend, trl_vllm=getattr(self.trainer, "vllm_generation", None) is not None
            and bool(self.trainer.use_vllm), model_on_cpu=model.device.type == "cpu",
            repetition_penalty=self.trainer.repetition_penalty, llamacpp=llama_cpp_available(),
        )  # fmt: skip

    def _sample_vllm(self, tasks: Sequence[BatchTask]) -> list[tuple[str, str]]:
        """The sampling pass on GRPO's colocated vLLM engine: the current weights are loaded into
        it first (TRL syncs only when a GRPO step needs it), then every task's group is decoded
        with GRPO's own sampling settings. Called on every process (a sync may gather sharded
        weights), each with its share of the tasks."""
        generation = self.trainer.vllm_generation
        generation.sync_weights()
        tokenizer = self.tokenizer
        texts = [
            tokenizer.apply_chat_template(self.prompts.messages(task), tokenize=False, add_generation_prompt=True)
            for task in tasks
        ]  # fmt: skip
        prompts = [list(ids) for ids in tokenizer(texts, add_special_tokens=False)["input_ids"]] if texts else []
        group = [ids for ids in prompts for _ in range(self.config.group_size)]  # colocated: one completion a row
        _, completions, _, _ = generation.generate(group, None, num_generations=self.config.group_size)
        ids = [task.task_id for task in tasks for _ in range(self.config.group_size)]
        return [
            (task_id, str(tokenizer.decode(out, skip_special_tokens=True))) for task_id, out in zip(ids, completions)
        ]

    def _sample_llamacpp(self, model: Any, tasks: Sequence[BatchTask], seed: int) -> list[tuple[str, str]]:
        """The sampling pass on llama.cpp: the current weights are synced first (a GGUF export
        and reload), then every task's group is decoded in one batch with GRPO's settings."""
        from coevo.client.policies.base import Sampling
        from coevo.client.policies.llamacpp import LlamaCppPolicy

        cfg = self.config
        tokenizer = self.tokenizer
        if self._sampler is None:
            self._sampler = LlamaCppPolicy.from_model(
                model, tokenizer, self.workdir / "sampler", max_batch_size=SAMPLE_TASKS_PER_CALL * cfg.group_size,
                max_prompt_tokens=4096, max_cached_episodes=SAMPLE_TASKS_PER_CALL * cfg.group_size,
            )  # fmt: skip
            log.info("sampling pass on llama.cpp (weights exported)")
        else:
            log.info("sampling pass: llama.cpp weights synced in %.1fs", self._sampler.sync_weights(model))
        t = self.trainer
        sampling = Sampling(
            temperature=t.temperature, top_p=t.top_p, top_k=t.top_k or 0, min_p=t.min_p or 0.0,
            max_new_tokens=cfg.max_completion_length, seed=seed,
        )  # fmt: skip
        texts = [
            tokenizer.apply_chat_template(self.prompts.messages(task), tokenize=False, add_generation_prompt=True)
            for task in tasks
        ]  # tokenized as the transformers pass tokenizes them
        prompts = [list(ids) for ids in tokenizer(texts, add_special_tokens=False)["input_ids"]]
        pairs: list[tuple[str, str]] = []
        for start in range(0, len(tasks), SAMPLE_TASKS_PER_CALL):
            chunk = range(start, min(len(tasks), start + SAMPLE_TASKS_PER_CALL))
            group = [prompts[i] for i in chunk for _ in range(cfg.group_size)]
            outputs = self._sampler.generate_ids(group, sampling.but(seed=seed + start), stop="eos")
            ids = [tasks[i].task_id for i in chunk for _ in range(cfg.group_size)]
            pairs += [
                (task_id, str(tokenizer.decode(out, skip_special_tokens=True))) for task_id, out in zip(ids, outputs)
            ]
        return pairs

    def _sample_transformers(self, model: Any, tasks: Sequence[BatchTask], seed: int) -> list[tuple[str, str]]:
        import torch

        cfg = self.config
        tokenizer = self.tokenizer
        generation = self._generation_config()
        autocast = torch.autocast(model.device.type, dtype=torch.bfloat16, enabled=use_bf16(cfg.bf16))
        was_training = model.training
        model.eval()
        pairs: list[tuple[str, str]] = []
        try:
            with torch.random.fork_rng(devices=[model.device] if model.device.type == "cuda" else []):
                torch.manual_seed(seed)
                per_call = tasks_per_call(model.device.type, cfg.group_size)
                for start in range(0, len(tasks), per_call):
                    chunk = tasks[start : start + per_call]
                    texts = [
                        tokenizer.apply_chat_template(
                            self.prompts.messages(t), tokenize=False, add_generation_prompt=True
                        )
                        for t in chunk
                    ]
                    inputs = tokenizer(
                        texts, return_tensors="pt", padding=True, padding_side="left", add_special_tokens=False
                    ).to(model.device)
                    with torch.no_grad(), autocast:
                        output = model.generate(**inputs, generation_config=generation)
                    completions = tokenizer.batch_decode(
                        output[:, inputs["input_ids"].shape[1] :], skip_special_tokens=True
                    )
                    pairs += [(chunk[i // cfg.group_size].task_id, text) for i, text in enumerate(completions)]
        finally:
            model.train(was_training)
        return pairs

    def _generation_config(self) -> Any:
        """GRPO's own sampling settings (TRL keeps them on the trainer whatever the engine)."""
        from transformers import GenerationConfig

        t = self.trainer
        return GenerationConfig(
            max_new_tokens=self.config.max_completion_length,
            do_sample=True,
            temperature=t.temperature,
            top_p=t.top_p,
            top_k=t.top_k,
            min_p=t.min_p,
            repetition_penalty=t.repetition_penalty,
            pad_token_id=self.tokenizer.pad_token_id,
            eos_token_id=t.eos_token_ids,
            disable_compile=True,
            num_return_sequences=self.config.group_size,
        )

    # ------------------------------------------------------------------ checkpoints
    def save(self, directory: Path, optimizer: bool) -> None:
        import torch

        directory.mkdir(parents=True, exist_ok=True)
        model = self.trainer.accelerator.unwrap_model(self.trainer.model)
        model.save_pretrained(directory)
        self.tokenizer.save_pretrained(directory)
        if optimizer and self.trainer.optimizer is not None:
            torch.save(self.trainer.optimizer.state_dict(), directory / "optimizer.pt")

    def load(self, directory: Path) -> None:
        import torch
        from safetensors.torch import load_file

        model = self.trainer.accelerator.unwrap_model(self.trainer.model)
        state: dict[str, Any] = {}
        for shard in sorted(directory.glob("*.safetensors")):
            state.update(load_file(str(shard)))
        missing, unexpected = model.load_state_dict(state, strict=False)
        # Tied embeddings are saved once; anything else missing means a different model.
        if unexpected or any("lm_head" not in k for k in missing):
            raise RuntimeError(f"checkpoint {directory} does not match the agent model")
        optimizer_file = directory / "optimizer.pt"
        if optimizer_file.exists():
            optimizer = self.trainer.optimizer or self.trainer.create_optimizer()
            optimizer.load_state_dict(torch.load(optimizer_file, weights_only=True))
