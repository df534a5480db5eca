"""The llama.cpp backend on a tiny random Llama: the same greedy replies as transformers (one
round and whole episodes, prompt cuts and prefix reuse included), a trained model's weights
served after a sync, seeded sampling, the KV cache kept within bounds, cancellation."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("transformers")
pytest.importorskip("llama_cpp")

import numpy as np  # noqa: E402

from coevo.client.policies.base import PolicyRequest, Sampling  # noqa: E402
from coevo.client.policies.factory import in_memory_policy, local_policy, resolve_backend  # noqa: E402
from coevo.models.gguf_export import UnsupportedModel, export_gguf  # noqa: E402
from coevo.client.policies.hf import TransformersPolicy  # noqa: E402
from coevo.models.loading import load_model  # noqa: E402
from coevo.client.policies.llamacpp import LlamaCppPolicy, one_pass_layout, pick_token  # noqa: E402
from coevo.client.policies.local import GenerationCancelled  # noqa: E402
from coevo.client.rollout import RolloutEngine  # noqa: E402
from coevo.client.trajectory import EpisodeSpec  # noqa: E402
from tests.agents.servers import asgi_env_client  # noqa: E402
from tests.agents.test_hf_policy import _conversation  # noqa: E402


class _Session:
    def __init__(self, session_id: str) -> None:
        self.session_id = session_id


def _requests(turns: tuple[int, ...] = (0, 1, 3, 6)) -> list[PolicyRequest]:
    return [PolicyRequest(_conversation(k), "guess", _Session(f"s{k}")) for k in turns]  # type: ignore[arg-type]


@pytest.mark.parametrize("flash_attention", [True, False])
def test_greedy_replies_equal_transformers(tiny_model_dir: Path, flash_attention: bool) -> None:
    greedy = Sampling(max_new_tokens=16)
    reference = TransformersPolicy(tiny_model_dir, prefix_cache=False, sampling=greedy)
    fast = LlamaCppPolicy(
        tiny_model_dir, sampling=greedy, kv_type="f32", precision="f32", threads=1, flash_attention=flash_attention
    )
    assert fast.describe()["flash_attention"] is flash_attention
    assert fast.generate(_requests()) == reference.generate(_requests())
    assert len(set(reference.generate(_requests()))) > 1  # different prompts, different replies


def test_whole_episodes_reuse_prefixes_and_free_their_slots(tiny_model_dir: Path) -> None:
    """Multi-turn episodes with prompt cuts: later rounds feed only their new tokens, finished
    episodes release their slots, and the first replies are transformers' (later rounds of this
    random model amplify float rounding, so they are compared by logits below)."""

    async def play(policy: Any) -> list[list[str]]:
        async with asgi_env_client("guess") as client:
            engine = RolloutEngine(policy, {"guess": client}, max_rounds=6, concurrency=3)
            trajectories = await engine.run([EpisodeSpec("guess", task_id=f"train-{i}") for i in range(1, 4)])
        return [[m["content"] for m in t.messages] for t in trajectories]

    options = dict(max_prompt_tokens=400, sampling=Sampling(max_new_tokens=10))
    fast = LlamaCppPolicy(tiny_model_dir, kv_type="f32", precision="f32", threads=1, max_batch_size=3, **options)  # type: ignore[arg-type]
    fed: list[int] = []  # tokens llama.cpp was given, generated ones included
    prompted: list[int] = []  # prompt tokens a backend without prefix reuse would feed
    decode, prompts_for = fast.engine.decode, fast.prompts_for
    fast.engine.decode = lambda entries: (fed.append(len(entries)), decode(entries))[1]  # type: ignore[method-assign]
    fast.prompts_for = lambda requests: (lambda ids: (prompted.extend(map(len, ids)), ids)[1])(prompts_for(requests))  # type: ignore[method-assign]
    replies = asyncio.run(play(fast))
    reference = asyncio.run(play(TransformersPolicy(tiny_model_dir, prefix_cache=False, **options)))  # type: ignore[arg-type]
    assert [r[:4] for r in replies] == [r[:4] for r in reference]
    assert all(len(r) > 8 for r in replies)  # several rounds each
    assert fast._slots == {} and fast._dropped == {}  # finished episodes released their slots
    assert sum(fed) < 0.6 * sum(prompted)  # later rounds fed only their new tokens


def test_a_reused_prefix_gives_the_logits_of_a_fresh_prompt(
    tiny_model_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Round after round of one growing conversation (cut to the budget on the way), the next
    token's logits with the cached prefix match feeding the whole prompt, to float rounding."""
    import coevo.client.policies.llamacpp as llamacpp

    seen: list[np.ndarray] = []
    real_pick = llamacpp.pick_token
    monkeypatch.setattr(
        llamacpp,
        "pick_token",
        lambda logits, sampling, rng: (seen.append(logits.copy()), real_pick(logits, sampling, rng))[1],
    )
    one = Sampling(max_new_tokens=1)
    cached = LlamaCppPolicy(
        tiny_model_dir, kv_type="f32", precision="f32", threads=1, max_prompt_tokens=260, sampling=one
    )
    fresh = LlamaCppPolicy(
        tiny_model_dir, kv_type="f32", precision="f32", threads=1, max_prompt_tokens=260, sampling=one
    )
    for turns in range(9):
        request = PolicyRequest(_conversation(turns), "guess", _Session("s1"))  # type: ignore[arg-type]
        cached.generate([request])
        fresh._free("s1", keep_kv=False)  # the same prompt cut as `cached`, but its KV computed from scratch
        fresh.generate([request])
        reused, whole = seen[-2], seen[-1]
        scale = float(np.abs(whole).max())
        assert float(np.abs(reused - whole).max()) <= 1e-3 * scale, turns
    assert cached._dropped["s1"] == fresh._dropped["s1"] > 0  # the prompt was cut along the way


