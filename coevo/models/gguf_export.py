"""A transformers causal LM written as a GGUF file that llama.cpp loads: the fast CPU backend's
weight sync.

After every update (BC, SFT warm-up, a GRPO epoch, reward-weighted learning) the trainer's
in-memory model is written here and the llama.cpp backend reloads it, so rollouts always run the
weights that were just trained. f32 keeps llama.cpp's greedy output equal to transformers' (the
weights are bit-identical); f16 and q8_0 trade a measured amount of agreement for speed.

Only the architectures listed in ARCHITECTURES are written (Llama, which SmolLM2 and the tiny
test models use, and Qwen2); anything else is refused with a clear error. The layout facts —
GGUF's tensor names, and llama.cpp's interleaved rotary layout for Llama's q/k rows — are the
GGUF format's; the code is ours.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

#: Weight precisions the exporter writes (1-D tensors — norms, biases — always stay f32).
PRECISIONS = ("f32", "f16", "q8_0")
#: The default on CPU hosts: f16 weights halve what a decode step reads and agree with
#: transformers' f32 greedy tokens as often as f32 weights do (bench/policy.py run 4: the first
#: 32 tokens identical on 99 of 100 prompts, against 98 for f32 and 56 for q8_0).
DEFAULT_PRECISION = "f16"


@dataclass(frozen=True)
class Architecture:
    """How one transformers architecture maps onto a llama.cpp architecture."""

    gguf_arch: str
    #: llama.cpp's Llama rotary pairs dimensions (i, i+1); transformers' pairs (i, i+d/2), so
    #: q and k rows are reordered on the way out. Qwen2 uses the NeoX layout in both.
    permute_qk: bool
    attention_bias: bool


ARCHITECTURES: dict[str, Architecture] = {
    "LlamaForCausalLM": Architecture("llama", permute_qk=True, attention_bias=False),
    "Qwen2ForCausalLM": Architecture("qwen2", permute_qk=False, attention_bias=True),
}

#: transformers' per-layer names -> GGUF's (the ".weight" / ".bias" suffix carries over).
_LAYER_TENSORS = {
    "input_layernorm": "attn_norm",
    "self_attn.q_proj": "attn_q",
    "self_attn.k_proj": "attn_k",
    "self_attn.v_proj": "attn_v",
    "self_attn.o_proj": "attn_output",
    "post_attention_layernorm": "ffn_norm",
    "mlp.gate_proj": "ffn_gate",
    "mlp.up_proj": "ffn_up",
    "mlp.down_proj": "ffn_down",
}
_GLOBAL_TENSORS = {"model.embed_tokens": "token_embd", "model.norm": "output_norm", "lm_head": "output"}


class UnsupportedModel(ValueError):
    """The model's architecture or tokenizer has no GGUF mapping here."""


def architecture_of(model: PreTrainedModel) -> Architecture:
    names = list(getattr(model.config, "architectures", None) or [type(model).__name__])
    for name in names:
        if name in ARCHITECTURES:
            return ARCHITECTURES[name]
    raise UnsupportedModel(
        f"the llama.cpp backend exports {sorted(ARCHITECTURES)}, not {names}; use --backend transformers"
    )


def rope_theta(config: Any) -> float:
    """The rotary base: a config attribute in older transformers, inside rope_parameters since v5.
    Only plain rotary embeddings are written (scaled variants would need more GGUF keys)."""
    parameters = getattr(config, "rope_parameters", None) or getattr(config, "rope_scaling", None) or {}
    kind = parameters.get("rope_type", parameters.get("type", "default"))
    if kind not in ("default", None):
        raise UnsupportedModel(f"rotary scaling {kind!r} is not exported; use --backend transformers")
    theta = parameters.get("rope_theta", getattr(config, "rope_theta", None))
    return float(theta if theta is not None else 10000.0)


