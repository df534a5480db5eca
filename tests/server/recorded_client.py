"""One env's recording of AgentGym's own client against our AgentGym routes
(scripts/fidelity/record_agentgym_clients.py --only <env>, kept in the env's tests/<env>/data/),
and the check each such env's test_agentgym_client.py makes first: sending the recorded requests
again gives the recorded answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.server.conftest import serve
from tests.server.test_agentgym_clients import _replay


def recorded_server(data: Path, env: str) -> dict[str, Any]:
    """`env`'s recording in `data`/agentgym_clients.json: its env_options and exchanges."""
    recorded: dict[str, Any] = json.loads((data / "agentgym_clients.json").read_text(encoding="utf-8"))
    return recorded["servers"][env]


def exchanges_by(server: dict[str, Any], who: str) -> list[dict[str, Any]]:
    """The exchanges of AgentGym's client ("agentgym"), of native calls on the same session, or
    the recorder's own requests in AgentGym's shape ("raw")."""
    return [ex for ex in server["exchanges"] if ex["by"] == who]


def assert_replays_exactly(env: str, server: dict[str, Any], tmp_path: Path) -> None:
    """Replay `server`'s exchanges on a fresh `env` server (its store under `tmp_path`); every
    status and answer must be the recorded one."""
    with serve(env, db_url=f"sqlite:///{tmp_path / 'store.db'}", env_options=server["env_options"]) as c:
        replayed = _replay(c, server["exchanges"])
    for ex, status, answer in replayed:
        if ex["path"] == "/create" and isinstance(answer, dict):
            # A bare /create starts a task drawn at random: the client keeps only its id, and
            # resets before playing.
            answer, ex = answer["id"], {**ex, "answer": ex["answer"]["id"]}
        assert (status, answer) == (ex["status"], ex["answer"]), (ex["method"], ex["path"], ex["body"])
