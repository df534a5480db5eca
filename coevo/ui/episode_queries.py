"""The episode list and one episode's trajectory, read from the SQL store.

The list pages newest first with a keyset cursor (created_at, id) rather than OFFSET, and never
counts the matching rows, so a page costs the same at the millionth step as at the thousandth:
each filter has an index that keeps the order (`coevo.store.tables.Episode.__table_args__`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import Engine, Select, and_, or_, select
from sqlalchemy.orm import Session

from coevo.store.tables import Episode, StepRecord

PAGE_SIZE = 50


@dataclass
class EpisodeFilter:
    """What the episode list is narrowed to; empty fields do not filter."""

    env: str = ""
    split: str = ""
    task: str = ""
    policy: str = ""
    run: str = ""
    #: "yes", "no" or "unknown" (no verdict: running, cut or abandoned).
    success: str = ""
    min_reward: float | None = None
    max_reward: float | None = None
    session: str = ""

    def query_args(self) -> dict[str, str]:
        """The non-empty fields as URL query arguments (for the next page's link)."""
        out = {k: str(v) for k, v in self.__dict__.items() if v not in ("", None)}
        return out


@dataclass
class EpisodePage:
    rows: list[Episode]
    #: The cursor of the next (older) page, None on the last page.
    next_cursor: str | None
    filters: EpisodeFilter = field(default_factory=EpisodeFilter)


class BadCursor(ValueError):
    """A `before` value that is not one this page made."""


def _utc(at: datetime) -> datetime:
    return at if at.tzinfo is not None else at.replace(tzinfo=timezone.utc)


def make_cursor(episode: Episode) -> str:
    return f"{_utc(episode.created_at).isoformat()}|{episode.id}"


def parse_cursor(cursor: str) -> tuple[datetime, str]:
    at, sep, episode_id = cursor.partition("|")
    try:
        if not sep or not episode_id:
            raise ValueError(cursor)
        return _utc(datetime.fromisoformat(at)), episode_id
    except ValueError:
        raise BadCursor(f"not a page cursor: {cursor!r}") from None


def _filtered(query: Select[Any], f: EpisodeFilter) -> Select[Any]:
    for column, value in (
        (Episode.env, f.env), (Episode.split, f.split), (Episode.policy, f.policy), (Episode.run, f.run),
        (Episode.session_id, f.session),
    ):  # fmt: skip
        if value:
            query = query.where(column == value)
    if f.task:
        query = query.where(Episode.task_id.contains(f.task, autoescape=True))
    if f.success == "yes":
        query = query.where(Episode.success.is_(True))
    elif f.success == "no":
        query = query.where(Episode.success.is_(False))
    elif f.success == "unknown":
        query = query.where(Episode.success.is_(None))
    if f.min_reward is not None:
        query = query.where(Episode.total_reward >= f.min_reward)
    if f.max_reward is not None:
        query = query.where(Episode.total_reward <= f.max_reward)
    return query


def list_episodes(engine: Engine, f: EpisodeFilter, *, before: str | None = None, size: int = PAGE_SIZE) -> EpisodePage:
    """One page of episodes matching `f`, newest first, older than the cursor `before`."""
    query = _filtered(select(Episode), f)
    if before:
        at, episode_id = parse_cursor(before)
        query = query.where(or_(Episode.created_at < at, and_(Episode.created_at == at, Episode.id < episode_id)))
    query = query.order_by(Episode.created_at.desc(), Episode.id.desc()).limit(size + 1)
    with Session(engine) as db:
        rows = list(db.scalars(query))
    more = len(rows) > size
    rows = rows[:size]
    return EpisodePage(rows, make_cursor(rows[-1]) if more and rows else None, f)


@dataclass
class Turn:
    """One step of a trajectory as the page shows it."""

    index: int
    action: str
    observation: str
    reward: float
    done: bool
    truncated: bool
    info: dict[str, Any]
    latency_ms: float
    at: datetime
    #: The episode this step was recorded in (a fork's first steps are its parent's).
    episode_id: str


def get_episode(engine: Engine, episode_id: str) -> Episode | None:
    with Session(engine) as db:
        return db.get(Episode, episode_id)


def trajectory(engine: Engine, episode: Episode) -> list[Turn]:
    """The episode's steps from its first, walking fork links back for the inherited ones."""
    with Session(engine) as db:
        chain: list[tuple[Episode, int]] = []
        node: Episode | None = episode
        upto = 1 << 30
        seen: set[str] = set()
        while node is not None and node.id not in seen:
            seen.add(node.id)
            chain.append((node, upto))
            upto = node.start_step
            node = db.get(Episode, node.parent_id) if node.parent_id else None
        turns: list[Turn] = []
        for node, limit in reversed(chain):
            rows = db.scalars(
                select(StepRecord)
                .where(StepRecord.episode_id == node.id, StepRecord.index > node.start_step, StepRecord.index <= limit)
                .order_by(StepRecord.index)
            )
            turns += [
                Turn(r.index, r.action, r.observation, r.reward, r.done, r.truncated, dict(r.info or {}),
                     r.latency_ms, _utc(r.created_at), r.episode_id)
                for r in rows
            ]  # fmt: skip
        return turns


def first_observation(engine: Engine, episode: Episode) -> str:
    """The reset observation of the episode's first ancestor (a fork's own row holds the
    observation it was forked at)."""
    with Session(engine) as db:
        node, seen = episode, {episode.id}
        while node.parent_id and node.parent_id not in seen:
            parent = db.get(Episode, node.parent_id)
            if parent is None:
                break
            node = parent
            seen.add(node.id)
        return node.observation


def same_task(engine: Engine, episode: Episode, limit: int = 20) -> list[Episode]:
    """Other episodes of the same env and task, newest first (the candidates to compare with)."""
    with Session(engine) as db:
        return list(
            db.scalars(
                select(Episode)
                .where(Episode.env == episode.env, Episode.task_id == episode.task_id, Episode.id != episode.id)
                .order_by(Episode.created_at.desc())
                .limit(limit)
            )
        )
