"""AgentEvol: the training data (assistant-only labels, objective weights), the weighted loss,
the configuration, and the whole loop end to end on a tiny random model — with resume."""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import math
from pathlib import Path

import pytest

pytest.importorskip("trl")

from coevo.agentevol.config import AgentEvolConfig, from_preset, parse_overrides  # noqa: E402
from coevo.agentevol.data import (  # noqa: E402
    IGNORE,
    build_examples,
    distinct_records,
    filter_explored,
    instruction_of,
    learning_examples,
    objective_weight,
    tokenize_record,
)
from coevo.agentevol.trainer import AgentEvolTrainer  # noqa: E402
from coevo.agentevol.stage import weighted_nll  # noqa: E402
from coevo.client.policies.base import Policy  # noqa: E402
from coevo.client.policies.expert import ExpertPolicy  # noqa: E402
from coevo.models.loading import load_model  # noqa: E402
from tests.agents.servers import asgi_env_client  # noqa: E402

RECORD = {
    "item_id": "alfworld_1",
    "conversations": [
        {"from": "human", "loss": None, "value": "Play the household game."},
        {"from": "gpt", "loss": False, "value": "OK."},
        {"from": "human", "loss": None, "value": "You are in a room. Your task is to: look."},
        {"from": "gpt", "loss": True, "value": "Thought: easy.\nAction: look"},
        {"from": "human", "loss": None, "value": "You see a desk 1."},
        {"from": "gpt", "loss": True, "value": "Thought: done.\nAction: inventory"},
        {"from": "human", "loss": None, "value": "You carry nothing."},
    ],
    "reward": 1.0,
    "success": 1,
}


def _trained_spans(tokenizer, example) -> list[str]:  # type: ignore[no-untyped-def]
    spans, current = [], []
    for token, label in zip(example.input_ids, example.labels):
        if label != IGNORE:
            assert label == token
            current.append(token)
        elif current:
            spans.append(tokenizer.decode(current))
            current = []
    if current:
        spans.append(tokenizer.decode(current))
    return spans


def test_labels_cover_exactly_the_trained_replies(tiny_model_dir: Path) -> None:
    _, tokenizer = load_model(tiny_model_dir)
    example = tokenize_record(tokenizer, RECORD, max_length=4096)
    assert example is not None
    assert _trained_spans(tokenizer, example) == [
        "Thought: easy.\nAction: look<|im_end|>\n",
        "Thought: done.\nAction: inventory<|im_end|>\n",
    ]
    # the tokens are those of the whole conversation rendered at once, minus the final user turn
    messages = [
        {"role": {"human": "user", "gpt": "assistant"}[t["from"]], "content": t["value"]}
        for t in RECORD["conversations"][:-1]
    ]
    whole = tokenizer(tokenizer.apply_chat_template(messages, tokenize=False), add_special_tokens=False)["input_ids"]
    assert example.input_ids == whole


def test_truncation_keeps_the_start_and_drops_untrainable_examples(tiny_model_dir: Path) -> None:
    _, tokenizer = load_model(tiny_model_dir)
    full = tokenize_record(tokenizer, RECORD, max_length=4096)
    assert full is not None
    cut = tokenize_record(tokenizer, RECORD, max_length=len(full.input_ids) - 3)
    assert cut is not None and cut.input_ids == full.input_ids[: len(cut.input_ids)]
    assert tokenize_record(tokenizer, RECORD, max_length=10) is None  # only prompt tokens would remain


def test_objectives_weight_trajectories() -> None:
    assert objective_weight(0.6, "reward_weighted", 0.0) == 0.6
    assert objective_weight(-1.0, "reward_weighted", 0.0) == 0.0
    assert objective_weight(0.6, "filter", 0.5) == 1.0 and objective_weight(0.4, "filter", 0.5) == 0.0
    assert objective_weight(0.99, "filter", 0.99) == 1.0  # AgentGym keeps reward >= threshold
    assert objective_weight(0.3, "bc", 0.99) == 1.0 and objective_weight(0.0, "bc", 0.99) == 0.0


def _sample(task: str, k: int, reward: float) -> dict:  # type: ignore[type-arg]
    return {**RECORD, "item_id": f"alfworld_{task}#{k}", "reward": reward, "success": int(reward >= 1)}


