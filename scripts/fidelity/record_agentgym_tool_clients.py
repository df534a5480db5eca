"""Record AgentGym's own tool-env clients (`agentenv.envs.weather`, ...) talking to coevo, once.

Like record_agentgym_clients.py (whose server and recorder this reuses), for the five tool envs
of AgentGym's `agentenv-tool`: the client classes run unchanged against a live `coevo` server;
beside them the recorder asks our native expert route for the actions and takes steps after
`finish` in AgentGym's shape (its tool servers keep no end state). Writes
tests/toolusage/fixtures/agentgym_tool_clients.json, which tests/toolusage/
test_agentgym_tool_clients.py replays.

    python scripts/fidelity/record_agentgym_tool_clients.py /path/to/AgentGym [env ...]
"""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import record_agentgym_clients as base  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "tests" / "toolusage" / "fixtures" / "agentgym_tool_clients.json"

#: Each env's client module and class, and the small generated data its server runs.
CLIENTS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "weather": ("agentenv.envs.weather", "WeatherEnvClient", {"train_tasks": 20, "test_tasks": 12}),
    "todo": ("agentenv.envs.todo", "TodoEnvClient", {"train_tasks": 20, "test_tasks": 12}),
    "academia": ("agentenv.envs.academia", "AcademiaEnvClient", {"train_tasks": 20, "test_tasks": 12}),
    "movie": ("agentenv.envs.movie", "MovieEnvClient", {"train_tasks": 20, "test_tasks": 12}),
    "sheet": ("agentenv.envs.sheet", "SheetEnvClient", {"train_tasks": 20, "test_tasks": 12}),
}


def _record(env: str, url: str, rec: base.Recorder, requests: Any) -> list[Any]:
    module, cls, _ = CLIENTS[env]
    base._raw(rec, lambda: requests.get(f"{url}/"))
    client = getattr(importlib.import_module(module), cls)(env_server_base=url, data_len=12)
    outputs: list[Any] = [client.observe(), client.reset(3), client.observe()]
    sid = client.env_id
    outputs.append(client.step("I am not sure what to do.").__dict__)  # no action line
    outputs.append(client.step("Thought: check.\n\nAction: no_such_tool with Action Input: {}").__dict__)
    outputs.append(client.step("Thought: bad input.\n\nAction: finish with Action Input: {'answer': 2 + 2}").__dict__)
    for _ in range(40):
        rec.by = "native"
        expert = requests.get(f"{url}/sessions/{sid}/expert").json()["action"]
        rec.by = "agentgym"
        if expert is None:
            break
        out = client.step(f"Thought: next.\n\n{expert}")
        outputs.append(out.__dict__)
        if out.done:
            break
    # No end state: a step after finish is taken like any other.
    outputs.append(client.step("Thought: again.\n\nAction: get_user_current_date with Action Input: {}").__dict__)
    outputs.append(client.observe())
    outputs.append(client.reset(5))
    rec.by = "native"
    child = requests.post(f"{url}/sessions/{sid}/fork").json()["session_id"]
    requests.post(
        f"{url}/sessions/{child}/step", json={"action": "Action: get_user_current_location with Action Input: {}"}
    )
    requests.delete(f"{url}/sessions/{child}")
    rec.by = "agentgym"
    return outputs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("agentgym", type=Path, help="an AgentGym checkout")
    parser.add_argument("envs", nargs="*", default=sorted(CLIENTS))
    parser.add_argument("--commit", help="the checkout's commit, where it is no git work tree")
    args = parser.parse_args()
    base._import_clients(args.agentgym)
    import requests

    commit = (
        args.commit
        or subprocess.run(
            ["git", "-C", str(args.agentgym), "rev-parse", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
        or None
    )
    fixture: dict[str, Any] = json.loads(OUT.read_text()) if OUT.exists() else {"servers": {}}
    fixture["agentgym_commit"] = commit
    for env in args.envs:
        options = CLIENTS[env][2]
        rec = base.Recorder()
        real_get, real_post, real_delete = requests.get, requests.post, requests.delete
        requests.get, requests.post = rec.wrap("GET", real_get), rec.wrap("POST", real_post)
        requests.delete = rec.wrap("DELETE", real_delete)
        try:
            with base._server(env, options) as url:
                outputs = _record(env, url, rec, requests)
        finally:
            requests.get, requests.post, requests.delete = real_get, real_post, real_delete
        fixture["servers"][env] = {
            "env_options": options,
            "exchanges": rec.exchanges,
            "client_outputs": rec._mask(outputs),
        }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(fixture, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT}: " + ", ".join(f"{e} {len(s['exchanges'])} exchanges" for e, s in fixture["servers"].items()))


if __name__ == "__main__":
    main()
