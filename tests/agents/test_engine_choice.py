"""Which engine decodes a local model (vLLM is not installable here, so its selection and the
translation of our sampling settings are what CI checks), and where vLLM's replies are cut."""

from __future__ import annotations

import pytest

from coevo.client.policies.base import Sampling
from coevo.models.registry import choose_backend
from coevo.client.policies.local import cut_reply, reply_over
from coevo.client.policies.vllm_policy import sampling_params


@pytest.mark.parametrize(
    ("setting", "cuda", "vllm", "llamacpp", "engine"),
    [
        ("auto", True, True, True, "vllm"),  # a GPU host with vLLM
        ("auto", True, False, True, "transformers"),  # a GPU host without it
        ("auto", False, True, True, "llamacpp"),  # vLLM installed but no GPU: the CPU engine
        ("auto", False, False, False, "transformers"),
        ("transformers", True, True, True, "transformers"),  # a named engine overrides auto
        ("llamacpp", True, True, True, "llamacpp"),
        ("vllm", True, True, False, "vllm"),
    ],
)
def test_auto_takes_the_fastest_engine_the_host_runs(
    setting: str, cuda: bool, vllm: bool, llamacpp: bool, engine: str
) -> None:
    assert choose_backend(setting, cuda=cuda, vllm=vllm, llamacpp=llamacpp) == engine


def test_an_engine_the_host_cannot_run_is_refused() -> None:
    with pytest.raises(ValueError, match="vllm installed and a CUDA GPU"):
        choose_backend("vllm", cuda=False, vllm=True, llamacpp=True)
    with pytest.raises(ValueError, match="vllm installed"):
        choose_backend("vllm", cuda=True, vllm=False, llamacpp=True)
    with pytest.raises(ValueError, match="llama-cpp-python"):
        choose_backend("llamacpp", cuda=False, vllm=False, llamacpp=False)
    with pytest.raises(ValueError, match="one of"):
        choose_backend("tgi", cuda=True, vllm=True, llamacpp=True)


def test_sampling_settings_in_vllm_terms() -> None:
    greedy = sampling_params(Sampling(max_new_tokens=40), [2, 7], seed=None)
    assert greedy == {"max_tokens": 40, "stop_token_ids": [2, 7], "skip_special_tokens": True, "temperature": 0.0}
    sampled = sampling_params(Sampling(temperature=0.7, top_p=0.9, max_new_tokens=8), [2], seed=5)
    assert sampled["temperature"] == 0.7 and sampled["top_p"] == 0.9 and sampled["seed"] == 5
    assert sampled["top_k"] == -1 and sampled["min_p"] == 0.0  # our 0 (no limit) is vLLM's -1
    assert sampling_params(Sampling(temperature=1.0, top_k=20), [], seed=None)["top_k"] == 20


def test_replies_are_cut_where_the_stop_rules_would_have_stopped() -> None:
    text = "Thought: go.\nAction: open door\nObservation: it opens\nAction: more"
    single = cut_reply(text, single_line=True)
    assert single == "Thought: go.\nAction: open door\n" and reply_over(single, True)
    multi = cut_reply(text, single_line=False)  # the invented observation goes, its header kept as the others do
    assert multi == "Thought: go.\nAction: open door\nObservation:" and reply_over(multi, False)
    assert cut_reply("name(arg=1)", single_line=True) == "name(arg=1)"  # nothing to cut
    # no shorter prefix is over: the cut is at the earliest stop
    assert not any(reply_over(single[:i], True) for i in range(len(single)))