def test_filter_keeps_the_best_trajectory_per_instruction(tiny_model_dir: Path) -> None:
    assert instruction_of("alfworld_t1#3") == ("alfworld_t1", 3) and instruction_of("bfcl_x#y") == ("bfcl_x#y", 0)
    explored = [
        _sample("a", 0, 0.0), _sample("a", 1, 1.0), _sample("a", 2, 1.0),  # two successes: the lower sample index
        _sample("b", 0, 0.0), _sample("b", 1, 0.5),  # no success
        _sample("c", 1, 0.995), _sample("c", 0, 1.0),  # the higher reward, whatever the order
        _sample("d", 0, 1.0),
    ]  # fmt: skip
    kept = filter_explored(explored, 0.99)
    assert [r["item_id"] for r in kept] == ["alfworld_a#1", "alfworld_c#0", "alfworld_d#0"]
    _, tokenizer = load_model(tiny_model_dir)
    demos = [{**RECORD, "item_id": "alfworld_e"}, {**RECORD, "item_id": "alfworld_f", "reward": 0.5}]
    examples = learning_examples(tokenizer, demos, explored, max_length=4096, objective="filter", threshold=0.99)
    # D_s as in BC (every demonstration), then one trajectory per successful explored instruction
    assert [(e.item_id, e.weight) for e in examples] == [
        ("alfworld_e", 1.0), ("alfworld_f", 1.0), ("alfworld_a#1", 1.0), ("alfworld_c#0", 1.0), ("alfworld_d#0", 1.0)
    ]  # fmt: skip
    per_instruction = [instruction_of(e.item_id)[0] for e in examples]
    assert len(per_instruction) == len(set(per_instruction))
    weighted = learning_examples(
        tokenizer, demos, explored, max_length=4096, objective="reward_weighted", threshold=0.99
    )
    assert len(weighted) == 2 + sum(1 for r in explored if r["reward"] > 0)  # every sample, weighted by reward


def test_filter_threshold_default_and_refusals(tiny_model_dir: Path) -> None:
    _, tokenizer = load_model(tiny_model_dir)
    near = [_sample("a", 0, 0.98)]
    default = AgentEvolConfig().filter_threshold
    assert default == 0.99
    assert learning_examples(tokenizer, [], near, max_length=4096, objective="filter", threshold=default) == []
    [kept] = learning_examples(tokenizer, [], near, max_length=4096, objective="filter", threshold=0.9)
    assert kept.item_id == "alfworld_a#0"
    assert from_preset("ci", **parse_overrides(["--filter-threshold", "0.9"])).filter_threshold == 0.9
    for bad in (0.0, -0.5, math.nan, math.inf):
        with pytest.raises(ValueError, match="filter_threshold"):
            AgentEvolConfig(filter_threshold=bad)
    with pytest.raises(ValueError, match="filter_threshold wants a float"):
        parse_overrides(["--filter-threshold", "high"])


def test_build_examples_applies_the_objective(tiny_model_dir: Path) -> None:
    _, tokenizer = load_model(tiny_model_dir)
    records = [RECORD, {**RECORD, "item_id": "b", "reward": 0.25}, {**RECORD, "item_id": "c", "reward": 0.0}]
    weighted = build_examples(tokenizer, records, max_length=4096, objective="reward_weighted")
    assert [(e.item_id, e.weight) for e in weighted] == [("alfworld_1", 1.0), ("b", 0.25)]
    filtered = build_examples(tokenizer, records, max_length=4096, objective="filter", threshold=0.5)
    assert [(e.item_id, e.weight) for e in filtered] == [("alfworld_1", 1.0)]