def test_a_prefix_copied_from_another_episode_gives_the_logits_of_a_fresh_prompt(
    tiny_model_dir: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """Episodes sharing the start of their prompt: a new one copies the KV of another (an
    earlier prompt of the same round, a live episode, a finished one kept as a donor) and
    computes only the rest; its next-token logits match a prompt computed from scratch."""
    import coevo.client.policies.llamacpp as llamacpp

    seen: list[np.ndarray] = []
    real_pick = llamacpp.pick_token
    monkeypatch.setattr(
        llamacpp,
        "pick_token",
        lambda logits, sampling, rng: (seen.append(logits.copy()), real_pick(logits, sampling, rng))[1],
    )
    one = Sampling(max_new_tokens=1)
    shared = LlamaCppPolicy(tiny_model_dir, kv_type="f32", precision="f32", threads=1, max_batch_size=4, sampling=one)
    fresh = LlamaCppPolicy(tiny_model_dir, kv_type="f32", precision="f32", threads=1, max_batch_size=4, sampling=one)

    def request(turns: int, key: str, branch: bool = False) -> PolicyRequest:
        messages = _conversation(turns)
        if branch:  # the conversation goes another way after `turns` turns
            messages += [
                {"role": "assistant", "content": "Action: wait " + "z " * 8},
                {"role": "user", "content": "nothing happens " * 3},
            ]
        return PolicyRequest(messages, "guess", _Session(key))  # type: ignore[arg-type]

    def from_scratch(turns: int, branch: bool = False) -> np.ndarray:
        fresh.generate([request(turns, "x", branch)])
        fresh._free("x", keep_kv=False)
        return seen[-1]

    def close(a: np.ndarray, b: np.ndarray) -> bool:  # this random model amplifies float rounding
        return float(np.abs(a - b).max()) <= 5e-3 * float(np.abs(b).max())

    shared.generate([request(6, "a"), request(7, "b"), request(8, "c")])  # b and c copy from a, in one round
    in_round = seen[-3:]
    assert shared.prompt_tokens_copied >= 2 * llamacpp.MIN_SHARED_TOKENS
    assert all(close(got, from_scratch(t)) for got, t in zip(in_round, (6, 7, 8)))

    copied = shared.prompt_tokens_copied
    shared.generate([request(9, "d")])  # from a live episode outside the round
    assert shared.prompt_tokens_copied > copied and close(seen[-1], from_scratch(9))

    for key in "abcd":
        shared.release(key)
    assert shared._slots == {} and shared._donors  # finished: their KV kept as copy sources
    copied = shared.prompt_tokens_copied
    shared.generate([request(5, "e", branch=True)])  # shares five turns with the donors
    donated = seen[-1]
    assert shared.prompt_tokens_copied > copied and close(donated, from_scratch(5, branch=True))
    # Exactly what the episode's own cached prefix would give (the copy adds no error of its own).
    fresh.generate([request(9, "y")])
    fresh.generate([request(5, "y", branch=True)])
    assert np.array_equal(seen[-1], donated)


def test_one_pass_layout_sorts_by_sequence_and_fills_small_gaps() -> None:
    entries = [(10, 7, 5, True), (11, 3, 0, True), (12, 9, 3, True), (13, 4, 9, True)]
    positions = {1: 40, 2: 0, 4: 12}
    feed, rows, fillers = one_pass_layout(entries, positions.get, max_gap=2)
    # 0 and 3 leave a gap of two (filled), 3 and 5 one (filled), 5 and 9 three (left: two passes)
    assert [e[2] for e in feed] == [0, 1, 2, 3, 4, 5, 9]
    assert fillers == [(1, 40), (2, 0), (4, 12)]
    assert [e for e in feed if e[2] in (1, 2, 4)] == [(0, 40, 1, False), (0, 0, 2, False), (0, 12, 4, False)]
    assert rows == [1, 2, 0, 3]  # the logits rows come back in feed order: sequences 0, 3, 5, 9
    # A sequence that cannot take another cell keeps its gap; no gap allowed, only sorting.
    feed, rows, fillers = one_pass_layout(entries, {1: 40, 2: None, 4: 12}.get, max_gap=2)
    assert [e[2] for e in feed] == [0, 3, 4, 5, 9] and fillers == [(4, 12)]
    feed, rows, fillers = one_pass_layout(entries, positions.get, max_gap=0)
    assert [e[2] for e in feed] == [0, 3, 5, 9] and fillers == []


def test_a_round_with_gaps_between_its_episodes_decodes_in_one_pass_per_step(tiny_model_dir: Path) -> None:
    """Episodes 0, 2 and 4 of six decode together: each step also feeds a throwaway token to 1 and
    3 (so llama.cpp runs one pass, not three), the replies are transformers', and the idle
    episodes' KV is left as it was."""
    greedy = Sampling(max_new_tokens=8)
    fast = LlamaCppPolicy(
        tiny_model_dir, kv_type="f32", precision="f32", threads=1, max_batch_size=6, sampling=greedy,
        share_prefixes=False,
    )  # fmt: skip
    reference = TransformersPolicy(tiny_model_dir, prefix_cache=False, sampling=greedy)
    fast.generate(_requests((0, 1, 2, 3, 4, 5)))
    seqs = {key: slot.seq for key, slot in fast._slots.items()}
    assert sorted(seqs.values()) == list(range(6))
    idle = {seqs[f"s{k}"]: len(fast._slots[f"s{k}"].tokens) for k in (1, 3, 5)}
    fed: list[list[int]] = []
    decode = fast.engine.decode
    fast.engine.decode = lambda entries: (fed.append([e[2] for e in entries]), decode(entries))[1]  # type: ignore[method-assign]
    round_ = _requests((4, 0, 2))
    assert fast.generate(round_) == reference.generate(round_)
    active = sorted(seqs[f"s{k}"] for k in (0, 2, 4))
    assert active == [0, 2, 4] and fed[0] == [4, 0, 2]  # the prompts' last tokens (cached before)
    steps = fed[1:]
    assert len(steps) == greedy.max_new_tokens - 1 and all(
        step == list(range(active[0], active[-1] + 1)) for step in steps
    )
    for seq, length in idle.items():
        assert fast.engine.positions(seq) == (0, length - 1)  # the throwaway cells are gone


def test_a_trained_models_outputs_come_back_after_a_weight_sync(tiny_model_dir: Path, tmp_path: Path) -> None:
    import torch

    model, tokenizer = load_model(tiny_model_dir)
    greedy = Sampling(max_new_tokens=8)
    served = in_memory_policy(
        model, tokenizer, workdir=tmp_path, backend="llamacpp", sampling=greedy, kv_type="f32", precision="f32"
    )
    assert isinstance(served, LlamaCppPolicy) and served.last_sync_s is not None
    request = _requests((2,))
    before = served.generate(request)
    # train the model to answer this prompt with a fixed reply
    target = tokenizer("Action: go to desk 1\n", add_special_tokens=False)["input_ids"]
    prompt = served.prompt_ids(request[0])[0]
    ids = torch.tensor([prompt + target])
    labels = torch.tensor([[-100] * len(prompt) + target])
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    for _ in range(40):
        optimizer.zero_grad()
        model(input_ids=ids, labels=labels).loss.backward()
        optimizer.step()
    model.eval()
    trained = TransformersPolicy((model, tokenizer), prefix_cache=False, sampling=greedy).generate(request)
    assert trained[0].startswith("Action: go to desk 1") and trained != before
    assert served.generate(request) == before  # still the old weights until the sync
    seconds = served.sync_weights(model)
    assert seconds > 0 and served.last_sync_s == seconds
    assert served.generate(request) == trained


def test_a_sync_never_overwrites_a_checkpoints_cached_gguf(tiny_model_dir: Path) -> None:
    import torch

    greedy = Sampling(max_new_tokens=8)
    first = LlamaCppPolicy(tiny_model_dir, threads=1, sampling=greedy)
    before = first.generate(_requests((2,)))
    model, _ = load_model(tiny_model_dir)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.5)
    first.sync_weights(model)
    assert first.generate(_requests((2,))) != before
    # a new policy of the same directory still serves the checkpoint's own weights
    assert LlamaCppPolicy(tiny_model_dir, threads=1, sampling=greedy).generate(_requests((2,))) == before
    private = first._private_file
    assert private is not None and private.is_file()
    asyncio.run(first.aclose())
    assert not private.exists()


