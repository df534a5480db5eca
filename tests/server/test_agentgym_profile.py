"""An env's AgentGym profile is all the AgentGym routes read: a new env declaring one (in
tests/server/envs.py, as envs/<name>/agentgym.py would) is answered as its AgentGym server would
answer, with nothing in server/ or envs/base.py naming it."""

from __future__ import annotations

from coevo.envs import check_env
from tests.server.conftest import serve
from tests.server.envs import ProfiledGuessEnv

PROFILED = "tests.server.envs:ProfiledGuessEnv"


def test_the_profile_passes_the_checker() -> None:
    assert check_env(ProfiledGuessEnv).ok


def test_the_routes_answer_as_the_profile_declares() -> None:
    with serve(PROFILED) as c:
        assert c.get("/").json() == "This is environment Guess."
        created = c.post("/create").json()
        assert set(created) == {"id"}  # exactly the fields its server sends
        sid = created["id"]
        # Its indices: the test games first (0-49), then the train ones.
        reset = c.post("/reset", json={"id": sid, "game": 51}).json()
        assert set(reset) == {"id", "observation", "available_actions", "task_type"}
        assert reset["task_type"] == "guess/train"
        assert c.get(f"/sessions/{sid}").json()["task_id"] == "train-1"
        assert c.post("/reset", json={"id": sid, "game": 0}).json()["task_type"] == "guess/test"
        assert c.get("/instruction_text", params={"id": sid}).json() == "Instruction: find the number in 12 guesses"
        assert c.post("/reset", json={"id": sid, "game": 250}).status_code == 404  # past its ranges
        c.post("/reset", json={"id": sid, "game": 0})
        while not c.get(f"/sessions/{sid}").json()["done"]:
            action = c.get(f"/sessions/{sid}/expert").json()["action"]
            step = c.post("/step", json={"id": sid, "action": action})
            assert step.status_code == 200 and "info" not in step.json()
        over = c.post("/step", json={"id": sid, "action": "guess 1"})
        assert over.status_code == 200 and over.json() == {"error": f"The game {sid} is over."}
        native = c.post(f"/sessions/{sid}/step", json={"action": "guess 1"})
        assert native.status_code == 409  # the native routes keep their own rule


def test_an_env_without_a_profile_has_no_instruction_text_route() -> None:
    with serve() as c:
        sid = c.post("/create").json()["id"]
        assert c.get("/instruction_text", params={"id": sid}).status_code == 404
        assert c.get("/").json() == "This is environment guess."
