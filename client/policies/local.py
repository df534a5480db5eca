"""What every local model policy shares, whichever engine decodes: the tokenizer's chat template,
the prompt budget, the end-of-reply rules, and the batching of `act` calls into a worker thread.

The transformers backend (hf.py) and the llama.cpp backend (llamacpp.py) both tokenize with the
model's own transformers tokenizer, so the two see the very same prompt tokens and differ only
in the arithmetic that follows.

A reply stops at the model's end-of-turn token, or as soon as its action line is complete for
one-line-action envs, or when the model starts inventing the env's next observation — decode
steps are the cost on a CPU, so none are spent on text the parser would throw away.

Long episodes outgrow a small model's context; `max_prompt_tokens` keeps the instruction, the
first observation (which states the task) and as many of the latest turns as fit, dropping old
turns in blocks so that a cached prefix stays valid for several rounds after a cut.
"""

from __future__ import annotations

import asyncio
import re
import threading
from abc import abstractmethod
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from coevo.client.policies.base import Message, Policy, PolicyRequest, Sampling
from coevo.client.policies.prompts import prompt_for
from coevo.models.tokenizers import prepare_tokenizer, stop_token_ids

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

_ACTION_LINE_DONE = re.compile(r"action[ \t*_]*[:：][ \t]*\S[^\n]*\n", re.IGNORECASE)
_INVENTED_TURN = re.compile(r"\n[ \t]*(?:observation|user)[ \t]*:", re.IGNORECASE)


class GenerationCancelled(RuntimeError):
    """`cancel()` was called while a batch was being decoded (SIGTERM, Ctrl-C, shutdown)."""


#: What a stop match ends with: both patterns end at a newline or a colon; U+FFFD is what a token
#: decodes to alone when it completes a multi-byte character (the full-width colon among them).
_STOP_MATCH_ENDS = ("\n", ":", "\ufffd")


def stop_trigger_ids(tokenizer: PreTrainedTokenizerBase, vocab_size: int) -> list[bool]:
    """Per token id, whether generating it can complete a stop match. A reply's text only grows
    and every match ends with one of _STOP_MATCH_ENDS, so `reply_over` can turn true only on a
    step whose token decodes to text holding one: the rules need checking on those steps alone
    (ids past the tokenizer's vocabulary count as triggers)."""
    pieces = tokenizer.batch_decode([[i] for i in range(min(len(tokenizer), vocab_size))], skip_special_tokens=True)
    triggers = [any(end in piece for end in _STOP_MATCH_ENDS) for piece in pieces]
    return triggers + [True] * (vocab_size - len(triggers))


def reply_over(text: str, single_line: bool) -> bool:
    """Whether a reply-so-far needs no more tokens (see the module docstring)."""
    return bool(_INVENTED_TURN.search(text)) or (single_line and bool(_ACTION_LINE_DONE.search(text)))


def cut_reply(text: str, single_line: bool) -> str:
    """A reply decoded without the stop rules (vLLM) cut where they would have stopped it: at the
    end of the earliest match that makes `reply_over` true (other engines stop on that token)."""
    ends = [
        m.end() for m in (_INVENTED_TURN.search(text), _ACTION_LINE_DONE.search(text) if single_line else None) if m
    ]
    return text[: min(ends)] if ends else text


