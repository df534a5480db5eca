"""The trainers' config base: both trainers read presets, flags, `--set`, environment fallbacks
and their saved config.json the same way, and every field says what it is for."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import pytest

pytest.importorskip("torch")  # the configs check backends through the client's policy factory

from coevo.agentevol.config import AgentEvolConfig  # noqa: E402
from coevo.genenv.config import GenEnvConfig  # noqa: E402
from coevo.trainer_config import TrainerConfig  # noqa: E402

CONFIGS = [AgentEvolConfig, GenEnvConfig]


@pytest.mark.parametrize("config", CONFIGS)
def test_every_field_is_documented_and_listed(config: type[TrainerConfig]) -> None:
    undocumented = [f.name for f in fields(config) if not f.metadata.get("help")]
    assert not undocumented, f"{config.__name__} fields without help: {undocumented}"
    listed = [line.strip() for line in config.describe_options().splitlines() if line.startswith("  --")]
    assert sorted(line.split(" ", 1)[0] for line in listed) == sorted(
        f"--{f.name.replace('_', '-')}" for f in fields(config)
    )


@pytest.mark.parametrize("config", CONFIGS)
def test_flags_and_set_spell_the_same_settings(config: type[TrainerConfig]) -> None:
    flags = config.parse_args(["--seed", "7", "--output-dir=/tmp/x", "--set", "db_url=sqlite:///a.db"])
    assert flags == {"seed": 7, "output_dir": "/tmp/x", "db_url": "sqlite:///a.db"}
    assert config.parse_args(["--set=seed=7"]) == config.parse_args(["--seed", "7"])
    assert config.parse_args(["--db-url", "none"]) == {"db_url": None}
    with pytest.raises(ValueError, match="unknown option --colour"):
        config.parse_args(["--colour", "red"])
    with pytest.raises(ValueError, match="unknown config field 'colour'"):
        config.parse_args(["--set", "colour=red"])
    with pytest.raises(ValueError, match="seed wants a int"):
        config.parse_args(["--seed", "many"])
    with pytest.raises(ValueError, match="unknown preset"):
        config.from_preset("huge")


def test_genenv_flags_generated_from_the_class() -> None:
    parsed = GenEnvConfig.parse_args(
        ["--arms", "genenv,random", "--no-agent-demo", "--epochs", "3", "--simulator-url", "genenv=http://a:1",
         "--simulator-url", "random=http://b:2", "--heldout-urls", "bfcl=http://c:3"], environ={},
    )  # fmt: skip
    assert parsed == {
        "arms": ("genenv", "random"), "agent_demo": False, "epochs": 3,
        "simulator_urls": {"genenv": "http://a:1", "random": "http://b:2"}, "heldout_urls": {"bfcl": "http://c:3"},
    }  # fmt: skip
    config = GenEnvConfig.from_preset("ci", **parsed)
    assert config.arms == ("genenv", "random") and config.agent_model == "tiny"  # the preset stays under the flags
    with pytest.raises(ValueError, match="arms must be among"):
        GenEnvConfig.from_preset("ci", **GenEnvConfig.parse_args(["--arms", "oracle"]))


def test_admin_token_falls_back_to_its_variable_and_is_never_written(tmp_path: Path) -> None:
    assert GenEnvConfig.parse_args([], environ={"COEVO_ADMIN_TOKEN": "s3cret"}) == {"admin_token": "s3cret"}
    assert GenEnvConfig.parse_args(["--admin-token", "mine"], environ={"COEVO_ADMIN_TOKEN": "s3cret"}) == {
        "admin_token": "mine"
    }
    config = GenEnvConfig(admin_token="s3cret", families=["arithmetic"])  # type: ignore[arg-type]
    assert config.families == ("arithmetic",)  # a list (JSON's tuples) is kept as the field's tuple
    data = config.to_dict()
    assert data["admin_token"] is None and "s3cret" not in GenEnvConfig.describe_options()
    (tmp_path / "config.json").write_text(json.dumps(data))
    assert GenEnvConfig.load(tmp_path / "config.json") == config.replace(admin_token=None)


def test_agentevol_round_trip_and_checks() -> None:
    config = AgentEvolConfig.from_preset("ci", envs="alfworld,bfcl", env_options=["bfcl:split_size=5"])
    assert config.envs == ["alfworld", "bfcl"] and config.server_options() == {"bfcl": {"split_size": 5}}
    assert AgentEvolConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config
    with pytest.raises(ValueError, match="key=value"):
        AgentEvolConfig(env_options=["alfworld:novalue"])
    with pytest.raises(ValueError, match="unknown AgentEvolConfig fields: colour"):
        AgentEvolConfig.from_dict({**config.to_dict(), "colour": "red"})
