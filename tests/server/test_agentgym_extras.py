"""Bounded per-session memory on the AgentGym routes: /reset keeps a few small extra fields for
/detail (as AgentGym's household server echoes `world_type`), refuses more with 422 before it
runs, and the store never records them; bodies with more fields than any client sends are
refused before validation."""

from __future__ import annotations

import json

from sqlalchemy import select
from sqlalchemy.orm import Session

from coevo.server.agentgym_extras import MAX_BODY_FIELDS, MAX_EXTRA_BYTES
from coevo.server.json_body import MAX_JSON_KEYS
from coevo.store.tables import Episode
from tests.server.conftest import serve


def _code(r) -> str:  # type: ignore[no-untyped-def]
    assert r.status_code == 422, (r.status_code, r.text)
    return str(r.json()["error"]["code"])


def test_extras_are_kept_small_and_never_stored(sqlite_url: str) -> None:
    with serve("alfworld", db_url=sqlite_url) as c:
        sid = c.post("/create").json()["id"]
        assert c.post("/reset", json={"id": sid, "game": 0, "world_type": "Text"}).status_code == 200
        assert c.get("/detail", params={"id": sid}).json()["world_type"] == "Text"

        too_big = {"id": sid, "game": 1, "world_type": "x" * MAX_EXTRA_BYTES}
        assert _code(c.post("/reset", json=too_big)) == "extra_fields_too_large"
        many = {"id": sid, "game": 1, **{f"k{i}": 0 for i in range(MAX_BODY_FIELDS)}}
        assert _code(c.post("/reset", json=many)) == "extra_fields_too_large"
        assert _code(c.post("/step", json={"id": sid, "action": "look", **many})) == "extra_fields_too_large"
        # Refused before it ran: the session is still on game 0 with the kept fields.
        detail = c.get("/detail", params={"id": sid}).json()
        assert (detail["game"], detail["world_type"]) == (0, "Text")

        # Any body with more keys than a full batch has is refused before a route parses it.
        keys = {f"k{i}": 0 for i in range(MAX_JSON_KEYS + 1)}
        assert _code(c.post("/create", json=keys)) == "json_too_many_keys"
        assert _code(c.post("/sessions", content=json.dumps({"x": keys}).encode(), headers=JSON)) == (
            "json_too_many_keys"
        )
        c.app.state.service.writer.flush()
        with Session(c.app.state.service.writer.engine) as db:
            infos = db.scalars(select(Episode.info)).all()
        assert infos and not any("world_type" in json.dumps(info) for info in infos)


JSON = {"content-type": "application/json"}
