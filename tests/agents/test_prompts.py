"""Per-env prompts: AgentGym's conversation shape, observations with task and action lists, and
the ALFWorld prompt its env declares (envs/alfworld/data/agent_prompt.json)."""

from __future__ import annotations

from coevo.client.policies.prompts import ACKNOWLEDGEMENT, prompt_for, render_available_actions
from coevo.envs.alfworld.env import AlfWorldEnv
from coevo.wire import AgentPrompt

ALFWORLD = prompt_for("alfworld", AlfWorldEnv.action_format, AlfWorldEnv.action_example, AlfWorldEnv.agent_prompt)


def test_conversation_starts_with_instruction_and_acknowledgement() -> None:
    start = ALFWORLD.start()
    assert [m["role"] for m in start] == ["user", "assistant"]
    assert "Action:" in start[0]["content"] and start[1]["content"] == ACKNOWLEDGEMENT


def test_first_observation_adds_the_task_only_when_missing_and_lists_actions() -> None:
    info = {"task": "put a clean mug in cabinet.", "available_actions": ["look", "go to cabinet 1"]}
    with_task = ALFWORLD.render_observation(
        "You are in a room.\nYour task is to: put a clean mug in cabinet.", info, first=True
    )
    assert with_task.count("put a clean mug in cabinet.") == 1
    assert with_task.endswith("AVAILABLE ACTIONS: go to <a receptacle you have seen>, look")
    without = ALFWORLD.render_observation("You are in a room.", info, first=True)
    assert "Your task: put a clean mug in cabinet." in without
    later = ALFWORLD.render_observation("You arrive at cabinet 1.", info)
    assert "Your task" not in later


def test_alfworld_folds_go_to_commands_and_keeps_the_specific_ones() -> None:
    available = ["close fridge 1", "go to cabinet 1", "go to fridge 1", "help", "inventory", "look",
                 "take apple 2 from fridge 1", "take egg 1 from fridge 1"]  # fmt: skip
    assert ALFWORLD.render_actions(available) == (
        "AVAILABLE ACTIONS: close fridge 1, take apple 2 from fridge 1, take egg 1 from fridge 1, "
        "go to <a receptacle you have seen>, help, inventory, look"
    )
    assert ALFWORLD.render_actions([]) == ""


def test_action_sets_render_as_lists_or_key_lines() -> None:
    assert render_available_actions(["a", "b"]) == "AVAILABLE ACTIONS: a, b"
    assert (
        render_available_actions({"clickables": ["back", "next >"]})
        == "AVAILABLE ACTIONS:\nclickables: ['back', 'next >']"
    )
    assert render_available_actions([]) == "" and render_available_actions(None) == ""


def test_generic_prompt_uses_the_servers_action_format() -> None:
    prompt = prompt_for("some-new-env", "click[x] or search[y]")
    assert "click[x] or search[y]" in prompt.instruction
    assert not prompt.single_line_action and prompt.show_available_actions
    assert prompt.render_actions(["go to a", "look"]) == "AVAILABLE ACTIONS: go to a, look"  # nothing folded


def test_alfworld_expert_thoughts_follow_the_command() -> None:
    assert ALFWORLD.expert_thought("go to fridge 1") == "I should go to fridge 1 next."
    assert "heat it with the microwave 1" in ALFWORLD.expert_thought("heat potato 1 with microwave 1")
    assert "put the apple 2 in/on the countertop 1" in ALFWORLD.expert_thought("move apple 2 to countertop 1")
    reply = ALFWORLD.format_reply(ALFWORLD.expert_thought("look"), "look")
    assert reply == "Thought: I will look.\nAction: look"


def test_invalid_feedback_repeats_the_format_and_the_actions() -> None:
    text = ALFWORLD.render_invalid("no 'Action:' line was found in your reply.", {"available_actions": ["look"]})
    assert (
        prompt_for("guess", "guess N")
        .render_invalid("x", {"available_actions": ["a", "b"]})
        .endswith("AVAILABLE ACTIONS: a, b")
    )
    assert text.startswith("Invalid action: no 'Action:' line")
    assert "Thought: The task needs an apple" in text and text.endswith("AVAILABLE ACTIONS: look")
    assert "<" not in text  # a worked example, no placeholder a small model would copy


def test_generic_prompt_shows_the_envs_worked_example() -> None:
    prompt = prompt_for("some-new-env", "click[x] or search[y]", ["I will look for shoes.", "search[shoes]"])
    assert prompt.instruction.endswith("Thought: I will look for shoes.\nAction: search[shoes]")
    bare = prompt_for("other-env", "free text")
    assert "<" not in bare.instruction and '"Action:"' in bare.instruction


def test_replies_without_an_action_are_asked_again_or_stepped_whole_as_the_env_declares() -> None:
    asking, stepping = prompt_for("x", "calls"), prompt_for("x", "calls", spec=AgentPrompt(reply_without_action="step"))
    prose = "I would call\nthe weather function.<|im_end|>"
    assert not asking.read(prose).ok and "no 'Action:' line" in (asking.read(prose).error or "")
    assert stepping.read(prose).action == "I would call\nthe weather function."
    labelled = "Thought: the weather\nAction: [get_weather(city='Paris')]"
    assert asking.read(labelled) == stepping.read(labelled)
    assert stepping.read(labelled).action == "[get_weather(city='Paris')]"
    assert not stepping.read("<|im_end|>").ok  # an empty reply is still no action
