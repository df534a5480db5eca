"""A branched AgentEvol run (agentevol/branch.py): it starts from another run's finished stages
without repeating them, reads the estimates its source's explorers left on the servers (the band
of its next iteration is chosen by them), tags its own explorers' episodes apart from its
source's, never touches its source, and refuses a source that has not finished the branch
point."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from pathlib import Path

import pytest

pytest.importorskip("trl")

from coevo.agentevol.branch import BRANCHED_FROM, branch_run  # noqa: E402
from coevo.agentevol.config import from_preset  # noqa: E402
from coevo.agentevol.trainer import AgentEvolTrainer, Layout  # noqa: E402
from coevo.client.policies.base import Policy  # noqa: E402
from coevo.client.policies.expert import ExpertPolicy  # noqa: E402
from tests.agents.servers import asgi_env_client  # noqa: E402


class _ExpertExplorer(AgentEvolTrainer):
    """Explores with the env's expert, so every explored episode is judged and its estimate known."""

    def explore_policy(self, explorer, name, seed) -> Policy:  # type: ignore[no-untyped-def]
        return ExpertPolicy()


def _run(config, logged: list[str]) -> list[dict]:  # type: ignore[no-untyped-def,type-arg]
    """Run `config` against a guess server whose store is the run's own, as a local run's is."""
    store = Layout(Path(config.output_dir)).store

    async def go() -> list[dict]:  # type: ignore[type-arg]
        store.parent.mkdir(parents=True, exist_ok=True)
        async with asgi_env_client("guess", db_url=f"sqlite:///{store}") as client:
            return await _ExpertExplorer(config, log=logged.append).run_with({"guess": [client]})

    return asyncio.run(go())


def test_a_band_run_branched_after_iteration_1_reads_its_sources_estimates(tmp_path: Path) -> None:
    source, band = tmp_path / "run", tmp_path / "run" / "band"
    uniform_log: list[str] = []
    uniform = _run(from_preset("ci", envs=["guess"], output_dir=str(source), max_rounds=8), uniform_log)
    before = {p: p.stat().st_mtime_ns for p in source.rglob("*") if p.is_file() and band not in p.parents}

    assert branch_run(source, band, through="iter1") == ["base", "bc", "iter1"]
    assert branch_run(source, band, through="iter1") == []  # already branched: left as it is
    shared = json.loads((band / BRANCHED_FROM).read_text())
    assert shared == {"source": str(source.resolve()), "stages": ["base", "bc", "iter1"]}
    assert (Layout(band).checkpoint("iter1") / "config.json").stat().st_ino == (
        Layout(source).checkpoint("iter1") / "config.json"
    ).stat().st_ino  # hard-linked, not copied

    band_log: list[str] = []
    config = from_preset("ci", envs=["guess"], output_dir=str(band), explore_band="0.5,1.0", max_rounds=8)
    rows = _run(config, band_log)
    # The shared stages are not played again: the branch explored and learned iteration 2 only.
    assert not any(line.startswith(("[bc]", "[iter1]")) for line in band_log)
    assert any(line.startswith("[iter2] explore") for line in band_log)
    assert [r["success_rate"] for r in rows[:3]] == [r["success_rate"] for r in uniform[:3]]
    # Iteration 2 chose by BC's estimates, which the source's iteration 1 left under its tags.
    source_tags = AgentEvolTrainer(from_preset("ci", output_dir=str(source)))
    branch_tags = AgentEvolTrainer(config)
    assert branch_tags.policy_tag("bc") == source_tags.policy_tag("bc")
    # The branch's own explorer (iteration 1, exploring for iteration 2) counts under the branch's
    # tag, beside the source's rows for the same version: one shared store keeps them apart.
    assert branch_tags.policy_tag("iter1") != source_tags.policy_tag("iter1")
    with contextlib.closing(sqlite3.connect(Layout(band).store)) as db:
        episodes = dict(db.execute("SELECT policy, SUM(episodes) FROM task_stats GROUP BY policy").fetchall())
    with contextlib.closing(sqlite3.connect(Layout(source).store)) as db:
        source_episodes = dict(db.execute("SELECT policy, SUM(episodes) FROM task_stats GROUP BY policy").fetchall())
    assert episodes[branch_tags.policy_tag("iter1")] > 0
    assert episodes[source_tags.policy_tag("iter1")] == source_episodes[source_tags.policy_tag("iter1")]
    iter2 = rows[3]
    assert iter2["explore_selection"]["guess"]["estimates_of"] == source_tags.policy_tag("bc")
    assert (iter2["explore_in_band"], iter2["explore_uniform_fill"]) == (2, 0)
    # The source is untouched.
    assert {p: p.stat().st_mtime_ns for p in before} == before
    assert "explore_in_band" not in json.loads(Layout(source).state.read_text())["stages"]["iter2"]


def test_a_branch_needs_its_stages_finished(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="holds no finished stage"):
        branch_run(tmp_path / "nothing", tmp_path / "b", through="iter1")
    source = Layout(tmp_path / "src")
    source.state.parent.mkdir(parents=True)
    source.state.write_text(json.dumps({"stages": {"base": {}, "bc": {}}}))
    (source.checkpoint("bc")).mkdir(parents=True)
    with pytest.raises(ValueError, match="stages iter1 not finished"):
        branch_run(source.root, tmp_path / "b", through="iter1")
    with pytest.raises(ValueError, match="not a stage name"):
        branch_run(source.root, tmp_path / "b", through="epoch1")
    assert not (tmp_path / "b" / "state.json").exists()
    assert branch_run(source.root, tmp_path / "b", through="bc") == ["base", "bc"]
