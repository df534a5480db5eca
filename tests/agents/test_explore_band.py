"""AgentEvol's explore_band (issue #45): the band's spellings and refusals, exploration on the
instructions whose estimated success for the current policy lies in the band once a real
server holds statistics for it (seeded by playing tagged episodes), the fallback that fills
uniformly (counted), and the ci preset end to end with the band on, its rows recorded."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path

import pytest

pytest.importorskip("trl")

from coevo.agentevol.config import AgentEvolConfig, from_preset  # noqa: E402
from coevo.agentevol.explore_band import ExploreBand  # noqa: E402
from coevo.agentevol.trainer import AgentEvolTrainer  # noqa: E402
from coevo.client import AsyncEnvClient  # noqa: E402
from coevo.client.policies.base import Policy  # noqa: E402
from coevo.client.policies.expert import ExpertPolicy  # noqa: E402
from coevo.client.difficulty import tasks_by_difficulty  # noqa: E402
from coevo.client.errors import EnvClientError  # noqa: E402
from tests.agents.servers import asgi_env_client  # noqa: E402
from tests.fixture_env import GuessEnv  # noqa: E402


def test_band_spellings_and_refusals() -> None:
    assert ExploreBand.parse("0.3,0.7") == ExploreBand(0.3, 0.7)
    assert ExploreBand.parse("0.5/0.2") == ExploreBand(pytest.approx(0.3), pytest.approx(0.7))  # type: ignore[arg-type]
    assert ExploreBand.parse("0.9/0.3") == ExploreBand(pytest.approx(0.6), 1.0)  # type: ignore[arg-type]
    assert ExploreBand.parse("0.5/0.2").centre == pytest.approx(0.5)
    for text in ("0.7,0.3", "0.2", "a,b", "1.5/0.1", "0.5/-0.1", "-0.1,0.5", "0.2,1.2", "nan,0.5"):
        with pytest.raises(ValueError, match="explore_band"):
            ExploreBand.parse(text)
    assert AgentEvolConfig().band() is None
    with pytest.raises(ValueError, match="explore_band wants"):
        from_preset("ci", explore_band="0.3-0.7")
    with pytest.raises(ValueError, match="explore_band_min_episodes"):
        from_preset("ci", explore_band="0.3,0.7", explore_band_min_episodes=0)
    assert "explore_band" in AgentEvolConfig.SECTIONS["evolution"]


async def _play(client: AsyncEnvClient, task: str, policy: str, win: bool) -> None:
    """One episode of the guess env under `policy`: won at once, or lost at the step cap."""
    session = await client.create(task, policy=policy)
    target = GuessEnv()._target(task)
    for _ in range(GuessEnv.max_steps):
        result = await session.step(f"guess {target if win else (target % 100) + 1}")
        if result.done or result.truncated:
            break
    await session.close()


async def _seed(client: AsyncEnvClient, tag: str, rates: dict[str, tuple[int, int]]) -> None:
    """`rates`: task -> (wins, losses) played under `tag`."""
    for task, (wins, losses) in rates.items():
        for k in range(wins + losses):
            await _play(client, task, tag, win=k < wins)


def test_band_picks_only_in_band_tasks_once_stats_exist_and_fills_the_rest(tmp_path: Path) -> None:
    async def go() -> None:
        async with asgi_env_client("guess", db_url=f"sqlite:///{tmp_path / 'store.db'}") as client:
            config = from_preset(
                "ci", envs=["guess"], output_dir=str(tmp_path / "run"), bc_tasks=4, explore_tasks=3,
                explore_band="0.3,0.7",
            )  # fmt: skip
            evol = AgentEvolTrainer(config)
            evol.clients = {"guess": [client]}
            # No statistics yet: the first iteration explores the uniform picks, and says so.
            uniform = [t.task_id for t in await evol.explore_tasks(1, [])]
            assert len(uniform) == 3
            assert evol.selection == {"guess": {"in_band": 0, "uniform_fill": 3, "estimates_of": None}}

            bc_tag = evol.policy_tag("bc")
            await _seed(client, bc_tag, {
                "train-7": (1, 1),  # 0.5: in band, at its centre
                "train-9": (2, 1),  # 0.67: in band
                "train-11": (2, 0),  # 1.0: too easy
                "train-13": (0, 2),  # 0.0: too hard
                "train-50": (1, 1),  # in band, but BC's instruction (bc_tasks=4 picks 0, 50, 100, 150)
                "train-15": (1, 0),  # in band by one episode only: below explore_band_min_episodes
            })  # fmt: skip
            await _seed(client, "someone-else", {"train-17": (1, 1)})
            listed = await tasks_by_difficulty(client, "train", p_min=0.3, p_max=0.7, policy=bc_tag, min_episodes=2)
            assert [e.task_id for e in listed] == ["train-7", "train-9", "train-50"]

            picked = [t.task_id for t in await evol.explore_tasks(1, [])]
            assert picked[:2] == ["train-7", "train-9"]  # in band, nearest the centre first
            assert picked[2] in uniform and len(picked) == 3  # one too few in band: one uniform pick
            assert evol.selection == {"guess": {"in_band": 2, "uniform_fill": 1, "estimates_of": bc_tag}}
            # An instruction of D_s is never explored, in band or not.
            demos = [{"item_id": "guess_train-7", "conversations": [], "reward": 1.0, "success": 1}]
            assert "train-7" not in {t.task_id for t in await evol.explore_tasks(1, demos)}

            # Iteration 2 explores with π_1: its own estimates, once it has some, win over bc's.
            await _seed(client, evol.policy_tag("iter1"), {"train-21": (1, 1), "train-23": (1, 1)})
            picked = [t.task_id for t in await evol.explore_tasks(2, [])]
            assert picked[:2] == ["train-21", "train-23"] and "train-7" not in picked
            assert evol.selection["guess"]["estimates_of"] == evol.policy_tag("iter1")
            # π_1's estimates exist but none lies in this band: all uniform, still counted.
            evol.config = from_preset(
                "ci", envs=["guess"], output_dir=str(tmp_path / "run"), bc_tasks=4, explore_tasks=3,
                explore_band="0.8,1.0",
            )  # fmt: skip
            await evol.explore_tasks(2, [])
            assert evol.selection["guess"] == {
                "in_band": 0,
                "uniform_fill": 3,
                "estimates_of": evol.policy_tag("iter1"),
            }

    asyncio.run(go())


def test_tags_keep_runs_apart(tmp_path: Path) -> None:
    one = AgentEvolTrainer(from_preset("ci", output_dir=str(tmp_path / "a")))
    two = AgentEvolTrainer(from_preset("ci", output_dir=str(tmp_path / "b")))
    assert one.policy_tag("bc") != two.policy_tag("bc") and one.policy_tag("bc").endswith(":bc")
    assert one.policy_tag("bc") == AgentEvolTrainer(from_preset("ci", output_dir=str(tmp_path / "a"))).policy_tag("bc")


class _ExpertExplorer(AgentEvolTrainer):
    """Explores with the env's expert, so that every explored episode is judged (the tiny model's
    episodes end at max_rounds, which the env never judges) and the estimates are known (1.0)."""

    def explore_policy(self, explorer, name, seed) -> Policy:  # type: ignore[no-untyped-def]
        return ExpertPolicy()


def test_ci_preset_with_explore_band_records_its_choice(tmp_path: Path) -> None:
    out = tmp_path / "run"
    config = from_preset("ci", envs=["guess"], output_dir=str(out), explore_band="0.5,1.0", max_rounds=8)

    async def go() -> list[dict]:  # type: ignore[type-arg]
        async with contextlib.AsyncExitStack() as stack:
            client = await stack.enter_async_context(asgi_env_client("guess", db_url=f"sqlite:///{tmp_path / 's.db'}"))
            rows = await _ExpertExplorer(config, log=lambda _: None).run_with({"guess": [client]})
            # The explorers' episodes are counted under their versions on the server.
            trainer = AgentEvolTrainer(config)
            for version in ("bc", "iter1"):
                played = await tasks_by_difficulty(client, "train", policy=trainer.policy_tag(version))
                assert played and sum(e.stats.episodes for e in played if e.stats) == 4  # 2 tasks x K=2
            return rows

    rows = asyncio.run(go())
    iter1, iter2 = rows[2], rows[3]
    # Iteration 1 has no estimates (its explorer, bc, never explored): uniform. Iteration 2 takes
    # bc's: the two instructions iteration 1 explored, solved every time, lie in the band.
    assert (iter1["explore_in_band"], iter1["explore_uniform_fill"]) == (0, 2)
    assert iter1["explore_selection"]["guess"]["estimates_of"] is None
    assert iter2["explore_selection"]["guess"]["estimates_of"].endswith(":bc")
    assert (iter2["explore_in_band"], iter2["explore_uniform_fill"]) == (2, 0)
    explored = [
        {
            json.loads(line)["item_id"].split("#")[0]
            for line in (out / "data" / f"{s}-explore.jsonl").read_text().splitlines()
        }
        for s in ("iter1", "iter2")
    ]
    assert explored[0] == explored[1]  # iteration 2 went back to the in-band instructions
    lines = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    stages = {line["stage"]: line for line in lines if line["kind"] == "stage"}
    assert stages["iter2"]["explore_in_band"] == iter2["explore_in_band"]
    assert json.loads((out / "data" / "iter2-explore-selection.json").read_text()) == iter2["explore_selection"]


def test_a_server_without_a_store_stops_the_band_with_its_reason(tmp_path: Path) -> None:
    async def go() -> None:
        async with asgi_env_client("guess") as client:  # record off: no statistics to ask for
            evol = AgentEvolTrainer(from_preset("ci", envs=["guess"], output_dir=str(tmp_path), explore_band="0.3,0.7"))
            evol.clients = {"guess": [client]}
            with pytest.raises(EnvClientError, match="keeps no store") as refused:
                await evol.explore_tasks(1, [])
            assert refused.value.status == 422

    asyncio.run(go())
