"""AgentGym's own env clients against our AgentGym routes, as recorded once.

scripts/fidelity/record_agentgym_clients.py ran AgentGym's `SearchQAEnvClient`,
`AlfWorldEnvClient` and `WebshopEnvClient` unchanged against a live server and kept every
request they made (and the
native-route calls made beside them on the same session) with our status and answer. Replaying
the requests must give the same answers: the clients' request shapes keep working, and the
AgentGym presentation (searchqa's messages and retries, ALFWorld's 2.1.1 text and index
mapping) is pinned. The other tests here check the recorded answers against AgentGym's server
code's shapes, so the fixture cannot silently record a wrong answer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.conftest import serve

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "agentgym_clients.json").read_text(encoding="utf-8"))


def _marker(i: int) -> str:
    return "<session>" if i == 0 else f"<session{i}>"


def _new_ids(path: str, answer: Any) -> list[str]:
    if path == "/create":
        found = answer.get("id") if isinstance(answer, dict) else answer
    elif path.endswith("/fork") and isinstance(answer, dict):
        found = answer.get("session_id")
    else:
        found = None
    return [found] if isinstance(found, str) else []


def _replay(c: TestClient, exchanges: list[dict[str, Any]]) -> list[tuple[dict[str, Any], int, Any]]:
    """Each recorded request sent again (markers replaced by this run's ids): (exchange,
    status, answer with this run's ids masked)."""
    ids: list[str] = []

    def fill(value: Any) -> Any:
        text = json.dumps(value)
        for i, sid in enumerate(ids):
            text = text.replace(_marker(i), sid)
        return json.loads(text)

    def mask(value: Any) -> Any:
        text = json.dumps(value)
        for i, sid in enumerate(ids):
            text = text.replace(sid, _marker(i))
        return json.loads(text)

    out = []
    for ex in exchanges:
        url = fill(ex["path"]) + (f"?{fill(ex['query'])}" if ex["query"] else "")
        res = c.request(ex["method"], url, json=fill(ex["body"]))
        answer = res.json()
        ids += [sid for sid in _new_ids(ex["path"], answer) if sid not in ids]
        out.append((ex, res.status_code, mask(answer)))
    return out


@pytest.mark.parametrize("env", sorted(FIXTURE["servers"]))
def test_recorded_client_sessions_replay_exactly(env: str, sqlite_url: str) -> None:
    recorded = FIXTURE["servers"][env]
    with serve(env, db_url=sqlite_url, env_options=recorded["env_options"]) as c:
        replayed = _replay(c, recorded["exchanges"])
    for ex, status, answer in replayed:
        if ex["path"] == "/create" and isinstance(answer, dict):
            # A bare /create starts a task drawn at random (AgentGym's starts none): only its id
            # is the client's.
            answer, ex = answer["id"], {**ex, "answer": ex["answer"]["id"]}
        assert (status, answer) == (ex["status"], ex["answer"]), (ex["method"], ex["path"], ex["body"])


def _agentgym(env: str, by: str = "agentgym") -> list[dict[str, Any]]:
    """The exchanges of AgentGym's client ("agentgym") or the recorder's own requests in
    AgentGym's shape ("raw": the connectivity check, steps after the end)."""
    return [ex for ex in FIXTURE["servers"][env]["exchanges"] if ex["by"] == by]


@pytest.mark.parametrize(
    ("env", "hello"), [("searchqa", "ok"), ("alfworld", "This is environment AlfWorld."), ("webshop", "ok")]
)
def test_connectivity_check_answers_as_agentgym_server(env: str, hello: str) -> None:
    """Each of AgentGym's servers answers its `GET /` with its own string."""
    first = _agentgym(env, "raw")[0]
    assert (first["method"], first["path"], first["status"], first["answer"]) == ("GET", "/", 200, hello)


def test_searchqa_answers_have_agentgym_search_server_shapes() -> None:
    exchanges = _agentgym("searchqa")
    assert all(ex["status"] == 200 for ex in exchanges)  # the client asserts it on every call
    create = exchanges[0]
    assert create["path"] == "/create" and create["body"] == {"id": 0} and create["answer"] == "<session>"
    resets = [ex for ex in exchanges if ex["path"] == "/reset"]
    assert resets[0]["body"] == {"id": 1, "env_idx": "<session>"}
    prompt = resets[0]["answer"]
    assert isinstance(prompt, str) and prompt.startswith("You must reason inside <think>...</think> first.")
    assert "\n\n Question: " in prompt and prompt.endswith("?")
    observes = [ex for ex in exchanges if ex["path"] == "/observation"]
    assert observes[-1]["query"] == "env_idx=<session>" and observes[-1]["answer"] == prompt
    steps = [ex["answer"] for ex in exchanges if ex["path"] == "/step"]
    assert all(set(s) == {"observation", "reward", "done", "info"} and s["info"] is None for s in steps)
    texts = [s["observation"] for s in steps]
    assert texts[0].startswith("Your previous action is invalid. If you want to search, you should put")
    assert texts[1].startswith("<information>Doc 1(Title: ") and texts[1].endswith("</information>")
    assert steps[2] == {
        "observation": "Sorry, your answer is incorrect. Please try again.",
        "reward": 0.0,
        "done": False,
        "info": None,
    }
    correct = {
        "observation": "Congratulations! You have answered the question correctly.",
        "reward": 1.0,
        "done": True,
        "info": None,
    }
    assert steps[-1] == correct
    # AgentGym's search server keeps no end state: after the correct answer a search is taken
    # (an empty retrieval here) and the same answer is scored again.
    ended = steps.index(correct)
    assert steps[ended + 1] == {
        "observation": "<information></information>",
        "reward": 0.0,
        "done": False,
        "info": None,
    }
    assert len(steps) == ended + 3
    assert exchanges[-1]["path"] == "/close" and exchanges[-1]["answer"] is True


def test_alfworld_answers_have_agentgym_household_server_shapes() -> None:
    exchanges = _agentgym("alfworld")
    assert all(ex["status"] == 200 for ex in exchanges)
    # Exactly the household server's fields: /create {"id"}; /reset {"id", "observation",
    # "available_actions", "task_type"}; /step {"observation", "reward", "available_actions", "done"}.
    assert exchanges[0]["path"] == "/create" and exchanges[0]["answer"] == {"id": "<session>"}
    reset = exchanges[1]
    assert reset["body"] == {"game": 2420, "world_type": "Text", "id": "<session>"}
    first = reset["answer"]
    assert set(first) == {"id", "observation", "available_actions", "task_type"}
    # AgentGym's first test index is ALFWorld's valid_train-0; its task_type is the game's
    # folder and trial (the two folders above the game file), here the exporter's names.
    folder, trial = first["task_type"].split("/")
    assert folder.startswith("pick_and_place_simple-") and trial == "trial_coevo_0"
    assert not first["observation"].startswith("-= Welcome")
    assert "\n\n" not in first["observation"] and "\nYour task is to: " in first["observation"]
    steps = [ex["answer"] for ex in exchanges if ex["path"] == "/step"]
    assert all(set(s) == {"observation", "reward", "done", "available_actions"} for s in steps)
    assert steps[0]["observation"] == "Nothing happens."  # `help` is not a 2.1.1 command
    texts = [s["observation"] for s in steps]
    assert not any(t.startswith("You arrive at") for t in texts)
    assert any(t.startswith("You put the ") and " in/on the " in t for t in texts)
    actions = [a for s in steps for a in s["available_actions"]]
    assert any(a.startswith("put ") and " in/on " in a for a in actions)
    assert not any(a.startswith("move ") or a == "help" for a in actions)
    won = [s for s in steps if s["done"]]
    assert won and won[0]["reward"] == 1.0


def test_alfworld_refuses_a_finished_episode_as_agentgym_does() -> None:
    """AgentGym's household server answers a step, observation, action list or detail of a
    finished episode with 200 and {"error": "The task with environment <id> has finished."}
    (its `_check_id`); a reset starts the next game."""
    detail = _agentgym("alfworld", "raw")[1]
    # Before the end /detail is the server's record: the reset's fields, then the latest state.
    assert detail["path"] == "/detail" and list(detail["answer"]) == [
        "game",
        "world_type",
        "observation",
        "available_actions",
        "done",
        "reward",
        "deleted",
    ]
    assert detail["answer"]["game"] == 2420 and detail["answer"]["observation"] == "Nothing happens."
    assert (detail["answer"]["done"], detail["answer"]["reward"], detail["answer"]["deleted"]) == (False, 0.0, False)
    raw = _agentgym("alfworld", "raw")[2:]
    assert [(ex["method"], ex["path"]) for ex in raw] == [
        ("POST", "/step"),
        ("GET", "/observation"),
        ("GET", "/available_actions"),
        ("GET", "/detail"),
    ]
    for ex in raw:
        assert (ex["status"], ex["answer"]) == (200, {"error": "The task with environment <session> has finished."})
    exchanges = FIXTURE["servers"]["alfworld"]["exchanges"]
    after = exchanges[exchanges.index(raw[-1]) + 1]
    assert after["path"] == "/reset" and after["status"] == 200 and "observation" in after["answer"]


def test_native_routes_take_the_ids_agentgym_routes_return() -> None:
    """One session table: what the recorder did natively on the clients' sessions succeeded."""
    for env in FIXTURE["servers"]:
        native = [ex for ex in FIXTURE["servers"][env]["exchanges"] if ex["by"] == "native"]
        assert native and all(ex["status"] in (200, 201) for ex in native), env
        assert any(ex["path"] == "/sessions/<session>/expert" for ex in native)
    searchqa = [ex for ex in FIXTURE["servers"]["searchqa"]["exchanges"] if ex["by"] == "native"]
    assert {"/sessions/<session>/fork", "/sessions/<session1>/step", "/sessions/<session1>"} <= {
        ex["path"] for ex in searchqa
    }
    fork_step = next(ex for ex in searchqa if ex["path"] == "/sessions/<session1>/step")
    # The fork keeps the AgentGym presentation: a wrong answer lets its episode go on.
    assert fork_step["answer"]["done"] is False and fork_step["answer"]["info"]["agentgym"] is True


def test_the_presentation_is_per_session_and_survives_a_restart(sqlite_url: str) -> None:
    """An AgentGym session keeps AgentGym's answer handling when a new server process replays it
    from the store; a native session on the same server keeps Search-R1's (an answer ends it)."""
    options = FIXTURE["servers"]["searchqa"]["env_options"]
    wrong = "<answer>surely not this</answer>"
    with serve("searchqa", db_url=sqlite_url, env_options=options) as c:
        sid = c.post("/create", json={"id": 0}).json()
        assert c.post("/step", json={"env_idx": sid, "action": wrong}).json()["done"] is False
        native = c.post("/sessions", json={"split": "test", "seed": 0}).json()
        assert native["observation"].startswith("Answer the given question.")
        ended = c.post(f"/sessions/{native['session_id']}/step", json={"action": wrong}).json()
        assert ended["done"] is True and ended["observation"] == "" and "agentgym" not in ended["info"]
    with serve("searchqa", db_url=sqlite_url, env_options=options) as c:  # a new process
        s = c.post("/step", json={"env_idx": sid, "action": wrong})
        assert s.status_code == 200
        assert s.json() == {
            "observation": "Sorry, your answer is incorrect. Please try again.",
            "reward": 0.0,
            "done": False,
            "info": None,
        }
        assert c.get(f"/sessions/{sid}").json()["steps"] == 2


def test_steps_after_the_end_survive_a_restart(sqlite_url: str) -> None:
    """A session that stepped on after its correct answer is rebuilt by a new process from the
    store (the replay takes the steps after the end too) and goes on there."""
    options = FIXTURE["servers"]["searchqa"]["env_options"]
    with serve("searchqa", db_url=sqlite_url, env_options=options) as c:
        sid = c.post("/create", json={"id": 1}).json()
        for _ in range(10):
            action = c.get(f"/sessions/{sid}/expert").json()["action"]
            if c.post("/step", json={"env_idx": sid, "action": action}).json()["done"]:
                break
        after = c.post("/step", json={"env_idx": sid, "action": "<search>one more</search>"}).json()
        steps = c.get(f"/sessions/{sid}").json()["steps"]
    with serve("searchqa", db_url=sqlite_url, env_options=options) as c:  # a new process
        again = c.post("/step", json={"env_idx": sid, "action": "<search>one more</search>"})
        assert again.status_code == 200 and again.json() == after
        assert c.get(f"/sessions/{sid}").json()["steps"] == steps + 1


def test_searchqa_close_answers_false_for_a_session_it_does_not_hold() -> None:
    """AgentGym's search server's /close: true, then false (its `close` catches the missing
    env); the other styles keep 404."""
    with serve("searchqa", env_options=FIXTURE["servers"]["searchqa"]["env_options"]) as c:
        sid = c.post("/create", json={"id": 0}).json()
        assert [c.post("/close", json={"env_idx": sid}).json() for _ in range(2)] == [True, False]
        assert c.post("/close", json={"env_idx": "no-such-session"}).json() is False
    with serve("webshop", env_options=FIXTURE["servers"]["webshop"]["env_options"]) as c:
        assert c.post("/close", json={"env_idx": "no-such-session"}).status_code == 404


def test_agentgym_indices_out_of_our_splits_are_refused() -> None:
    options = FIXTURE["servers"]["alfworld"]["env_options"]  # 30 train games, 10 valid_train
    with serve("alfworld", env_options=options) as c:
        env_id = c.post("/create").json()["id"]
        for index, task in ((0, "train-0"), (29, "train-29"), (2429, "valid_train-9")):
            r = c.post("/reset", json={"id": env_id, "game": index, "world_type": "Text"})
            assert r.json()["task_type"].endswith(f"/trial_coevo_{task.rpartition('-')[2]}")
            assert c.get(f"/sessions/{env_id}").json()["task_id"] == task
        for index in (30, 2419, 2430):
            r = c.post("/reset", json={"id": env_id, "game": index, "world_type": "Text"})
            assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_task", index
        # The native reset of the same session keeps the native text.
        native = c.post(f"/sessions/{env_id}/reset", json={"task_id": "train-0"}).json()
        assert native["observation"].startswith("-= Welcome to TextWorld, ALFRED! =-")


def test_webshop_answers_have_agentgym_shop_server_shapes() -> None:
    exchanges = _agentgym("webshop")
    assert all(ex["status"] == 200 for ex in exchanges)
    assert exchanges[0]["path"] == "/create" and exchanges[0]["answer"] == "<session>"
    reset = exchanges[1]
    assert reset["body"] == {"session_id": 2, "env_idx": "<session>"}
    observation, extra = reset["answer"]
    assert extra is None and observation.startswith("WebShop [SEP] Instruction: [SEP] ")
    steps = [ex["answer"] for ex in exchanges if ex["path"] == "/step"]
    assert all(set(s) == {"state", "reward", "done", "info"} and s["info"] is None for s in steps)
    bought = next(i for i, s in enumerate(steps) if s["done"])
    assert steps[bought]["reward"] > 0 and steps[bought]["state"].startswith("Thank you for shopping with us!")
    # AgentGym's shop server keeps no end state: the done page has nothing to click (the page
    # stays, reward 0, not done) and a search leaves it.
    assert steps[bought + 1] == {**steps[bought], "reward": 0.0, "done": False}
    assert steps[bought + 2]["state"].startswith("Instruction: [SEP] ") and steps[bought + 2]["done"] is False
    assert len(steps) == bought + 3


def test_webshop_instruction_text_is_the_page_heading() -> None:
    """AgentGym's shop server's /instruction_text: the page's `#instruction-text` h4 text,
    "Instruction: " + goal on the search page, "Instruction:" + goal on the others (WebShop's
    templates); its done page has no such heading (AgentGym answers 500, we 409)."""
    exchanges = FIXTURE["servers"]["webshop"]["exchanges"]
    goal = exchanges[2]["answer"][0].split(" [SEP] ")[2]  # the reset's observation
    texts = [(ex["status"], ex["answer"]) for ex in exchanges if ex["path"] == "/instruction_text"]
    assert texts[0] == (200, f"Instruction: {goal}")
    assert texts[1:-1] and all(t == (200, f"Instruction:{goal}") for t in texts[1:-1])
    assert texts[-1][0] == 409


@pytest.mark.parametrize("env", ["webshop", "searchqa"])
def test_steps_after_the_end_stay_refused_on_native_routes(env: str) -> None:
    """Only the AgentGym route goes on after the end: the native step of the same finished
    session, and of a finished native session, answer 409."""
    options = FIXTURE["servers"][env]["env_options"]
    with serve(env, env_options=options) as c:
        if env == "webshop":
            sid = c.post("/create").json()
            c.post("/reset", json={"env_idx": sid, "session_id": 2})
        else:
            sid = c.post("/create", json={"id": 1}).json()
        for _ in range(20):
            action = c.get(f"/sessions/{sid}/expert").json()["action"]
            if action is None:
                break
            if c.post("/step", json={"env_idx": sid, "action": action}).json()["done"]:
                break
        assert c.get(f"/sessions/{sid}").json()["done"] is True
        assert c.post(f"/sessions/{sid}/step", json={"action": "search[x]"}).status_code == 409
        assert c.post("/step", json={"env_idx": sid, "action": "<search>x</search>"}).status_code == 200
        native = c.post("/sessions", json={"split": "test", "seed": 0}).json()["session_id"]
        for _ in range(20):
            action = c.get(f"/sessions/{native}/expert").json()["action"]
            if action is None or c.post(f"/sessions/{native}/step", json={"action": action}).json()["done"]:
                break
        assert c.get(f"/sessions/{native}").json()["done"] is True
        assert c.post(f"/sessions/{native}/step", json={"action": "search[x]"}).status_code == 409
