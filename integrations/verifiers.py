"""verifiers: a coevo env server as a verifiers multi-turn environment (verifiers >= 0.4, `verifiers.v1`).

verifiers 0.4 composes an environment from a taskset (the tasks), agents (a harness plus a
model client per seat) and the env's `run()`, which drives each agent turn by turn through an
`Interaction`. Here the coevo server is the agent's user: `CoevoEnv.run` leases a session for
the task, sends the episode's opening turns, steps the env with each reply and sends its
answer back, until the episode ends; `finalize` records the env's total reward on the trace.
Every model call goes through verifiers' interception server and client, so its traces,
limits and trainers see an ordinary rollout. `CoevoHarness` is the agent's program: one chat
completion per segment, run in-process (no sandbox, no per-rollout install), with the coevo
session named in an `X-Coevo-Session` header for servers that route or log by it.

    env = load_environment("http://127.0.0.1:8000", split="train", limit=64)

verifiers resolves tasksets, harnesses and envs by importable module name; importing this
module registers it as `coevo_verifiers` (PLUGIN_ID), the id its configs carry.
"""

from __future__ import annotations

import sys
from typing import Any

import verifiers.v1 as vf
from openai import AsyncOpenAI
from verifiers.v1.dialects.chat import message_to_wire
from verifiers.v1.episode import Episode

from coevo.client.http import AsyncEnvClient, EnvClient
from coevo.integrations.episode import AsyncEpisodeChat, EpisodeNotScored, Tally, env_prompt

PLUGIN_ID = "coevo_verifiers"
SESSION_HEADER = "X-Coevo-Session"
REWARD_NAME = "coevo_reward"

# verifiers finds plugins through __all__ by module name; CoevoEnvConfig's default harness is
# resolved while this module is still executing, so both are in place before the classes.
__all__ = ["CoevoEnv", "CoevoHarness", "CoevoTaskset", "load_environment"]
sys.modules.setdefault(PLUGIN_ID, sys.modules[__name__])


class CoevoTaskData(vf.TaskData):
    """One coevo task: where it is served and how its session is made (no prompt: the env opens)."""

    coevo_url: str
    coevo_task_id: str
    coevo_seed: int | None = None
    #: The leased session of the running episode (set by CoevoEnv.run, sent by the harness).
    coevo_session: str | None = None


class CoevoTask(vf.Task[CoevoTaskData, vf.State, vf.TaskConfig]):
    """A coevo task; its reward is the env's, recorded by CoevoEnv.finalize."""

    @property
    def key(self) -> str:
        return f"{self.data.coevo_url}#{self.data.coevo_task_id}#{self.data.coevo_seed}"


class CoevoTasksetConfig(vf.TasksetConfig):
    id: str = PLUGIN_ID
    url: str = ""
    split: str | None = None
    limit: int = 64
    offset: int = 0
    seed: int | None = None


class CoevoTaskset(vf.Taskset[CoevoTask, CoevoTasksetConfig]):
    """The server's tasks of one split, read from GET /tasks."""

    def load(self) -> list[CoevoTask]:
        cfg = self.config
        if not cfg.url:
            raise ValueError("the coevo taskset needs the env server's url (taskset.url)")
        with EnvClient(cfg.url) as client:
            page = client.tasks(cfg.split, cfg.offset, cfg.limit)
        return [
            CoevoTask(CoevoTaskData(id=task.task_id, coevo_url=cfg.url, coevo_task_id=task.task_id, coevo_seed=cfg.seed),
                      cfg.task)
            for task in page.tasks
        ]  # fmt: skip


class CoevoHarnessConfig(vf.HarnessConfig):
    id: str = PLUGIN_ID


