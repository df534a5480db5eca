"""GenEnv's agent update (GRPOAgent: TRL's GRPOTrainer, GenEnv's prompts and sampling pass)
learns from its reward: on the code-word task (tests/learning_task.py) a format-trained tiny
model starts at about one success in eight, and GRPO must take it over 60% within a few epochs.
The same loop with the reward ignored (every completion scores the same) or reversed must not:
so the test fails if the update stops following the reward or follows it backwards."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.learning_task import PROMPTS, format_trained_model, reward

pytest.importorskip("trl")

from coevo.genenv.agent import GRPOAgent  # noqa: E402
from coevo.genenv.config import preset  # noqa: E402
from coevo.genenv.simulator import BatchTask  # noqa: E402

EPOCHS = 5
BAR = 0.6


class WordTasks:
    """The part of a simulator GRPOAgent uses: scoring (and no demo turn)."""

    def __init__(self, score: Callable[[str], float]) -> None:
        self._score = score

    def score(self, pairs: list[tuple[str, str]]) -> list[float]:
        return [self._score(text) for _, text in pairs]

    def demo(self, family: str) -> tuple[str, str] | None:
        return None


@pytest.fixture(scope="module")
def formatted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return format_trained_model(tmp_path_factory.mktemp("words"))


def train(model: Path, workdir: Path, score: Callable[[str], float]) -> list[float]:
    """Success (by the real reward) of 64 sampled completions before training and after each epoch."""
    config = preset(
        "ci", agent_demo=False, group_size=8, tasks_per_step=2, max_completion_length=3, agent_lr=3e-3,
        temperature=1.0, sample_backend="transformers", kl_beta=0.0,
    )  # fmt: skip
    agent = GRPOAgent(str(model), config, workdir, WordTasks(score))  # type: ignore[arg-type]
    tasks = [BatchTask(f"words-{i}", "words", prompt, {}, "") for i, prompt in enumerate(PROMPTS)]

    def success(seed: int) -> float:
        traces = agent.sample(tasks, seed)
        return sum(reward(t.completion) for t in traces) / len(traces)

    rates = [success(100)]
    for epoch in range(EPOCHS):
        agent.train_epoch(tasks)
        rates.append(success(101 + epoch))
        if score is reward and rates[-1] > BAR:
            break
    return rates


def test_grpo_raises_success_from_a_rare_reward(formatted: Path, tmp_path: Path) -> None:
    rates = train(formatted, tmp_path, reward)
    assert 0.03 <= rates[0] <= 0.3, rates  # the reward is earned now and then at the start
    assert rates[-1] > BAR, rates


@pytest.mark.parametrize(
    "score", [lambda text: 1.0, lambda text: 1.0 - reward(text)], ids=["reward-ignored", "sign-flipped"]
)
def test_grpo_does_not_learn_without_the_reward(formatted: Path, tmp_path: Path, score: Callable[[str], float]) -> None:
    rates = train(formatted, tmp_path, score)
    assert max(rates[1:]) < BAR and rates[-1] <= rates[0] + 0.15, rates
