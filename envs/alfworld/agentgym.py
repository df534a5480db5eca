"""ALFWorld as AgentGym's household server presents it (`agentenv-alfworld`), for its routes.

AgentGym serves ALFWorld's json_2.1.1 games (`put X in/on Y`, "You arrive at loc 12."), drops
the reset text's first paragraph (the TextWorld banner) and joins the rest with one newline,
and cuts a leading "You arrive at loc N. " from every step's text (its `process_ob`). Its task
indices are its mapping files' order: 2,420 games of ALFWorld's `train` folder (0-2419), then
200 of its `valid_train` folder (2420-2619). Its test games are valid_train's, not valid_seen's
or valid_unseen's: its wrapper reads them from `json_2.1.1/valid_train`, all 200 lie in seen
floor plans (none in 10, 219, 308, 424) and none is in its train mapping. (Its per-session
`SingleAlfredTWEnv` says `train_eval="eval_out_of_distribution"`, but the game list is set by
the mapping, so that label picks no game.) On generated games index i is `train-i`, then
`valid_train-(i - 2420)`; on a user's real games it is the game the mapping files name
(`AlfWorldEnv.agentgym_task`). Its replies carry exactly its fields (`task_type`: the game's
folder and trial), its `/detail` is its record, and a finished episode is refused with HTTP 200
and `{"error": FINISHED}` on every route but `/reset`. `PROFILE` declares all of that for the
AgentGym routes (envs/agentgym.py); `AlfWorldAgentGym` answers the parts that depend on the game.
"""

from __future__ import annotations

from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coevo.envs.agentgym import AgentGymAdapter, AgentGymProfile
from coevo.envs.alfworld.tasks import CUSTOM_PREFIX

if TYPE_CHECKING:
    from coevo.envs.alfworld.env import AlfWorldEnv

#: The dialect AgentGym's game files speak; its sessions play generated games in it.
DIALECT = "2.1.1"
#: AgentGym's index ranges (AgentGymProfile.indices): its train mapping, then its test mapping.
INDICES: tuple[tuple[str, int], ...] = (("train", 0), ("valid_train", 2420))

#: AgentGym's household server's `GET /` answer.
HELLO = "This is environment AlfWorld."
#: What it answers (HTTP 200) to /step, /observation, /available_actions and /detail once an
#: episode is done (its `_check_id`), `{id}` the session: steps after the end are refused.
FINISHED = "The task with environment {id} has finished."

_ARRIVE = "You arrive at loc "


def game_folder(game_file: str | PathLike[str]) -> str:
    """AgentGym's reset `task_type`: the two folders above the game file,
    `<task type>-<Object>-...-<floor plan>/<trial>` (its `extra.gamefile` path's [-3:-1])."""
    return "/".join(Path(game_file).parts[-3:-1])


def reset_text(observation: str) -> str:
    """The reset text without its first paragraph, the others joined by one newline."""
    return "\n".join(observation.split("\n\n")[1:])


def step_text(observation: str) -> str:
    """A step's text without a leading "You arrive at loc N. " (AgentGym's `process_ob`)."""
    if observation.startswith(_ARRIVE):
        return observation[observation.find(". ") + 2 :]
    return observation


class AlfWorldAgentGym(AgentGymAdapter[Any]):
    """AgentGym's household server's answers that depend on the game: the game its mapping
    files give an index (real games) and its /reset's `task_type`."""

    env: AlfWorldEnv

    def task(self, index: int) -> str:
        own = self.env.agentgym_task(index)
        return super().task(index) if own is None else own

    def reset_fields(self) -> dict[str, Any]:
        """AgentGym's `task_type`: the game's folder and trial, as its game file's path names them."""
        env = self.env
        task_id = env.task_id
        if task_id is None:
            return {}
        if env.shared.real is not None:
            return {"task_type": game_folder(env.shared.real.paths[task_id])}
        if task_id.startswith(CUSTOM_PREFIX):
            trial = f"trial_{task_id}"
        else:
            trial = f"trial_coevo_{task_id.rpartition('-')[2]}"
        from coevo.envs.alfworld.export import game_dir_name

        return {"task_type": f"{game_dir_name(env._scene(task_id))}/{trial}"}


#: AgentGym's household server (`agentenv-alfworld`), as its routes answer.
PROFILE = AgentGymProfile(
    indices=INDICES, hello=HELLO, extra_fields=False, finished_error=FINISHED, adapter=AlfWorldAgentGym
)