class CoevoHarness(vf.Harness[CoevoHarnessConfig]):
    """The agent's side: one chat completion per segment through the interception endpoint, in-process."""

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_RESUME = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(self, ctx: vf.ModelContext, trace: vf.Trace, runtime: vf.Runtime, endpoint: str, secret: str,
                     mcp_urls: dict[str, str], data: vf.TaskData, **_: Any) -> vf.ProgramResult:  # fmt: skip
        system, prompt = self.resolve_prompt(data)
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
        if isinstance(prompt, str):
            messages.append({"role": "user", "content": prompt})
        else:
            messages += [message_to_wire(message) for message in prompt or []]
        session = getattr(data, "coevo_session", None)
        async with AsyncOpenAI(base_url=endpoint, api_key=secret, max_retries=0) as client:
            await client.chat.completions.create(
                model=ctx.model, messages=messages,  # type: ignore[arg-type]
                extra_headers={SESSION_HEADER: session} if session else None,
            )  # fmt: skip
        return vf.ProgramResult(exit_code=0, stdout="", stderr="")


class CoevoEnvConfig(vf.EnvConfig):
    id: str = PLUGIN_ID
    taskset: CoevoTasksetConfig = CoevoTasksetConfig()
    agent: vf.AgentConfig = vf.AgentConfig(harness=CoevoHarnessConfig(), runtime=vf.SubprocessConfig())
    #: Replies per episode; None: the env's own max_steps (from /info).
    max_turns: int | None = None


class CoevoEnv(vf.Env[CoevoEnvConfig]):
    """One coevo episode per rollout: the env server is the agent's user."""

    def __init__(self, config: CoevoEnvConfig) -> None:
        super().__init__(config)
        self._tallies: dict[str, Tally] = {}

    async def run(self, task: vf.Task, agents: vf.Agents) -> None:
        data = task.data
        if not isinstance(data, CoevoTaskData):
            raise TypeError(f"CoevoEnv plays CoevoTask only, got {type(task).__name__}")
        async with AsyncEnvClient(data.coevo_url) as client:
            info = await client.info()
            max_turns = self.config.max_turns or info.max_steps
            session = await client.create(task_id=data.coevo_task_id, seed=data.coevo_seed)
            chat = AsyncEpisodeChat(session, env_prompt(info))
            try:
                leased = task.with_data(coevo_session=session.session_id)
                async with agents.agent.interaction(leased) as agent:
                    self._tallies[agent.trace.id] = chat.tally
                    message: str | list[dict[str, Any]] = [dict(m) for m in chat.messages]
                    for _ in range(max_turns):
                        segment = await agent.turn(message)
                        if segment.terminated:
                            break
                        message = await chat.reply(segment.last_reply)
                        if chat.tally.over:
                            break
                    chat.tally.cut()  # the turn cap or the agent ended it, if the env had not
            finally:
                await chat.close()

    async def finalize(self, task: vf.Task, episode: Episode) -> None:
        """The env's total reward on each trace (verifiers sums a trace's named rewards)."""
        for trace in episode.traces:
            tally = self._tallies.pop(trace.id, None)
            if tally is None:
                raise RuntimeError(f"trace {trace.id} played no coevo episode")
            if not tally.scored:
                # No verdict from the env: the rollout fails (verifiers keeps it as an error and
                # out of training), it is never handed on with a reward of 0.
                trace.record_metric("coevo_unscored", 1.0)
                raise EpisodeNotScored(f"the coevo episode ended {tally.status}: {tally.error}")
            trace.record_reward(REWARD_NAME, tally.reward)
            trace.record_metric("coevo_steps", float(tally.steps))
            trace.record_metric("coevo_invalid_replies", float(tally.invalid_replies))
            trace.record_metric("coevo_done", float(tally.done))


def load_environment(url: str, split: str | None = None, *, limit: int = 64, offset: int = 0,
                     seed: int | None = None, max_turns: int | None = None, **env: Any) -> CoevoEnv:  # fmt: skip
    """The coevo env at `url` as a verifiers environment over its `split` tasks (the verifiers
    entry-point convention); `env` sets further CoevoEnvConfig fields (agent, timeout, ...)."""
    taskset = CoevoTasksetConfig(url=url, split=split, limit=limit, offset=offset, seed=seed)
    return CoevoEnv(CoevoEnvConfig(taskset=taskset, max_turns=max_turns, **env))