def test_a_checkpoint_scored_once_leaves_no_gguf_behind(tiny_model_dir: Path) -> None:
    from coevo.models.gguf_export import DEFAULT_PRECISION
    from coevo.models.llamacpp_engine import gguf_cache_path

    greedy = Sampling(max_new_tokens=8)
    cached = LlamaCppPolicy(tiny_model_dir, threads=1, sampling=greedy)
    expected = cached.generate(_requests((2,)))
    asyncio.run(cached.aclose())
    shared = gguf_cache_path(tiny_model_dir, DEFAULT_PRECISION)
    assert shared.is_file()  # the cached copy stays for the next policy of the directory
    shared.unlink()
    once = local_policy(tiny_model_dir, backend="llamacpp", threads=1, sampling=greedy, cache_gguf=False)
    assert isinstance(once, LlamaCppPolicy)
    private = once.engine.path
    assert private.is_file() and private != shared and not shared.exists()
    assert once.generate(_requests((2,))) == expected  # the same weights
    asyncio.run(once.aclose())
    assert not private.exists() and not shared.exists()


def test_seeded_sampling_repeats_and_seeds_differ(tiny_model_dir: Path) -> None:
    policy = LlamaCppPolicy(tiny_model_dir, threads=1)
    prompts = [policy.prompt_ids(r)[0] for r in _requests((1, 4))] * 4

    def draw(seed: int) -> list[list[int]]:
        return policy.generate_ids(prompts, Sampling(temperature=1.0, max_new_tokens=12, seed=seed), stop="none")

    assert draw(3) == draw(3)
    assert draw(3) != draw(4)
    assert len({tuple(x) for x in draw(3)}) > 2  # copies of one prompt get different samples


