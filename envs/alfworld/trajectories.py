"""Expert episodes as behavioural-cloning records, in AgentGym's AgentTraj conversation format.

A record alternates `human` turns (the instruction, then each observation) and `gpt` turns
("Thought: ...\nAction: ..."), with `loss` marking the turns a trainer learns from:

    {"item_id": "alfworld_valid_seen-3", "reward": 1.0, "conversations": [
        {"from": "human", "loss": None, "value": "<instruction>"},
        {"from": "gpt", "loss": False, "value": "OK"},
        {"from": "human", "loss": None, "value": "<welcome text and task>"},
        {"from": "gpt", "loss": True, "value": "Thought: ...\nAction: go to fridge 1"},
        {"from": "human", "loss": None, "value": "You arrive at fridge 1. ..."}, ...]}
"""

from __future__ import annotations

from typing import Any

from coevo.envs.alfworld.env import AlfWorldEnv

INSTRUCTION = (
    "Interact with a household to solve a task. Each turn, you see what happened and the task; answer "
    "with your reasoning and one command, in the form\nThought: your reasoning\nAction: the command\n"
    "Commands: go to <receptacle>; open <receptacle>; close <receptacle>; take <object> from <receptacle>; "
    "{put}; use <object>; heat <object> with <receptacle>; clean <object> with <receptacle>; "
    "cool <object> with <receptacle>; slice <object> with <object>; examine <something>; inventory; look. "
    'Use the names exactly as you see them, e.g. "cabinet 1".'
)


def instruction(env: AlfWorldEnv) -> str:
    put = env.game.dialect.put("<object>", "<receptacle>")
    return INSTRUCTION.format(put=put)


def expert_record(env: AlfWorldEnv, task_id: str) -> dict[str, Any]:
    """Play the expert on one task and return the episode as an AgentTraj record."""
    reset = env.reset(task_id=task_id)
    conversations: list[dict[str, Any]] = [
        {"from": "human", "loss": None, "value": instruction(env)},
        {"from": "gpt", "loss": False, "value": "OK"},
        {"from": "human", "loss": None, "value": reset.observation},
    ]
    reward = 0.0
    while (turn := env.expert_turn()) is not None:
        conversations.append({"from": "gpt", "loss": True, "value": turn.react()})
        step = env.step(turn.action)
        reward = step.reward
        if step.done or step.truncated:
            break
        conversations.append({"from": "human", "loss": None, "value": step.observation})
    return {"item_id": f"alfworld_{task_id}", "reward": reward, "conversations": conversations}
