"""Seeded chat completions: one completion per conversation, from local transformers or an
OpenAI-compatible chat-completions endpoint (vLLM, SGLang, any provider). The simulator's LLM
environment policy writes its tasks with these (coevo/simulator/policies/llm.py).

Both take chat messages and a seed and return one completion per message list. Local
generation is reproducible (the seed drives a forked torch RNG); endpoints get the seed
forwarded, which vLLM honours.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

Messages = list[dict[str, str]]


class TextGenerator(Protocol):
    name: str
    #: Where the weights came from (a directory, or the served model's name); policy versions hash it.
    model_dir: str

    def generate(
        self,
        conversations: Sequence[Messages],
        *,
        seed: int,
        max_new_tokens: int,
        temperature: float,
        top_p: float,
        assistant_prefix: str = "",
    ) -> list[str]:
        """One completion per conversation (without `assistant_prefix`, which is prefilled)."""

    def load(self, path: str) -> None:
        """Hot-load new weights."""


class TransformersGenerator:
    """A local causal LM. `render` gives the exact prompt text the weighted SFT trains on."""

    name = "transformers"

    def __init__(self, model_dir: str | Path, device: str | None = None, batch_size: int = 8) -> None:
        self.device = device
        self.batch_size = batch_size
        self._lock = threading.Lock()
        self.model_dir = ""
        self.load(str(model_dir))

    def load(self, path: str) -> None:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        from coevo.models.loading import default_device

        tokenizer = AutoTokenizer.from_pretrained(path)
        tokenizer.padding_side = "left"
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        device = self.device or default_device()
        # transformers wraps .to in functools.wraps, whose stub binds no self: mypy wants a model first
        model = AutoModelForCausalLM.from_pretrained(path).to(device).eval()  # type: ignore[arg-type]
        with self._lock:
            self.tokenizer, self.model, self.model_dir, self._device = tokenizer, model, path, device

    def render(self, messages: Messages, assistant_prefix: str = "") -> str:
        text = str(self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True))
        return text + assistant_prefix

    def generate(
        self,
        conversations: Sequence[Messages],
        *,
        seed: int,
        max_new_tokens: int = 256,
        temperature: float = 0.8,
        top_p: float = 0.95,
        assistant_prefix: str = "",
    ) -> list[str]:
        import torch

        outputs: list[str] = []
        with self._lock, torch.random.fork_rng(devices=[]):
            for start in range(0, len(conversations), self.batch_size):
                chunk = conversations[start : start + self.batch_size]
                torch.manual_seed(seed + start)
                texts = [self.render(m, assistant_prefix) for m in chunk]
                enc = self.tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False)
                enc = {k: v.to(self._device) for k, v in enc.items()}
                with torch.no_grad():
                    out = self.model.generate(
                        **enc,
                        do_sample=temperature > 0,
                        temperature=max(temperature, 1e-5),
                        top_p=top_p,
                        max_new_tokens=max_new_tokens,
                        pad_token_id=self.tokenizer.pad_token_id,
                    )
                new = out[:, enc["input_ids"].shape[1] :]
                outputs += self.tokenizer.batch_decode(new, skip_special_tokens=True)
        return outputs


class OpenAIGenerator:
    """Chat completions over HTTP. Weights live in the serving engine: `load` asks nothing of
    it and only records the path, so hot-loading is the server operator's job there."""

    name = "openai"

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 120.0,
        concurrency: int = 8,
        retries: int = 3,
    ) -> None:
        import httpx

        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        transport = httpx.HTTPTransport(retries=retries)
        self.client = httpx.Client(base_url=base_url.rstrip("/"), headers=headers, timeout=timeout, transport=transport)
        self.model = model
        self.concurrency = concurrency
        self.model_dir = model

    def load(self, path: str) -> None:
        self.model = path
        self.model_dir = path

    def _one(
        self,
        messages: Messages,
        seed: int,
        max_new_tokens: int,
        temperature: float,
        top_p: float,
        assistant_prefix: str,
    ) -> str:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "seed": seed,
            "max_tokens": max_new_tokens,
            "temperature": temperature,
            "top_p": top_p,
        }
        if assistant_prefix:
            # vLLM continues a trailing assistant message when asked to.
            body["messages"] = [*messages, {"role": "assistant", "content": assistant_prefix}]
            body["continue_final_message"] = True
            body["add_generation_prompt"] = False
        response = self.client.post("/chat/completions", json=body)
        response.raise_for_status()
        return str(response.json()["choices"][0]["message"]["content"] or "")

    def generate(
        self,
        conversations: Sequence[Messages],
        *,
        seed: int,
        max_new_tokens: int = 256,
        temperature: float = 0.8,
        top_p: float = 0.95,
        assistant_prefix: str = "",
    ) -> list[str]:
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            futures = [
                pool.submit(self._one, m, seed + i, max_new_tokens, temperature, top_p, assistant_prefix)
                for i, m in enumerate(conversations)
            ]
            return [f.result() for f in futures]
