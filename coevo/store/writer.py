"""Trajectory writer with group commit: the step path appends to a deque, a thread writes batches.

A step costs the server one `deque.append` of a `StepRow` (atomic under the GIL, no lock); a
background thread drains the deque and writes each drain in one transaction: new episodes,
then their steps, then episode updates (absolute values, so coalescing several updates of one
episode into its last is exact).

Durable acknowledgement: after enqueuing, a request awaits `stored()`, a future settled once
everything queued before it is committed. `stored()` wakes the thread at once, and rows that
arrive while a transaction is in flight all go into the next one, so many requests' rows are
committed (and acknowledged) together. Without `stored()` the queue is written every
`interval_s` or as soon as `max_rows` wait: a SIGKILL then loses up to `interval_s` of rows.
Sessions whose steps were written are rebuilt by replay after a restart (see
`coevo.server.recovery`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections import OrderedDict, deque
from datetime import datetime, timezone
from typing import Any, NamedTuple

from sqlalchemy import Connection, Engine, Update, bindparam
from sqlalchemy.exc import InterfaceError, OperationalError

from coevo.end_status import scored_end
from coevo.store.outcome import episode_success
from coevo.store.tables import Episode, StepRecord
from coevo.store.task_stats import add_outcomes

log = logging.getLogger(__name__)

_EPISODES = Episode.__table__
_STEPS = StepRecord.__table__


class StepRow(NamedTuple):
    episode_id: str
    step_index: int
    action: str
    observation: str
    reward: float
    done: bool
    truncated: bool
    info: dict[str, Any]
    latency_ms: float
    at: float
    #: The episode's reward so far, this step included (the episode row is updated from it).
    total_reward: float


class _NewEpisode(NamedTuple):
    row: dict[str, Any]


class _EpisodeUpdate(NamedTuple):
    episode_id: str
    fields: dict[str, Any]


class _TaskOutcome(NamedTuple):
    """An episode the env judged: one more episode (and maybe success) for its task's statistics."""

    episode_id: str
    env: str
    task_id: str
    policy: str
    success: bool
    at: float


class _Barrier(NamedTuple):
    """A waiter in the queue: settled when every op ahead of it is committed (or has failed)."""

    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[None]


class StoreUnavailable(Exception):
    """The store could not be written (unreachable or busy); the rows stay queued for retry."""


class RowRefused(Exception):
    """The store refused a row outright (constraint or data error); it was dropped and logged.
    `TrajectoryWriter.refused(episode_id)` says which episodes lost a row."""


_Op = StepRow | _NewEpisode | _EpisodeUpdate | _TaskOutcome | _Barrier


def _resolve(outcomes: list[tuple[asyncio.Future[None], BaseException | None]]) -> None:
    """Runs on the waiters' event loop: one call settles a whole committed batch."""
    for future, error in outcomes:
        if future.done():  # the request was cancelled meanwhile
            continue
        if error is None:
            future.set_result(None)
        else:
            future.set_exception(error)


def _episode_of(op: _Op) -> str:
    if isinstance(op, _NewEpisode):
        return str(op.row["id"])
    if isinstance(op, _Barrier):
        return ""
    return op.episode_id


def _ts(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, tz=timezone.utc)


def _jsonable(value: Any) -> Any:
    """`value` as plain JSON types (anything else becomes its string), so one odd info never
    poisons a whole batch."""
    return json.loads(json.dumps(value, default=str))


