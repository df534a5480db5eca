"""A whole GenEnv run is the same whether its simulators run in this process (the default) or
as `coevo serve simulator` servers reached over HTTP (`--simulator-url ARM=URL`): the same seeds
give the same metrics.jsonl, timing fields aside. And the curriculum contract refuses a bad
context with the same message in process and over HTTP (422 there)."""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import ValidationError

from coevo.genenv.config import GenEnvConfig
from coevo.genenv.simulator import LocalSimulator
from coevo.genenv.trainer import GenEnvTrainer
from coevo.simulator.curriculum_context import ALPHA, BAND, CurriculumContext
from tests.genenv.skill_agent import SkillAgent, skill_preset
from tests.server.live import live_server

#: Fields that measure the machine, not the run.
TIMING = {"elapsed_s", "duration_s", "finished_at", "cpu_threads"}
ARMS = ("genenv", "random")
TOKEN = "s3cret"


def _config(out: Path, **overrides: Any) -> GenEnvConfig:
    return skill_preset(
        output_dir=str(out), arms=ARMS, epochs=3, tasks_per_epoch=8, group_size=4, param_steps=20, **overrides
    )


def _run(cfg: GenEnvConfig) -> list[dict[str, Any]]:
    factory = lambda arm, model, arm_dir, simulator: SkillAgent(simulator, cfg.group_size)  # noqa: E731
    GenEnvTrainer(cfg, agent_factory=factory).run()
    lines = (Path(cfg.output_dir) / "metrics.jsonl").read_text().splitlines()
    return [{k: v for k, v in json.loads(line).items() if k not in TIMING} for line in lines]


def _server_options(cfg: GenEnvConfig, db: Path) -> dict[str, Any]:
    """What the trainer builds its in-process simulator with (GenEnvTrainer._simulator), for a
    server with a store of its own."""
    families = list(cfg.families)
    return {
        "backend": cfg.env_backend,
        "families": families,
        "base_sources": families,
        "base_size": cfg.base_size,
        "base_seed": cfg.seed,
        "db_url": f"sqlite:///{db}",
    }


def test_the_same_seeds_give_the_same_metrics_in_process_and_over_http(tmp_path: Path) -> None:
    local = _run(_config(tmp_path / "local"))
    with ExitStack() as stack:
        base = _config(tmp_path / "probe")
        urls = {
            arm: stack.enter_context(
                live_server(
                    "simulator",
                    env_options=_server_options(base, tmp_path / f"{arm}.db"),
                    admin_token=TOKEN,
                    admin_dir=str(tmp_path),
                )
            )
            for arm in ARMS
        }
        remote = _run(_config(tmp_path / "remote", simulator_urls=urls, admin_token=TOKEN))
        for url in urls.values():  # the remote run's tasks came from the servers
            stats = httpx.post(f"{url}/admin/stats", headers={"Authorization": f"Bearer {TOKEN}"}).json()["result"]
            assert stats["attempts"] >= 3 * 8 and stats["policy_loads"] >= 1
    epochs = [r for r in local if "kind" not in r]
    assert len(epochs) == len(ARMS) * 3 and {r["arm"] for r in epochs} == set(ARMS)
    # a run that learns something: pi_env moved, and the agent solved some tasks
    genenv = [r for r in epochs if r["arm"] == "genenv"]
    assert genenv[-1]["pi_env"] != genenv[0]["pi_env"] and any(r["success_rate"] > 0 for r in epochs)
    assert remote == local


BAD_CONTEXTS = [
    ({"alpha": 1.5}, "alpha: Input should be less than 1"),
    ({"alpha": "0.5"}, "alpha: Input should be a valid number"),
    ({"beta": 0}, "beta: Input should be greater than 0"),
    ({"beta": True}, "beta: Input should be a valid number"),
    ({"band": -0.1}, "band: Input should be greater than or equal to 0"),
    ({"agent_success": 2.0}, "agent_success: Input should be less than or equal to 1"),
    ({"target_success": 0.5}, "target_success: Extra inputs are not permitted"),
]


@pytest.mark.parametrize(("payload", "message"), BAD_CONTEXTS)
def test_a_bad_context_is_refused_alike_in_process_and_over_http(
    tmp_path: Path, payload: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValidationError) as direct:
        CurriculumContext.model_validate(payload)
    field, reason = message.split(": ", 1)
    assert [(e["loc"], e["msg"]) for e in direct.value.errors()] == [((field,), reason)]
    local = LocalSimulator({"db_url": f"sqlite:///{tmp_path / 'local.db'}", "base_size": 2, "heldout_size": 0})
    try:
        with pytest.raises(Exception, match=message) as refused:
            local._admin("set_context", payload)
        assert type(refused.value).__name__ == "BadAdminPayload" and str(refused.value) == message
    finally:
        local.close()
    options = {"db_url": f"sqlite:///{tmp_path / 'remote.db'}", "base_size": 2, "heldout_size": 0}
    with live_server("simulator", env_options=options, admin_token=TOKEN) as url:
        response = httpx.post(f"{url}/admin/set_context", json=payload, headers={"Authorization": f"Bearer {TOKEN}"})
    assert response.status_code == 422
    assert response.json()["error"]["message"] == message


def test_a_good_context_reaches_the_policy_with_the_run_defaults(tmp_path: Path) -> None:
    """The parametric policy takes no context (refused, not ignored); the defaults are the
    contract's, and a config's curriculum fills the contract from its own fields."""
    local = LocalSimulator({"db_url": f"sqlite:///{tmp_path / 'local.db'}", "base_size": 2, "heldout_size": 0})
    try:
        with pytest.raises(Exception, match="takes no difficulty context"):
            local.set_context(CurriculumContext(agent_success=0.3))
    finally:
        local.close()
    assert CurriculumContext().alpha == ALPHA and CurriculumContext().band == BAND
    cfg = skill_preset(alpha=0.3, k_min=0.2, beta=3.0, rwr_lambda=2.0)
    assert cfg.curriculum_context(0.25) == CurriculumContext(alpha=0.3, band=0.2, beta=3.0, lam=2.0, agent_success=0.25)
