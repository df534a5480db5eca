"""BFCL env behaviour: catalogue, single-turn scoring, multi-turn turn flow, safety of parsing."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

from coevo.envs.base import EpisodeFinished, UnknownSplit, UnknownTask
from coevo.envs.bfcl import source_calls
from coevo.envs.bfcl.apis import ApiWorld
from coevo.envs.bfcl.calls import Call, decode_reply, parse_ground_truth_call
from coevo.envs.bfcl.tasks import CATEGORIES, Language
from coevo.envs.bfcl.env import BfclEnv
from coevo.envs.bfcl.expert import TURN_DONE_REPLY, render_calls
from coevo.envs.registry import make

# Entry counts of bfcl-eval 2026.3.23.
COUNTS = {
    "simple_python": 400,
    "simple_java": 100,
    "simple_javascript": 50,
    "multiple": 200,
    "parallel": 200,
    "parallel_multiple": 200,
    "irrelevance": 240,
    "live_simple": 258,
    "live_multiple": 1053,
    "live_parallel": 16,
    "live_parallel_multiple": 24,
    "live_irrelevance": 884,
    "live_relevance": 16,
    "multi_turn_base": 200,
    "multi_turn_miss_func": 200,
    "multi_turn_miss_param": 200,
    "multi_turn_long_context": 200,
}


@pytest.fixture(scope="module")
def shared():  # type: ignore[no-untyped-def]
    return BfclEnv.load_shared()


@pytest.fixture
def env(shared) -> BfclEnv:  # type: ignore[no-untyped-def]
    return BfclEnv(shared=shared)


# --------------------------------------------------------------------------- catalogue
def test_splits_are_bfcl_categories_with_their_sizes(env: BfclEnv) -> None:
    assert dict(env.splits()) == COUNTS
    assert tuple(COUNTS) == CATEGORIES
    assert env.task_ids("live_simple", 0, 2) == ["live_simple_0-0-0", "live_simple_1-1-0"]
    assert env.task_ids("multi_turn_base", 198) == ["multi_turn_base_198", "multi_turn_base_199"]
    assert env.split_of("live_parallel_multiple_3-2-1") == "live_parallel_multiple"
    assert env.split_of("multi_turn_miss_func_7") == "multi_turn_miss_func"
    with pytest.raises(UnknownTask):
        env.split_of("simple_python_400")
    with pytest.raises(UnknownTask):
        env.split_of("exec_simple_0")
    with pytest.raises(UnknownSplit):
        env.task_ids("memory")
    assert env.describe_task("multi_turn_base_0") == {
        "category": "multi_turn_base",
        "language": "python",
        "multi_turn": True,
        "turns": 4,
        "involved_classes": ["TwitterAPI", "GorillaFileSystem"],
    }


def test_categories_load_lazily(shared) -> None:  # type: ignore[no-untyped-def]
    fresh = BfclEnv(shared=BfclEnv.load_shared())
    assert fresh.shared.catalog._loaded == {}
    fresh.reset(task_id="simple_java_3")
    assert set(fresh.shared.catalog._loaded) == {"simple_java"}


def test_registry_builds_the_env() -> None:
    env = make("bfcl")
    assert isinstance(env, BfclEnv)
    result = env.reset(split="parallel", seed=5)
    assert result.info["category"] == "parallel" and result.info["split"] == "parallel"
    assert env.reset(split="parallel", seed=5).observation == result.observation


# --------------------------------------------------------------------------- single turn
def test_single_turn_reset_shows_bfcl_prompt_and_functions(env: BfclEnv) -> None:
    result = env.reset(task_id="simple_python_0")
    system, user = result.info["messages"]
    assert system["role"] == "system" and user["role"] == "user"
    assert system["content"].startswith("You are an expert in composing functions.")
    assert "[func_name1(params_name1=params_value1" in system["content"]
    assert '"name": "calculate_triangle_area"' in system["content"]
    assert user["content"] == result.info["task"]
    assert result.info["task"] in result.observation
    (doc,) = result.info["functions"]
    assert doc["description"].endswith("Note that the provided function is in Python 3 syntax.")


def test_java_functions_are_shown_as_strings_of_source(env: BfclEnv) -> None:
    result = env.reset(task_id="simple_java_1")
    doc = result.info["functions"][0]
    assert {p["type"] for p in doc["parameters"]["properties"].values()} == {"string"}
    assert "Java 8 SDK syntax" in doc["description"]
    # the checker keeps using the original types
    assert (
        env.entry is not None
        and env.entry.functions[0]["parameters"]["properties"]["useShortName"]["type"] == "boolean"
    )


@pytest.mark.parametrize(
    ("action", "reward"),
    [
        ("[calculate_triangle_area(base=10, height=5)]", 1.0),
        ("calculate_triangle_area(base=10, height=5, unit='units')", 1.0),
        ("```\n[calculate_triangle_area(base=10, height=5)]\n```", 1.0),  # backticks stripped
        ("```python\n[calculate_triangle_area(base=10, height=5)]\n```", 0.0),  # as in BFCL
        ('[{"name": "calculate_triangle_area", "arguments": {"base": 10, "height": 5}}]', 0.0),
        ("[calculate_triangle_area(base=10.0, height=5)]", 0.0),  # float for an integer
        ("[calculate_triangle_area(base=10)]", 0.0),
        ("[calculate_triangle_area(base=10, height=5, color='red')]", 0.0),
        ("[calculate_triangle_area(base=10, height=5), calculate_triangle_area(base=1, height=2)]", 0.0),
        ("[calculate_triangle_area(10, 5)]", 0.0),
        ("[calculate_triangle_area(base=5 * 2, height=5)]", 1.0),  # BFCL computes arithmetic
        ("[calculate_triangle_area(base=ten, height=5)]", 0.0),  # the string "ten"
        ("The area is 25.", 0.0),
    ],
)
def test_single_turn_scoring(env: BfclEnv, action: str, reward: float) -> None:
    env.reset(task_id="simple_python_0")
    result = env.step(action)
    assert result.done and result.reward == reward, result.info
    assert result.observation.startswith("Correct" if reward else "Incorrect")
    with pytest.raises(EpisodeFinished):
        env.step(action)


@pytest.mark.parametrize(
    "action",
    [
        "```python\n[calculate_triangle_area(base=10, height=5)]\n```",
        '[{"name": "calculate_triangle_area", "arguments": {"base": 10, "height": 5}}]',
        '{"function": "calculate_triangle_area", "parameters": {"base": 10, "height": 5}}',
        "<TOOLCALL>[calculate_triangle_area(base=10, height=5)]</TOOLCALL>",
    ],
)
def test_lenient_decoder_option(action: str) -> None:
    lenient = BfclEnv(shared=BfclEnv.load_shared(decoder="lenient"))
    lenient.reset(task_id="simple_python_0")
    assert lenient.step(action).reward == 1.0
    with pytest.raises(ValueError, match="unknown decoder"):
        BfclEnv.load_shared(decoder="json")


def test_relevance_and_irrelevance(env: BfclEnv) -> None:
    env.reset(task_id="irrelevance_0")
    assert env.step("None of these functions can answer that.").reward == 1.0
    env.reset(task_id="irrelevance_0")
    name = env.entry.functions[0]["name"]  # type: ignore[union-attr]
    assert env.step(f"[{name}(x=1)]").reward == 0.0
    env.reset(task_id="irrelevance_0")
    assert env.step("[]").reward == 1.0
    env.reset(task_id="live_relevance_0-0-0")
    assert env.expert_action() is None  # no answer file: there is nothing to copy
    assert env.step("I would rather not.").reward == 0.0
    env.reset(task_id="live_relevance_0-0-0")
    assert env.step("[search_engine.query(prompt='peacock portrait')]").reward == 1.0


def test_parallel_is_order_free(env: BfclEnv) -> None:
    env.reset(task_id="parallel_multiple_0")
    expert = env.expert_action()
    assert expert is not None
    calls = decode_reply(expert).calls
    assert len(calls) == 2
    env.reset(task_id="parallel_multiple_0")
    assert env.step(render_calls(list(reversed(calls)))).reward == 1.0


def test_malicious_arguments_are_never_evaluated(env: BfclEnv, tmp_path: Path) -> None:
    target = tmp_path / "pwned"
    env.reset(task_id="simple_python_0")
    call = f"__import__('os').system('touch {target}')"
    result = env.step(f"[calculate_triangle_area(base={call}, height=5)]")
    assert result.reward == 0.0 and not target.exists()
    assert "got str" in result.observation  # BFCL reads a call without keywords as its text
    env.reset(task_id="simple_python_0")
    result = env.step(f"[calculate_triangle_area(base={call} + 1, height=5)]")  # BFCL evals this
    assert result.reward == 0.0 and not target.exists()
    assert "could not read function calls" in result.observation


# --------------------------------------------------------------------------- calls
def test_ground_truth_calls_parse_without_eval() -> None:
    call = parse_ground_truth_call("sort('final_report.pdf')")
    assert call == Call("sort", {}, ("final_report.pdf",))
    assert parse_ground_truth_call("mv(source='a', destination='b')").kwargs == {"source": "a", "destination": "b"}
    with pytest.raises(ValueError):
        parse_ground_truth_call("rm(file_name=open('x').read())")
    with pytest.raises(ValueError):
        parse_ground_truth_call("import os")


def test_source_text_arguments_for_java_and_javascript() -> None:
    reply = '[f(flag=true, n=5, arr=[1, 2], s="text", m=myVar)]'
    decoded = decode_reply(reply, Language.JAVASCRIPT)
    assert decoded.calls[0].kwargs == {"flag": "true", "n": "5", "arr": "[1, 2]", "s": "text", "m": "myVar"}
    if source_calls.available():  # tree-sitter-java, as in BFCL: `[1, 2]` is no Java expression
        assert decode_reply(reply, Language.JAVA).error is not None
    assert decode_reply("[f(from='1', to='2')]", Language.JAVA).calls[0].kwargs == {"from": "1", "to": "2"}


def test_decoder_limits() -> None:
    assert decode_reply("[f(x=1e999)]").error
    assert decode_reply("[" + ", ".join(["f(a=1)"] * 65) + "]").error
    assert decode_reply("[f(**{'a': 1})]").error
    assert decode_reply("[f(a=1, a=2)]").calls[0].kwargs == {"a": 2}  # BFCL: the last one
    assert not decode_reply("plain words").has_call
    assert decode_reply("[f(]").error is not None
    lenient = "lenient"
    assert decode_reply("[f(x=1e999)]", decoder=lenient).calls[0].error
    assert decode_reply("[f(**{'a': 1})]", decoder=lenient).calls[0].error


# --------------------------------------------------------------------------- multi turn
def test_multi_turn_episode_flow(env: BfclEnv) -> None:
    reset = env.reset(task_id="multi_turn_base_0")
    assert reset.info["turn"] == 0 and reset.info["turns"] == 4
    assert "Move 'final_report.pdf' within document directory" in reset.observation
    names = {f["name"] for f in reset.info["functions"]}
    assert {"mv", "post_tweet", "cd"} <= names

    step = env.step("[cd(folder='document'), mkdir(dir_name='temp')]")
    assert not step.done and step.reward == 0.0
    results = ast.literal_eval(step.observation)
    assert [r["name"] for r in results] == ["cd(folder='document')", "mkdir(dir_name='temp')"]
    assert json.loads(results[0]["content"]) == {"current_working_directory": "document"}
    assert results[0]["role"] == "tool"

    step = env.step("[mv(source='final_report.pdf', destination='temp')]")
    assert not step.done
    step = env.step("Done: the report is in temp.")
    assert step.info["turn_ended"] and step.info["turn_valid"] and step.info["turn"] == 1
    assert step.observation.startswith("Perform a detailed search using grep")
    assert "parse_error" not in step.info


def test_failed_turn_fails_the_episode_but_the_conversation_goes_on(env: BfclEnv) -> None:
    env.reset(task_id="multi_turn_base_0")
    step = env.step("I will not do that.")  # ends turn 0 without the required calls
    assert step.info["turn_valid"] is False and not step.done
    while not step.done:
        step = env.step(env.expert_action() or "")
    assert step.reward == 0.0
    assert step.info["failures"][0] == {"turn": 0, "error_type": "multi_turn:empty_turn_model_response"}


def test_malformed_calls_get_clear_observations(env: BfclEnv) -> None:
    env.reset(task_id="multi_turn_base_0")
    step = env.step("[cd(folder=document), nosuch(x=1), cd('document'), exit(code=1)]")
    contents = [r["content"] for r in ast.literal_eval(step.observation)]
    assert json.loads(contents[0]) == {"current_working_directory": "document"}  # a bare name
    assert contents[1] == "Error during execution: name 'nosuch' is not defined"
    assert contents[2] == (  # BFCL drops positional arguments
        "Error during execution: GorillaFileSystem.cd() missing 1 required positional argument: 'folder'"
    )
    assert contents[3] == "Error during execution: Function call exit is not allowed."
    step = env.step("[cd(folder='document'), mkdir(dir_name=")  # unreadable: the turn ends
    assert step.info["turn_ended"] and "parse_error" in step.info
    assert step.observation.startswith("(No function call could be read from your last reply")


def test_miss_func_adds_the_held_out_function_at_its_turn(env: BfclEnv) -> None:
    reset = env.reset(task_id="multi_turn_miss_func_0")
    assert "sort" not in {f["name"] for f in reset.info["functions"]}
    step = None
    for _ in range(3):  # turns 0-2 by the expert
        while True:
            step = env.step(env.expert_action() or "")
            if step.info.get("turn_ended"):
                break
    assert step is not None and step.info["turn"] == 3
    assert [f["name"] for f in step.info["new_functions"]] == ["sort"]
    assert step.observation.endswith("I have updated some more functions you can choose from. What about now?")
    assert "'name': 'sort'" in step.observation


def test_miss_param_turn_expects_no_call(env: BfclEnv) -> None:
    env.reset(task_id="multi_turn_miss_param_0")
    truth = env.shared.truth.get(env.entry)
    empty = [i for i, t in enumerate(truth) if not t.calls]
    assert empty, "a miss_param entry has a turn without ground truth"
    while env.turns is not None and env.turns.turn < empty[0]:
        env.step(env.expert_action() or "")
    assert env.expert_action() is not None and "cannot" in (env.expert_action() or "")


def test_more_than_twenty_steps_in_a_turn_force_quits(env: BfclEnv) -> None:
    env.reset(task_id="multi_turn_base_0")
    for i in range(20):
        assert not env.step("[pwd()]").done, i
    step = env.step("[pwd()]")
    assert step.done and step.reward == 0.0 and step.info["force_quit"]


def test_snapshot_restore_replays_the_same_world(env: BfclEnv, shared: Any) -> None:
    env.reset(task_id="multi_turn_base_3")
    env.step(env.expert_action() or "")
    snap = env.snapshot()
    other = BfclEnv(shared=shared)
    other.restore(snap)
    assert other.turns is not None and env.turns is not None
    assert other.turns.world.public_state() == env.turns.world.public_state()
    assert other.turns.results == env.turns.results


def test_sessions_do_not_share_mutable_defaults(env: BfclEnv) -> None:
    """post_tweet's `mentions=[]` default must not carry one episode's mention into another."""
    config = {"TwitterAPI": {"username": "a", "password": "p", "tweet_counter": 0, "tweets": {}}}
    first = ApiWorld(["TwitterAPI"], config, long_context=False)
    first.execute(Call("authenticate_twitter", {"username": "a", "password": "p"}))
    first.execute(Call("post_tweet", {"content": "hi"}))
    first.execute(Call("mention", {"tweet_id": 0, "mentioned_usernames": ["@b"]}))
    second = ApiWorld(["TwitterAPI"], config, long_context=False)
    second.execute(Call("authenticate_twitter", {"username": "a", "password": "p"}))
    result = json.loads(second.execute(Call("post_tweet", {"content": "hello"})))
    assert result["mentions"] == []


def test_resource_guards(env: BfclEnv) -> None:
    world = ApiWorld(["MathAPI"], {}, long_context=False)
    assert "exceed" in world.execute(Call("power", {"base": 10, "exponent": 10**9}))
    assert json.loads(world.execute(Call("power", {"base": 2, "exponent": 10}))) == {"result": 1024}
    assert "precision" in world.execute(Call("logarithm", {"value": 10, "base": 2, "precision": 10**7}))


def test_expert_plays_multi_turn_to_success(env: BfclEnv) -> None:
    env.reset(task_id="multi_turn_long_context_5")
    step = None
    while not env.done:
        step = env.step(env.expert_action() or "")
    assert step is not None and step.reward == 1.0 and step.info["valid"]
    assert env.expert_action() is None


def test_turn_done_reply_is_not_a_call() -> None:
    assert not decode_reply(TURN_DONE_REPLY).has_call
