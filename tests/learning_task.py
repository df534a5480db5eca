"""A task whose reward a slightly trained tiny model earns now and then, for tests that check
that the trainers' real update paths learn from a reward (and not from anything else).

The agent is asked for a code word. A few SFT steps on the eight words, equally often, teach a
tiny random model the answer format, so about one sample in eight starts with the rewarded word:
groups with unequal rewards from the first step. A learner that follows the reward drives that
share up; one that ignores it (or follows it backwards) does not.
"""

from __future__ import annotations

from pathlib import Path

WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel")
TARGET = "golf"
PROMPTS = tuple(f"Say one code word, any of them. Request {i}." for i in range(8))


def reward(text: str) -> float:
    return 1.0 if text.strip().lower().startswith(TARGET) else 0.0


def format_trained_model(directory: Path, *, steps: int = 40, lr: float = 3e-3, seed: int = 0) -> Path:
    """A tiny random model after `steps` SFT steps on every prompt answered with every word,
    through GenEnv's own SFT path (the agent warm-up's update_llm)."""
    from coevo.models.tiny import build_tiny_model
    from coevo.genenv.env_update import LLMExample, update_llm

    corpus = [*PROMPTS, *WORDS] * 4
    base = build_tiny_model(directory / "tiny", corpus=corpus, seed=seed)
    examples = [LLMExample([{"role": "user", "content": prompt}], word, 1.0) for prompt in PROMPTS for word in WORDS]
    target = directory / "formatted"
    update_llm(
        base, None, target, examples, lr=lr, steps=steps, batch_size=16, kl_coef=0.0, kl_cap=float("inf"),
        prefix="", seed=seed,
    )  # fmt: skip
    return target