class TrajectoryWriter:
    def __init__(
        self,
        engine: Engine,
        *,
        interval_s: float = 0.05,
        max_rows: int = 2000,
    ) -> None:
        self.engine = engine
        self.interval_s = interval_s
        self.max_rows = max_rows
        self._ops: deque[_Op] = deque()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._flush_lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._strip_nul = engine.dialect.name == "postgresql"
        self.rows_written = 0
        self.rows_refused = 0
        #: Episodes the store refused a row of (newest last, at most `_remember_refused`): their
        #: stored history has a hole, so the server must not acknowledge anything more of them.
        self._refused: OrderedDict[str, None] = OrderedDict()
        self._remember_refused = 100_000
        self.transactions = 0
        self._updates: dict[tuple[str, ...], Update] = {}
        self._conn: Connection | None = None
        self._conn_engine: Engine | None = None

    # ------------------------------------------------------------------ producer side (any thread)
    def episode_started(self, **row: Any) -> None:
        self._ops.append(_NewEpisode(row))

    def episode_updated(self, episode_id: str, **fields: Any) -> None:
        self._ops.append(_EpisodeUpdate(episode_id, fields))

    def task_outcome(self, episode_id: str, env: str, task_id: str, policy: str, success: bool) -> None:
        """Count an episode the env judged in its task's statistics (coevo.store.task_stats),
        in the same transaction as the steps queued before it."""
        self._ops.append(_TaskOutcome(episode_id, env, task_id, policy, success, time.time()))

    def step(self, row: StepRow) -> None:
        ops = self._ops
        ops.append(row)
        if len(ops) >= self.max_rows:
            self._wake.set()

    def stored(self) -> asyncio.Future[None]:
        """A future of the running loop, settled once everything queued so far is committed:
        None on success, `StoreUnavailable` or `RowRefused` otherwise. Wakes the writer now."""
        if self._thread is None:
            raise RuntimeError("the trajectory writer is not running (start() it first)")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        self._ops.append(_Barrier(loop, future))
        self._wake.set()
        return future

    def refused(self, episode_id: str) -> bool:
        """Whether the store refused a row of this episode (checked after `stored()`: once a
        request's barrier settles, every row it queued was either written or refused)."""
        return episode_id in self._refused

    @property
    def pending(self) -> int:
        return len(self._ops)

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="coevo-store-writer", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop the thread after writing everything still buffered."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None
        try:
            self.flush()
        finally:
            with self._flush_lock:
                if self._conn is not None:
                    self._conn.close()
                    self._conn = None

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.interval_s)
            self._wake.clear()
            try:
                self.flush()
            except Exception:  # never let the writer thread die; the ops stay queued
                log.exception("trajectory flush failed; retrying")
                time.sleep(min(1.0, self.interval_s * 10))

    # ------------------------------------------------------------------ consumer side
    def flush(self) -> int:
        """Write everything queued so far; returns the number of rows written. Thread-safe."""
        with self._flush_lock:
            count = len(self._ops)
            if count == 0:
                return 0
            ops = [self._ops.popleft() for _ in range(count)]
            outcomes: list[tuple[_Barrier, BaseException | None]] = []
            try:
                written = self._write_all(ops, outcomes)
                # Counted before the barriers settle: a request told "stored" already shows in
                # the counter (/metrics read right after it missed a row now and then).
                self.rows_written += written
            finally:
                self._settle(outcomes)
            return written

    def _write_all(self, ops: list[_Op], outcomes: list[tuple[_Barrier, BaseException | None]]) -> int:
        """Write `ops`, recording each barrier's outcome; returns the rows written."""
        rows = sum(1 for op in ops if type(op) is not _Barrier)
        try:
            self._write(ops, sanitize=False)
        except Exception:
            log.warning("batch write failed; retrying with sanitized rows", exc_info=True)
            try:
                self._write(ops, sanitize=True)
            except (OperationalError, InterfaceError) as exc:
                # The database is unreachable or busy: keep the rows, oldest first, and retry.
                self._requeue(ops, outcomes, exc)
                raise
            except Exception:
                # The database refuses some row outright (constraint, data error): write the
                # rest one by one so a single bad row cannot block every later write.
                return self._write_each(ops, outcomes)
        outcomes.extend((op, None) for op in ops if type(op) is _Barrier)
        return rows

    def _write_each(self, ops: list[_Op], outcomes: list[tuple[_Barrier, BaseException | None]]) -> int:
        """Write ops one per transaction, dropping (and logging) refused ones; a barrier fails
        when a row queued since the previous barrier was refused. Returns the rows written."""
        written = 0
        refused_since_barrier = False
        for i, op in enumerate(ops):
            if type(op) is _Barrier:
                error = RowRefused("the store refused a row of this request") if refused_since_barrier else None
                outcomes.append((op, error))
                refused_since_barrier = False
                continue
            try:
                self._write([op], sanitize=True)
                written += 1
            except (OperationalError, InterfaceError) as exc:
                self._requeue(ops[i:], outcomes, exc)  # connection trouble: retry the rest later
                raise
            except Exception:
                refused_since_barrier = True
                self.rows_refused += 1
                self._refused[_episode_of(op)] = None
                while len(self._refused) > self._remember_refused:
                    self._refused.popitem(last=False)
                log.error("trajectory store refused a row; dropped: %r", op, exc_info=True)
        return written

    def _requeue(
        self, ops: list[_Op], outcomes: list[tuple[_Barrier, BaseException | None]], cause: BaseException
    ) -> None:
        """Put the rows back at the head of the queue; their waiters learn the store is down."""
        error = StoreUnavailable(f"the trajectory store is unavailable: {type(cause).__name__}")
        self._ops.extendleft(reversed([op for op in ops if type(op) is not _Barrier]))
        outcomes.extend((op, error) for op in ops if type(op) is _Barrier)

    @staticmethod
    def _settle(outcomes: list[tuple[_Barrier, BaseException | None]]) -> None:
        by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[None], BaseException | None]]] = {}
        for barrier, error in outcomes:
            by_loop.setdefault(barrier.loop, []).append((barrier.future, error))
        for loop, items in by_loop.items():
            try:
                loop.call_soon_threadsafe(_resolve, items)
            except RuntimeError:  # that loop is closed: nobody waits any more
                pass

    def _write(self, ops: list[_Op], *, sanitize: bool) -> None:
        episodes: dict[str, dict[str, Any]] = {}
        steps: list[dict[str, Any]] = []
        updates: dict[str, dict[str, Any]] = {}
        outcomes: dict[tuple[str, str, str], dict[str, Any]] = {}
        for op in ops:
            if type(op) is _Barrier:
                continue
            if type(op) is _TaskOutcome:
                counts = outcomes.setdefault(
                    (op.env, op.task_id, op.policy),
                    {"env": op.env, "task_id": op.task_id, "policy": op.policy, "episodes": 0, "successes": 0},
                )
                counts["episodes"] += 1
                counts["successes"] += int(op.success)
                counts["updated_at"] = _ts(op.at)
                continue
            if type(op) is StepRow:
                steps.append(self._step_dict(op, sanitize))
                fields: dict[str, Any] = {
                    "steps": op.step_index,
                    "total_reward": op.total_reward,
                    "updated_at": _ts(op.at),
                }
                if op.done or op.truncated:  # the end status; a step that ends nothing leaves it be
                    success = episode_success(op.done, op.truncated, op.info, op.reward)
                    fields.update(status=scored_end(op.done, op.truncated, success), success=success)
                target = episodes.get(op.episode_id)
                if target is not None:
                    target.update(fields)
                else:
                    updates.setdefault(op.episode_id, {}).update(fields)
            elif isinstance(op, _NewEpisode):
                row = dict(op.row)
                for key in ("created_at", "updated_at", "closed_at"):
                    if isinstance(row.get(key), float):
                        row[key] = _ts(row[key])
                if sanitize:
                    row["info"] = _jsonable(row.get("info") or {})
                if self._strip_nul:
                    row["observation"] = row.get("observation", "").replace("\x00", "\ufffd")
                episodes[row["id"]] = row
            elif isinstance(op, _EpisodeUpdate):
                fields = {
                    k: (_ts(v) if k.endswith("_at") and isinstance(v, float) else v) for k, v in op.fields.items()
                }
                target = episodes.get(op.episode_id)
                if target is not None:
                    target.update(fields)
                else:
                    updates.setdefault(op.episode_id, {}).update(fields)
        # Core statements on the tables: the ORM's bulk machinery costs more than the rows.
        conn = self._connection()
        try:
            with conn.begin():
                self._execute(conn, episodes, steps, updates)
                add_outcomes(conn, outcomes.values())
            self.transactions += 1
        except (OperationalError, InterfaceError):
            self._drop_connection()  # the next flush reconnects
            raise

    def _execute(
        self,
        conn: Connection,
        episodes: dict[str, dict[str, Any]],
        steps: list[dict[str, Any]],
        updates: dict[str, dict[str, Any]],
    ) -> None:
        if episodes:
            conn.execute(_EPISODES.insert(), list(episodes.values()))
        if steps:
            conn.execute(_STEPS.insert(), steps)
        # One executemany per key set; `id` is bound as `episode_id` (a bindparam may not
        # share a column's name in an UPDATE's SET clause).
        by_keys: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        for episode_id, fields in updates.items():
            keys = tuple(sorted(fields))
            by_keys.setdefault(keys, []).append({"episode_id": episode_id, **fields})
        for keys, rows in by_keys.items():
            stmt = self._updates.get(keys)
            if stmt is None:  # built once per key set: building costs more than the rows
                stmt = self._updates[keys] = (
                    _EPISODES.update()
                    .where(_EPISODES.c.id == bindparam("episode_id"))
                    .values({k: bindparam(k) for k in keys})
                )
            conn.execute(stmt, rows)

    def _connection(self) -> Connection:
        """The writer's own connection, kept between transactions (a pool checkout and the
        rollback on its return would double the cost of a small group commit)."""
        if self._conn is None or self._conn_engine is not self.engine:
            self._drop_connection()
            self._conn, self._conn_engine = self.engine.connect(), self.engine
        return self._conn

    def _drop_connection(self) -> None:
        if self._conn is not None:
            try:
                self._conn.invalidate()
            except Exception:
                log.debug("closing the writer's connection failed", exc_info=True)
            self._conn = None

    def _step_dict(self, row: StepRow, sanitize: bool) -> dict[str, Any]:
        observation = row.observation
        if self._strip_nul and "\x00" in observation:
            observation = observation.replace("\x00", "\ufffd")
        return {
            "episode_id": row.episode_id,
            "index": row.step_index,
            "action": row.action,
            "observation": observation,
            "reward": row.reward,
            "done": row.done,
            "truncated": row.truncated,
            "info": _jsonable(row.info) if sanitize else row.info,
            "latency_ms": row.latency_ms,
            "created_at": _ts(row.at),
        }
