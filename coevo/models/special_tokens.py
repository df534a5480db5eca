"""The default model's special tokens, declared in a data file and written into a converted
checkpoint's tokenizer, model config and generation config alike; and the repair of a cache
converted before they were declared."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

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
        return self._mismatches(*_token_parts(model_dir))

    def _mismatches(self, tokenizer: Any, config: Any, generation: Any) -> list[str]:
        found = []
        for attr in ("bos_token", "eos_token", "pad_token"):
            if getattr(tokenizer, attr) != getattr(self, attr):
                found.append(f"tokenizer {attr} {getattr(tokenizer, attr)!r}")
        for name, value in self.ids.items():
            for where, source in (("config", config), ("generation config", generation)):
                if getattr(source, name, None) != value:
                    found.append(f"{where} {name} {getattr(source, name, None)!r}")
        return found


def _token_parts(model_dir: Path) -> tuple[Any, Any, Any]:
    """The three places a checkpoint names its special tokens: tokenizer, config, generation config."""
    from transformers import AutoConfig, AutoTokenizer, GenerationConfig

    path = str(model_dir)
    return AutoTokenizer.from_pretrained(path), AutoConfig.from_pretrained(path), GenerationConfig.from_pretrained(path)


def mark_current(model_dir: Path) -> None:
    """Record that the checkpoint at `model_dir` carries the declared special tokens."""
    (model_dir / CONVERSION_FILE).write_text(json.dumps({"conversion": CONVERSION_VERSION}))


def is_current(model_dir: Path) -> bool:
    marker = model_dir / CONVERSION_FILE
    try:
        return int(json.loads(marker.read_text())["conversion"]) >= CONVERSION_VERSION
    except (OSError, ValueError, KeyError, TypeError):
        return False


def repair_special_tokens(model_dir: Path) -> list[str]:
    """Rewrite a converted checkpoint's tokenizer, config and generation config with the
    declared special tokens (the weights are not touched); returns what was wrong."""
    tokens = SpecialTokens.load()
    parts = _token_parts(model_dir)
    wrong = tokens._mismatches(*parts)
    if wrong:
        log.warning("%s: special tokens from an earlier conversion (%s); rewritten", model_dir, "; ".join(wrong))
        tokens.apply(*parts)
        for part in parts:
            part.save_pretrained(str(model_dir))
    mark_current(model_dir)
    return wrong
