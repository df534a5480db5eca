"""Movie env: AgentGym's movie tool tasks over an offline movie database (docs/movie.md).

Tools, argument formats, observation texts, the action line and `finish` are the original's
(envs/toolusage/); TMDB is replaced by a generated database shared read-only.

Options: `data_dir` (AgentBoard's data folder or its movie.jsonl: the `test` split, its films
and people added to the database for the questions the loader recognises), `train_tasks` (1000), `test_tasks` (238), `seed` (0).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from coevo.envs.movie import agentgym
from coevo.envs.movie.catalogue import DATA, Catalogue, generate
from coevo.envs.movie.tasks import AGENTGYM_TASKS, file_path, load_file
from coevo.envs.movie.tasks import generate as generate_tasks
from coevo.envs.movie.toolkit import MovieToolkit
from coevo.envs.toolusage.env import ToolEnv
from coevo.envs.toolusage.prompt import tool_prompt
from coevo.envs.toolusage.spec import load_specs
from coevo.envs.toolusage.tasks import TaskSet, ToolTask, read_agentboard
from coevo.envs.toolusage.toolkit import Toolkit

SPECS = load_specs(DATA / "tools.json")


@dataclass(frozen=True)
class MovieShared:
    tasks: TaskSet
    catalogue: Catalogue


class MovieEnv(ToolEnv):
    name = "movie"
    version = "1"
    specs = SPECS
    agentgym_profile = agentgym.PROFILE
    agent_prompt = tool_prompt(SPECS, DATA / "prompt.json")
    action_example = (
        "I need the movie's id first.",
        "Action: get_search_movie with Action Input: {'movie_name': 'Silent Harbor'}",
    )

    @classmethod
    def load_shared(
        cls,
        data_dir: str | None = None,
        train_tasks: int | str = 1000,
        test_tasks: int | str = AGENTGYM_TASKS,
        seed: int | str = 0,
        **_: Any,
    ) -> MovieShared:
        catalogue = generate(int(seed))
        if data_dir:
            # Training is generated before the file's films are added, so it never asks about them.
            held_out = frozenset(row["goal"] for row in read_agentboard(file_path(data_dir), "file"))
            train = generate_tasks(SPECS, catalogue, "train", int(train_tasks), int(seed), held_out)
            test = load_file(SPECS, catalogue, data_dir)
        else:
            test = generate_tasks(SPECS, catalogue, "test", int(test_tasks), int(seed))
            held_out = frozenset(t.goal for t in test)  # training never repeats a held-out question
            train = generate_tasks(SPECS, catalogue, "train", int(train_tasks), int(seed), held_out)
        return MovieShared(TaskSet({"train": train, "test": test}), catalogue)

    def agentgym_reward(self, done: bool) -> float:
        """AgentGym's movie server returns the progress rate itself."""
        return self.progress

    def make_toolkit(self, task: ToolTask) -> Toolkit:
        return MovieToolkit(SPECS, self.shared.catalogue)
