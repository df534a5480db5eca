"""Token bookkeeping for multi-turn training: which tokens the model wrote and which the env did.

A trainer that trains on a whole episode as one sequence needs the model's own tokens as it
sampled them (never re-tokenized) and, between them, the tokens of the env's turns, masked out
of the loss. The env's tokens are what the chat template puts between the end of the agent's
reply and the start of its next one: found by rendering the conversation with a sentinel for the
reply, so any prefix-preserving template works without knowing its markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from coevo.client.policies.base import Message

_SENTINEL = "\x00coevo-reply\x00"


def _render(tokenizer: Any, messages: Sequence[Message], *, generation_prompt: bool) -> str:
    text = tokenizer.apply_chat_template(list(messages), tokenize=False, add_generation_prompt=generation_prompt)
    if not isinstance(text, str):
        raise TypeError(f"the chat template rendered {type(text).__name__}, not text")
    return text


def prompt_ids(tokenizer: Any, messages: Sequence[Message]) -> list[int]:
    """The conversation so far, ready for the assistant's first reply."""
    return list(tokenizer.encode(_render(tokenizer, messages, generation_prompt=True), add_special_tokens=False))


def env_turn_ids(tokenizer: Any, history: Sequence[Message], user: str, *, stopped_with: str | None) -> list[int]:
    """Tokens from the end of the agent's last reply (history[-1]) to the start of its next one.

    `stopped_with`: the text of the stop token the model ended its reply with (it is already among
    the model's tokens and is not repeated); None when the reply was cut by the token budget.
    """
    if not history or history[-1]["role"] != "assistant":
        raise ValueError("the history must end with the agent's reply")
    marked = [*history[:-1], Message(role="assistant", content=_SENTINEL)]
    before = _render(tokenizer, marked, generation_prompt=False)
    after = _render(tokenizer, [*marked, Message(role="user", content=user)], generation_prompt=True)
    if not after.startswith(before) or _SENTINEL not in before:
        raise ValueError(
            "the tokenizer's chat template is not prefix-preserving (rendering a later turn changed earlier ones); "
            "multi-turn training needs one that is"
        )
    text = before[before.rindex(_SENTINEL) + len(_SENTINEL) :] + after[len(before) :]
    if stopped_with and text.startswith(stopped_with):
        text = text[len(stopped_with) :]
    return list(tokenizer.encode(text, add_special_tokens=False))
