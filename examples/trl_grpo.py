"""GRPO with TRL on a coevo env: SmolLM2-135M on CPU, a few steps, rewards from the env server.

    .venv/bin/python examples/trl_grpo.py --env searchqa --steps 4          # starts a local server
    .venv/bin/python examples/trl_grpo.py --url http://gpu-box:8103 --steps 4  # or uses yours

Writes OUTPUT_DIR/summary.json: every step's episodes (task, replies, env steps, the env's
rewards) and how far the weights moved. The lines between `rollout = ...` and `trainer.train()`
are all a TRL user needs.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")  # rollout_func is marked experimental in TRL


@contextlib.contextmanager
def env_server(env: str | None, url: str | None) -> Iterator[str]:
    if url:
        yield url
        return
    from coevo.client.launcher import launch_local

    with launch_local([env or "searchqa"]) as servers:
        yield next(iter(servers.values()))


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", help="serve this registered env locally (default searchqa)")
    parser.add_argument("--url", help="an env server already running")
    parser.add_argument("--model", help="model directory (default: SmolLM2-135M-Instruct, converted offline)")
    parser.add_argument("--split", help="training split (default: the env's)")
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--generations", type=int, default=4, help="GRPO group size")
    parser.add_argument("--prompts-per-step", type=int, default=2)
    parser.add_argument("--turn-tokens", type=int, default=64)
    parser.add_argument("--max-turns", type=int, default=3)
    parser.add_argument("--completion-tokens", type=int, default=256)
    parser.add_argument("--lr", type=float, default=1e-5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output-dir", default="runs/trl-grpo")
    args = parser.parse_args(argv)

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer

    from coevo.models.checkpoints import default_model_dir
    from coevo.integrations.trl import CoevoRollout, env_reward

    model_dir = args.model or str(default_model_dir())
    tokenizer = AutoTokenizer.from_pretrained(model_dir, padding_side="left")
    tokenizer.pad_token = tokenizer.pad_token or tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    before = [p.detach().clone() for p in model.parameters()]
    out = Path(args.output_dir)
    steps: list[list[dict[str, Any]]] = []

    with env_server(args.env, args.url) as url:
        rollout = CoevoRollout(url, turn_tokens=args.turn_tokens, max_turns=args.max_turns)
        config = GRPOConfig(
            output_dir=str(out / "trl"), max_steps=args.steps, learning_rate=args.lr, seed=args.seed,
            per_device_train_batch_size=args.generations * args.prompts_per_step, num_generations=args.generations,
            max_completion_length=args.completion_tokens, beta=0.0, lr_scheduler_type="constant",
            save_strategy="no", report_to=[], logging_steps=1, disable_tqdm=True, use_cpu=not torch.cuda.is_available(),
        )  # fmt: skip

        def logged_reward(completions: list[Any], **columns: Any) -> list[float]:
            steps.append(rollout.last_episodes)  # the episodes these rewards belong to
            return env_reward(completions, **columns)

        logged_reward.__name__ = "env_reward"
        trainer = GRPOTrainer(
            model=model, processing_class=tokenizer, args=config, reward_funcs=logged_reward,
            train_dataset=rollout.dataset(args.split, limit=args.tasks, seed=args.seed), rollout_func=rollout,
        )  # fmt: skip
        trainer.train()
        health = rollout.client.health()

    moved = max((a - b).abs().max().item() for a, b in zip(model.parameters(), before))
    summary = {"env": rollout.info.env, "model": model_dir, "steps": steps, "weight_max_abs_change": moved,
               "sessions_left": health.sessions,
               "log": [row for row in trainer.state.log_history if "reward" in row]}  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    rewards = [e["reward"] for step in steps for e in step]
    print(json.dumps({"episodes": len(rewards), "mean_env_reward": sum(rewards) / max(1, len(rewards)),
                      "weight_max_abs_change": moved, "summary": str(out / "summary.json")}))  # fmt: skip
    return summary


if __name__ == "__main__":
    main(sys.argv[1:])
