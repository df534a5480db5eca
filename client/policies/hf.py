"""A local transformers model as a policy: batched generation with the tokenizer's chat template.

Prompts are left-padded so one `generate` call decodes a whole round of episodes. A reply
stops at the model's end-of-turn token, or as soon as its action line is complete for
one-line-action envs, or when the model starts inventing the env's next observation — decode
steps are the cost on a CPU, so none are spent on text the parser would throw away.

Long episodes outgrow a small model's context; `max_prompt_tokens` keeps the instruction, the
first observation (which states the task) and as many of the latest turns as fit.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coevo.client.policies.base import Message, Policy, PolicyRequest, Sampling
from coevo.client.policies.prompts import prompt_for

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

#: ChatML, for tokenizers that come without a chat template (e.g. tiny test tokenizers).
CHATML_TEMPLATE = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' + message['content'] "
    "+ '<|im_end|>' + '\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

_ACTION_LINE_DONE = re.compile(r"action[ \t*_]*[:：][ \t]*\S[^\n]*\n", re.IGNORECASE)
_INVENTED_TURN = re.compile(r"\n[ \t]*(?:observation|user)[ \t]*:", re.IGNORECASE)


def fit_messages(
    messages: list[Message], count_tokens: Callable[[list[Message]], int], budget: int, keep_head: int
) -> list[Message]:
    """Drop the oldest (assistant, user) turn pairs after the first `keep_head` messages until
    the prompt fits `budget` tokens; the latest observation always stays."""
    if count_tokens(messages) <= budget:
        return messages
    head, tail = messages[:keep_head], messages[keep_head:]
    # tail alternates assistant/user and ends with the user turn that needs an answer
    lo, hi = 0, max(0, (len(tail) - 1) // 2)  # pairs we may drop
    best = hi
    while lo <= hi:  # fewest dropped pairs that fit
        mid = (lo + hi) // 2
        if count_tokens(head + tail[2 * mid :]) <= budget:
            best, hi = mid, mid - 1
        else:
            lo = mid + 1
    return head + tail[2 * best :]


class _StopOnReActEnd:
    """Stops each row once its reply is over (see module docstring); rows are independent."""

    def __init__(self, tokenizer: PreTrainedTokenizerBase, prompt_len: int, single_line: list[bool]) -> None:
        self.tokenizer, self.prompt_len, self.single_line = tokenizer, prompt_len, single_line

    def __call__(self, input_ids: torch.LongTensor, scores: Any, **kwargs: Any) -> torch.BoolTensor:
        import torch

        texts = self.tokenizer.batch_decode(input_ids[:, self.prompt_len :], skip_special_tokens=True)
        done = [
            bool(_INVENTED_TURN.search(t)) or (one and bool(_ACTION_LINE_DONE.search(t)))
            for t, one in zip(texts, self.single_line)
        ]
        return torch.tensor(done, dtype=torch.bool, device=input_ids.device)


def default_device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def load_model(
    path: str | Path, *, device: str | None = None, dtype: str | None = None
) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """A causal LM and its tokenizer from a local directory (fp32 on CPU, bf16 on GPU by default)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    device = device or default_device()
    if dtype is None:
        torch_dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
    else:
        torch_dtype = getattr(torch, dtype)
    tokenizer = AutoTokenizer.from_pretrained(str(path))
    model = AutoModelForCausalLM.from_pretrained(str(path), dtype=torch_dtype).to(device)
    model.eval()
    return model, prepare_tokenizer(tokenizer)


def prepare_tokenizer(tokenizer: PreTrainedTokenizerBase) -> PreTrainedTokenizerBase:
    """Left padding, a pad token, and a chat template — what batched chat generation needs."""
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    if not tokenizer.chat_template:
        tokenizer.chat_template = CHATML_TEMPLATE
    return tokenizer


