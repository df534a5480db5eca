"""Wordle's game rules, catalogue, bad input and solver."""

from __future__ import annotations

import pytest

from coevo.envs.base import UnknownTask
from coevo.envs.registry import make
from coevo.envs.wordle.env import WordleEnv
from coevo.envs.wordle.game import Board
from tests.server.conftest import serve


@pytest.fixture(scope="module")
def env() -> WordleEnv:
    made = make("wordle")
    assert isinstance(made, WordleEnv)
    return made


def test_feedback_reads_the_knowledge_not_the_guess_alone() -> None:
    board = Board().after("those", "trove")
    assert board.feedback("those") == "g b g b g"
    assert board.fits("trove") and not board.fits("those")
    # A letter seen in no position is "b" wherever it comes back.
    assert board.after("shire", "trove").feedback("shire") == "b b b y g"


def test_catalogue_and_unknown_tasks(env: WordleEnv) -> None:
    assert env.splits() == {"train": 955, "test": 25}
    assert env.task_ids("test", 0, 2) == ["wordle-0", "wordle-1"] and env.task_ids("train", 0, 1) == ["wordle-25"]
    assert len(env.shared.vocabulary) == 40  # LMRL-Gym's tweet_words.txt
    for bad in ("wordle-980", "wordle-01", "wordle--1", "wordle-", "maze-1", "wordle-٣"):
        with pytest.raises(UnknownTask):
            env.reset(task_id=bad)


def test_invalid_words_count_as_guesses(env: WordleEnv) -> None:
    env.reset(task_id="wordle-7")
    for n in range(1, 7):
        r = env.step("zzzzz")
        assert (r.observation, r.reward, r.info["valid"]) == ("invalid word", 0.0, False)
        assert r.done is (n == 6)


def test_the_same_seed_draws_the_same_words(env: WordleEnv) -> None:
    runs = []
    for _ in range(2):
        env.reset(task_id="wordle-42")
        runs.append([env.step(w).observation for w in ("shire", "s o l a r", "could")])
    assert runs[0] == runs[1]


def test_the_solver_wins_every_task(env: WordleEnv) -> None:
    for split in ("test", "train"):
        for task_id in env.task_ids(split):
            env.reset(task_id=task_id)
            while not env.done:
                action = env.expert_action()
                assert action is not None
                result = env.step(action)
            assert result.reward == 1.0, task_id


def test_routes_refuse_bad_input_with_json_errors() -> None:
    with serve("wordle") as c:
        assert c.post("/sessions", json={"task_id": "wordle-980"}).status_code == 404
        first = c.post("/sessions", json={"split": "test", "seed": 3}).json()
        assert "vocabulary" in first["observation"] and "trove" in first["observation"]
        sid = c.post("/create").json()["id"]
        for body, status in (({"seed": 980}, 404), ({"seed": -1}, 422), ({"seed": "3"}, 422), ({"seed": True}, 422)):
            r = c.post("/reset", json={"id": sid, **body})
            assert r.status_code == status and "error" in r.json(), body
        assert c.post("/reset", json={"id": sid, "seed": 24}).json()["task_id"] == "wordle-24"
        step = c.post("/step", json={"id": sid, "action": "no"}).json()
        assert step["observation"] == "invalid word" and step["done"] is False