def test_pick_token_filters() -> None:
    rng = np.random.default_rng(0)
    logits = np.array([0.0, 3.0, 2.9, -5.0, 1.0], dtype=np.float32)
    assert pick_token(logits, Sampling(), rng) == 1
    assert {pick_token(logits, Sampling(temperature=5.0, top_k=1), rng) for _ in range(50)} == {1}
    assert {pick_token(logits, Sampling(temperature=1.0, top_k=2), rng) for _ in range(200)} == {1, 2}
    assert {pick_token(logits, Sampling(temperature=1.0, top_p=0.01), rng) for _ in range(50)} == {1}
    assert {pick_token(logits, Sampling(temperature=1.0, min_p=0.5), rng) for _ in range(200)} == {1, 2}
    assert len({pick_token(logits, Sampling(temperature=50.0), rng) for _ in range(400)}) == 5


def test_more_episodes_than_slots_and_replies_cut_at_the_context_end(tiny_model_dir: Path) -> None:
    greedy = Sampling(max_new_tokens=6)
    policy = LlamaCppPolicy(
        tiny_model_dir, max_batch_size=2, max_prompt_tokens=300, max_reply_tokens=64, threads=1, sampling=greedy
    )
    reference = TransformersPolicy(tiny_model_dir, prefix_cache=False, max_prompt_tokens=300, sampling=greedy)
    requests = [PolicyRequest(_conversation(k), "guess", _Session(f"e{k}")) for k in range(5)]  # type: ignore[arg-type]
    for request in requests + requests[::-1]:  # later episodes take the slots of idle ones, then come back
        assert policy.generate([request]) == reference.generate([request])
        assert len(policy._slots) <= 2
    prompt = policy.prompt_ids(requests[0])[0]
    [long] = policy.generate_ids([prompt], Sampling(temperature=1.0, max_new_tokens=5000), stop="none")
    assert len(prompt) + len(long) == policy.context_tokens  # cut where the episode's context ends
    with pytest.raises(ValueError, match="holds 2"):
        policy.generate_ids([prompt] * 3, greedy, keys=["a", "b", "c"])


