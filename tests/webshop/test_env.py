"""The WebShop env in process: WebShop's action semantics, determinism, goals and the expert."""

from __future__ import annotations

from pathlib import Path

import pytest

from coevo.envs.base import Env, UnknownTask
from coevo.envs.registry import make
from coevo.envs.webshop.env import WebShopEnv, parse_action
from coevo.envs.webshop.tasks import Manifest


@pytest.fixture
def env(generated_dir: Path) -> WebShopEnv:
    e = make("webshop", data_dir=str(generated_dir))
    assert isinstance(e, WebShopEnv)
    return e


def _run_expert(env: WebShopEnv, task_id: str) -> float:
    env.reset(task_id=task_id)
    result = None
    while not env.done:
        action = env.expert_action()
        if action is None:
            return 0.0
        result = env.step(action)
    assert result is not None
    return result.reward


def test_parse_action_is_webshops() -> None:
    assert parse_action("search[red shoes]") == ("search", "red shoes")
    assert parse_action("click[< Prev]") == ("click", "< Prev")
    assert parse_action("click[a[b]c]") == ("click[a", "b]c")  # greedy, as WebShop's regex
    assert parse_action("buy now") == ("buy now", None)


def test_catalogue_and_splits(env: WebShopEnv, generated_dir: Path) -> None:
    manifest = Manifest.read(generated_dir)
    splits = env.splits()
    assert splits["test"] == 500 and splits["eval"] == 1000
    assert sum(splits.values()) == manifest.synthetic_goals
    assert env.task_ids("test", 498, 5) == ["498", "499"] and env.task_ids("eval", 0, 1) == ["500"]
    assert env.split_of("0") == "test" and env.split_of("1500") == "train"
    with pytest.raises(UnknownTask):
        env.split_of(str(manifest.synthetic_goals))
    with pytest.raises(UnknownTask):
        env.reset(task_id="x1")
    described = env.describe_task("3")
    assert described["instruction"].startswith("Find me ") and "asin" not in described


def test_goal_text_is_webshops_synthetic_format(env: WebShopEnv) -> None:
    result = env.reset(task_id="0")
    goal = env.goal
    assert goal is not None
    text = result.info["task"]
    assert text == goal.instruction_text and text.startswith(goal.product.instruction or "")
    option_text = ", and ".join(f"{k}: {v}" for k, v in goal.options.items())  # type: ignore[union-attr]
    assert (" with " + option_text) in text if option_text else True
    assert text.endswith(f", and price lower than {goal.price_upper:.2f} dollars")
    assert goal.price_upper > goal.product.price and goal.price_upper % 10 == 0
    assert result.observation == f"WebShop [SEP] Instruction: [SEP] {text} [SEP] Search"
    assert result.info["available_actions"] == {"has_search_bar": True, "clickables": ["search"]}


def test_clicks_only_on_the_current_page_and_invalid_actions_change_nothing(env: WebShopEnv) -> None:
    start = env.reset(task_id="1").observation
    for action in ["click[buy now]", "click[search]", "click[next >]", "Search[shoes]", "search[]", "look"]:
        step = env.step(action)
        assert step.observation == start and step.reward == 0.0 and not step.done and step.info["valid"] is False
    results = env.step("search[Black Machine Wash]")
    assert results.info["valid"] and results.observation.startswith("Instruction: [SEP] ")
    assert "Page 1 (Total results: 50)" in results.observation
    clickables = results.info["available_actions"]["clickables"]
    assert clickables[:2] == ["back to search", "next >"] and len(clickables) == 12
    same = env.step("click[buy now]")  # not on a results page
    assert same.observation == results.observation and same.info["valid"] is False


def test_navigation_like_webshop(env: WebShopEnv) -> None:
    env.reset(task_id="2")
    first = env.step("search[black machine wash]")
    second = env.step("click[Next >]")  # arguments are lower-cased
    assert (
        "Page 2 (Total results: 50)" in second.observation
        and "< prev" in second.info["available_actions"]["clickables"]
    )
    back = env.step("click[< prev]")
    assert back.observation == first.observation
    asin = first.info["available_actions"]["clickables"][2]
    item = env.step(f"click[{asin}]")
    assert asin.upper() in env.data.catalog.listing([env.product_idx])[0].asin and "Buy Now" in item.observation
    options = [c for c, g in env.page.clickables.items() if g is not None]  # type: ignore[union-attr]
    if options:
        env.step(f"click[{options[0]}]")
        assert env.options == {env.page.clickables[options[0]]: options[0]}  # type: ignore[union-attr]
    features = env.step("click[features]")
    assert features.info["available_actions"]["clickables"] == ["back to search", "< prev"]
    again = env.step("click[< prev]")
    assert again.observation == env.page.observation and env.where == "item"  # type: ignore[union-attr]
    to_results = env.step("click[< prev]")
    assert to_results.observation == first.observation and env.options == {}  # options reset by the search
    searched = env.step("search[usb microphone]")  # search works from any page, as in WebShop
    assert searched.info["valid"] and env.keywords == "usb microphone"
    home = env.step("click[back to search]")
    assert home.observation.startswith("WebShop [SEP] Instruction:") and env.keywords is None


