"""Reading recorded episodes back: what a restarted server needs to replay a session."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from coevo.store.tables import Episode, StepRecord


class HistoryGap(Exception):
    """A session's recorded steps have a hole: its episode cannot be replayed as it happened."""

    def __init__(self, episode_id: str, index: int, open_episode_id: str) -> None:
        super().__init__(f"episode {episode_id} has a gap in its recorded steps at step {index}")
        self.episode_id = episode_id
        self.index = index
        #: The session's open episode (a fork's gap may lie in an ancestor it inherits from).
        self.open_episode_id = open_episode_id


@dataclass
class OpenEpisode:
    """The episode a session was in when its server went away, with its full action history."""

    episode: Episode
    actions: list[str]
    #: Reward summed over the whole history (inherited steps included).
    total_reward: float
    last_observation: str
    last_info: dict[str, Any]
    last_active: datetime


def open_episode(engine: Engine, session_id: str, env: str) -> OpenEpisode | None:
    """The newest episode of `session_id` that nobody closed, or None.

    Forks inherit their parent's first `start_step` steps, so the history is assembled by
    walking `parent_id` links back to the root. Raises `HistoryGap` when a step is missing.
    """
    with Session(engine) as db:
        episode = db.scalars(
            select(Episode)
            .where(Episode.session_id == session_id, Episode.env == env)
            .order_by(Episode.created_at.desc())
            .limit(1)
        ).first()
        if episode is None or episode.closed_at is not None:
            return None
        chain: list[tuple[Episode, int]] = []  # (episode, steps it contributes up to)
        node: Episode | None = episode
        upto = None
        while node is not None:
            chain.append((node, upto if upto is not None else 1 << 30))
            upto = node.start_step
            node = db.get(Episode, node.parent_id) if node.parent_id else None
        actions: list[str] = []
        total = 0.0
        last_obs, last_info = episode.observation, dict(episode.info or {})
        for node, limit in reversed(chain):
            rows = db.scalars(
                select(StepRecord)
                .where(
                    StepRecord.episode_id == node.id,
                    StepRecord.index > node.start_step,
                    StepRecord.index <= limit,
                )
                .order_by(StepRecord.index)
            ).all()
            for row in rows:
                if row.index != len(actions) + 1:
                    raise HistoryGap(node.id, len(actions) + 1, episode.id)
                actions.append(row.action)
                total += row.reward
                last_obs, last_info = row.observation, dict(row.info or {})
        if episode.steps > len(actions):  # its last steps were refused or lost
            raise HistoryGap(episode.id, len(actions) + 1, episode.id)
        last_active = episode.updated_at
        if last_active.tzinfo is None:  # SQLite keeps no zone; the writer stores UTC
            last_active = last_active.replace(tzinfo=timezone.utc)
        return OpenEpisode(episode, actions, total, last_obs, last_info, last_active)


def sessions_with_open_episodes(engine: Engine, session_ids: Collection[str], env: str) -> set[str]:
    """Which of `session_ids` have an episode of `env` nobody closed: one query, however many ids
    (a server screens a whole batch of ids it does not hold with it)."""
    if not session_ids:
        return set()
    with engine.connect() as conn:
        rows = conn.execute(
            select(Episode.session_id)
            .where(Episode.session_id.in_(list(session_ids)), Episode.env == env, Episode.closed_at.is_(None))
            .distinct()
        )
        return {row[0] for row in rows}
