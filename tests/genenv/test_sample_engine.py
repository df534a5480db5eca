"""The engine of GenEnv's sampling pass: GRPO's colocated vLLM engine where GRPO has one, else
llama.cpp for a CPU model, else transformers; a setting the run cannot honour is refused."""

from __future__ import annotations

import pytest

from coevo.genenv.agent import sample_engine


def _choose(
    setting: str, *, trl_vllm: bool = False, cpu: bool = True, penalty: float = 1.0, llamacpp: bool = True
) -> str:
    return sample_engine(setting, trl_vllm=trl_vllm, model_on_cpu=cpu, repetition_penalty=penalty, llamacpp=llamacpp)


def test_auto_follows_grpo_onto_vllm_and_else_the_hardware() -> None:
    assert _choose("auto", trl_vllm=True, cpu=False) == "vllm"
    assert _choose("auto", cpu=False) == "transformers"  # a GPU run without vLLM samples on GRPO's model
    assert _choose("auto") == "llamacpp"
    assert _choose("auto", llamacpp=False) == "transformers"
    assert _choose("auto", penalty=1.1) == "transformers"  # llama.cpp samples without a repetition penalty


def test_named_engines_override_auto_or_are_refused() -> None:
    assert _choose("transformers", trl_vllm=True, cpu=False) == "transformers"
    assert _choose("vllm", trl_vllm=True, cpu=False) == "vllm"
    assert _choose("llamacpp", cpu=False) == "transformers"  # llama.cpp does not serve a GPU model
    with pytest.raises(ValueError, match="use_vllm"):
        _choose("vllm", cpu=False)
    with pytest.raises(ValueError, match="llama-cpp-python"):
        _choose("llamacpp", llamacpp=False)
    with pytest.raises(ValueError, match="one of"):
        _choose("sglang")
