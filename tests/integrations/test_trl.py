"""TRL's GRPOTrainer on a coevo env through coevo.integrations.trl: the example script itself,
run with a tiny model against a live server; and the token masks of a multi-turn episode."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integrations.envs import digit_share

pytest.importorskip("trl")
ROOT = Path(__file__).resolve().parents[2]


def test_example_trains_on_env_rewards(tiny_model: Path, digits_url: str, tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "trl_grpo.py"), "--url", digits_url, "--model", str(tiny_model),
         "--steps", "2", "--generations", "4", "--prompts-per-step", "2", "--turn-tokens", "16",
         "--completion-tokens", "96", "--lr", "1e-3", "--output-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=500, cwd=ROOT,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert len(summary["steps"]) == 2 and all(len(step) == 8 for step in summary["steps"])
    for step, log in zip(summary["steps"], summary["log"]):
        for episode in step:
            # every reward is the env's for the action it was stepped with
            assert episode["rewards"] == pytest.approx([digit_share(a) for a in episode["actions"]])
            assert episode["reward"] == pytest.approx(sum(episode["rewards"]))
        # and what GRPO trained on is what the env paid
        assert log["rewards/env_reward/mean"] == pytest.approx(sum(e["reward"] for e in step) / len(step), abs=1e-6)
    rewards = [e["reward"] for step in summary["steps"] for e in step]
    assert max(rewards) > 0 and len(set(rewards)) > 1
    assert any(e["env_tokens"] > 0 for step in summary["steps"] for e in step), "no multi-turn episode"
    assert summary["weight_max_abs_change"] > 0
    assert summary["sessions_left"] == 0  # every lease released


def test_env_turns_are_masked_and_the_model_tokens_kept(tiny_model: Path, digits_url: str, tmp_path: Path) -> None:
    from transformers import AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer

    from coevo.integrations.trl import CoevoRollout, UnknownPrompt, env_reward

    tokenizer = AutoTokenizer.from_pretrained(tiny_model, padding_side="left")
    rollout = CoevoRollout(digits_url, turn_tokens=12, max_turns=3)
    dataset = rollout.dataset(limit=2)
    assert dataset["task_id"] == ["train-0", "train-1"]
    args = GRPOConfig(output_dir=str(tmp_path), max_completion_length=200, per_device_train_batch_size=2,
                      num_generations=2, use_cpu=True, report_to=[], save_strategy="no")  # fmt: skip
    trainer = GRPOTrainer(model=str(tiny_model), processing_class=tokenizer, reward_funcs=env_reward, args=args,
                          train_dataset=dataset, rollout_func=rollout)  # fmt: skip
    out = rollout([dataset[0]["prompt"], dataset[1]["prompt"]], trainer)
    for i, episode in enumerate(rollout.last_episodes):
        ids, mask = out["completion_ids"][i], out["env_mask"][i]
        assert len(ids) == len(mask) <= 200 and mask[0] == 1
        env_text = tokenizer.decode([t for t, m in zip(ids, mask) if m == 0])
        if episode["replies"] > 1:  # the env's answer sits between the replies, masked out
            assert "<|im_start|>user" in env_text and "Digits only" in env_text + "Invalid action"
        assert out["env_reward"][i] == pytest.approx(sum(digit_share(a) for a in episode["actions"]))
    with pytest.raises(UnknownPrompt):
        rollout([[{"role": "user", "content": "not from the dataset"}]], trainer)
    assert rollout.client.health().sessions == 0


def test_an_episode_without_a_verdict_is_replayed_then_refused(tiny_model: Path, tmp_path: Path) -> None:
    """An env error (here: the server fails a create) never reaches GRPO as a reward: the episode
    is played again on a fresh session and counted; still failing after the retries, the call
    raises instead of handing on a 0."""
    import uuid

    from transformers import AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer

    from coevo.integrations.trl import CoevoRollout, EpisodeNotScored, env_reward
    from tests.server.live import live_server

    tokenizer = AutoTokenizer.from_pretrained(tiny_model, padding_side="left")
    args = GRPOConfig(output_dir=str(tmp_path), max_completion_length=64, per_device_train_batch_size=2,
                      num_generations=2, use_cpu=True, report_to=[], save_strategy="no")  # fmt: skip
    flaky = "tests.integrations.envs:FlakyDigitsEnv"
    # Reset 1 makes the dataset's prompt; reset 2 (the first attempt's create) raises.
    with live_server(flaky, env_options={"fail_resets": "2", "nonce": uuid.uuid4().hex}) as url:
        rollout = CoevoRollout(url, turn_tokens=8, max_turns=2)
        dataset = rollout.dataset(limit=1)
        trainer = GRPOTrainer(model=str(tiny_model), processing_class=tokenizer, reward_funcs=env_reward, args=args,
                              train_dataset=dataset, rollout_func=rollout)  # fmt: skip
        out = rollout([dataset[0]["prompt"]], trainer)
        assert rollout.status_counts["env_error"] == 1 and sum(rollout.status_counts.values()) == 2
        (episode,) = rollout.last_episodes
        assert episode["status"] in ("success", "failure", "truncated")
        assert out["env_reward"] == [pytest.approx(sum(digit_share(a) for a in episode["actions"]))]
        assert rollout.client.health().sessions == 0
    with live_server(flaky, env_options={"fail_resets": "2-99", "nonce": uuid.uuid4().hex}) as url:
        rollout = CoevoRollout(url, turn_tokens=8, max_turns=2, retries=2)
        dataset = rollout.dataset(limit=1)
        with pytest.raises(EpisodeNotScored, match="env_error"):
            rollout([dataset[0]["prompt"]], trainer)
        assert rollout.status_counts["env_error"] == 3  # the first attempt and its two retries