def _interleave_rotary(weight: np.ndarray, heads: int) -> np.ndarray:
    """Reorder each head's rows from transformers' half-split rotary pairs to llama.cpp's
    adjacent pairs."""
    rows = weight.shape[0]
    return weight.reshape(heads, 2, rows // heads // 2, *weight.shape[1:]).swapaxes(1, 2).reshape(weight.shape)


def _gguf_name(name: str) -> str | None:
    stem, _, kind = name.rpartition(".")
    if stem in _GLOBAL_TENSORS:
        return f"{_GLOBAL_TENSORS[stem]}.{kind}"
    parts = stem.split(".")
    if len(parts) >= 4 and parts[0] == "model" and parts[1] == "layers":
        short = _LAYER_TENSORS.get(".".join(parts[3:]))
        if short is not None:
            return f"blk.{parts[2]}.{short}.{kind}"
    return None


def _tokenizer_fields(tokenizer: PreTrainedTokenizerBase, vocab_size: int) -> dict[str, Any]:
    """A byte-level BPE vocabulary as GGUF's "gpt2" tokenizer. coevo tokenizes with transformers
    and hands llama.cpp token ids, so this only has to load and to name the special tokens."""
    import gguf

    spec = json.loads(tokenizer.backend_tokenizer.to_str()) if getattr(tokenizer, "is_fast", False) else None
    if spec is None or spec.get("model", {}).get("type") != "BPE":
        raise UnsupportedModel("the llama.cpp backend needs a fast byte-level BPE tokenizer")
    merges = [m if isinstance(m, str) else " ".join(m) for m in spec["model"].get("merges", [])]
    tokens = list(tokenizer.convert_ids_to_tokens(list(range(len(tokenizer)))))  # a list for a list of ids
    special = {t["id"] for t in spec.get("added_tokens", []) if t.get("special")}
    types = [gguf.TokenType.CONTROL if i in special else gguf.TokenType.NORMAL for i in range(len(tokens))]
    for i in range(len(tokens), vocab_size):  # embedding rows beyond the tokenizer's vocabulary
        tokens.append(f"[PAD{i}]")
        types.append(gguf.TokenType.UNUSED)
    return {"tokens": tokens[:vocab_size], "types": types[:vocab_size], "merges": merges}


def export_gguf(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    path: str | Path,
    *,
    precision: str = DEFAULT_PRECISION,
) -> Path:
    """Write `model` (with `tokenizer`'s vocabulary) to `path` as GGUF, atomically: a reader sees
    the old file or the new one, never half of one."""
    import gguf
    import numpy as np
    import torch

    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, not {precision!r}")
    arch = architecture_of(model)
    config = model.config
    heads = int(config.num_attention_heads)
    kv_heads = int(getattr(config, "num_key_value_heads", None) or heads)
    head_dim = int(getattr(config, "head_dim", None) or config.hidden_size // heads)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}-", suffix=".tmp", dir=path.parent)
    os.close(fd)
    writer = gguf.GGUFWriter(tmp_name, arch.gguf_arch)
    try:
        writer.add_name(str(getattr(config, "_name_or_path", "") or "coevo-policy"))
        writer.add_context_length(int(config.max_position_embeddings))
        writer.add_embedding_length(int(config.hidden_size))
        writer.add_block_count(int(config.num_hidden_layers))
        writer.add_feed_forward_length(int(config.intermediate_size))
        writer.add_head_count(heads)
        writer.add_head_count_kv(kv_heads)
        writer.add_rope_dimension_count(head_dim)
        writer.add_rope_freq_base(rope_theta(config))
        writer.add_layer_norm_rms_eps(float(config.rms_norm_eps))
        writer.add_vocab_size(int(config.vocab_size))
        file_type = {"f32": gguf.LlamaFileType.ALL_F32, "f16": gguf.LlamaFileType.MOSTLY_F16,
                     "q8_0": gguf.LlamaFileType.MOSTLY_Q8_0}[precision]  # fmt: skip
        writer.add_file_type(int(file_type))
        vocab = _tokenizer_fields(tokenizer, int(config.vocab_size))
        writer.add_tokenizer_model("gpt2")
        writer.add_tokenizer_pre("default")
        writer.add_token_list(vocab["tokens"])
        writer.add_token_types(vocab["types"])
        writer.add_token_merges(vocab["merges"])
        for setter, token_id in (
            (writer.add_bos_token_id, tokenizer.bos_token_id),
            (writer.add_eos_token_id, tokenizer.eos_token_id),
            (writer.add_pad_token_id, tokenizer.pad_token_id),
        ):
            if token_id is not None:
                setter(int(token_id))
        writer.add_add_bos_token(False)
        if isinstance(tokenizer.chat_template, str):
            writer.add_chat_template(tokenizer.chat_template)

        state = model.state_dict()
        tied = bool(getattr(config, "tie_word_embeddings", False))
        for name, tensor in state.items():
            target = _gguf_name(name)
            if target is None:
                if name.endswith("rotary_emb.inv_freq"):
                    continue
                raise UnsupportedModel(f"no GGUF name for tensor {name!r}")
            if target.startswith("output.") and tied:
                continue  # llama.cpp reads the tied output matrix from token_embd
            data = tensor.detach().to(device="cpu", dtype=torch.float32).numpy()
            if arch.permute_qk and ".attn_q." in target:
                data = _interleave_rotary(data, heads)
            elif arch.permute_qk and ".attn_k." in target:
                data = _interleave_rotary(data, kv_heads)
            if data.ndim == 1 or precision == "f32":
                writer.add_tensor(target, np.ascontiguousarray(data, dtype=np.float32))
            elif precision == "f16":
                writer.add_tensor(target, data.astype(np.float16))
            else:
                qtype = gguf.GGMLQuantizationType.Q8_0
                writer.add_tensor(target, gguf.quants.quantize(data, qtype), raw_dtype=qtype)
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
        os.replace(tmp_name, path)
    finally:
        if os.path.exists(tmp_name):
            os.unlink(tmp_name)
    return path