def test_cancel_stops_a_generation_in_both_backends(tiny_model_dir: Path) -> None:
    for policy in (
        LlamaCppPolicy(tiny_model_dir, threads=1, max_reply_tokens=8000, max_prompt_tokens=512),
        TransformersPolicy(tiny_model_dir),
    ):
        outcome: dict[str, Any] = {}
        request = PolicyRequest(_conversation(0), "guess")
        long = Sampling(temperature=1.0, max_new_tokens=6000)

        def run(policy: Any, request: PolicyRequest, sampling: Sampling, outcome: dict[str, Any]) -> None:
            try:
                outcome["reply"] = policy.generate([request], sampling)
            except GenerationCancelled as exc:
                outcome["cancelled"] = exc

        worker = threading.Thread(target=run, args=(policy, request, long, outcome))
        worker.start()
        policy.cancel()
        worker.join(timeout=120)
        assert not worker.is_alive() and "cancelled" in outcome, type(policy).__name__


def test_backend_choice_and_refusals(tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    assert resolve_backend("auto") == ("transformers" if torch.cuda.is_available() else "llamacpp")
    assert resolve_backend("transformers") == "transformers"
    monkeypatch.setenv("COEVO_POLICY_BACKEND", "transformers")
    assert isinstance(local_policy(tiny_model_dir), TransformersPolicy)
    with pytest.raises(ValueError, match="backend must be one of"):
        resolve_backend("vllm-on-cpu")
    model, tokenizer = load_model(tiny_model_dir)
    model.config.architectures = ["GPT2LMHeadModel"]
    with pytest.raises(UnsupportedModel, match="backend transformers"):
        export_gguf(model, tokenizer, tmp_path / "x.gguf")
    with pytest.raises(ValueError, match="precision"):
        export_gguf(model, tokenizer, tmp_path / "x.gguf", precision="q2")
    assert not (tmp_path / "x.gguf").exists() and list(tmp_path.iterdir()) == []  # nothing half-written


def test_the_default_gguf_holds_f16_matrices_and_f32_vectors(tiny_model_dir: Path) -> None:
    """CPU rollouts decode f16 weights by default (half the bytes a step reads; bench/policy.py
    measures their agreement with transformers); norms and biases stay f32."""
    import gguf

    policy = LlamaCppPolicy(tiny_model_dir, threads=1)
    try:
        kinds = {(len(t.shape) > 1, t.tensor_type.name) for t in gguf.GGUFReader(policy.engine.path).tensors}
    finally:
        asyncio.run(policy.aclose())
    assert kinds == {(True, "F16"), (False, "F32")}
