"""Tiny random models for fast tests and the ci presets: real transformers code paths in seconds,
with no weights to find."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

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

    from coevo.models.tokenizers import CHATML_TEMPLATE

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
