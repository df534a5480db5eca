"""The rollout engine: many episodes at once over one or several env servers.

Each episode is a coroutine that leases a session, asks the policy for a reply, parses the
action, steps the env and repeats until the env says done or truncated, the policy abstains, or
the round cap is reached. Up to `concurrency` episodes are live at a time, so while one waits
for the server another is being decided.

Policies that gain from batching (a local model) get their requests gathered: the batcher
sends one `act` call as soon as every live episode is waiting for its next reply (or after
`max_wait_s`, so a slow env never stalls the rest) — one forward pass per round instead of one
per episode. Other policies (remote endpoints, the expert) are called for each request at once.

The engine keeps trajectories in memory and hands each finished one to `on_done`; storing
them (SQL, JSONL) is the caller's business, so the client never depends on the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from coevo import wire
from coevo.end_status import CLIENT_REPORTED, EndStatus, scored_end
from coevo.client.errors import EnvClientError, error_for
from coevo.client.failures import describe, status_of
from coevo.client.http import AsyncEnvClient, AsyncSession
from coevo.client.policies.base import Message, Policy, PolicyRequest, Sampling
from coevo.client.policies.parsing import canonical_action
from coevo.client.policies.prompts import EnvPrompt, prompt_from_info
from coevo.client.trajectory import EpisodeSpec, Trajectory, Turn, slim_info, task_type_of

#: Values of info["success"] / info["won"] that mean success, whatever JSON type the env used.
_TRUE = {True, "1", "true", "True", "yes"}  # True == 1: the integer matches too


#: Episodes in flight per httpx pool. httpcore checks every pooled connection for expiry (a
#: socket poll and getpeername each) on every request, so a pool's cost per request grows with
#: its size: against one text-game server, 8 episodes ran 290 steps/s through one pool of 8 and
#: 400 through four pools of 2; one pool of 64 ran 7x slower than eight of 8.
EPISODES_PER_CLIENT = 2
#: Consecutive replies with no readable action after which an episode ends (status
#: "invalid_replies"). Without it a stuck model keeps answering prose until max_rounds, which
#: for a function-calling env (176 rounds, sized for multi-turn entries) held one single-turn episode for minutes
#: of ever longer prompts while the rest of an evaluation had long finished.
MAX_INVALID_REPLIES = 3


def shard_clients(
    urls: str | Sequence[str], concurrency: int, per_client: int = EPISODES_PER_CLIENT, **options: Any
) -> list[AsyncEnvClient]:
    """Enough clients of the same servers that none has more than `per_client` episodes in
    flight (see EPISODES_PER_CLIENT)."""
    count = max(1, -(-concurrency // per_client))
    return [AsyncEnvClient(urls, **options) for _ in range(count)]


@contextlib.asynccontextmanager
async def sharded_clients(
    urls: str | Sequence[str], concurrency: int, per_client: int = EPISODES_PER_CLIENT, **options: Any
) -> AsyncIterator[list[AsyncEnvClient]]:
    """`shard_clients` as an async context manager that closes them all."""
    clients = shard_clients(urls, concurrency, per_client, **options)
    try:
        yield clients
    finally:
        for client in clients:
            await client.aclose()


def episode_success(turn: Turn, threshold: float = 1.0) -> bool:
    """The env's own verdict (info "success" or "won") when it gives one; otherwise an episode
    that ended (not truncated) with a final reward of at least `threshold`."""
    for key in ("success", "won"):
        if key in turn.info:
            return turn.info[key] in _TRUE
    return turn.done and not turn.truncated and turn.reward >= threshold


@dataclass
class _Pending:
    request: PolicyRequest
    future: asyncio.Future[str | None]


class _Batcher:
    """Gathers concurrent requests of live episodes into batched `act` calls."""

    def __init__(self, policy: Policy, sampling: Sampling | None, max_wait_s: float) -> None:
        self.policy, self.sampling, self.max_wait_s = policy, sampling, max_wait_s
        self.pending: list[_Pending] = []
        self.live = 0
        self._wakeup = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass

    def enter(self) -> None:
        self.live += 1

    def leave(self) -> None:
        self.live -= 1
        self._wakeup.set()  # the batch may now be complete

    async def ask(self, request: PolicyRequest) -> str | None:
        future: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self.pending.append(_Pending(request, future))
        self._wakeup.set()
        return await future

    def _full(self) -> bool:
        return len(self.pending) >= min(max(self.live, 1), self.policy.max_batch_size)

    async def _loop(self) -> None:
        while True:
            await self._wakeup.wait()
            self._wakeup.clear()
            if not self.pending:
                continue
            deadline = time.monotonic() + self.max_wait_s
            while not self._full():
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                try:
                    await asyncio.wait_for(self._wakeup.wait(), left)
                except asyncio.TimeoutError:
                    break
                self._wakeup.clear()
            batch = self.pending[: self.policy.max_batch_size]
            del self.pending[: len(batch)]
            try:
                replies = await self.policy.act([p.request for p in batch], self.sampling)
            except Exception as exc:  # the episodes waiting on this batch fail with the policy's error
                for p in batch:
                    if not p.future.done():
                        p.future.set_exception(exc)
            else:
                for p, reply in zip(batch, replies, strict=True):
                    if not p.future.done():
                        p.future.set_result(reply)
            if self.pending:
                self._wakeup.set()


class _StepBatcher:
    """Coalesces the steps that become ready in the same event-loop pass into one POST
    /batch/step per client: no added latency, and fewer HTTP round trips (client CPU was the
    larger share of an expert step's cost) once many episodes are in flight."""

    def __init__(self) -> None:
        self.pending: dict[int, list[tuple[AsyncEnvClient, AsyncSession, str, asyncio.Future[wire.StepResponse]]]] = {}
        self.batches: list[int] = []  # sizes, for tests and diagnostics

    async def step(self, client: AsyncEnvClient, session: AsyncSession, action: str) -> wire.StepResponse:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[wire.StepResponse] = loop.create_future()
        queue = self.pending.setdefault(id(client), [])
        queue.append((client, session, action, future))
        if len(queue) == 1:
            loop.call_soon(lambda: asyncio.ensure_future(self._flush(id(client))))
        return await future

    async def _flush(self, key: int) -> None:
        batch = self.pending.pop(key, [])
        if not batch:
            return
        self.batches.append(len(batch))
        if len(batch) == 1:
            _, session, action, future = batch[0]
            try:
                future.set_result(await session.step(action))
            except Exception as exc:
                future.set_exception(exc)
            return
        client = batch[0][0]
        try:
            results = await client.batch_step([(session.session_id, action) for _, session, action, _ in batch])
        except Exception as exc:
            for *_, future in batch:
                future.set_exception(exc)
            return
        for (_, session, _, future), item in zip(batch, results, strict=True):
            if item.ok and item.result is not None:
                session.observation, session.info = item.result.observation, item.result.info
                future.set_result(item.result)
            else:
                detail = item.error or wire.ErrorDetail(code="batch_error", message="no result")
                future.set_exception(error_for(item.status, detail.code, detail.message))


class RolloutEngine:
    """Runs episodes against env servers with one policy.

    `clients` maps env name -> AsyncEnvClient, or a list of them: new episodes go round-robin
    over the list. One client may spread sessions over replicas; several clients also keep
    each httpx connection pool small, which matters because httpcore's pool bookkeeping grows
    with the square of its in-flight requests (see `shard_clients`).
    `max_rounds` caps agent turns per episode (one number, or per env; default: the env's
    max_steps). Invalid replies count as rounds, so a policy that never produces an action
    still ends, and `max_invalid_replies` in a row end the episode at once (a failure: the
    policy's own answers). A policy that raises, abstains or exceeds `policy_timeout_s` ends its
    episode `policy_error`; a lost server `transport_error`, `env_error` or `abandoned`
    (`coevo.client.failures`): each is reported to the server on close where it can be, and
    none is scored (coevo.end_status). With `batch_steps`, steps of different episodes that are ready at the same
    moment travel in one POST /batch/step. `prompt_options` change fields of every env's prompt (e.g.
    show_available_actions=False); a policy's own `prompt_options` (what it was trained with)
    apply first.
    """

    def __init__(
        self,
        policy: Policy,
        clients: Mapping[str, AsyncEnvClient | Sequence[AsyncEnvClient]],
        *,
        max_rounds: int | Mapping[str, int] | None = None,
        concurrency: int = 32,
        sampling: Sampling | None = None,
        max_wait_s: float = 0.05,
        prompts: Mapping[str, EnvPrompt] | None = None,
        prompt_options: Mapping[str, Any] | None = None,
        success_threshold: float = 1.0,
        batch_steps: bool = True,
        max_invalid_replies: int | None = MAX_INVALID_REPLIES,
        run: str | None = None,
        policy_timeout_s: float | None = None,
    ) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.policy = policy
        #: Sent with each create, so the server records the episodes under this policy and run.
        self.run_name = run
        self.clients: dict[str, list[AsyncEnvClient]] = {
            env: [c] if isinstance(c, AsyncEnvClient) else list(c) for env, c in clients.items()
        }
        if any(not group for group in self.clients.values()):
            raise ValueError("every env needs at least one client")
        self._next_client = {env: 0 for env in self.clients}
        self.max_rounds, self.concurrency = max_rounds, concurrency
        self.sampling, self.max_wait_s = sampling, max_wait_s
        self.success_threshold = success_threshold
        if max_invalid_replies is not None and max_invalid_replies < 1:
            raise ValueError("max_invalid_replies must be at least 1 (None: no limit)")
        self.max_invalid_replies = max_invalid_replies
        if policy_timeout_s is not None and policy_timeout_s <= 0:
            raise ValueError("policy_timeout_s must be positive (None: no limit)")
        #: A reply that takes longer ends the episode policy_error (reason "timeout").
        self.policy_timeout_s = policy_timeout_s
        self.steps = _StepBatcher() if batch_steps else None
        self._prompts: dict[str, EnvPrompt] = dict(prompts or {})
        self.prompt_options = {**policy.prompt_options, **(prompt_options or {})}
        self._env_max_steps: dict[str, int] = {}
        #: Each env's (version, score mode) from its /info, stamped on every trajectory.
        self._provenance: dict[str, tuple[str, str]] = {}
        self._task_meta: dict[str, dict[str, Any]] = {}

    async def _prepare(self, envs: set[str]) -> None:
        for env in envs:
            if env not in self.clients:
                raise KeyError(f"no client for env {env!r}; have {sorted(self.clients)}")
            if env in self._env_max_steps:
                continue
            info = await self.clients[env][0].info()
            self._env_max_steps[env] = info.max_steps
            self._provenance[env] = (info.env_version, info.score_mode)
            prompt = self._prompts.get(env) or prompt_from_info(info)
            self._prompts[env] = dataclasses.replace(prompt, **self.prompt_options) if self.prompt_options else prompt

    def prompt(self, env: str) -> EnvPrompt:
        return self._prompts[env]

    def _round_cap(self, env: str) -> int:
        if isinstance(self.max_rounds, Mapping):
            return int(self.max_rounds.get(env, self._env_max_steps[env]))
        return int(self.max_rounds) if self.max_rounds is not None else self._env_max_steps[env]

    async def run(
        self,
        episodes: Sequence[EpisodeSpec],
        *,
        on_done: Callable[[Trajectory], Any] | None = None,
    ) -> list[Trajectory]:
        """Run every episode; trajectories come back in the order of `episodes`."""
        await self._prepare({e.env for e in episodes})
        batcher = _Batcher(self.policy, self.sampling, self.max_wait_s) if self.policy.batched else None
        if batcher:
            batcher.start()
        gate = asyncio.Semaphore(self.concurrency)

        async def ask(request: PolicyRequest) -> str | None:
            if batcher is not None:
                return await batcher.ask(request)
            return (await self.policy.act([request], self.sampling))[0]

        async def one(spec: EpisodeSpec) -> Trajectory:
            async with gate:
                if batcher:
                    batcher.enter()
                try:
                    trajectory = await self._episode(spec, ask)
                finally:
                    if batcher:
                        batcher.leave()
            if on_done is not None:
                on_done(trajectory)
            return trajectory

        try:
            return list(await asyncio.gather(*(one(spec) for spec in episodes)))
        finally:
            if batcher:
                await batcher.stop()

    async def _episode(self, spec: EpisodeSpec, ask: Callable[[PolicyRequest], Any]) -> Trajectory:
        prompt = self._prompts[spec.env]
        started = time.monotonic()
        group = self.clients[spec.env]
        client = group[self._next_client[spec.env] % len(group)]
        self._next_client[spec.env] += 1
        messages: list[Message] = prompt.start()
        trajectory = Trajectory(
            env=spec.env,
            task_id=spec.task_id or "",
            split=spec.split,
            seed=spec.seed,
            policy=self.policy.name,
            messages=messages,
            sample=spec.sample,
            prompt_messages=len(messages),
            env_version=self._provenance[spec.env][0],
            score_mode=self._provenance[spec.env][1],
        )
        session: AsyncSession | None = None
        report: tuple[str, str] | None = None  # what to tell the server when closing
        try:
            session = await client.create(
                task_id=spec.task_id, split=spec.split, seed=spec.seed, policy=self.policy.name, run=self.run_name
            )
            info = dict(session.info)
            trajectory.task_id = str(info.get("task_id", spec.task_id or ""))
            trajectory.split = info.get("split", spec.split)
            trajectory.seed = info.get("seed", spec.seed)
            trajectory.task_type = task_type_of(info)
            trajectory.task_info = slim_info(info)
            messages.append(
                {"role": "user", "content": prompt.render_observation(session.observation, info, first=True)}
            )
            cap = self._round_cap(spec.env)
            trajectory.end(EndStatus.TRUNCATED, "max_rounds")
            unreadable = 0  # consecutive replies with no action
            while trajectory.rounds < cap:
                request = PolicyRequest(list(messages), spec.env, session, info, prompt)
                try:
                    reply = await asyncio.wait_for(ask(request), self.policy_timeout_s)
                except asyncio.TimeoutError:
                    trajectory.end(EndStatus.POLICY_ERROR, "timeout", f"no reply within {self.policy_timeout_s} s")
                    break
                except Exception as exc:  # the policy's failure ends this episode, not the run
                    trajectory.end(EndStatus.POLICY_ERROR, "raised", describe(exc))
                    break
                if reply is None:
                    trajectory.end(EndStatus.POLICY_ERROR, "abstained", "the policy gave no reply")
                    break
                reply = reply.strip()
                messages.append({"role": "assistant", "content": reply})
                parsed = prompt.read(reply)
                if not parsed.ok:
                    feedback = prompt.render_invalid(parsed.error or "unreadable reply", info)
                    trajectory.turns.append(Turn(reply, None, feedback, valid=False))
                    messages.append({"role": "user", "content": feedback})
                    unreadable += 1
                    if self.max_invalid_replies is not None and unreadable >= self.max_invalid_replies:
                        # The policy's own answers, unreadable: a failure of the agent, scored 0.
                        trajectory.end(EndStatus.FAILURE, "invalid_replies")
                        break
                    continue
                unreadable = 0
                action = canonical_action(parsed.action or "", info.get("available_actions"))
                result = await (self.steps.step(client, session, action) if self.steps else session.step(action))
                info = dict(result.info)
                turn = Turn(reply, action, result.observation, result.reward, result.done, result.truncated, True, info)
                trajectory.turns.append(turn)
                if result.done or result.truncated:
                    trajectory.success = bool(result.done) and episode_success(turn, self.success_threshold)
                    trajectory.end(scored_end(result.done, result.truncated, trajectory.success), "env")
                    messages.append({"role": "user", "content": prompt.render_observation(result.observation, {})})
                    break
                messages.append({"role": "user", "content": prompt.render_observation(result.observation, info)})
        except EnvClientError as exc:
            trajectory.end(status_of(exc), "server", describe(exc))
        finally:
            if trajectory.status in CLIENT_REPORTED:
                report = (trajectory.status, trajectory.error or "")
            if session is not None:
                await self.policy.end_episode(session.session_id)
                try:
                    await session.close(*(report or (None, None)))
                except EnvClientError:
                    pass  # the lease expires on its own (and its episode ends abandoned)
            trajectory.duration_s = time.monotonic() - started
        return trajectory
