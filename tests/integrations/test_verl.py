"""veRL's agent-loop machinery driving coevo episodes: the loop is built the way veRL's rollout
worker builds it (its registry entry through hydra.utils.instantiate, its config wrappers) and
run against a live server. veRL's inference servers (vLLM/SGLang replicas) need a GPU, so the
tokens come from a tiny transformers model behind the same generate() call."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.integrations.envs import digit_share

pytest.importorskip("ray", reason="veRL's agent loop imports ray")
agent_loop = pytest.importorskip("verl.experimental.agent_loop.agent_loop", reason="verl is not installed")


class TinyModelServer:
    """veRL's LLMServerClient.generate contract (token ids in, TokenOutput out) on a local model."""

    def __init__(self, model_dir: Path) -> None:
        from transformers import AutoModelForCausalLM

        self.model = AutoModelForCausalLM.from_pretrained(model_dir)
        self.calls: list[dict[str, Any]] = []

    async def generate(self, request_id: str, *, prompt_ids: list[int], sampling_params: dict[str, Any],
                       **_: Any) -> Any:  # fmt: skip
        import torch
        from verl.workers.rollout.replica import TokenOutput

        self.calls.append({"request_id": request_id, "prompt_len": len(prompt_ids), **sampling_params})
        with torch.no_grad():
            out = self.model.generate(torch.tensor([prompt_ids]), max_new_tokens=min(12, sampling_params["max_tokens"]),
                                      do_sample=True, temperature=sampling_params.get("temperature", 1.0),
                                      eos_token_id=self.model.config.eos_token_id)  # fmt: skip
        return TokenOutput(token_ids=out[0, len(prompt_ids) :].tolist())


def _loop(tiny_model: Path, url: str, server: TinyModelServer) -> Any:
    import hydra
    from omegaconf import OmegaConf
    from transformers import AutoTokenizer
    from verl.experimental.agent_loop.agent_loop import DictConfigWrap, ToolListWrap, _agent_loop_registry
    from verl.utils.dataset.rl_dataset import RLHFDataset

    import coevo.integrations.verl as coevo_verl

    config = OmegaConf.create({"actor_rollout_ref": {"rollout": {"prompt_length": 512, "response_length": 160}},
                               "data": {}})  # fmt: skip
    entry = {**_agent_loop_registry[coevo_verl.AGENT_NAME], "url": url, "max_turns": 3}  # as an agent-loop YAML gives
    return hydra.utils.instantiate(
        config=entry, trainer_config=DictConfigWrap(config=config), server_manager=server,
        tokenizer=AutoTokenizer.from_pretrained(tiny_model), processor=None, dataset_cls=RLHFDataset,
        data_config=DictConfigWrap(config.data), tools=ToolListWrap([]),
    )  # fmt: skip


def test_agent_loop_plays_coevo_episodes(tiny_model: Path, digits_url: str) -> None:
    from coevo.client import EnvClient
    from coevo.integrations.verl import CoevoAgentLoop, verl_rows

    rows = verl_rows(digits_url, limit=3)
    assert [r["extra_info"]["coevo_task_id"] for r in rows] == ["train-0", "train-1", "train-2"]
    assert all(r["agent_name"] == "coevo_agent" for r in rows)
    server = TinyModelServer(tiny_model)
    loop = _loop(tiny_model, digits_url, server)
    assert isinstance(loop, CoevoAgentLoop)

    async def play() -> list[Any]:
        return list(await asyncio.gather(*(loop.run({"temperature": 1.0}, **row) for row in rows)))

    outputs = asyncio.run(play())
    for out in outputs:
        assert len(out.response_ids) == len(out.response_mask) == len(out.response_logprobs) <= 160
        rewards = out.extra_fields["coevo_rewards"]
        assert rewards == pytest.approx([digit_share(a) for a in out.extra_fields["coevo_actions"]])
        assert out.reward_score == pytest.approx(sum(rewards))
        tensors = out.as_dict()  # what veRL's postprocessing consumes: the reward on the last token
        assert tensors["rm_scores"][-1].item() == pytest.approx(out.reward_score)
    assert any(0 in out.response_mask for out in outputs), "no multi-turn episode"
    assert len({c["request_id"] for c in server.calls}) == len(rows)  # one sticky session per episode
    with EnvClient(digits_url) as client:
        assert client.health().sessions == 0

    with pytest.raises(ValueError, match="coevo_task_id"):
        asyncio.run(loop.run({}, extra_info={}))


def test_an_episode_without_a_verdict_is_replayed_then_refused(tiny_model: Path) -> None:
    """The env fails the first attempt's create: the loop plays the episode again on a fresh
    session and its reward is the replay's; failing every retry, it raises EpisodeNotScored."""
    import uuid

    from coevo.integrations.episode import EpisodeNotScored
    from coevo.integrations.verl import verl_rows
    from tests.server.live import live_server

    flaky = "tests.integrations.envs:FlakyDigitsEnv"
    server = TinyModelServer(tiny_model)
    for fail, expect_replay in (("1", True), ("1-99", False)):  # verl_rows lists tasks without a reset
        with live_server(flaky, env_options={"fail_resets": fail, "nonce": uuid.uuid4().hex}) as url:
            (row,) = verl_rows(url, limit=1)
            loop = _loop(tiny_model, url, server)
            if expect_replay:
                out = asyncio.run(loop.run({"temperature": 1.0}, **row))
                assert out.extra_fields["coevo_attempts"][0] == "env_error"
                assert out.extra_fields["coevo_status"] in ("success", "failure", "truncated")
                rewards = out.extra_fields["coevo_rewards"]
                assert out.reward_score == pytest.approx(sum(rewards))
            else:
                with pytest.raises(EpisodeNotScored, match="env_error"):
                    asyncio.run(loop.run({"temperature": 1.0}, **row))
