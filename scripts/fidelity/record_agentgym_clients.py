"""Record AgentGym's own env clients talking to a coevo server, once.

Runs the client classes (searchqa, ALFWorld, WebShop, SQLGym, SciWorld) of an AgentGym checkout (github WooooDyy/AgentGym, not vendored: pass
its path) unchanged against a live `coevo` server on 127.0.0.1 and writes every request they
made, with our status and answer, as tests/server/fixtures/agentgym_clients.json; beside the
clients' calls the recorder uses our native routes on the same session (the expert picks the
actions; fork and DELETE take the id AgentGym's /create returned), and requests in AgentGym's
shape that no client method makes (`GET /`, steps and reads after the end, /detail,
/instruction_text), kept as by "raw". tests/server/
test_agentgym_clients.py replays the requests and pins our answers to the recorded ones.

    python scripts/fidelity/record_agentgym_clients.py /path/to/AgentGym [--envs birdsql]

Only `agentenv.controller` and the env modules used are imported (the package's `envs/__init__`
imports every env client); they need `requests` and what `agentenv.controller` imports.
"""

from __future__ import annotations

import argparse
import importlib
import json
import socket
import subprocess
import sys
import tempfile
import threading
import time
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

OUT = Path(__file__).resolve().parents[2] / "tests" / "server" / "fixtures" / "agentgym_clients.json"
SESSION = "<session>"

#: What each recorded server runs: small generated data, so the replay test is quick.
SERVERS: dict[str, dict[str, Any]] = {
    "searchqa": {"passages": 4000, "seed": 3},
    "alfworld": {"train_size": 30, "valid_seen_size": 5, "valid_unseen_size": 10, "valid_train_size": 10},
    "webshop": {"products": 400, "seed": 7},
    "birdsql": {"seed": 0},
    "sciworld": {},
    "textcraft": {},
    "wordle": {},
    "maze": {},
}
#: Envs whose recording goes to a fixture of their own (tests/<env>/data/agentgym_clients.json,
#: replayed by tests/<env>/test_agentgym_client.py), recorded with `--only <env>`.
OWN_FIXTURE = ("textcraft", "wordle", "maze")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def _server(env: str, options: dict[str, Any]) -> Iterator[str]:
    """Our app for `env` under uvicorn in a thread, recording to a throwaway SQLite file."""
    import uvicorn

    from coevo.config import ServerConfig
    from coevo.server import create_app

    with tempfile.TemporaryDirectory() as tmp:
        config = ServerConfig(db_url=f"sqlite:///{tmp}/store.db", record=True)
        app = create_app(env, env_options=options, config=config)
        port = _free_port()
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            server.should_exit = True
            thread.join(30)


