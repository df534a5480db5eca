"""A Wordle session survives a SIGKILLed `coevo serve`: the replay redraws the same hidden words
(the random generator's state is rebuilt from the seed and the guesses), so the game goes on as
on a server that never crashed."""

from __future__ import annotations

import signal
from pathlib import Path

import httpx

from coevo.envs.registry import make
from tests.server.test_recovery import _free_port, _wait_recorded, coevo_serve


def test_sigkill_between_guesses_and_the_draws_go_on(tmp_path: Path) -> None:
    guesses = ["s o l a r", "p r i c k", "c r i m p"]
    reference = make("wordle")
    reference.agentgym = True
    reference.reset(task_id="wordle-3")
    expected = [reference.step(g) for g in guesses]
    db_url = f"sqlite:///{tmp_path / 'store.db'}"
    port = _free_port()
    log = tmp_path / "serve.log"
    with coevo_serve(db_url, port, log, "wordle") as (proc, base), httpx.Client(base_url=base, timeout=30) as c:
        sid = c.post("/create").json()["id"]
        c.post("/reset", json={"id": sid, "seed": 3})
        first = c.post("/step", json={"id": sid, "action": guesses[0]}).json()
        assert first["observation"] == expected[0].observation
        _wait_recorded(db_url, expected_steps=1)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    with coevo_serve(db_url, port, log, "wordle") as (_, base), httpx.Client(base_url=base, timeout=30) as c:
        assert c.get(f"/filtered_vocab?id={sid}").json() == ["prick", "crimp", "perky", "wrung"]
        for guess, want in zip(guesses[1:], expected[1:], strict=True):
            got = c.post("/step", json={"id": sid, "action": guess}).json()
            assert (got["observation"], got["reward"], got["done"]) == (want.observation, want.reward, want.done)
        assert got["done"] is True and got["reward"] == 1.0
        refused = c.post("/step", json={"id": sid, "action": guesses[0]})
        assert refused.json() == {"error": f"The task with environment {sid} has finished."}
