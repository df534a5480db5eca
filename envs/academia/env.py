"""Academia env: AgentGym's academia tool tasks over an offline citation network (docs/academia.md).

Tools, argument formats, observation texts, the action line and `finish` are the original's
(envs/toolusage/); DBLP's pickled graphs are replaced by a generated network shared read-only
(each session keeps only which graphs it has loaded).

Options: `data_dir` (AgentBoard's data folder or its academia.jsonl: the `test` split, on a
network built from its answers), `train_tasks` (500), `test_tasks` (20), `seed` (0).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from coevo.envs.academia import agentgym
from coevo.envs.academia.network import DATA, Network, generate
from coevo.envs.academia.tasks import AGENTGYM_TASKS, load_file
from coevo.envs.academia.tasks import generate as generate_tasks
from coevo.envs.academia.toolkit import AcademiaToolkit
from coevo.envs.toolusage.env import ToolEnv
from coevo.envs.toolusage.prompt import tool_prompt
from coevo.envs.toolusage.spec import load_specs
from coevo.envs.toolusage.tasks import TaskSet, ToolTask
from coevo.envs.toolusage.toolkit import Toolkit

SPECS = load_specs(DATA / "tools.json")


@dataclass(frozen=True)
class AcademiaShared:
    tasks: TaskSet
    network: Network
    #: The network built from a loaded file's answers, which its tasks (the `test` split) use.
    file_network: Network | None = None


class AcademiaEnv(ToolEnv):
    name = "academia"
    version = "1"
    specs = SPECS
    agentgym_profile = agentgym.PROFILE
    agent_prompt = tool_prompt(SPECS, DATA / "prompt.json")
    action_example = ("I need the paper graph first.", "Action: loadPaperNet with Action Input: {}")

    @classmethod
    def load_shared(
        cls,
        data_dir: str | None = None,
        train_tasks: int | str = 500,
        test_tasks: int | str = AGENTGYM_TASKS,
        seed: int | str = 0,
        **_: Any,
    ) -> AcademiaShared:
        network = generate(int(seed))
        file_network = None
        if data_dir:
            test, file_network = load_file(SPECS, data_dir, int(seed))
        else:
            test = generate_tasks(SPECS, network, "test", int(test_tasks), int(seed))
        held_out = frozenset(t.goal for t in test)  # training never repeats a held-out question
        train = generate_tasks(SPECS, network, "train", int(train_tasks), int(seed), held_out)
        return AcademiaShared(TaskSet({"train": train, "test": test}), network, file_network)

    def agentgym_reward(self, done: bool) -> float:
        """AgentGym's academia server returns the progress rate itself."""
        return self.progress

    def make_toolkit(self, task: ToolTask) -> Toolkit:
        shared: AcademiaShared = self.shared
        loaded = shared.file_network is not None and self.split_of(task.task_id) == "test"
        return AcademiaToolkit(SPECS, shared.file_network if loaded and shared.file_network else shared.network)
