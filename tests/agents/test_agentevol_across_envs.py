"""AgentEvol across environments: AgentGym's game envs (TextCraft, Wordle, Maze) in one run with
real `coevo serve` servers, the cpu-demo preset's env mix and its held-out lists, and the
training split each env names for itself (`/info` train_split)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path

import pytest

pytest.importorskip("trl")

from coevo.agentevol.config import AgentEvolConfig, from_preset, parse_overrides  # noqa: E402
from coevo.agentevol.data import instruction_of  # noqa: E402
from coevo.agentevol.trainer import AgentEvolTrainer  # noqa: E402
from coevo.client.policies.parsing import parse_react  # noqa: E402
from coevo.envs import registry  # noqa: E402
from tests.agents.servers import asgi_env_client  # noqa: E402

GAME_ENVS = ("textcraft", "wordle", "maze")


def test_cpu_demo_trains_alfworld_with_agentgym_game_envs() -> None:
    config = from_preset("cpu-demo")
    assert config.envs[0] == "alfworld" and len(set(config.envs) & set(GAME_ENVS)) >= 2
    # ALFWorld keeps its valid_seen list; the other envs are evaluated on their first held-out split
    assert config.heldout == ["alfworld:valid_seen"] and config.eval_split is None and config.eval_tasks == 10


def test_preset_heldout_entries_follow_the_envs_on_the_command_line() -> None:
    assert from_preset("cpu-demo", **parse_overrides(["--envs", "wordle,maze"])).heldout == []
    assert from_preset("cpu-demo", **parse_overrides(["--env", "alfworld"])).heldout == ["alfworld:valid_seen"]
    assert from_preset("cpu-demo", envs="maze,alfworld").heldout == ["alfworld:valid_seen"]
    given = parse_overrides(["--envs", "wordle", "--heldout", "wordle:test:5"])
    assert from_preset("cpu-demo", **given).heldout == ["wordle:test:5"]  # the user's entries stay as given
    # a user's entry for an env the run does not train on is refused before any work
    with pytest.raises(ValueError, match="heldout entry 'alfworld:valid_seen' names env 'alfworld', which is not"):
        from_preset("cpu-demo", envs=["wordle"], heldout=["alfworld:valid_seen"])
    # an env a heldout entry names is not checked against eval_split, the others are
    with pytest.raises(ValueError, match="bc_split 'test' of maze is also evaluated"):
        AgentEvolConfig(envs=["wordle", "maze"], heldout=["wordle:test"], eval_split="test", bc_split=["maze:test"])
    AgentEvolConfig(
        envs=["alfworld", "maze"], heldout=["maze:test"], eval_split="valid_seen", bc_split=["maze:valid_seen"]
    )


def test_info_serves_the_split_each_env_trains_on() -> None:
    async def go() -> None:
        for env in ("bfcl", *GAME_ENVS):
            cls = registry.spec(env).load()
            async with asgi_env_client(env) as client:
                info = await client.info()
            assert info.train_split == (cls.train_split or cls.default_split)
            assert info.train_split in info.splits and info.train_split not in info.heldout_splits

    asyncio.run(go())


def test_bc_draws_from_the_envs_training_split_and_every_env_is_evaluated(tmp_path: Path) -> None:
    """BFCL's default split is held out (simple_python): with no --bc-split, BC takes its declared
    training split. A heldout entry for one env leaves the other on its own held-out split."""

    async def go() -> None:
        async with contextlib.AsyncExitStack() as stack:
            clients = {env: [await stack.enter_async_context(asgi_env_client(env))] for env in ("bfcl", "wordle")}
            config = from_preset("ci", envs=["bfcl", "wordle"], output_dir=str(tmp_path), heldout=["bfcl:multiple:3"])
            evol = AgentEvolTrainer(config)
            evol.clients = clients
            bc = await evol.bc_tasks()
            assert {(t.env, t.split) for t in bc} == {("bfcl", "live_simple"), ("wordle", "train")}
            lists = await (await evol.heldout_evaluator()).task_lists()
            assert [(h.env, h.split, len(tasks)) for h, tasks in lists.items()] == [
                ("bfcl", "multiple", 3), ("wordle", "test", 2),
            ]  # fmt: skip

    asyncio.run(go())


def _records(path: Path) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.slow
def test_ci_preset_over_agentgym_game_envs_with_real_servers(tmp_path: Path) -> None:
    """The whole loop over TextCraft, Wordle and Maze, each served by its own `coevo serve`
    subprocess: BC holds each env's expert trajectories, every stage trains on all three, and
    the held-out rows cover every env at every stage."""
    out = tmp_path / "run"
    config = from_preset("ci", output_dir=str(out), envs=list(GAME_ENVS), iterations=1)
    rows = AgentEvolTrainer(config, log=lambda line: None).run()
    assert [r["stage"] for r in rows] == ["base", "bc", "iter1"]

    bc = _records(out / "data" / "bc.jsonl")
    by_env: dict[str, list[dict]] = {}  # type: ignore[type-arg]
    for record in bc:
        by_env.setdefault(record["item_id"].split("_")[0], []).append(record)
    assert {env: len(records) for env, records in by_env.items()} == {env: config.bc_tasks for env in GAME_ENVS}
    for env, records in by_env.items():
        for record in records:
            assert record["success"] and record["reward"] == 1.0  # the env's expert solved it
            conversation = record["conversations"]
            # the env's own prompt (its agent_prompt from /info), then ReAct replies in its action syntax
            instruction = registry.spec(env).load().agent_prompt.instruction
            assert conversation[0]["from"] == "human" and conversation[0]["value"].startswith(instruction)
            replies = [turn["value"] for turn in conversation if turn["from"] == "gpt" and turn["loss"]]
            parsed = [parse_react(reply, single_line=True) for reply in replies]
            assert parsed and all(p.thought and p.action for p in parsed)
        bc_tasks = {instruction_of(r["item_id"])[0].removeprefix(f"{env}_") for r in records}
        assert all(registry.make(env).split_of(task) == "train" for task in bc_tasks)

    assert rows[1]["bc_trajectories"] == len(bc) == 3 * config.bc_tasks
    for row in rows[1:]:
        assert row["train_examples_by_env"] == {env: config.bc_tasks for env in sorted(GAME_ENVS)}
    explored = {instruction_of(r["item_id"])[0] for r in _records(out / "data" / "iter1-explore.jsonl")}
    assert {i.split("_")[0] for i in explored} == set(GAME_ENVS) and not explored & {r["item_id"] for r in bc}

    lines = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    heldout = [(h["stage"], h["env"], h["split"], h["n"]) for h in lines if h["kind"] == "heldout"]
    assert heldout == [(stage, env, "test", 2) for stage in ("base", "bc", "iter1") for env in GAME_ENVS]
    lists = json.loads((out / "eval" / "iter1.json").read_text())["task_lists"]
    assert sorted(lists) == sorted(f"{env}:test" for env in GAME_ENVS)
    evaluated = {f"{key.split(':')[0]}_{task}" for key, tasks in lists.items() for task in tasks}
    assert len(evaluated) == 6 and not evaluated & {r["item_id"] for r in bc} and not evaluated & explored
    for row in rows:
        assert set(row["by_env"]) == set(GAME_ENVS) and row["eval_n"] == 6


@pytest.mark.parametrize("env", registry.names())
def test_every_registered_env_can_join_a_run(env: str, tmp_path: Path) -> None:
    """Any env coevo serves can be one of a run's envs: BC and exploration draw instructions from
    its training split, apart from each other and from its held-out list."""

    async def go() -> None:
        async with asgi_env_client(env) as client:
            config = from_preset("ci", envs=[env], output_dir=str(tmp_path), bc_tasks=2, explore_tasks=2)
            evol = AgentEvolTrainer(config)
            evol.clients = {env: [client]}
            info = await client.info()
            bc = await evol.bc_tasks()
            explored = await evol.explore_tasks(1, [])
            [(held, tasks)] = (await (await evol.heldout_evaluator()).task_lists()).items()
        assert {t.split for t in bc} == {t.split for t in explored} == {info.train_split}
        assert held.split == info.heldout_splits[0] and len(tasks) == 2
        ids = [{t.task_id for t in refs} for refs in (bc, explored, tasks)]
        assert [len(i) for i in ids] == [2, 2, 2] and not (ids[0] & ids[1] or ids[0] & ids[2] or ids[1] & ids[2])

    asyncio.run(go())