def test_weighted_nll_is_reward_weighted_token_mean() -> None:
    import torch
    import torch.nn.functional as F

    torch.manual_seed(0)
    logits = torch.randn(2, 5, 7)
    labels = torch.tensor([[IGNORE, 1, 2, IGNORE, IGNORE], [IGNORE, IGNORE, 3, 4, 5]])
    plain = F.cross_entropy(logits[:, :-1].reshape(-1, 7), labels[:, 1:].reshape(-1), ignore_index=IGNORE)
    assert torch.allclose(weighted_nll(logits, labels, torch.ones(2)), plain)
    nll = F.cross_entropy(logits[:, :-1].transpose(1, 2), labels[:, 1:], ignore_index=IGNORE, reduction="none")
    expected = (0.5 * nll[0].sum() + 0.0 * nll[1].sum()) / 5
    assert torch.allclose(weighted_nll(logits, labels, torch.tensor([0.5, 0.0])), expected)


def test_config_presets_and_command_line_overrides() -> None:
    assert from_preset("cpu-demo").model == "smollm2" and from_preset("ci").model == "tiny"
    overrides = parse_overrides(
        ["--iterations", "3", "--envs=alfworld,bfcl", "--no-restart-from-base", "--objective", "filter",
         "--max-rounds", "none", "--learning-rate=3e-5", "--show-available-actions"]
    )  # fmt: skip
    config = from_preset("ci", **overrides)
    assert (config.iterations, config.envs, config.restart_from_base) == (3, ["alfworld", "bfcl"], False)
    assert (
        config.max_rounds is None and math.isclose(config.learning_rate, 3e-5) and config.show_available_actions is True
    )
    with pytest.raises(ValueError, match="unknown option --bogus"):
        parse_overrides(["--bogus", "1"])
    with pytest.raises(ValueError, match="--iterations wants a int"):
        parse_overrides(["--iterations", "many"])
    with pytest.raises(ValueError, match="objective must be"):
        AgentEvolConfig(objective="dpo")
    with pytest.raises(ValueError, match="unknown preset"):
        from_preset("huge")
    assert parse_overrides(["--env", "alfworld"]) == {"envs": ["alfworld"]}  # the single-env spelling


def test_config_per_env_splits_and_their_refusals() -> None:
    config = from_preset("ci", envs=["alfworld", "guess"], **parse_overrides(["--bc-split", "train,guess:test"]))
    assert (config.bc_split_of("alfworld"), config.bc_split_of("guess")) == ("train", "test")
    assert config.explore_split_of("guess") == "test"  # exploration defaults to the env's BC split
    config = AgentEvolConfig(envs=["alfworld", "guess"], explore_split=["guess:train"])
    assert (config.bc_split_of("alfworld"), config.explore_split_of("alfworld"), config.explore_split_of("guess")) == (
        None, None, "train"
    )  # fmt: skip
    assert AgentEvolConfig(envs="alfworld,guess").envs == ["alfworld", "guess"]
    refused = [
        (dict(bc_split=["webshop:train"]), "not in envs"),
        (dict(explore_split=["train", "train"]), "twice"),
        (dict(explore_split=["alfworld:"]), "not SPLIT or ENV:SPLIT"),
        (dict(envs=["alfworld", "alfworld"]), "twice"),
        (dict(explore_split=["valid_seen"], eval_split="valid_seen"), "explore_split 'valid_seen' of alfworld is also evaluated"),
        (dict(bc_split=["alfworld:valid_seen"], heldout=["alfworld:valid_seen:5"]), "bc_split 'valid_seen'"),
    ]  # fmt: skip
    for kwargs, message in refused:
        with pytest.raises(ValueError, match=message):
            AgentEvolConfig(**kwargs)  # type: ignore[arg-type]


def test_exploration_draws_other_instructions_than_bc_and_evaluation(tmp_path: Path) -> None:
    async def go() -> None:
        async with asgi_env_client("guess") as client:
            evol = AgentEvolTrainer(
                from_preset("ci", envs=["guess"], output_dir=str(tmp_path), bc_tasks=4, explore_tasks=3)
            )
            evol.clients = {"guess": [client]}
            bc = {t.task_id for t in await evol.bc_tasks()}
            assert bc == {"train-0", "train-50", "train-100", "train-150"}
            seen: set[str] = set()
            for iteration in (1, 2):
                explored = {t.task_id for t in await evol.explore_tasks(iteration, [])}
                assert len(explored) == 3 and not explored & bc and explored.isdisjoint(seen)
                seen |= explored
            demos = [{**RECORD, "item_id": "guess_train-1"}]  # an instruction of D_s is not explored either
            assert "train-1" in seen and "train-1" not in {t.task_id for t in await evol.explore_tasks(1, demos)}
            heldout = await (await evol.heldout_evaluator()).task_lists()
            [held] = [refs[0] for refs in heldout.values()]
            assert held.split == "test"
            with pytest.raises(ValueError, match="exploration instructions are also held-out evaluation tasks"):
                await evol.refuse_heldout([held], "exploration")
            evol.config = from_preset("ci", envs=["guess"], output_dir=str(tmp_path), explore_split=["test"])
            with pytest.raises(ValueError, match="held out for evaluation"):
                await evol.explore_tasks(1, [])

    asyncio.run(go())


