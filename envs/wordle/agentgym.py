"""Wordle as AgentGym's LMRL-Gym server (`agentenv-lmrlgym`, under /wordle/) answers.

Id style: /create answers `{"id"}` (no episode text; its client then reads `/filtered_vocab`
and writes its own first prompt), /reset takes `{"id", "seed"}`, the seed naming the task, and
answers `{"id", "observation": "Let's start Wordle!"}`; /step answers `{"observation",
"reward", "done"}`, the observation the feedback letters and a newline ("b y g b b\\n") or
"invalid word". After the end its server answers /step, /observation, /detail and
/filtered_vocab with 200 and `{"error": "The task with environment <id> has finished."}`.
`GET /filtered_vocab` lists the words still consistent with the feedback. Its `GET /` answers
"This is environment LMRL-Gym.". Its routes live under /wordle/; ours at the server's root (point
the client's base URL at it). Seeds past our 980 tasks are refused (404); its server takes any.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coevo.envs.agentgym import AgentGymAdapter, AgentGymProfile

if TYPE_CHECKING:
    from coevo.envs.wordle.env import WordleEnv

FIRST_OBSERVATION = "Let's start Wordle!"


class WordleAgentGym(AgentGymAdapter[Any]):
    """AgentGym's `/filtered_vocab`: the consistent words, one per list item."""

    env: WordleEnv

    def read(self, route: str) -> Any:
        if route != "filtered_vocab" or self.env.game is None:
            return super().read(route)
        return "\n".join(self.env.game.filtered).split("\n")


#: AgentGym's LMRL-Gym server, its /wordle/ routes.
PROFILE = AgentGymProfile(
    style="id",
    indices=(("test", 0), ("train", 25)),
    hello="This is environment LMRL-Gym.",
    finished_error="The task with environment {id} has finished.",
    reset_index_field="seed",
    reads=("filtered_vocab",),
    adapter=WordleAgentGym,
)
