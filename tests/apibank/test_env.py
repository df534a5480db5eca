"""Episodes: observations, rewards as API-Bank scores, expert, determinism, HTTP."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from coevo.config import ServerConfig
from coevo.envs.apibank.env import ApiBankEnv, decision_points, rouge_l
from coevo.envs.registry import make
from coevo.server import create_app
from tests.apibank.conftest import DATA_DIR, MISSING

OPTIONS = {"train_size": 60, "test_size": 20}


@pytest.fixture(scope="module")
def env() -> ApiBankEnv:
    return make("apibank", **OPTIONS)  # type: ignore[return-value]


def _play(env: ApiBankEnv, task_id: str, policy=None) -> tuple[list[float], dict]:
    env.reset(task_id=task_id)
    rewards = []
    while True:
        action = policy(env) if policy else env.expert_action()
        result = env.step(action)
        rewards.append(result.reward)
        if result.done:
            return rewards, result.info


def test_splits_without_data(env: ApiBankEnv) -> None:
    assert dict(env.splits()) == {"train": 60, "test": 20}
    assert env.split_of("gen-test-000003") == "test"
    levels = {env.describe_task(t)["level"] for t in env.task_ids("train", 0, 10)}
    assert levels == {1, 2, 3}


@pytest.mark.parametrize("scoring", ["official", "corrected"])
def test_expert_scores_full_accuracy_on_generated_dialogues(scoring: str) -> None:
    """The generated dialogues follow the rules API-Bank's evaluator judges by (every call on
    fresh databases, list arguments as strings), so both modes, the official one by default,
    judge every ground-truth call correct, and an episode's rewards add up to 0-1."""
    env: ApiBankEnv = make("apibank", scoring=scoring, **OPTIONS)  # type: ignore[assignment]
    for task_id in env.task_ids("train", 0, 60):
        rewards, info = _play(env, task_id)
        assert info["success"] and info["api_accuracy"] == 1.0, task_id
        assert info["success_official"] and info["success_corrected"], task_id
        assert info["api_accuracy_official"] == info["api_accuracy_corrected"] == 1.0
        # Level-3 replies score the `rouge` package's unrounded F, 2PR/(P+R+1e-8) for identical text.
        assert sum(rewards) == pytest.approx(1.0, abs=1e-6) and max(rewards) <= 1.0


def test_generated_dialogues_need_no_earlier_write(env: ApiBankEnv) -> None:
    """Every recorded result is what a fresh session (API-Bank's new ToolManager per call) returns
    for that call, with list arguments left as the strings written."""
    from coevo.envs.apibank.sandbox import SandboxSession

    resources = env.shared.resources
    for task_id in env.task_ids("test", 0, 20):
        dialogue = env.shared.dialogue(task_id)
        for turn in dialogue.turns:
            if turn.role == "API":
                fresh = SandboxSession(resources, dialogue.level, seed=7, parse_lists=False)
                result = fresh.call(turn.api_name, turn.param_dict).result
                if turn.api_name not in ("AppointmentRegistration", "BookHotel"):  # ids: presence only
                    assert result == turn.result, (task_id, turn.api_name)
        assert not {"DeleteMeeting", "TimedSwitch", "CancelTimedSwitch", "RecordHealthData"} & set(dialogue.api_names)


def test_scoring_mode_option(env: ApiBankEnv) -> None:
    assert env.scoring == "official"
    assert env.reset(task_id=env.task_ids("train", 0, 1)[0]).info["scoring"] == "official"
    points = env.reset(task_id=env.task_ids("train", 0, 1)[0]).info["decision_points"]
    result = env.step(env.expert_action())
    assert result.reward * points == float(result.info["correct_official"]) == float(result.info["correct"])
    assert {"correct_corrected", "api_accuracy_official", "api_accuracy_corrected"} <= set(result.info)
    assert make("apibank", scoring="Corrected", **OPTIONS).scoring == "corrected"  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="scoring must be one of official, corrected"):
        make("apibank", scoring="strict", **OPTIONS)