def test_buying_ends_the_episode_with_webshops_reward(env: WebShopEnv) -> None:
    env.reset(task_id="4")
    env.step("search[black machine wash]")
    asin = env.page.available_actions()["clickables"][2]  # type: ignore[union-attr]
    env.step(f"click[{asin}]")
    done = env.step("click[buy now]")
    assert done.done and 0.0 <= done.reward <= 1.0
    assert done.observation.startswith("Thank you for shopping with us! [SEP]")
    assert done.observation.endswith(
        f"[SEP] Your score (min 0.0, max 1.0) [SEP] {done.reward} [SEP] Reward Details [SEP] None"
    )
    assert set(done.info["reward_details"]) >= {"r_type", "r_att", "r_price", "title_score"}


def test_replay_is_deterministic(env: WebShopEnv, generated_dir: Path) -> None:
    env.reset(task_id="7", seed=3)
    for action in ["search[red dress]", "click[next >]", "click[back to search]", "search[coffee beans]"]:
        last = env.step(action)
    snapshot = env.snapshot()
    other = make("webshop", data_dir=str(generated_dir))
    restored = other.restore(snapshot)
    assert restored.observation == last.observation and other.page.clickables == env.page.clickables  # type: ignore[union-attr]


def test_expert_buys_the_goal_for_reward_one(env: WebShopEnv) -> None:
    rewards = [_run_expert(env, task) for task in env.task_ids("test", 0, 150)]
    assert sum(r == 1.0 for r in rewards) / len(rewards) >= 0.99
    assert env.steps <= env.max_steps


def test_per_session_state_is_small(env: WebShopEnv) -> None:
    import pickle

    env.reset(task_id="9")
    env.step("search[black machine wash]")
    state = {k: v for k, v in vars(env).items() if k not in ("shared", "data", "goal", "options")}
    assert len(pickle.dumps(state)) < 8_000  # page text, 50 result numbers, a few fields


def test_webshop_files_with_human_goals(files_dir: Path) -> None:
    manifest = Manifest.read(files_dir)
    assert manifest.source.endswith("data") and manifest.products == 200  # duplicate and "nan" skipped
    assert manifest.human_goals == 67  # one per 3rd product; goals without attributes skipped
    env = make("webshop", data_dir=str(files_dir))
    assert env.data.goals.kind == "human" and sum(env.splits().values()) == 67
    result = env.reset(task_id="0")
    assert env.goal is not None and env.goal.kind == "human"
    assert result.info["task"].startswith("i need ") and ". and price" not in result.info["task"]  # "." stripped
    rewards = [_run_expert(env, t) for t in env.task_ids("test")]
    assert sum(r == 1.0 for r in rewards) / len(rewards) >= 0.99
    synthetic = make("webshop", data_dir=str(files_dir), goals="synthetic")
    assert synthetic.data.goals.kind == "synthetic" and synthetic.splits()["test"] == 500


def _same_but_goal(x: str, y: str, goal_texts: tuple[str, str]) -> bool:
    return x.replace(goal_texts[0], "<goal>") == y.replace(goal_texts[1], "<goal>")


def test_files_and_generated_builds_agree(files_dir: Path, tmp_path: Path) -> None:
    """The generator's records, read back from WebShop-format files, give the same shop; only
    the goals' price ceilings differ (WebShop's files draw them as AgentGym's server does)."""
    from coevo.envs.webshop.tasks import build

    build(tmp_path / "gen", products=200, seed=3)
    generated = make("webshop", data_dir=str(tmp_path / "gen"))
    from_files = make("webshop", data_dir=str(files_dir), goals="synthetic")
    assert isinstance(generated, WebShopEnv) and isinstance(from_files, WebShopEnv)
    assert generated.splits() == from_files.splits()
    ceilings_differ = 0
    for task in ["0", "17", "600", "601", "602", "603"]:
        a, b = generated.reset(task_id=task), from_files.reset(task_id=task)
        ga, gb = generated.goal, from_files.goal
        assert ga is not None and gb is not None
        assert (ga.number, ga.product, ga.attributes, ga.options) == (gb.number, gb.product, gb.attributes, gb.options)
        cut = ", and price lower than"
        assert ga.instruction_text.split(cut)[0] == gb.instruction_text.split(cut)[0]
        ceilings_differ += ga.price_upper != gb.price_upper

        texts = (ga.instruction_text, gb.instruction_text)
        assert _same_but_goal(a.observation, b.observation, texts)
        for action in ["search[black machine wash]", "click[next >]"]:
            assert _same_but_goal(generated.step(action).observation, from_files.step(action).observation, texts)
    assert ceilings_differ  # the two rules are different draws


def test_episode_cap_is_an_option(generated_dir: Path) -> None:
    """15 steps by default (ours: WebShop's text env has no cap), max_steps=N, 0 or none: uncapped."""

    def steps_until_truncated(env: Env, limit: int = 40) -> int | None:
        env.reset(task_id="3")
        for n in range(1, limit + 1):
            result = env.step("click[nothing here]")
            if result.truncated:
                return n
        return None

    assert steps_until_truncated(make("webshop", data_dir=str(generated_dir))) == 15
    assert steps_until_truncated(make("webshop", data_dir=str(generated_dir), max_steps="4")) == 4
    for uncapped in ("0", "none", 0):
        assert steps_until_truncated(make("webshop", data_dir=str(generated_dir), max_steps=uncapped)) is None
    agentgym = make("webshop", data_dir=str(generated_dir), max_steps="4")
    agentgym.agentgym = True  # what the AgentGym routes set: AgentGym's shop server has no cap
    assert steps_until_truncated(agentgym) is None
    for bad in ("-1", "ten", True):
        with pytest.raises(ValueError, match="max_steps is a step count"):
            make("webshop", data_dir=str(generated_dir), max_steps=bad)
