"""ServerConfig precedence and `coevo serve` argument handling."""

from __future__ import annotations

import pytest
import typer

from coevo.cli.serve_cmd import parse_options
from coevo.config import ServerConfig


def test_leases_are_on_by_default() -> None:
    cfg = ServerConfig()
    assert cfg.idle_ttl_s > 0 and cfg.max_age_s > 0 and cfg.host == "127.0.0.1"
    assert cfg.max_action_bytes == 64 * 1024 and cfg.max_body_bytes == 1024 * 1024
    assert cfg.admin_token is None
    assert cfg.durability == "process"  # answers wait for the store commit unless told otherwise


def test_environment_then_explicit_overrides() -> None:
    env = {
        "COEVO_MAX_SESSIONS": "12",
        "COEVO_IDLE_TTL_S": "2.5",
        "COEVO_ADMIN_TOKEN": "t",
        "COEVO_RECORD": "false",
        "COEVO_DB_URL": "sqlite:///x.db",
    }
    cfg = ServerConfig.from_env(env)
    assert (cfg.max_sessions, cfg.idle_ttl_s, cfg.admin_token, cfg.record, cfg.db_url) == (
        12,
        2.5,
        "t",
        False,
        "sqlite:///x.db",
    )
    cfg = ServerConfig.from_env(env, max_sessions=3, admin_token=None)  # None = not given
    assert cfg.max_sessions == 3 and cfg.admin_token == "t"


def test_bad_values_are_refused() -> None:
    with pytest.raises(ValueError):
        ServerConfig.from_env({"COEVO_RECORD": "maybe"})
    with pytest.raises(ValueError):
        ServerConfig.from_env({}, max_sessions=0)
    with pytest.raises(TypeError):
        ServerConfig.from_env({}, no_such_field=1)
    with pytest.raises(ValueError, match="durability"):
        ServerConfig.from_env({"COEVO_DURABILITY": "fast"})
    assert ServerConfig.from_env({"COEVO_DURABILITY": "buffered"}).durability == "buffered"


def test_option_values_parse_as_json_or_text() -> None:
    assert parse_options(["n=3", "ratio=0.5", "flag=true", "name=train", "xs=[1,2]", "path=/a=b"]) == {
        "n": 3,
        "ratio": 0.5,
        "flag": True,
        "name": "train",
        "xs": [1, 2],
        "path": "/a=b",
    }
    with pytest.raises(typer.BadParameter):
        parse_options(["novalue"])


def test_fastapi_native_telemetry_is_off_unless_asked_for() -> None:
    """Off by default: FastAPI then skips its per-request OpenTelemetry provider lookups."""
    from coevo.server import create_app

    quiet = create_app("guess", config=ServerConfig(record=False))
    traced = create_app("guess", config=ServerConfig(record=False, telemetry=True))
    assert not any(quiet._telemetry[k] for k in ("tracing", "metrics", "logs"))  # type: ignore[attr-defined]
    assert all(traced._telemetry[k] for k in ("tracing", "metrics", "logs"))  # type: ignore[attr-defined]