class Recorder:
    """Wraps `requests.get/post`: every exchange is kept, session ids replaced by a marker."""

    def __init__(self) -> None:
        self.exchanges: list[dict[str, Any]] = []
        self.sessions: list[str] = []
        self.by: str = "agentgym"

    def _mask(self, value: Any) -> Any:
        text = json.dumps(value)
        for i, sid in enumerate(self.sessions):
            text = text.replace(sid, SESSION if i == 0 else f"<session{i}>")
        return json.loads(text)

    def wrap(self, method: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def call(url: str, json: Any = None, **kwargs: Any) -> Any:
            res = real(url, json=json, **kwargs)
            parts = urlsplit(url)
            try:
                answer = res.json()
            except ValueError:
                answer = res.text
            for found in _session_ids(parts.path, answer):
                if found not in self.sessions:
                    self.sessions.append(found)
            self.exchanges.append(
                self._mask(
                    {
                        "by": self.by,
                        "method": method,
                        "path": parts.path,
                        "query": parts.query,
                        "body": json,
                        "status": res.status_code,
                        "answer": answer,
                    }
                )
            )
            return res

        return call


def _session_ids(path: str, answer: Any) -> list[str]:
    """New session ids in an answer: /create's (bare or `id`) and /fork's `session_id`."""
    if path == "/create":
        found = answer.get("id") if isinstance(answer, dict) else answer
    elif path.endswith("/fork") and isinstance(answer, dict):
        found = answer.get("session_id")
    else:
        found = None
    return [found] if isinstance(found, str) else []


def _import_clients(checkout: Path) -> types.ModuleType:
    """`agentenv` from the checkout, with an empty `agentenv.envs` so that only the env modules
    asked for are imported."""
    sys.path.insert(0, str(checkout / "agentenv"))
    import agentenv

    envs = types.ModuleType("agentenv.envs")
    envs.__path__ = [str(checkout / "agentenv" / "agentenv" / "envs")]
    sys.modules["agentenv.envs"] = envs
    return agentenv


def _raw(rec: Recorder, call: Callable[[], Any]) -> None:
    """A request in the AgentGym shape that no client method makes (a step after the end, the
    connectivity check): recorded as by "raw"."""
    rec.by = "raw"
    call()
    rec.by = "agentgym"


def _record_searchqa(base: str, rec: Recorder, requests: Any) -> list[Any]:
    _raw(rec, lambda: requests.get(f"{base}/"))
    client_mod = importlib.import_module("agentenv.envs.searchqa")
    client = client_mod.SearchQAEnvClient(env_server_base=base, data_len=3)
    outputs: list[Any] = [client.observe(), client.reset(1), client.observe()]
    sid = client.env_id
    outputs.append(client.step("I think. <search>nothing").__dict__)  # invalid: no closing tag
    rec.by = "native"
    expert = requests.get(f"{base}/sessions/{sid}/expert").json()["action"]
    rec.by = "agentgym"
    outputs.append(client.step(f"<think>start</think>{expert}").__dict__)
    outputs.append(client.step("<answer>surely not this</answer>").__dict__)  # wrong: goes on
    rec.by = "native"
    child = requests.post(f"{base}/sessions/{sid}/fork").json()["session_id"]
    for _ in range(4):
        expert = requests.get(f"{base}/sessions/{sid}/expert").json()["action"]
        if expert is None:
            break
        rec.by = "agentgym"
        out = client.step(f"<think>next</think>{expert}")
        outputs.append(out.__dict__)
        rec.by = "native"
        if out.done:
            rec.by = "agentgym"
            # AgentGym's search server keeps no end state: a step after the answer is taken.
            outputs.append(client.step("<search>one more</search>").__dict__)
            outputs.append(client.step(f"<think>again</think>{expert}").__dict__)
            rec.by = "native"
            break
    requests.post(f"{base}/sessions/{child}/step", json={"action": "<answer>surely not this</answer>"})
    requests.delete(f"{base}/sessions/{child}")
    rec.by = "agentgym"
    outputs.append(client.close())
    return outputs


def _record_alfworld(base: str, rec: Recorder, requests: Any) -> list[Any]:
    client_mod = importlib.import_module("agentenv.envs.alfworld")
    _raw(rec, lambda: requests.get(f"{base}/"))
    client = client_mod.AlfWorldEnvClient(env_server_base=base, data_len=3)
    outputs: list[Any] = [client.reset(2420), client.observe()]
    sid = client.env_id
    outputs.append(client.step("Thought:\nI look first.\n\nAction:\nhelp").__dict__)
    _raw(rec, lambda: requests.get(f"{base}/detail?id={sid}"))
    for _ in range(40):
        rec.by = "native"
        expert = requests.get(f"{base}/sessions/{sid}/expert").json()["action"]
        rec.by = "agentgym"
        if expert is None:
            break
        out = client.step(f"Thought:\nOn with the plan.\n\nAction:\n{expert}")
        outputs.append(out.__dict__)
        if out.done:
            break
    # After the end AgentGym's household server answers these with 200 and {"error"} (its
    # client's step would fail on the missing observation, so they are sent raw).
    _raw(rec, lambda: requests.post(f"{base}/step", json={"id": sid, "action": "look"}))
    for route in ("observation", "available_actions", "detail"):
        _raw(rec, lambda route=route: requests.get(f"{base}/{route}?id={sid}"))
    outputs.append(client.reset(0))
    outputs.append(client.step("Action:\ngo to nowhere 1").__dict__)
    outputs.append(client.close())
    return outputs


def _record_webshop(base: str, rec: Recorder, requests: Any) -> list[Any]:
    client_mod = importlib.import_module("agentenv.envs.webshop")
    _raw(rec, lambda: requests.get(f"{base}/"))
    client = client_mod.WebshopEnvClient(env_server_base=base, data_len=3)
    outputs: list[Any] = [client.reset(2), client.observe()]
    sid = client.env_id
    _raw(rec, lambda: requests.get(f"{base}/instruction_text?env_idx={sid}"))
    for _ in range(15):
        rec.by = "native"
        expert = requests.get(f"{base}/sessions/{sid}/expert").json()["action"]
        rec.by = "agentgym"
        if expert is None:
            break
        out = client.step(f"Thought:\nI follow the plan.\n\nAction:\n{expert}")
        outputs.append(out.__dict__)
        _raw(rec, lambda: requests.get(f"{base}/instruction_text?env_idx={sid}"))
        if out.done:
            # AgentGym's shop server keeps no end state: steps after the purchase are taken
            # (the done page has nothing to click; a search leaves it).
            outputs.append(client.step("Action:\nclick[back to search]").__dict__)
            outputs.append(client.step("Action:\nsearch[one more]").__dict__)
            break
    outputs.append(client.close())
    return outputs


def _record_birdsql(base: str, rec: Recorder, requests: Any) -> list[Any]:
    client_mod = importlib.import_module("agentenv.envs.sqlgym")
    _raw(rec, lambda: requests.get(f"{base}/"))
    client = client_mod.SqlGymEnvClient(env_server_base=base, data_len=3)
    outputs: list[Any] = [client.reset(9428), client.observe()]
    sid = client.env_id
    rec.by = "native"
    expert = requests.get(f"{base}/sessions/{sid}/expert").json()["action"]
    rec.by = "agentgym"
    outputs.append(client.step(f"Thought: the evidence names the columns.\n\nAction: {expert}").__dict__)
    # SQLGym keeps no end state: a further SQL action runs and is scored again.
    outputs.append(client.step("Action: ```sql\nSELECT COUNT(*) FROM book\n```").__dict__)
    outputs.append(client.observe())
    rec.by = "native"
    child = requests.post(f"{base}/sessions/{sid}/fork").json()["session_id"]
    requests.delete(f"{base}/sessions/{child}")
    rec.by = "agentgym"
    outputs.append(client.reset(0))
    outputs.append(client.step("Action: ```sql\nDELETE FROM orders\n```").__dict__)  # refused
    outputs.append(client.reset(1))
    outputs.append(client.step("Action: ```sql\nSELECT * FROM student\n```").__dict__)  # cut at 100 characters
    outputs.append(client.step("Action: ```sql\nSELECT 1; SELECT 2\n```").__dict__)  # refused


def _record_textcraft(base: str, rec: Recorder, requests: Any) -> list[Any]:
    client_mod = importlib.import_module("agentenv.envs.textcraft")
    _raw(rec, lambda: requests.get(f"{base}/"))
    client = client_mod.TextCraftEnvClient(env_server_base=base, data_len=3)
    outputs: list[Any] = [client.observe(), client.reset(2), client.observe()]
    sid = client.env_id
    # The client strips all but letters, digits, commas and spaces, and takes the last Action.
    outputs.append(client.step("Thought:\nI look first.\n\nAction:\ninventory.").__dict__)
    outputs.append(client.step("Action: get 1 stick\nAction: get 2 stick").__dict__)
    outputs.append(client.step("Thought: no action here").__dict__)
    rec.by = "native"
    child = requests.post(f"{base}/sessions/{sid}/fork").json()["session_id"]
    for _ in range(60):
        rec.by = "native"
        expert = requests.get(f"{base}/sessions/{sid}/expert").json()["action"]
        rec.by = "agentgym"
        if expert is None:
            break
        out = client.step(f"Thought:\nOn with the plan.\n\nAction:\n{expert}")
        outputs.append(out.__dict__)
        if out.done:
            # AgentGym's TextCraft server keeps no end state: a step after the goal is taken.
            outputs.append(client.step("Action:\ninventory").__dict__)
            break
    _raw(rec, lambda: requests.get(f"{base}/observation?id={sid}"))
    _raw(rec, lambda: requests.post(f"{base}/reset", json={"id": sid, "data_idx": 544}))
    rec.by = "native"
    requests.post(f"{base}/sessions/{child}/step", json={"action": "get 1 nether star"})
    requests.delete(f"{base}/sessions/{child}")
    rec.by = "agentgym"
    outputs.append(client.reset(543))
    outputs.append(client.step("Action:\ncraft 1 netherite block using 9 netherite ingot").__dict__)
    outputs.append(client.close())
    return outputs


def _record_wordle(base: str, rec: Recorder, requests: Any) -> list[Any]:
    client_mod = importlib.import_module("agentenv.envs.lmrlgym")
    _raw(rec, lambda: requests.get(f"{base}/"))
    client = client_mod.WordleEnvClient(env_server_base=base, data_len=3)
    outputs: list[Any] = [client.observe(), client.reset(3), client.observe()]
    sid = client.env_id
    outputs.append(client.step("Thought:\nNot a word.\n\nAction:\nxyzzy").__dict__)
    rec.by = "native"
    child = requests.post(f"{base}/sessions/{sid}/fork").json()["session_id"]
    for _ in range(6):
        rec.by = "native"
        expert = requests.get(f"{base}/sessions/{sid}/expert").json()["action"]
        rec.by = "agentgym"
        if expert is None:
            break
        out = client.step(f"Thought:\nThe word that splits the rest best.\n\nAction:\n{expert}")
        outputs.append(out.__dict__)
        _raw(rec, lambda: requests.get(f"{base}/filtered_vocab?id={sid}"))
        if out.done:
            break
    # After the end its server answers 200 {"error"} (its client would fail on it: sent raw).
    _raw(rec, lambda: requests.post(f"{base}/step", json={"id": sid, "action": "s h i r e"}))
    _raw(rec, lambda: requests.get(f"{base}/filtered_vocab?id={sid}"))
    _raw(rec, lambda: requests.post(f"{base}/reset", json={"id": sid, "seed": 980}))
    rec.by = "native"
    requests.post(f"{base}/sessions/{child}/step", json={"action": "s h i r e"})
    requests.delete(f"{base}/sessions/{child}")
    rec.by = "agentgym"
    outputs.append(client.reset(979))
    outputs.append(client.step("Action:\ns h i r e").__dict__)
    # Its client cuts five characters off a reply ending in the four of "</s>": "shir" is sent.
    outputs.append(client.step("Action:\nshire</s>").__dict__)
    return outputs


def _record_maze(base: str, rec: Recorder, requests: Any) -> list[Any]:
    client_mod = importlib.import_module("agentenv.envs.lmrlgym")
    _raw(rec, lambda: requests.get(f"{base}/"))
    client = client_mod.MazeEnvClient(env_server_base=base, data_len=3)
    outputs: list[Any] = [client.reset(13), client.observe()]
    sid = client.env_id
    outputs.append(client.step("Thought:\nThe wall is below me.\n\nAction:\nmove down").__dict__)
    outputs.append(client.step("I will just go up").__dict__)  # no "Action:": the reply is the action
    rec.by = "native"
    child = requests.post(f"{base}/sessions/{sid}/fork").json()["session_id"]
    for _ in range(20):
        rec.by = "native"
        expert = requests.get(f"{base}/sessions/{sid}/expert").json()["action"]
        rec.by = "agentgym"
        if expert is None:
            break
        out = client.step(f"Thought:\nThe shortest way.\n\nAction:\n{expert}")
        outputs.append(out.__dict__)
        if out.done:
            break
    # After the end its server answers 200 {"error"} (its client would fail on it: sent raw).
    _raw(rec, lambda: requests.post(f"{base}/step", json={"id": sid, "action": "move up"}))
    _raw(rec, lambda: requests.get(f"{base}/observation?id={sid}"))
    _raw(rec, lambda: requests.post(f"{base}/reset", json={"id": sid, "game": 25}))
    rec.by = "native"
    requests.post(f"{base}/sessions/{child}/step", json={"action": "move up"})
    requests.delete(f"{base}/sessions/{child}")
    rec.by = "agentgym"
    outputs.append(client.reset(0))
    outputs.append(client.step("Action:\nmove right</s>").__dict__)  # its client cuts 5 characters: "move ri"
    return outputs


def _record_sciworld(base: str, rec: Recorder, requests: Any) -> list[Any]:
    client_mod = importlib.import_module("agentenv.envs.sciworld")
    _raw(rec, lambda: requests.get(f"{base}/"))
    client = client_mod.SciworldEnvClient(env_server_base=base, data_len=3)
    # Game 2939: find-living-thing, variation 3 (a short gold path).
    outputs: list[Any] = [client.reset(2939), client.observe()]
    sid = client.env_id
    outputs.append(client.step("Thought:\nI try something.\n\nAction:\nfly to the moon").__dict__)
    rec.by = "native"
    child = requests.post(f"{base}/sessions/{sid}/fork").json()["session_id"]
    requests.delete(f"{base}/sessions/{child}")
    for _ in range(12):
        rec.by = "native"
        expert = requests.get(f"{base}/sessions/{sid}/expert").json()["action"]
        rec.by = "agentgym"
        if expert is None:
            break
        out = client.step(f"Thought:\nOn with the plan.\n\nAction:\n{expert}")
        outputs.append(out.__dict__)
        if out.done:
            break
    # After the end AgentGym's SciWorld server answers with 200 and {"error"}.
    _raw(rec, lambda: requests.post(f"{base}/step", json={"id": sid, "action": "look around"}))
    for route in ("observation", "detail"):
        _raw(rec, lambda route=route: requests.get(f"{base}/{route}?id={sid}"))
    outputs.append(client.reset(0))
    outputs.append(client.close())
    return outputs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("agentgym", type=Path, help="an AgentGym checkout")
    parser.add_argument("--commit", help="the checkout's commit, where it is no git work tree")
    parser.add_argument("--envs", nargs="+", help="record only these servers, keeping the fixture's others")
    parser.add_argument("--only", choices=OWN_FIXTURE, help="record this env alone, into its own fixture")
    args = parser.parse_args()
    _import_clients(args.agentgym)
    import requests

    commit = (
        args.commit
        or subprocess.run(
            ["git", "-C", str(args.agentgym), "rev-parse", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
        or None
    )
    fixture: dict[str, Any] = {"agentgym_commit": commit, "servers": {}}
    if args.envs and OUT.exists():
        fixture["servers"] = json.loads(OUT.read_text(encoding="utf-8"))["servers"]
    recorders = (
        ("searchqa", _record_searchqa),
        ("alfworld", _record_alfworld),
        ("webshop", _record_webshop),
        ("birdsql", _record_birdsql),
        ("sciworld", _record_sciworld),
    )
    if args.only:
        recorders = ((args.only, globals()[f"_record_{args.only}"]),)
    for env, record in recorders:
        if args.envs and env not in args.envs:
            continue
        rec = Recorder()
        real_get, real_post, real_delete = requests.get, requests.post, requests.delete
        requests.get, requests.post = rec.wrap("GET", real_get), rec.wrap("POST", real_post)
        requests.delete = rec.wrap("DELETE", real_delete)
        try:
            with _server(env, SERVERS[env]) as base:
                outputs = record(base, rec, requests)
        finally:
            requests.get, requests.post, requests.delete = real_get, real_post, real_delete
        fixture["servers"][env] = {
            "env_options": SERVERS[env],
            "exchanges": rec.exchanges,
            "client_outputs": rec._mask(outputs),
        }
    out = OUT.parents[2] / args.only / "data" / "agentgym_clients.json" if args.only else OUT
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(fixture, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(
        f"wrote {out}: " + ", ".join(f"{env} {len(s['exchanges'])} exchanges" for env, s in fixture["servers"].items())
    )


if __name__ == "__main__":
    main()