def test_replies_report_both_modes(env: ApiBankEnv) -> None:
    task_id = env.task_ids("train", 0, 1)[0]
    env.reset(task_id=task_id)
    while env._expects() == "api":
        env.step(env.expert_action())
    truth = env.dialogue.turns[env.points[env.point]].text
    result = env.step("AI: " + truth.replace(",", "."))
    assert result.info["rouge_l_corrected"] == pytest.approx(1.0)
    assert result.reward * len(env.points) == pytest.approx(result.info["rouge_l"])
    assert result.info["rouge_l"] == result.info["rouge_l_official"] < 1.0


def test_observation_docs_by_level(env: ApiBankEnv) -> None:
    by_level = {}
    for task_id in env.task_ids("train", 0, 10):
        by_level.setdefault(env.describe_task(task_id)["level"], task_id)
    obs = env.reset(task_id=by_level[1]).observation
    apis = env.describe_task(by_level[1])["apis"]
    assert all(f'"name": "{name}"' in obs for name in apis)
    assert '"name": "ToolSearcher"' not in obs and obs.endswith("Generate API Request:")
    for level in (2, 3):
        obs = env.reset(task_id=by_level[level]).observation
        docs = obs.split("API descriptions:\n", 1)[1].split("\n\n", 1)[0]
        assert docs.count('"name": ') == 1 and '"name": "ToolSearcher"' in docs


def test_wrong_actions_score_zero_and_history_follows_ground_truth(env: ApiBankEnv) -> None:
    task_id = env.task_ids("train", 0, 1)[0]
    env.reset(task_id=task_id)
    expert = env.expert_action()
    result = env.step("I think I can answer without tools.")
    assert result.reward == 0.0 and result.info["error"] == "No API call found"
    # The recorded call and its result are now in the history, whatever the agent did.
    assert expert.removeprefix("API-Request: ").split("(")[0] in result.observation
    assert "->" in result.observation
    env.reset(task_id=task_id)
    name = expert.split("[", 1)[1].split("(", 1)[0]
    wrong = expert.replace(f"[{name}(", "[GetToday(" if name != "GetToday" else "[Wiki(")
    result = env.step(wrong)
    assert result.reward == 0.0 and result.info["error"].startswith("API Name Mismatch")


def test_replies_are_scored_by_rouge_l(env: ApiBankEnv) -> None:
    assert rouge_l("The agenda has been added.", "The agenda has been added.") == 1.0
    assert rouge_l("The agenda has been added.", "") == 0.0
    assert 0 < rouge_l("The agenda has been added.", "agenda added") < 1
    task_id = env.task_ids("train", 0, 1)[0]

    def poor_replies(e: ApiBankEnv) -> str:
        return e.expert_action() if e._expects() == "api" else "ok"

    rewards, info = _play(env, task_id, poor_replies)
    assert info["success"] and info["mean_rouge_l"] < 0.5


def test_failed_call_is_judged_on_a_fork() -> None:
    # A wrong call must not change the world: the next expert call still succeeds.
    env = make("apibank", train_size=200, test_size=20)
    task_id = next(t for t in env.task_ids("train") if "DeleteAccount" in env.describe_task(t)["apis"])

    def saboteur(e: ApiBankEnv) -> str:
        truth = e.dialogue.turns[e.points[e.point]]
        if truth.role == "API" and truth.api_name != "DeleteAccount" and "token" in truth.param_dict:
            return f"API-Request: [DeleteAccount(token='{truth.param_dict['token']}')]"
        return e.expert_action()

    _, info = _play(env, task_id, saboteur)
    # Only the sabotaged calls fail; every later expert call still finds the account.
    assert info["api_correct"] >= 1
    truth = [env.dialogue.turns[i] for i in env.points if env.dialogue.turns[i].role == "API"]
    sabotaged = sum(1 for t in truth if t.api_name != "DeleteAccount" and "token" in t.param_dict)
    assert info["api_correct"] == info["api_calls"] - sabotaged