def _run_ci(output_dir: Path, loop: type[AgentEvolTrainer] = AgentEvolTrainer, **overrides) -> list[dict]:  # type: ignore[no-untyped-def]
    config = from_preset("ci", output_dir=str(output_dir), **overrides)
    logs: list[str] = []

    async def go() -> list[dict]:
        async with contextlib.AsyncExitStack() as stack:
            clients = {env: [await stack.enter_async_context(asgi_env_client(env))] for env in config.envs}
            return await loop(config, log=logs.append).run_with(clients)

    rows = asyncio.run(go())
    rows[0]["_logs"] = logs
    return rows


def test_ci_preset_end_to_end_and_resume(tmp_path: Path) -> None:
    out = tmp_path / "run"
    rows = _run_ci(out)
    assert [r["stage"] for r in rows] == ["base", "bc", "iter1", "iter2"]
    for row in rows:
        assert 0.0 <= row["success_rate"] <= 1.0 and row["eval_n"] == 2 and "mean_reward" in row
    assert rows[1]["bc_trajectories"] == 4 and rows[1]["train_examples"] == 4 and rows[1]["train_loss"] > 0
    assert rows[2]["explore_episodes"] == 4  # 2 instructions x K=2 samples
    # D_m grows: iteration 2 learns on iteration 1's explored trajectories too, each distinct one once.
    explored = [
        json.loads(line)
        for stage in ("iter1", "iter2")
        for line in (out / "data" / f"{stage}-explore.jsonl").read_text().splitlines()
    ]
    assert rows[2]["explored_trajectories"] == 4
    assert rows[3]["explored_trajectories"] == len(distinct_records(explored)) > 4
    lines = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert [line["stage"] for line in lines if line["kind"] == "stage"] == ["base", "bc", "iter1", "iter2"]
    heldout = [line for line in lines if line["kind"] == "heldout"]
    assert [h["stage"] for h in heldout] == ["base", "bc", "iter1", "iter2"]  # one held-out split, every stage
    for h in heldout:
        assert (h["arm"], h["env"], h["split"], h["n"]) == ("agentevol", "alfworld", "valid_unseen", 2)
        assert 0.0 <= h["ci95_low"] <= h["success_rate"] <= h["ci95_high"] <= 1.0 and "mean_reward" in h
    lists = [json.loads((out / "eval" / f"{stage}.json").read_text())["task_lists"] for stage in ("base", "iter2")]
    assert lists[0] == lists[1] and len(lists[0]["alfworld:valid_unseen"]) == 2  # every stage, the same tasks
    for stage in ("bc", "iter1", "iter2"):
        assert (out / "checkpoints" / stage / "config.json").is_file()
        assert json.loads((out / "checkpoints" / stage / "coevo_agent.json").read_text())["prompt_options"] == {
            "show_available_actions": False
        }
    assert (out / "success_by_stage.png").stat().st_size > 0
    assert (out / "data" / "bc.jsonl").is_file() and (out / "data" / "iter2-explore.jsonl").is_file()
    assert (out / "eval" / "iter2.json").is_file() and (out / "trajectories.db").is_file()

    # a finished run resumes to the same rows without running anything
    again = _run_ci(out)
    assert [r["finished_at"] for r in again] == [r["finished_at"] for r in rows]
    assert not any("learning on" in line for line in again[0]["_logs"])
    assert len((out / "metrics.jsonl").read_text().splitlines()) == 8

    # stopped during the last stage's evaluation: its saved model is evaluated, not trained again
    state = json.loads((out / "state.json").read_text())
    del state["stages"]["iter2"]
    (out / "state.json").write_text(json.dumps(state))
    resumed = _run_ci(out)
    logs = resumed[0]["_logs"]
    assert not any("learning on" in line or "explore:" in line for line in logs)
    assert any(line.startswith("[iter2] learned before the restart") for line in logs)
    assert (resumed[3]["train_loss"], resumed[3]["explore_episodes"]) == (rows[3]["train_loss"], 4)
    assert resumed[3]["finished_at"] != rows[3]["finished_at"] and resumed[2]["finished_at"] == rows[2]["finished_at"]

    # stopped during its learning (no model saved yet): just that stage learns again, reusing its
    # saved exploration data
    (out / "state.json").write_text(json.dumps(state))
    shutil.rmtree(out / "checkpoints" / "iter2")
    resumed = _run_ci(out)
    logs = resumed[0]["_logs"]
    assert [line.split("]")[0] for line in logs if "learning on" in line] == ["[iter2"]
    assert not any("explore:" in line for line in logs)
    assert resumed[3]["finished_at"] != rows[3]["finished_at"] and resumed[2]["finished_at"] == rows[2]["finished_at"]


