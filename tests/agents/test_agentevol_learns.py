"""AgentEvol's learning step (learning_examples + train_stage: TRL's SFTTrainer with the
per-trajectory weighted loss) turns explored successes into a better agent: explore -> learn
iterations, each from the base model on every trajectory explored so far (the paper's setting),
take the code-word task (tests/learning_task.py) from about one success in eight to over 60%.
Reward ignored (every trajectory weighs 1) or reversed must not: the test fails if the learning
step stops weighting by the reward or weights backwards."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.learning_task import PROMPTS, format_trained_model, reward

pytest.importorskip("trl")

from coevo.agentevol.config import from_preset  # noqa: E402
from coevo.agentevol.data import learning_examples  # noqa: E402
from coevo.agentevol.stage import train_stage  # noqa: E402

ITERATIONS = 4
SAMPLES = 8
BAR = 0.6


@pytest.fixture(scope="module")
def formatted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return format_trained_model(tmp_path_factory.mktemp("words"))


def explore(model: Any, tokenizer: Any, seed: int, score: Callable[[str], float]) -> tuple[list[dict[str, Any]], float]:
    """SAMPLES replies per instruction at temperature 1, as AgentTraj records scored by `score`;
    and their success by the real reward."""
    import torch

    torch.manual_seed(seed)
    texts = [
        tokenizer.apply_chat_template([{"role": "user", "content": p}], tokenize=False, add_generation_prompt=True)
        for p in PROMPTS
    ]
    batch = tokenizer(texts, return_tensors="pt", padding=True, padding_side="left", add_special_tokens=False)
    with torch.no_grad():
        out = model.generate(
            **batch, do_sample=True, temperature=1.0, max_new_tokens=3, num_return_sequences=SAMPLES,
            pad_token_id=tokenizer.pad_token_id,
        )  # fmt: skip
    replies = tokenizer.batch_decode(out[:, batch["input_ids"].shape[1] :], skip_special_tokens=True)
    records = [
        {
            "item_id": f"words_{k // SAMPLES}#{k % SAMPLES}",
            "conversations": [
                {"from": "human", "value": PROMPTS[k // SAMPLES], "loss": None},
                {"from": "gpt", "value": reply, "loss": True},
            ],
            "reward": score(reply),
        }
        for k, reply in enumerate(replies)
    ]
    return records, sum(reward(r) for r in replies) / len(replies)


def evolve(base: Path, workdir: Path, score: Callable[[str], float], objective: str) -> list[float]:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    config = from_preset("ci", objective=objective, learning_rate=3e-3, epochs=3.0, batch_size=8, max_length=128)
    tokenizer = AutoTokenizer.from_pretrained(str(base))
    model = AutoModelForCausalLM.from_pretrained(str(base))
    explored: list[dict[str, Any]] = []
    records, rate = explore(model, tokenizer, 0, score)
    rates = [rate]
    for iteration in range(ITERATIONS):
        explored += records
        examples = learning_examples(
            tokenizer, [], explored, max_length=128, objective=objective, threshold=config.filter_threshold
        )
        start = AutoModelForCausalLM.from_pretrained(str(base))
        model = train_stage(
            start, tokenizer, examples, config, workdir / f"iteration-{iteration}", seed=iteration
        ).model
        records, rate = explore(model, tokenizer, iteration + 1, score)
        rates.append(rate)
    return rates


def test_reward_weighted_iterations_raise_success(formatted: Path, tmp_path: Path) -> None:
    rates = evolve(formatted, tmp_path, reward, "reward_weighted")
    assert 0.03 <= rates[0] <= 0.3, rates
    assert rates[-1] > BAR, rates


@pytest.mark.parametrize(
    "score", [lambda text: 1.0, lambda text: 1.0 - reward(text)], ids=["reward-ignored", "sign-flipped"]
)
def test_learning_does_not_improve_without_the_reward(
    formatted: Path, tmp_path: Path, score: Callable[[str], float]
) -> None:
    rates = evolve(formatted, tmp_path, score, "reward_weighted")
    assert max(rates[1:]) < BAR and rates[-1] <= rates[0] + 0.15, rates
