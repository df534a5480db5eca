"""Crash recovery: rebuild a session from the store by replaying its recorded actions.

Envs are deterministic given (task_id, seed, actions), so a server that was killed and
restarted on the same database can serve a session it has never seen in memory: the next
step returns exactly what it would have returned without the crash. Every acknowledged step
was committed before its response (unless durability is "buffered", where the last
`flush_interval_s` of steps may be missing).

A session that cannot be rebuilt as recorded (a gap in its steps, a replay that fails, another
env version) fails: its episode is closed in the store (close_reason "unrecoverable", except
for a version mismatch, which another server may still serve) and every request on it answers
410 `session_failed` with the reason, instead of a 500 on every try.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from coevo.end_status import EndStatus
from coevo.server.episode_end import end_fields
from coevo.server.leases import Lease
from coevo.store.trajectories import HistoryGap, open_episode

if TYPE_CHECKING:
    from coevo.server.service import EnvService

log = logging.getLogger(__name__)


async def recover_lease(service: EnvService, session_id: str) -> Lease | None:
    writer = service.writer
    assert writer is not None
    runtime = service.runtime
    # No flush first: whatever this process has queued about an id it also knows in memory
    # (a live lease, or a released one), and such ids never get here.
    try:
        found = await runtime.offload(open_episode, writer.engine, session_id, service.env_name)
    except HistoryGap as gap:
        _give_up(service, session_id, gap.open_episode_id, None, f"it cannot be recovered: {gap}")
        return None
    if found is None:
        return None
    episode = found.episode
    version = str(runtime.env_cls.version)
    if episode.env_version != version:
        # Replaying under changed rules would not reproduce the recorded episode.
        log.warning(
            "not recovering session %s: recorded with %s version %s, serving %s",
            session_id,
            service.env_name,
            episode.env_version,
            version,
        )
        service.leases.fail(
            session_id,
            f"it was recorded with {service.env_name} version {episode.env_version};"
            f" this server runs version {version} and cannot replay it",
        )
        return None
    now = time.time()
    last_active = found.last_active.timestamp()
    ttl = service.config.idle_ttl_s
    if ttl and now - last_active > ttl:
        fields = end_fields(episode.status, EndStatus.ABANDONED.value)
        writer.episode_updated(episode.id, closed_at=now, close_reason="expired_idle", updated_at=now, **fields)
        if fields:
            service.metrics.episode_ended(fields["status"])
        service.leases.remember(session_id, "expired_idle")
        service.metrics.released("expired_idle")
        return None
    if service.ownership is not None:
        # 409 with the owner's address while another replica serves it; it takes the session
        # over only when that owner's heartbeat has expired.
        await service.ownership.claim(session_id)
    service.leases.reserve()
    try:
        env = await runtime.offload(runtime.new_env)
        try:
            await runtime.offload(
                env.restore,
                {
                    "task_id": episode.task_id,
                    "seed": episode.seed,
                    "actions": found.actions,
                    "agentgym": bool((episode.info or {}).get("agentgym")),
                },
            )
        except Exception as exc:
            log.exception("replaying session %s failed", session_id)
            _give_up(
                service,
                session_id,
                episode.id,
                episode.status,
                f"it cannot be recovered: replaying its {len(found.actions)} recorded steps failed"
                f" ({type(exc).__name__})",
            )
            return None
        lease = Lease(
            session_id, env, episode.id, found.last_observation, found.last_info, total_reward=found.total_reward
        )
        lease.tags = (episode.policy, episode.run)
        lease.end_status = episode.status
        service.leases.add(lease)
    finally:
        service.leases.unreserve()
    return lease


def _give_up(service: EnvService, session_id: str, episode_id: str, current: str | None, why: str) -> None:
    """The session fails here (410 with `why`) and its episode is closed in the store, so no
    server tries the same replay again; an unfinished one ends env_error (the server's side
    cannot go on), one whose status is not known here (`current` None) keeps it."""
    log.warning("session %s failed: %s", session_id, why)
    service.leases.fail(session_id, why)
    service.metrics.released("failed")
    writer = service.writer
    if writer is not None:
        now = time.time()
        fields = end_fields(current, EndStatus.ENV_ERROR.value, why) if current is not None else {}
        writer.episode_updated(episode_id, closed_at=now, close_reason="unrecoverable", updated_at=now, **fields)
        if fields:
            service.metrics.episode_ended(fields["status"])
