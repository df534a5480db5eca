"""Envs describe themselves: the agent prompt and AgentGym route style an env class declares are
served by /info and followed by the compat routes and the client, with no env named in either."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from coevo.client.policies.prompts import prompt_from_info
from coevo.wire import InfoResponse, ThoughtRule
from tests.server.conftest import serve

DESCRIBED = "tests.server.envs:DescribedGuessEnv"


def test_info_serves_the_envs_agent_prompt_and_route_style(sqlite_url: str) -> None:
    with serve(DESCRIBED, db_url=sqlite_url) as c:
        info = c.get("/info").json()
    assert info["agentgym_style"] == "env_idx"
    assert info["agent_prompt"]["instruction"] == "Guess the hidden number between 1 and 100."
    assert info["agent_prompt"]["fold_actions"] == {"prefix": "guess ", "label": "guess N", "listed_last": ["give up"]}


def test_an_env_without_a_description_gets_the_generic_prompt_and_id_style(sqlite_url: str) -> None:
    with serve(db_url=sqlite_url) as c:
        info = InfoResponse.model_validate(c.get("/info").json())
    assert info.agentgym_style == "id"
    prompt = prompt_from_info(info)
    assert "Actions look like: guess N" in prompt.instruction and not prompt.single_line_action
    assert prompt.expert_thought("guess 3") == "I will take the next step towards the goal."


def test_the_client_builds_its_prompt_from_info(sqlite_url: str) -> None:
    with serve(DESCRIBED, db_url=sqlite_url) as c:
        prompt = prompt_from_info(InfoResponse.model_validate(c.get("/info").json()))
    assert prompt.instruction.startswith("Guess the hidden number between 1 and 100.\n")
    assert prompt.instruction.endswith("Action: guess 50")  # the env's worked example
    assert prompt.single_line_action
    assert prompt.expert_thought(" guess 7 ") == "I try 7 next."
    assert prompt.expert_thought("give up") == "I will give up."
    assert (
        prompt.render_actions(["guess 1", "give up", "guess 2", "hint"]) == "AVAILABLE ACTIONS: hint, guess N, give up"
    )
    assert prompt.render_actions(["hint"]) == "AVAILABLE ACTIONS: hint"
    assert prompt.render_actions([]) == "" and prompt.render_actions(None) == ""


def test_auto_route_style_follows_the_env(sqlite_url: str) -> None:
    with serve(DESCRIBED, db_url=sqlite_url) as c:
        created = c.post("/create")
        assert created.status_code == 200 and isinstance(created.json(), str)  # env_idx: the bare id
        step = c.post("/step", json={"env_idx": created.json(), "action": "guess 50"}).json()
        assert set(step) == {"state", "reward", "done", "info"}
    with serve(DESCRIBED, db_url=sqlite_url, agentgym_style="id") as c:  # the server's setting wins
        assert "id" in c.post("/create").json()


def test_a_broken_thought_rule_is_refused_where_the_env_declares_it() -> None:
    assert ThoughtRule(pattern=r"^go to (.+)$", thought="I go to {0}.").thought == "I go to {0}."
    with pytest.raises(ValidationError, match="not a regular expression"):
        ThoughtRule(pattern=r"^go to (.+$", thought="x")
    with pytest.raises(ValidationError, match="does not fit"):
        ThoughtRule(pattern=r"^take (.+)$", thought="I take {0} from {1}.")
    with pytest.raises(ValidationError, match="does not fit"):
        ThoughtRule(pattern=r"^look$", thought="I {look}.")


@pytest.mark.parametrize(
    ("env", "options", "cap"),
    [("searchqa", {}, 10), ("searchqa", {"max_searches": "2"}, 6), ("webshop", {"max_steps": "7"}, 7)],
)
def test_info_reports_the_step_cap_the_servers_options_give(env: str, options: dict[str, str], cap: int) -> None:
    """An option that changes an env's episode cap changes the cap /info tells clients, which
    they take as the rollout's round limit (it used to be the class default: 8 for searchqa)."""
    with serve(env, env_options=options) as c:
        assert c.get("/info").json()["max_steps"] == cap
        session = c.post("/sessions", json={}).json()["session_id"]
        steps = 0
        while True:
            steps += 1
            result = c.post(f"/sessions/{session}/step", json={"action": "<think>x</think>"}).json()
            if result["done"] or result["truncated"] or steps > cap + 1:
                break
    assert steps <= cap
