"""The default model's special tokens do not depend on the transformers version.

Under transformers 5.17 the one-time GGUF conversion made `<|im_start|>` (id 1) the tokenizer's
EOS and padding token and the generation config's EOS (tests/client/data holds what it wrote).
The SFT warm-up appends the tokenizer's EOS to every answer, and transformers' Trainer (so TRL's
GRPOTrainer) realigns the model's EOS to the tokenizer's: on the GPU host that ran it, GenEnv's
warmed agent solved 5.4% of its generated tasks (70% on CPU) and collapsed to 0% held-out.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("transformers")

from coevo.models import checkpoints as models  # noqa: E402
from coevo.models.special_tokens import CONVERSION_FILE  # noqa: E402

FIXTURE = Path(__file__).parent / "data" / "smollm2_conversion_transformers_5_17.json"


def realigned(model_dir: Path) -> dict[str, object]:
    """The token ids transformers' Trainer (and TRL) would overwrite in the model's configs."""
    from transformers import AutoConfig, AutoTokenizer, GenerationConfig
    from transformers.trainer_utils import align_special_tokens

    config = AutoConfig.from_pretrained(str(model_dir))
    generation = GenerationConfig.from_pretrained(str(model_dir))
    before = {k: (getattr(config, k), getattr(generation, k)) for k in ("bos_token_id", "eos_token_id", "pad_token_id")}
    align_special_tokens(
        SimpleNamespace(config=config, generation_config=generation), AutoTokenizer.from_pretrained(str(model_dir))
    )
    after = {k: (getattr(config, k), getattr(generation, k)) for k in before}
    return {k: after[k] for k in before if after[k] != before[k]}


def test_default_model_declares_its_special_tokens() -> None:
    model_dir = models.default_model_dir()
    tokens = models.SpecialTokens.load()
    assert tokens.eos_token == "<|im_end|>" and tokens.ids["eos_token_id"] == 2
    assert tokens.mismatches(model_dir) == []
    assert realigned(model_dir) == {}


def stale_cache(cache: Path) -> Path:
    """A cache as transformers 5.17's conversion left it: this checkpoint's weights, and the
    recorded tokenizer special tokens and generation config of that conversion."""
    good = models.default_model_dir()
    stale = cache / "models" / models.DEFAULT_MODEL_NAME
    stale.mkdir(parents=True)
    for item in good.iterdir():
        if item.suffix == ".safetensors":
            (stale / item.name).symlink_to(item)
        elif item.name != CONVERSION_FILE:
            shutil.copy(item, stale / item.name)
    recorded = json.loads(FIXTURE.read_text())
    tokenizer_config = json.loads((stale / "tokenizer_config.json").read_text())
    tokenizer_config.update(recorded["tokenizer_config"])
    (stale / "tokenizer_config.json").write_text(json.dumps(tokenizer_config))
    (stale / "generation_config.json").write_text(json.dumps(recorded["generation_config"]))
    return stale


def test_a_cache_converted_under_transformers_5_17_is_repaired(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = stale_cache(tmp_path)
    tokens = models.SpecialTokens.load()
    assert "tokenizer eos_token '<|im_start|>'" in tokens.mismatches(stale)
    # What TRL printed on the GPU host: the model's EOS becomes <|im_start|>.
    assert realigned(stale)["eos_token_id"] == (1, [1])

    monkeypatch.setenv("COEVO_CACHE_DIR", str(tmp_path))
    assert models.default_model_dir() == stale
    assert tokens.mismatches(stale) == []
    assert realigned(stale) == {}
    assert (stale / "model.safetensors").is_symlink()  # the weights were kept, not reconverted