def fit_messages(
    messages: list[Message],
    count_tokens: Callable[[list[Message]], int],
    budget: int,
    keep_head: int,
    *,
    dropped: int = 0,
    target: int | None = None,
) -> tuple[list[Message], int]:
    """Drop the oldest (assistant, user) turn pairs after the first `keep_head` messages so the
    prompt fits `budget` tokens; the latest observation always stays.

    `dropped` pairs are dropped to begin with (what the previous round of this episode dropped,
    so its cached prefix still matches); when more must go, enough are dropped to get under
    `target` (default `budget`), leaving room for the next rounds. Returns the messages and the
    number of pairs dropped.
    """
    head, tail = messages[:keep_head], messages[keep_head:]
    # tail alternates assistant/user and ends with the user turn that needs an answer
    most = max(0, (len(tail) - 1) // 2)  # pairs we may drop
    dropped = min(dropped, most)
    if count_tokens(head + tail[2 * dropped :]) <= budget:
        return head + tail[2 * dropped :], dropped
    goal = budget if target is None else min(target, budget)
    lo, hi, best = dropped + 1, most, most
    while lo <= hi:  # fewest dropped pairs that reach the goal
        mid = (lo + hi) // 2
        if count_tokens(head + tail[2 * mid :]) <= goal:
            best, hi = mid, mid - 1
        else:
            lo = mid + 1
    return head + tail[2 * best :], best


class ChatModelPolicy(Policy):
    """A local chat model: prompts from its tokenizer's chat template, cut to a token budget;
    replies decoded in batches on a worker thread by the subclass's `_generate`."""

    batched = True

    def __init__(
        self,
        tokenizer: PreTrainedTokenizerBase,
        *,
        name: str,
        sampling: Sampling | None = None,
        max_batch_size: int = 16,
        max_prompt_tokens: int = 2048,
        max_cached_episodes: int = 256,
    ) -> None:
        super().__init__(sampling)
        self.tokenizer = prepare_tokenizer(tokenizer)
        self.name = name
        self.max_batch_size = max_batch_size
        self.max_prompt_tokens = max_prompt_tokens
        self.max_cached_episodes = max_cached_episodes
        self._stop_ids = stop_token_ids(self.tokenizer)
        self._lock = threading.Lock()  # guards the per-episode tables
        self._busy = threading.Lock()  # one batch at a time on the model
        self._cancelled = threading.Event()
        #: Old turn pairs each episode's prompt drops (kept stable so prompts only grow between cuts).
        self._dropped: OrderedDict[str, int] = OrderedDict()

    # ---------------------------------------------------------------- prompts
    def render(self, messages: list[Message]) -> str:
        # transformers annotates conversations as list[dict[str, str]]; a TypedDict is no dict subtype
        # to mypy, though any mapping of role and content is what the template reads.
        return str(
            self.tokenizer.apply_chat_template(
                messages,  # type: ignore[arg-type]
                tokenize=False,
                add_generation_prompt=True,
            )
        )

    def count_tokens(self, messages: list[Message]) -> int:
        return len(self.encode(self.render(messages)))

    def encode(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def decode(self, ids: Sequence[int]) -> str:
        return str(self.tokenizer.decode(list(ids), skip_special_tokens=True))

    def prompt_ids(self, request: PolicyRequest, dropped: int = 0) -> tuple[list[int], int]:
        """The prompt's tokens (old turns dropped to fit the budget) and how many pairs were dropped."""
        keep_head = min(3, len(request.messages))
        messages, dropped = fit_messages(
            request.messages, self.count_tokens, self.max_prompt_tokens, keep_head,
            dropped=dropped, target=(3 * self.max_prompt_tokens) // 4,
        )  # fmt: skip
        ids = self.encode(self.render(messages))
        return ids[-self.max_prompt_tokens :], dropped  # a single huge turn: keep its end

    def single_line(self, request: PolicyRequest) -> bool:
        return (request.prompt or prompt_for(request.env)).single_line_action

    @staticmethod
    def key_of(request: PolicyRequest) -> str | None:
        return request.session.session_id if request.session is not None else None

    def prompts_for(self, requests: Sequence[PolicyRequest]) -> list[list[int]]:
        """Every request's prompt tokens, each episode's earlier cut kept and the new one recorded."""
        keys = [self.key_of(r) for r in requests]
        with self._lock:
            dropped = [self._dropped.get(k, 0) if k else 0 for k in keys]
        prompts = [self.prompt_ids(r, d) for r, d in zip(requests, dropped)]
        with self._lock:
            for key, (_, cut) in zip(keys, prompts):
                if key is not None:
                    self._dropped[key] = cut
                    self._dropped.move_to_end(key)
            while len(self._dropped) > 4 * self.max_cached_episodes:
                self._dropped.popitem(last=False)
        return [ids for ids, _ in prompts]

    def release(self, key: str) -> None:
        """Forget an episode's prompt cut and cached state (called when its episode ends)."""
        with self._lock:
            self._dropped.pop(key, None)

    # ---------------------------------------------------------------- generation
    def generate(self, requests: Sequence[PolicyRequest], sampling: Sampling | None = None) -> list[str]:
        """Blocking batched generation (the async `act` runs this in a worker thread)."""
        with self._busy:
            return self._generate(requests, sampling or self.sampling)

    @abstractmethod
    def _generate(self, requests: Sequence[PolicyRequest], sampling: Sampling) -> list[str]:
        """One reply per request, decoded together."""

    def cancel(self) -> None:
        """Stop decoding at the next token (the running batch raises GenerationCancelled); for
        SIGTERM and Ctrl-C, so a command never waits for a generation to finish before exiting."""
        self._cancelled.set()

    def check_cancelled(self) -> None:
        if self._cancelled.is_set():
            raise GenerationCancelled("generation was cancelled")

    async def act(self, requests: Sequence[PolicyRequest], sampling: Sampling | None = None) -> list[str | None]:
        replies: list[str | None] = []
        for start in range(0, len(requests), self.max_batch_size):
            chunk = requests[start : start + self.max_batch_size]
            replies.extend(await asyncio.to_thread(self.generate, chunk, sampling))
        return replies

    async def end_episode(self, session_id: str) -> None:
        self.release(session_id)
