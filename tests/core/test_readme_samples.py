"""The README's REST and Python samples are what a real `coevo serve searchqa` answers: the
create body and step action it shows are sent to a real server, and the answers it prints
(task id, observation openings, health) must be the server's."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from coevo.client import EnvClient
from coevo.client.launcher import ServerSpec, launch_local

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def shown(after: str) -> str:
    """The `# -> ...` answer line the README prints right after the line containing `after`."""
    lines = README.splitlines()
    start = next(i for i, line in enumerate(lines) if after in line)
    return next(line for line in lines[start + 1 :] if line.startswith("# -> "))[5:]


def observation_opening(answer: str) -> str:
    """The observation the README shows, decoded from its JSON string, up to its ' ...'."""
    raw = re.search(r'"observation": "((?:[^"\\]|\\.)*)"', answer)
    assert raw is not None, answer
    text = json.loads(f'"{raw.group(1)}"')
    return text.removesuffix("...").rstrip()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("db") / "readme.db"
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(ROOT)
        with launch_local([ServerSpec("searchqa", extra_args=["--db-url", f"sqlite:///{db}"])]) as urls:
            yield urls["searchqa"]


def test_rest_samples_are_what_the_server_answers(server: str) -> None:
    health = re.search(r"curl -s localhost:8000/health\s+# (\{.*\})", README)
    assert health is not None
    assert httpx.get(f"{server}/health").json() == json.loads(health.group(1))

    body = re.search(r"-X POST localhost:8000/sessions -H .* -d '(\{.*\})'", README)
    assert body is not None
    created = httpx.post(f"{server}/sessions", json=json.loads(body.group(1))).json()
    answer = shown("-X POST localhost:8000/sessions -H")
    assert created["observation"].startswith(observation_opening(answer))
    task_id = re.search(r'"task_id": "([^"]+)"', answer)
    question = re.search(r'"task": "([^"]+)"', answer)
    assert task_id is not None and question is not None
    assert created["info"]["task_id"] == task_id.group(1) and created["info"]["task"] == question.group(1)

    action = re.search(r"""-d '\{"action": "(<search>[^<]*</search>)"\}'""", README)
    assert action is not None
    query = action.group(1)[len("<search>") : -len("</search>")]
    assert query in question.group(1)  # the sample search is about the sample's question
    stepped = httpx.post(f"{server}/sessions/{created['session_id']}/step", json={"action": action.group(1)}).json()
    assert stepped["observation"].startswith(observation_opening(shown('"action": "<search>')))
    assert (stepped["reward"], stepped["done"]) == (0.0, False)


def test_python_sample_runs_the_same_episode(server: str) -> None:
    create = re.search(r"client\.create\((.*)\) as session", README)
    step = re.search(r'session\.step\("([^"]+)"\)', README)
    assert create is not None and step is not None
    assert create.group(1) == 'split="test", seed=7'
    with EnvClient(server) as client, client.create(split="test", seed=7) as session:
        result = session.step(step.group(1))
    assert result.observation.startswith(observation_opening(shown('"action": "<search>')))