def stop_token_ids(tokenizer: PreTrainedTokenizerBase) -> list[int]:
    """End-of-sequence plus the chat template's end-of-turn token when it has one."""
    ids = {tokenizer.eos_token_id} if tokenizer.eos_token_id is not None else set()
    for token in ("<|im_end|>", "<|eot_id|>", "<|end|>", "<end_of_turn>"):
        token_id = tokenizer.convert_tokens_to_ids(token)
        if isinstance(token_id, int) and token_id != tokenizer.unk_token_id and token_id >= 0:
            ids.add(token_id)
    return sorted(ids)


class TransformersPolicy(Policy):
    """Generates replies with a local model; `model` is a directory or a loaded (model, tokenizer)."""

    batched = True

    def __init__(
        self,
        model: str | Path | tuple[PreTrainedModel, PreTrainedTokenizerBase],
        *,
        name: str | None = None,
        sampling: Sampling | None = None,
        max_batch_size: int = 16,
        max_prompt_tokens: int = 2048,
        device: str | None = None,
        dtype: str | None = None,
    ) -> None:
        super().__init__(sampling)
        if isinstance(model, tuple):
            self.model, tokenizer = model
            self.tokenizer = prepare_tokenizer(tokenizer)
            self.name = name or "model"
        else:
            self.model, self.tokenizer = load_model(model, device=device, dtype=dtype)
            self.name = name or Path(model).name
        self.max_batch_size = max_batch_size
        self.max_prompt_tokens = max_prompt_tokens
        self._stop_ids = stop_token_ids(self.tokenizer)
        self._lock = threading.Lock()

    # ---------------------------------------------------------------- prompts
    def render(self, messages: list[Message]) -> str:
        return self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)

    def count_tokens(self, messages: list[Message]) -> int:
        return len(self.tokenizer(self.render(messages), add_special_tokens=False)["input_ids"])

    def prompt_text(self, request: PolicyRequest) -> str:
        keep_head = 3 if len(request.messages) >= 3 else len(request.messages)
        messages = fit_messages(request.messages, self.count_tokens, self.max_prompt_tokens, keep_head)
        return self.render(messages)

    # ---------------------------------------------------------------- generation
    def generate(self, requests: Sequence[PolicyRequest], sampling: Sampling | None = None) -> list[str]:
        """Blocking batched generation (the async `act` runs this in a worker thread)."""
        import torch

        sampling = sampling or self.sampling
        texts = [self.prompt_text(r) for r in requests]
        single_line = [(r.prompt or prompt_for(r.env)).single_line_action for r in requests]
        enc = self.tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False)
        enc = {k: v.to(self.model.device) for k, v in enc.items()}
        if enc["input_ids"].shape[1] > self.max_prompt_tokens:  # a single huge turn: keep its end
            enc = {k: v[:, -self.max_prompt_tokens :] for k, v in enc.items()}
        prompt_len = enc["input_ids"].shape[1]
        kwargs: dict[str, Any] = dict(
            max_new_tokens=sampling.max_new_tokens,
            pad_token_id=self.tokenizer.pad_token_id,
            eos_token_id=self._stop_ids,
            stopping_criteria=[_StopOnReActEnd(self.tokenizer, prompt_len, single_line)],
        )
        if sampling.greedy:
            kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        else:
            kwargs.update(do_sample=True, temperature=sampling.temperature, top_p=sampling.top_p, top_k=None)
        with self._lock, torch.inference_mode():
            if sampling.seed is not None:
                torch.manual_seed(sampling.seed)
            was_training = self.model.training
            self.model.eval()
            try:
                out = self.model.generate(**enc, **kwargs)
            finally:
                if was_training:
                    self.model.train()
        return [t.strip() for t in self.tokenizer.batch_decode(out[:, prompt_len:], skip_special_tokens=True)]

    async def act(
        self, requests: Sequence[PolicyRequest], sampling: Sampling | None = None
    ) -> list[str | None]:
        replies: list[str | None] = []
        for start in range(0, len(requests), self.max_batch_size):
            chunk = requests[start : start + self.max_batch_size]
            replies.extend(await asyncio.to_thread(self.generate, chunk, sampling))
        return replies

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": "transformers",
            "model": getattr(self.model.config, "_name_or_path", ""),
            "max_prompt_tokens": self.max_prompt_tokens,
            "max_batch_size": self.max_batch_size,
        }
