"""AgentGym's tool servers (`agentenv-tool`: weather, movie, academia, sheet, todo), as their
routes answer: "ok" to `GET /`; `/create {"id": i}` starts task i and returns the bare session
id, `/reset {"env_idx", "id"}` the first observation, `/step` `{observation, reward, done}`;
they keep no end state (a step after `finish` is taken like any other); `/observation` always
repeats the first observation, because their envs never append to the state list it reads.
Task i is line i of the env's file, our `test` split."""

from __future__ import annotations

from typing import Any

from coevo.envs.agentgym import AgentGymAdapter, AgentGymProfile

#: The first observation of an AgentGym session (its /reset and every /observation).
FIRST = "Now new trial starts.\nYou should perform actions to accomplish the goal: {goal}\nGive me one action."


def first_observation(goal: str) -> str:
    return FIRST.format(goal=goal)


def step_observation(observation: str) -> str:
    """A tool's result as AgentGym's server wraps it."""
    return f"Observation: {observation}\nGive me one action."


class ToolAgentGym(AgentGymAdapter[Any]):
    """/observation: the first observation, whatever happened since."""

    def observation(self) -> str | None:
        task = getattr(self.env, "task", None)
        return first_observation(task.goal) if task is not None else None


PROFILE = AgentGymProfile(
    style="env_idx_item",
    indices=(("test", 0),),
    hello="ok",
    steps_after_done=True,
    adapter=ToolAgentGym,
)
