"""The chat the agent reads for a simulator task — one builder, so that the SFT warm-up trains
on exactly the prompts GRPO will sample from."""

from __future__ import annotations

from coevo.genenv.config import GenEnvConfig
from coevo.genenv.simulator import BatchTask, Simulator


class AgentPrompts:
    """System prompt, then (with `agent_demo`) one solved base task of the task's family as a
    previous turn, then the task."""

    def __init__(self, config: GenEnvConfig, simulator: Simulator) -> None:
        self.config = config
        self.simulator = simulator
        self._demos: dict[str, tuple[str, str] | None] = {}

    def messages(self, task: BatchTask) -> list[dict[str, str]]:
        return self.head(task.family) + [{"role": "user", "content": task.prompt}]

    def head(self, family: str) -> list[dict[str, str]]:
        """What precedes a task of `family`: the system prompt and, with `agent_demo`, the demo turn."""
        messages = [{"role": "system", "content": self.config.agent_system_prompt}]
        if self.config.agent_demo:
            if family not in self._demos:
                self._demos[family] = self.simulator.demo(family)
            demo = self._demos[family]
            if demo is not None:
                messages += [{"role": "user", "content": demo[0]}, {"role": "assistant", "content": demo[1]}]
        return messages
