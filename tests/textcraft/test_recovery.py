"""A TextCraft session on AgentGym's routes survives a SIGKILLed `coevo serve`: the restarted
server rebuilds it from the store by replay, inventory and AgentGym presentation included."""

from __future__ import annotations

import signal
from pathlib import Path

import httpx

from tests.server.test_recovery import _free_port, _wait_recorded, coevo_serve


def test_sigkill_mid_craft_and_the_agentgym_session_goes_on(tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'store.db'}"
    port = _free_port()
    log = tmp_path / "serve.log"
    with coevo_serve(db_url, port, log, "textcraft") as (proc, base), httpx.Client(base_url=base, timeout=30) as c:
        sid = c.post("/create", json={"commands": None, "goal": None}).json()["id"]
        assert c.post("/reset", json={"id": sid, "data_idx": 2}).status_code == 200  # a beacon
        for action in ("get 1 nether star", "get 5 glass"):
            assert c.post("/step", json={"id": sid, "action": action}).json()["done"] is False
        _wait_recorded(db_url, expected_steps=2)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    with coevo_serve(db_url, port, log, "textcraft") as (_, base), httpx.Client(base_url=base, timeout=30) as c:
        held = c.post("/step", json={"id": sid, "action": "inventory"}).json()
        assert held["observation"] == "Inventory: [nether star] (1) [glass] (5) "
        c.post("/step", json={"id": sid, "action": "get 3 obsidian"})
        won = c.post("/step", json={"id": sid, "action": "craft 1 beacon using 1 nether star, 5 glass, 3 obsidian"})
        assert (won.json()["observation"], won.json()["reward"], won.json()["done"]) == (
            "Crafted 1 minecraft:beacon",
            1.0,
            True,
        )
        # Still AgentGym's presentation after the replay: a step after the goal is taken.
        after = c.post("/step", json={"id": sid, "action": "inventory"})
        assert after.status_code == 200 and after.json()["observation"] == "Inventory: [beacon] (1) "
