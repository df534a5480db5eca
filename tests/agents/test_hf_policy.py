"""The local transformers policy on a tiny random model: batching and the per-episode KV cache
change nothing about what is generated; prompts are cut to budget the way the docstring says."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("transformers")

from coevo.client.policies.base import PolicyRequest, Sampling  # noqa: E402
from coevo.client.policies.hf import TransformersPolicy, _StopOnReActEnd, fit_messages  # noqa: E402
from coevo.client.rollout import RolloutEngine  # noqa: E402
from coevo.client.trajectory import EpisodeSpec  # noqa: E402
from tests.agents.servers import asgi_env_client  # noqa: E402


def _conversation(turns: int, width: int = 10) -> list[dict[str, str]]:
    messages = [{"role": "user", "content": "instruction " * 5}, {"role": "assistant", "content": "OK."}]
    messages.append({"role": "user", "content": "first observation " * 3})
    for i in range(turns):
        messages.append({"role": "assistant", "content": f"Action: step {i} " + "x " * width})
        messages.append({"role": "user", "content": f"observation {i} " + "y " * width})
    return messages


def test_batched_generation_equals_one_by_one(tiny_model_dir: Path) -> None:
    policy = TransformersPolicy(tiny_model_dir, prefix_cache=False, sampling=Sampling(max_new_tokens=12))
    requests = [PolicyRequest(_conversation(k), "guess") for k in (0, 2, 5)]
    batched = policy.generate(requests)
    alone = [policy.generate([r])[0] for r in requests]
    assert batched == alone
    assert len({*batched}) > 1  # the random model says different things to different prompts


def test_prefix_cache_changes_nothing_over_whole_episodes(tiny_model_dir: Path) -> None:
    async def play(prefix_cache: bool) -> list[list[str]]:
        policy = TransformersPolicy(
            tiny_model_dir, prefix_cache=prefix_cache, max_prompt_tokens=700, sampling=Sampling(max_new_tokens=10)
        )
        async with asgi_env_client("guess") as client:
            engine = RolloutEngine(policy, {"guess": client}, max_rounds=6, concurrency=3)
            trajectories = await engine.run([EpisodeSpec("guess", task_id=f"train-{i}") for i in range(1, 4)])
        if prefix_cache:
            assert policy._prefixes == {}  # every finished episode released its cache
        return [[m["content"] for m in t.messages] for t in trajectories]

    cached, recomputed = asyncio.run(play(True)), asyncio.run(play(False))
    assert cached == recomputed
    assert all(len(c) > 8 for c in cached)  # several rounds each, so later rounds reused caches


def test_prefix_cache_survives_prompt_cuts(tiny_model_dir: Path) -> None:
    """Rounds whose prompts lose old turns to the budget still match a cache-free run."""
    cached = TransformersPolicy(tiny_model_dir, max_prompt_tokens=260, sampling=Sampling(max_new_tokens=6))
    plain = TransformersPolicy(
        tiny_model_dir, max_prompt_tokens=260, prefix_cache=False, sampling=Sampling(max_new_tokens=6)
    )

    class Session:
        session_id = "s1"

    for turns in range(0, 9):
        request = PolicyRequest(_conversation(turns), "guess", Session())  # type: ignore[arg-type]
        assert cached.generate([request]) == plain.generate([request])
    assert cached._dropped["s1"] == plain._dropped["s1"] > 0  # the prompt was cut along the way
    cached.release("s1")
    assert "s1" not in cached._prefixes and "s1" not in cached._dropped


def test_fit_messages_keeps_head_and_latest_turns() -> None:
    messages = _conversation(10)

    def count(ms: list[dict[str, str]]) -> int:
        return sum(len(m["content"].split()) for m in ms)

    fitted, dropped = fit_messages(messages, count, budget=120, keep_head=3)
    assert fitted[:3] == messages[:3] and fitted[-1] == messages[-1]
    assert count(fitted) <= 120 and dropped > 0
    assert [m["role"] for m in fitted[3:5]] == ["assistant", "user"]  # still alternating
    assert fitted == messages[:3] + messages[3 + 2 * dropped :]
    # a cut goes below the target, so the next rounds keep the same prefix
    fitted2, dropped2 = fit_messages(messages, count, budget=120, keep_head=3, target=80)
    assert count(fitted2) <= 80 and dropped2 > dropped
    again, same = fit_messages(messages[:-2], count, budget=120, keep_head=3, dropped=dropped2)
    assert same == dropped2 and again[3:] == messages[3 + 2 * dropped2 : -2]
    # nothing to cut when it fits
    assert fit_messages(messages[:5], count, budget=10_000, keep_head=3) == (messages[:5], 0)


def test_stop_criterion(tiny_model_dir: Path) -> None:
    policy = TransformersPolicy(tiny_model_dir)
    tok = policy.tokenizer

    def stops(text: str, single_line: bool) -> bool:
        ids = tok(["PROMPT" + text], return_tensors="pt")["input_ids"]
        prompt_len = len(tok("PROMPT")["input_ids"])
        return bool(_StopOnReActEnd(tok, prompt_len, [single_line])(ids, None)[0])

    assert stops("Thought: go\nAction: go to desk 1\n", single_line=True)
    assert not stops("Thought: go\nAction: go to de", single_line=True)
    assert not stops("Thought: go\nAction: [f(a=1),\n", single_line=False)
    assert stops("Action: [f(a=1)]\nObservation: done", single_line=False)


def test_stop_criterion_decodes_only_on_trigger_tokens_and_stops_the_same(tiny_model_dir: Path) -> None:
    """Fed a batch token by token, the criterion that decodes only rows whose new token can end a
    match (stop_trigger_ids) stops every row at the very step where decoding everything each step
    (local.reply_over on the whole reply) first says the reply is over."""
    import torch

    from coevo.client.policies.local import reply_over, stop_trigger_ids

    policy = TransformersPolicy(tiny_model_dir)
    tok = policy.tokenizer
    vocab = int(policy.model.get_output_embeddings().weight.shape[0])
    triggers = torch.tensor(stop_trigger_ids(tok, vocab), dtype=torch.bool)
    assert 0 < int(triggers.sum()) < vocab  # some tokens can end a match, most cannot
    replies = [
        "Thought: go\nAction: go to desk 1\nmore text after the line",
        "Thought: go\nAction：open drawer 2\nand more",  # a full-width colon
        "Action: [f(a=1)]\nObservation: done, and then",
        "Thought: no action yet, only thoughts that go on and on",
        "Action:   \n not a complete action line\nUser: hi",
        "x\n  observation :invented",
    ]
    single_line = [True, True, False, True, False, False]
    filler = tok(" and so on" * 20, add_special_tokens=False)["input_ids"]
    rows = [tok(text, add_special_tokens=False)["input_ids"] + filler for text in replies]
    width = min(len(r) for r in rows)
    prompt = tok("PROMPT", add_special_tokens=False)["input_ids"]
    ids = torch.tensor([prompt + r[:width] for r in rows])
    stop = _StopOnReActEnd(tok, len(prompt), single_line, triggers=triggers)
    first_stop: dict[int, int] = {}
    reference: dict[int, int] = {}
    for step in range(1, width + 1):
        done = stop(ids[:, : len(prompt) + step], None).tolist()
        texts = tok.batch_decode(ids[:, len(prompt) : len(prompt) + step], skip_special_tokens=True)
        for i, (is_done, text) in enumerate(zip(done, texts)):
            if is_done:
                first_stop.setdefault(i, step)
            if reply_over(text, single_line[i]):
                reference.setdefault(i, step)
    assert first_stop == reference
    assert set(reference) == {0, 1, 2, 4, 5}  # every reply but the thoughts-only one is over