def test_determinism_and_snapshot_restore(env: ApiBankEnv) -> None:
    other = make("apibank", **OPTIONS)
    for task_id in env.task_ids("test", 0, 5):
        a, b = env.reset(task_id=task_id), other.reset(task_id=task_id)
        assert a.observation == b.observation
        env.step(env.expert_action())
        snap = env.snapshot()
        restored = make("apibank", **OPTIONS)
        last = restored.restore(snap)
        assert restored.expert_action() == env.expert_action()
        assert last.observation == env._observation()
    assert env.reset(seed=7).info["task_id"] == other.reset(seed=7).info["task_id"]


def test_expert_over_http_full_accuracy() -> None:
    options = {**OPTIONS, "scoring": "corrected"}
    app = create_app("apibank", env_options=options, config=ServerConfig(record=False))
    with TestClient(app) as client:
        tasks = client.get("/tasks", params={"split": "test", "limit": 8}).json()["tasks"]
        correct = calls = 0
        for task in tasks:
            session = client.post("/sessions", json={"task_id": task["task_id"]}).json()
            sid = session["session_id"]
            while True:
                action = client.get(f"/sessions/{sid}/expert").json()["action"]
                step = client.post(f"/sessions/{sid}/step", json={"action": action}).json()
                if step["done"]:
                    calls += step["info"]["api_calls"]
                    correct += step["info"]["api_correct"]
                    assert step["info"]["api_correct_corrected"] == step["info"]["api_correct"]
                    assert step["info"]["api_correct_official"] <= step["info"]["api_correct"]
                    break
            client.delete(f"/sessions/{sid}")
        assert calls > 0 and correct == calls


def test_shipped_dialogues_with_data() -> None:
    if not (DATA_DIR / "init_database").is_dir():
        pytest.skip(MISSING)
    env = make("apibank", data_dir=str(DATA_DIR), **OPTIONS)
    assert env.splits()["level1"] == 213 and env.splits()["level2"] == 50
    obs = env.reset(task_id="l1-AddAgenda-level-1-1").observation
    assert "User: Hi, can you help me add a new schedule" in obs
    _, info = _play(env, "l1-AddAgenda-level-1-1")
    assert info["success"] and info["api_calls"] == 2
    # Calls with no ground-truth API turn still get one step (the last AI reply).
    dialogue = env.shared.dialogue("l2-QueryReminder-level-3-3")
    assert decision_points(dialogue) == [len(dialogue.turns) - 1]


def test_level3_official_judging_skips_the_name_check(env: ApiBankEnv) -> None:
    # lv3_evaluator.py runs whatever API the prediction names and applies the ground truth's rule.
    task_id = next(t for t in env.task_ids("train", 0, 10) if env.describe_task(t)["level"] == 3)
    env.reset(task_id=task_id)
    result = env.step("API-Request: [NoSuchApi(keywords='weather')]")
    assert result.reward == 0.0 and result.info["error"] == "invalid tool name."
    corrected = make("apibank", scoring="corrected", **OPTIONS)
    corrected.reset(task_id=task_id)
    result = corrected.step("API-Request: [NoSuchApi(keywords='weather')]")
    assert result.info["error"].startswith("API Name Mismatch: NoSuchApi vs ")


def test_first_decision_episodes_end_after_one_reply_with_its_verdict() -> None:
    """decisions=first: an episode is the dialogue up to its first decision point (an API call in
    every generated dialogue), judged alone: reward and success are that call's verdict."""
    env: ApiBankEnv = make("apibank", decisions="first", **OPTIONS)  # type: ignore[assignment]
    full: ApiBankEnv = make("apibank", **OPTIONS)  # type: ignore[assignment]
    for task_id in env.task_ids("train", 0, 20):
        first = env.reset(task_id=task_id)
        assert first.observation == full.reset(task_id=task_id).observation and first.info["decision_points"] == 1
        gold = env.expert_action()
        assert gold == full.expert_action() and gold is not None and gold.startswith("API-Request: [")
        right = env.step(gold)
        assert right.done and right.reward == 1.0 and right.info["success"] and right.info["kind"] == "api"
        env.reset(task_id=task_id)
        wrong = env.step("API-Request: [NoSuchApi(x='1')]")
        assert wrong.done and wrong.reward == 0.0 and not wrong.info["success"]
    with pytest.raises(ValueError, match="decisions must be one of all, first"):
        make("apibank", decisions="last", **OPTIONS)