def _ids(path: Path) -> set[str]:
    """The instructions (ENV_TASK) of an AgentTraj data file."""
    return {instruction_of(json.loads(line)["item_id"])[0] for line in path.read_text().splitlines()}


def test_ci_preset_over_two_envs_keeps_bc_exploration_and_evaluation_apart(tmp_path: Path) -> None:
    out = tmp_path / "run"
    rows = _run_ci(out, envs=["guess", "alfworld"], iterations=1)
    assert [r["stage"] for r in rows] == ["base", "bc", "iter1"]
    for row in rows[1:]:  # every learning stage trains on both envs' examples
        assert set(row["train_examples_by_env"]) == {"guess", "alfworld"} and all(row["train_examples_by_env"].values())
        assert sum(row["train_examples_by_env"].values()) == row["train_examples"]
    assert rows[2]["explore_episodes"] == 2 * 2 * 2  # 2 envs x 2 instructions x K=2
    lines = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    heldout = [(h["stage"], h["env"], h["split"], h["n"]) for h in lines if h["kind"] == "heldout"]
    assert heldout == [(stage, env, split, 2) for stage in ("base", "bc", "iter1")
                       for env, split in (("guess", "test"), ("alfworld", "valid_unseen"))]  # fmt: skip
    bc = _ids(out / "data" / "bc.jsonl")
    explored = _ids(out / "data" / "iter1-explore.jsonl")
    lists = json.loads((out / "eval" / "iter1.json").read_text())["task_lists"]
    evaluated = {f"{key.split(':')[0]}_{task}" for key, tasks in lists.items() for task in tasks}
    assert {i.split("_")[0] for i in bc} == {i.split("_")[0] for i in explored} == {"guess", "alfworld"}
    assert len(evaluated) == 4 and not bc & explored and not bc & evaluated and not explored & evaluated


class _ExpertExplorer(AgentEvolTrainer):
    """Explores with the env's expert, so that every explored instruction has successes."""

    def explore_policy(self, explorer, name, seed) -> Policy:  # type: ignore[no-untyped-def]
        return ExpertPolicy()


def test_filter_objective_learns_one_trajectory_per_successful_instruction(tmp_path: Path) -> None:
    out = tmp_path / "run"
    # the guess expert needs up to 7 guesses; K=3 samples of 2 instructions, all successful
    rows = _run_ci(
        out, _ExpertExplorer, envs=["guess"], objective="filter", iterations=1, samples_per_task=3, max_rounds=8
    )
    explored = [json.loads(line) for line in (out / "data" / "iter1-explore.jsonl").read_text().splitlines()]
    assert len(explored) == 6 and all(r["reward"] >= 0.99 for r in explored)
    successful = {instruction_of(r["item_id"])[0] for r in explored if r["reward"] >= 0.99}
    assert len(successful) == 2
    assert rows[2]["train_examples"] == rows[1]["bc_trajectories"] + len(successful)  # not + 6
