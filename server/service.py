"""The env service: sessions, episodes and recording, independent of any HTTP route shape.

Both the native routes and the AgentGym-compatible ones call this; it raises `ApiError`s and
env errors, which `errors.py` turns into responses. Everything that touches a session's env
holds that session's lock, so concurrent requests on one session are serialized in arrival
order and never interleave. Unless `durability` is "buffered", a request that records
something (create, step, reset, fork, close) answers only once the writer has committed it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from coevo import __version__
from coevo.confined import ConfinedDir, PathNotAllowed
from coevo.config import ServerConfig
from coevo.end_status import CLIENT_REPORTED, RUNNING, EndStatus, scored_end
from coevo.envs.base import ADMIN_PATH, EnvError, EpisodeFinished, ResetResult, StepResult
from coevo.paths import cache_dir
from coevo.server.errors import (
    ActionTooLarge,
    InvalidRequest,
    NotStored,
    StoreRefused,
    classify,
)
from coevo.score_mode import score_mode
from coevo.server.episode_end import MAX_ERROR_CHARS, end_fields
from coevo.server.leases import Lease, LeaseTable, new_session_id, plausible_session_id
from coevo.server.metrics import ServerMetrics
from coevo.server.ownership import Ownership
from coevo.server.runtime import EnvRuntime
from coevo.server.task_difficulty import DifficultyFilter, difficulty_page
from coevo.server.task_pages import TaskPages
from coevo.store.outcome import episode_success
from coevo.store.task_stats import UNTAGGED
from coevo.store.trajectories import sessions_with_open_episodes
from coevo.store.writer import RowRefused, StepRow, StoreUnavailable, TrajectoryWriter
from coevo.wire import (
    OWNER_HEADER,
    BatchStepResult,
    ErrorDetail,
    HealthResponse,
    InfoResponse,
    SessionResponse,
    SessionState,
    StepResponse,
)

log = logging.getLogger(__name__)


def _describe_errors(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        where = ".".join(str(p) for p in err.get("loc", ())) or "payload"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "; ".join(parts)


def _new_episode_id() -> str:
    return secrets.token_hex(16)


class EnvService:
    def __init__(self, runtime: EnvRuntime, config: ServerConfig, writer: TrajectoryWriter | None) -> None:
        self.runtime = runtime
        self.config = config
        self.writer = writer
        self.env_name = runtime.name
        self.leases = LeaseTable(
            config.max_sessions,
            idle_ttl_s=config.idle_ttl_s,
            max_age_s=config.max_age_s,
            retry_after_s=config.retry_after_s,
        )
        self.metrics = ServerMetrics(
            self.env_name,
            active=lambda: len(self.leases),
            pending_rows=lambda: writer.pending if writer is not None else 0,
            store_counts=(lambda: (writer.rows_written, writer.transactions)) if writer is not None else None,
        )
        self.task_pages = TaskPages(
            runtime.catalog, runtime.env_cls.default_split, max_cached_bytes=config.tasks_cache_bytes
        )
        self.admin_paths = ConfinedDir(
            Path(config.admin_dir) if config.admin_dir else cache_dir(),
            config.admin_max_read_bytes,
        )
        self._durable = writer is not None and config.durability != "buffered"
        #: Recoveries in flight, one per session id: concurrent requests for one id share it,
        #: and ids never wait on each other's replay.
        self._recovering: dict[str, asyncio.Task[Lease | None]] = {}
        self._reaper: asyncio.Task[None] | None = None
        self._max_action_chars = config.max_action_bytes // 4  # below this, UTF-8 cannot exceed it
        #: One owner per session across replicas on this store (None without a store).
        self.ownership = (
            Ownership(
                writer.engine,
                runtime,
                self.leases,
                address=config.owner_address,
                heartbeat_s=config.owner_heartbeat_s,
                expiry_s=config.owner_expiry_s,
                on_moved=lambda _sid: self.metrics.released("moved"),
            )
            if writer is not None
            else None
        )

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        if self.writer is not None:
            self.writer.start()
        if self.ownership is not None:
            self.ownership.start()
        if self._reaper is None and (self.config.idle_ttl_s or self.config.max_age_s):
            self._reaper = asyncio.get_running_loop().create_task(self._reap_forever())

    async def stop(self) -> None:
        """Stop reaping and write what is buffered. Live sessions stay open in the store, so a
        restarted server can pick them up where they were."""
        if self._reaper is not None:
            self._reaper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reaper
            self._reaper = None
        if self.ownership is not None:
            await self.ownership.stop()
        if self.writer is not None:
            await asyncio.get_running_loop().run_in_executor(None, self.writer.stop)
        self.task_pages.shutdown()
        self.runtime.shutdown()

    async def _reap_forever(self) -> None:
        while True:
            await asyncio.sleep(self.config.reap_interval_s)
            try:
                await self.reap()
            except Exception:
                log.exception("reaper pass failed")

    async def reap(self, now: float | None = None) -> int:
        """Release every lease past its idle TTL or max age; returns how many."""
        expired = self.leases.expired(time.time() if now is None else now)
        # Concurrently: one lease finishing a long step must not hold up the others' release.
        await asyncio.gather(*(self.close(lease.session_id, reason=reason) for lease, reason in expired))
        return len(expired)

    # ------------------------------------------------------------------ metadata
    def health(self) -> HealthResponse:
        return HealthResponse(env=self.env_name, sessions=len(self.leases), capacity=self.leases.capacity)

    def info(self) -> InfoResponse:
        cls = self.runtime.env_cls
        # The cap of an instance built with this server's options (an option can change it).
        max_steps = self.runtime.catalog.max_steps
        return InfoResponse(
            env=self.env_name,
            env_version=str(cls.version),
            server_version=__version__,
            action_format=cls.action_format,
            action_example=list(cls.action_example),
            max_steps=max_steps,
            splits=dict(self.runtime.catalog.splits()),
            default_split=cls.default_split,
            heldout_splits=[s for s in cls.heldout_splits if s in self.runtime.catalog.splits()],
            train_split=cls.train_split or cls.default_split,
            agent_prompt=cls.agent_prompt,
            agentgym_style=cls.agentgym_profile.style,
            score_mode=score_mode(self.runtime.options),
        )

    async def tasks(self, split: str | None, offset: int, limit: int) -> bytes:
        """One page of a split as JSON, computed off the event loop and cached (task_pages.py)."""
        return await self.task_pages.page(split, offset, limit)

    async def difficult_tasks(self, split: str | None, offset: int, limit: int, wanted: DifficultyFilter) -> bytes:
        """One page of a split's tasks filtered by their estimated success rate (task_difficulty.py)."""
        if wanted.p_min > wanted.p_max:
            raise InvalidRequest(f"p_min ({wanted.p_min}) is above p_max ({wanted.p_max})")
        if self.writer is None:
            raise InvalidRequest("this server keeps no store (record is off), so it has no task statistics")
        split = split or self.runtime.env_cls.default_split
        return await self.runtime.offload(
            difficulty_page, self.writer.engine, self.runtime.catalog, self.env_name, split, offset, limit, wanted
        )

    # ------------------------------------------------------------------ sessions
    async def create(
        self,
        task_id: str | None = None,
        split: str | None = None,
        seed: int | None = None,
        *,
        agentgym: bool = False,
        policy: str | None = None,
        run: str | None = None,
    ) -> tuple[Lease, SessionResponse]:
        """A new session; `agentgym`: it presents AgentGym's server-side text (`Env.agentgym`);
        `policy` and `run`: tags recorded with each of its episodes."""
        self.leases.reserve()
        try:
            env = await self.runtime.call(self.runtime.new_env)
            env.agentgym = agentgym
            t0 = time.perf_counter()
            result: ResetResult = await self.runtime.call(env.reset, task_id, seed, split)
            self.metrics.reset_seconds.observe(time.perf_counter() - t0)
            lease = Lease(new_session_id(), env, _new_episode_id(), result.observation, result.info)
            lease.tags = (policy, run)
            if self.ownership is not None:
                await self.ownership.claim(lease.session_id)
            self._record_episode(lease)
            self.leases.add(lease)
        finally:
            self.leases.unreserve()
        await self._stored_or_release(lease)
        self.metrics.sessions_created.inc()
        return lease, SessionResponse(session_id=lease.session_id, observation=result.observation, info=result.info)

    async def reset(
        self,
        session_id: str,
        task_id: str | None = None,
        split: str | None = None,
        seed: int | None = None,
        *,
        agentgym: bool = False,
    ) -> SessionResponse:
        """A new episode in the session, presented as the route that asks wants: AgentGym's
        server-side text when `agentgym` (`Env.agentgym`), ours otherwise."""
        lease = await self.lease(session_id)
        async with lease.lock:
            self._check_open(lease)
            kept, lease.env.agentgym = lease.env.agentgym, agentgym
            t0 = time.perf_counter()
            try:
                result: ResetResult = await self.runtime.call(lease.env.reset, task_id, seed, split)
            except BaseException:  # a refused reset leaves the running episode as it was
                lease.env.agentgym = kept
                raise
            self.metrics.reset_seconds.observe(time.perf_counter() - t0)
            now = time.time()
            self._leave_episode(lease, "reset", now)
            lease.episode_id = _new_episode_id()
            lease.end_status, lease.env_error = RUNNING, None
            lease.total_reward = 0.0
            lease.last_observation, lease.last_info = result.observation, result.info
            lease.last_used = now
            self._record_episode(lease)
            await self._stored_for(lease)
        return SessionResponse(session_id=session_id, observation=result.observation, info=result.info)

    def check_action(self, action: str) -> None:
        if len(action) > self._max_action_chars:
            size = len(action.encode("utf-8", "surrogatepass"))
            if size > self.config.max_action_bytes:
                raise ActionTooLarge(f"action is {size} bytes; the limit is {self.config.max_action_bytes}")
        if "\x00" in action:
            raise InvalidRequest("action contains a NUL character")

    async def step(
        self, session_id: str, action: str, *, wait_stored: bool = True, after_done: bool = False
    ) -> StepResponse:
        """One step. `wait_stored=False` leaves the commit wait to the caller (a batch waits
        once for all its items). `after_done`: a finished episode takes the step (the AgentGym
        routes of a profile with `steps_after_done`); otherwise 409."""
        self.check_action(action)
        lease = await self.lease(session_id)
        async with lease.lock:
            if lease.env.done and not after_done:
                self._check_open(lease)
                raise EpisodeFinished("the episode has ended; reset to start another")
            response = await self._step_locked(lease, action, after_done=after_done)
            if wait_stored:
                await self._stored_for(lease)
            return response

    async def _step_locked(self, lease: Lease, action: str, *, after_done: bool = False) -> StepResponse:
        self._check_open(lease)
        env = lease.env
        t0 = time.perf_counter()
        step = functools.partial(env.step, after_done=True) if after_done else env.step
        try:
            result: StepResult = await self.runtime.call(step, action)
        except EnvError:
            raise  # the request's fault (an unknown task, a finished episode): the episode goes on
        except Exception as exc:
            # Answered 500 internal_error (the message stays here); the env's state is as it
            # was before the step, so the session may go on, but if the episode ends without a
            # verdict, this is why: env_error, with the exception.
            lease.env_error = f"{type(exc).__name__}: {exc}"[:MAX_ERROR_CHARS]
            raise
        elapsed = time.perf_counter() - t0
        self.metrics.step_seconds.observe(elapsed)
        self.metrics.steps_total.inc()
        now = time.time()
        reward = float(result.reward)
        lease.total_reward += reward
        lease.last_observation, lease.last_info = result.observation, result.info
        lease.last_used = now
        # The step that ends the episode gives it its end status (later after_done steps do not).
        judged = lease.end_status == RUNNING and bool(result.done or result.truncated)
        success = judged and bool(result.done) and bool(episode_success(True, False, result.info, reward))
        if judged:
            lease.end_status = scored_end(bool(result.done), bool(result.truncated), success)
            self.metrics.episode_ended(lease.end_status)
        if self.writer is not None:
            self.writer.step(
                StepRow(
                    lease.episode_id,
                    env.steps,
                    action,
                    result.observation,
                    reward,
                    bool(result.done),
                    bool(result.truncated),
                    result.info,
                    elapsed * 1000.0,
                    now,
                    lease.total_reward,
                )
            )
            if judged:  # the task's difficulty statistics (coevo.store.task_stats), after its step
                policy = lease.tags[0] or UNTAGGED
                self.writer.task_outcome(lease.episode_id, self.env_name, str(env.task_id), policy, success)
        return StepResponse.model_construct(
            session_id=lease.session_id,
            observation=result.observation,
            reward=reward,
            done=bool(result.done),
            truncated=bool(result.truncated),
            info=result.info,
        )

    async def step_many(self, items: list[tuple[str, str] | BatchStepResult]) -> list[BatchStepResult]:
        """Step several sessions; each item gets its own result or error, in order.

        Items that are already a result (a malformed item the parser refused) pass through.
        Cheap envs run item after item (no task per item: that is the point of batching);
        heavy envs run concurrently on the env threads, items of one session still in order.
        Ids this process does not hold are looked up in the store in one query first, and
        the batch waits for one commit of all its steps.
        """
        await self.screen_unknown([item[0] for item in items if not isinstance(item, BatchStepResult)])
        if self.runtime.heavy:
            results = list(await asyncio.gather(*(self._batch_item(item) for item in items)))
        else:
            results = [await self._batch_item(item) for item in items]
        if self._durable and any(r.ok for r in results):
            try:
                await self._stored()
                results = [await self._refused_item(r) if r.ok else r for r in results]
            except NotStored as exc:  # every step of the batch is applied, none acknowledged
                self.metrics.error(exc.status, exc.code)
                error = ErrorDetail.model_construct(code=exc.code, message=exc.message)
                results = [
                    BatchStepResult.model_construct(
                        session_id=r.session_id, ok=False, result=None, error=error, status=exc.status
                    )
                    if r.ok
                    else r
                    for r in results
                ]
        return results

    async def _refused_item(self, result: BatchStepResult) -> BatchStepResult:
        """A stored batch item as it stands once the store has answered: its own error if the
        store refused a record of its session's episode (the session is failed then)."""
        lease = self.leases.find(result.session_id)
        if lease is None or self.writer is None or not self.writer.refused(lease.episode_id):
            return result
        exc = await self._fail_refused(lease)
        self.metrics.error(exc.status, exc.code)
        error = ErrorDetail.model_construct(code=exc.code, message=exc.message)
        return BatchStepResult.model_construct(
            session_id=result.session_id, ok=False, result=None, error=error, status=exc.status
        )

    async def _batch_item(self, item: tuple[str, str] | BatchStepResult) -> BatchStepResult:
        if isinstance(item, BatchStepResult):
            self.metrics.error(item.status, item.error.code if item.error else "invalid_request")
            return item
        session_id, action = item
        try:
            result = await self.step(session_id, action, wait_stored=False)
        except Exception as exc:  # one bad item never fails the batch
            status, code, message, headers = classify(exc)
            self.metrics.error(status, code)
            return BatchStepResult.model_construct(
                session_id=session_id,
                ok=False,
                result=None,
                error=ErrorDetail.model_construct(code=code, message=message),
                status=status,
                owner=(headers or {}).get(OWNER_HEADER),
            )
        return BatchStepResult.model_construct(session_id=session_id, ok=True, result=result, error=None, status=200)

    async def fork(self, session_id: str) -> SessionResponse:
        parent = await self.lease(session_id)
        self.leases.reserve()
        try:
            async with parent.lock:
                self._check_open(parent)
                snapshot = parent.env.snapshot()
                child_env = await self.runtime.call(self.runtime.new_env)
                await self.runtime.call(child_env.restore, snapshot)
                child = Lease(
                    new_session_id(),
                    child_env,
                    _new_episode_id(),
                    parent.last_observation,
                    dict(parent.last_info),
                    total_reward=parent.total_reward,
                )
                child.tags = parent.tags
                child.end_status = parent.end_status
                if self.ownership is not None:
                    await self.ownership.claim(child.session_id)
                self._record_episode(child, parent_id=parent.episode_id, start_step=child_env.steps)
                self.leases.add(child)
                parent.last_used = child.last_used
        finally:
            self.leases.unreserve()
        await self._stored_or_release(child)
        self.metrics.sessions_created.inc()
        return SessionResponse(session_id=child.session_id, observation=child.last_observation, info=child.last_info)

    async def expert(self, session_id: str) -> str | None:
        lease = await self.lease(session_id)
        async with lease.lock:
            self._check_open(lease)
            lease.last_used = time.time()
            return await self.runtime.call(lease.env.expert_action)

    async def state(self, session_id: str) -> SessionState:
        lease = await self.lease(session_id)
        env = lease.env
        return SessionState(
            session_id=session_id,
            env=self.env_name,
            task_id=env.task_id,
            split=env.split,
            seed=env.seed,
            steps=env.steps,
            done=env.done,
            total_reward=lease.total_reward,
            created_at=lease.created_at,
            last_used_at=lease.last_used,
            last_observation=lease.last_observation,
        )

    async def close(
        self, session_id: str, reason: str = "closed", *, status: str | None = None, error: str | None = None
    ) -> None:
        """Release a session. An episode it leaves unfinished ends `abandoned`, or with the
        `status` its client reports (policy_error, transport_error: what only the client sees)
        and that status's `error`; a finished episode keeps the status the env gave it."""
        if status is not None and status not in CLIENT_REPORTED:
            allowed = ", ".join(sorted(CLIENT_REPORTED))
            raise InvalidRequest(f"a client may report the end status {allowed}, not {status!r}")
        lease = self.leases.pop(session_id, reason)
        if lease is None:
            if reason == "closed":
                # A session of an earlier process that was never touched since: close it in the store.
                lease = await self.lease(session_id)
                self.leases.pop(session_id, reason)
            else:
                return
        if self.ownership is not None:
            self.ownership.release(session_id)
        async with lease.lock:
            lease.closed = True
            self._leave_episode(lease, reason, time.time(), status=status, error=error)
            try:
                await self.runtime.call(lease.env.close)
            except Exception:
                log.exception("env close failed for session %s", session_id)
        self.metrics.released(reason)
        if self._durable:
            await self._stored()
            if self.writer is not None and self.writer.refused(lease.episode_id):
                log.error("the store refused the close of session %s (episode %s)", session_id, lease.episode_id)
        elif self.writer is not None and reason == "closed":
            await asyncio.get_running_loop().run_in_executor(None, self.writer.flush)

    # ------------------------------------------------------------------ lookup and recovery
    async def lease(self, session_id: str) -> Lease:
        lease = self.leases.find(session_id)
        if lease is not None:
            if self.ownership is not None:
                self.ownership.check()
            if self.writer is not None and self.writer.refused(lease.episode_id):
                # A buffered write (durability "buffered") was refused after its answer left.
                await self._fail_refused(lease)
                raise self.leases.not_found(session_id)
            return lease
        return await self._recover(session_id)

    def _check_open(self, lease: Lease) -> None:
        if lease.closed:
            raise self.leases.not_found(lease.session_id)

    def _may_recover(self, session_id: str) -> bool:
        """Whether the store could hold `session_id` as a session of an earlier process: not
        held, not released or known absent here, and shaped like an id (cheap checks only)."""
        return (
            self.writer is not None
            and self.config.recover
            and session_id not in self.leases
            and self.leases.released_reason(session_id) is None
            and not self.leases.known_absent(session_id)
            and plausible_session_id(session_id)
        )

    async def screen_unknown(self, session_ids: list[str]) -> None:
        """Look up, in one store query, every id of a batch this process does not hold; those
        with no open episode are remembered as absent, so their items fail without a query."""
        candidates = {sid for sid in session_ids if sid not in self._recovering and self._may_recover(sid)}
        if not candidates or self.writer is None:
            return
        found = await self.runtime.offload(sessions_with_open_episodes, self.writer.engine, candidates, self.env_name)
        self.leases.remember_absent(candidates - found)

    async def _recover(self, session_id: str) -> Lease:
        """Rebuild a session an earlier process of this server recorded, or raise 404."""
        task = self._recovering.get(session_id)
        if task is None:
            if not self._may_recover(session_id):
                raise self.leases.not_found(session_id)
            task = asyncio.get_running_loop().create_task(self._rebuild(session_id))
            self._recovering[session_id] = task
            task.add_done_callback(lambda _done: self._recovering.pop(session_id, None))
        # Shielded: a waiter that gives up must not cancel the replay other requests await.
        lease = await asyncio.shield(task)
        if lease is None:
            raise self.leases.not_found(session_id)
        return lease

    async def _rebuild(self, session_id: str) -> Lease | None:
        from coevo.server.recovery import recover_lease

        lease = await recover_lease(self, session_id)
        if lease is None:
            if self.leases.released_reason(session_id) is None:
                self.leases.remember_absent([session_id])
            return None
        self.metrics.sessions_recovered.inc()
        return lease

    # ------------------------------------------------------------------ recording
    async def _stored(self) -> None:
        """Wait until everything this request recorded is committed (durable acknowledgement).
        A refused row does not raise here: which episode lost it is `writer.refused`'s answer
        (`_stored_for`), so one session's refused row never fails another's request."""
        if not self._durable:
            return
        assert self.writer is not None
        try:
            await self.writer.stored()
        except StoreUnavailable as exc:
            raise NotStored(
                f"{exc}; the change is applied and will be stored when it is back",
                headers={"Retry-After": str(self.config.retry_after_s)},
            ) from None
        except RowRefused:
            pass

    async def _stored_for(self, lease: Lease) -> None:
        """`_stored`, then: if the store refused a record of the lease's episode, the session
        fails (closed, 410 from then on) and this request answers 500 `store_refused`. Its
        state is ahead of its stored history, so no later step may be acknowledged."""
        await self._stored()
        if self._durable and self.writer is not None and self.writer.refused(lease.episode_id):
            raise await self._fail_refused(lease)

    async def _fail_refused(self, lease: Lease) -> StoreRefused:
        why = f"the store refused a record of its episode {lease.episode_id}, so its stored history has a gap"
        await self.fail(lease, why, close_reason="store_refused")
        return StoreRefused(
            f"{why}; nothing of this request is acknowledged and session {lease.session_id} is closed as failed"
        )

    async def fail(self, lease: Lease, why: str, *, close_reason: str, status: str = EndStatus.ENV_ERROR.value) -> None:
        """Close a session that can no longer be served as recorded; later requests get 410 with
        `why`. Its episode, if unfinished, ends with `status` (the server's side failed: env_error)."""
        if lease.closed:
            return
        lease.closed = True
        self.leases.fail(lease.session_id, why)
        self.metrics.released("failed")
        if self.ownership is not None:
            self.ownership.release(lease.session_id)
        self._leave_episode(lease, close_reason, time.time(), status=status, error=why)
        try:
            await self.runtime.call(lease.env.close)
        except Exception:
            log.exception("env close failed for session %s", lease.session_id)

    def _leave_episode(
        self, lease: Lease, close_reason: str, now: float, *, status: str | None = None, error: str | None = None
    ) -> None:
        """Record that the session left its episode; an unfinished one gets its end status,
        counted in /metrics: `status` (what the client or the server's own failure reports),
        else env_error if the env raised during it, else abandoned."""
        if status is None and lease.env_error is not None:
            status, error = EndStatus.ENV_ERROR.value, lease.env_error
        fields = end_fields(lease.end_status, status or EndStatus.ABANDONED.value, error)
        if fields:
            lease.end_status = fields["status"]
            self.metrics.episode_ended(lease.end_status)
        if self.writer is not None:
            self.writer.episode_updated(
                lease.episode_id, closed_at=now, close_reason=close_reason, updated_at=now, **fields
            )

    async def _stored_or_release(self, lease: Lease) -> None:
        """`_stored` for a new session: if it cannot be stored, nobody learns its id, so it is
        released at once instead of holding a slot until its idle TTL."""
        try:
            await self._stored_for(lease)
        except Exception:
            if self.leases.pop(lease.session_id, "closed") is not None:
                lease.closed = True
                if self.ownership is not None:
                    self.ownership.release(lease.session_id)
                self._leave_episode(lease, "not_stored", time.time())
                with contextlib.suppress(Exception):
                    await self.runtime.call(lease.env.close)
            raise

    # ------------------------------------------------------------------ recording
    def _record_episode(self, lease: Lease, *, parent_id: str | None = None, start_step: int = 0) -> None:
        if self.writer is None:
            return
        env = lease.env
        now = time.time()
        self.writer.episode_started(
            id=lease.episode_id,
            session_id=lease.session_id,
            env=self.env_name,
            env_version=str(self.runtime.env_cls.version),
            task_id=env.task_id,
            seed=env.seed,
            split=env.split,
            status=lease.end_status,
            close_reason=None,
            created_at=now,
            updated_at=now,
            closed_at=None,
            total_reward=lease.total_reward,
            steps=env.steps,
            parent_id=parent_id,
            start_step=start_step,
            observation=lease.last_observation,
            info=lease.last_info,
            policy=lease.tags[0],
            run=lease.tags[1],
            success=episode_success(env.done, False, lease.last_info, lease.total_reward) if env.done else None,
        )

    # ------------------------------------------------------------------ admin
    def _checked_payload(self, model: type[BaseModel], payload: Mapping[str, Any]) -> dict[str, Any]:
        """Strict validation by the env's payload model, then every AdminPath field confined to
        the admin directory (replaced by the checked path). Runs off the loop: it stats files."""
        try:
            checked = model.model_validate(dict(payload), strict=True)
        except ValidationError as exc:
            raise InvalidRequest(_describe_errors(exc)) from None
        out = checked.model_dump()
        for name, field in type(checked).model_fields.items():
            if ADMIN_PATH in field.metadata and isinstance(out.get(name), str):
                try:
                    out[name] = str(self.admin_paths.check(out[name]))
                except PathNotAllowed as exc:
                    raise InvalidRequest(str(exc)) from None
        return out

    async def admin(self, command: str, payload: Mapping[str, Any]) -> dict[str, Any]:
        cls, shared = self.runtime.env_cls, self.runtime.shared
        model = cls.admin_payloads.get(command)
        if model is not None:
            payload = await self.runtime.offload(self._checked_payload, model, payload)
        try:
            result = await self.runtime.offload(cls.admin, shared, command, payload)
        except EnvError as exc:
            # The env saw the checked, absolute paths; the client named them relative to the
            # admin directory, and the server's layout is none of its business.
            message = str(exc)
            root = str(self.admin_paths.root_path())
            if root in message:
                raise type(exc)(message.replace(root + "/", "").replace(root, ".")) from None
            raise
        if not isinstance(result, dict):
            raise EnvError(f"admin command {command!r} returned {type(result).__name__}, not a dict")
        return result
