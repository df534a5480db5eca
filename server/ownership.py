"""One owner per session across replicas on one store (coevo/store/owners.py), for the service.

A recording server claims each session it creates, forks or rebuilds. A held session is served
from memory with no store round trip: the step path only compares the monotonic clock with
the deadline the last renewal set (`check`). A background task renews every owned session in
one statement each `owner_heartbeat_s`; a renewal that finds a held session owned by another
server (it took the session over after this one failed to renew in time) forgets the lease,
so the next request asks the store and learns the owner. The deadline is taken from before
each renewal was sent (expiry − heartbeat after it), so this server stops serving a session
before the database's clock lets anyone take it over, whatever the machines' clocks say.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from sqlalchemy import Engine
from sqlalchemy.exc import InterfaceError, OperationalError

from coevo.server.errors import NotStored, OwnedElsewhere, OwnershipUnconfirmed
from coevo.server.leases import LeaseTable
from coevo.server.runtime import EnvRuntime
from coevo.store import owners
from coevo.wire import OWNER_HEADER

log = logging.getLogger(__name__)


class Ownership:
    def __init__(
        self,
        engine: Engine,
        runtime: EnvRuntime,
        leases: LeaseTable,
        *,
        address: str,
        heartbeat_s: float,
        expiry_s: float,
        on_moved: Callable[[str], None] | None = None,
    ) -> None:
        self.engine = engine
        self.runtime = runtime
        self.leases = leases
        self.address = address
        self.heartbeat_s = heartbeat_s
        self.expiry_s = expiry_s
        self.on_moved = on_moved
        self._released: set[str] = set()
        #: Monotonic time until which held sessions are still this server's for certain. Every
        #: claim writes a fresh heartbeat, so from start no session is at risk before this.
        self._valid_until = time.monotonic() + expiry_s - heartbeat_s
        self._task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        if self._task is None:
            # From here on sessions are claimed, each with a fresh heartbeat. Counted from
            # construction instead, a start slower than the expiry (a loaded machine's first
            # imports) answered 503 to the first steps.
            self._valid_until = time.monotonic() + self.expiry_s - self.heartbeat_s
            self._task = asyncio.get_running_loop().create_task(self._renew_forever())

    async def stop(self) -> None:
        """Stop renewing and give back every session: a restart (same address) or another
        replica takes them at once, without waiting for the expiry."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        held = {lease.session_id for lease in self.leases} | self._released
        try:
            await self.runtime.offload(owners.heartbeat, self.engine, self.address, held)
        except Exception:
            log.warning("could not give back session ownership on stop", exc_info=True)

    # ------------------------------------------------------------------ the request path
    def check(self) -> None:
        """Held sessions may be served: the last renewal is recent enough (no store access)."""
        if time.monotonic() > self._valid_until:
            raise OwnershipUnconfirmed(
                "this server could not renew its sessions' ownership in the store in time, so another "
                "replica may take them over; retry shortly",
                headers={"Retry-After": str(max(1, round(self.heartbeat_s)))},
            )

    async def claim(self, session_id: str) -> None:
        """Own `session_id`, or raise 409 with the live owner's address."""
        try:
            owner = await self.runtime.offload(
                owners.claim, self.engine, session_id, self.address, self.address, self.expiry_s
            )
        except (OperationalError, InterfaceError) as exc:
            raise NotStored(
                f"the store is unavailable ({type(exc).__name__}); session ownership cannot be recorded",
                headers={"Retry-After": str(max(1, round(self.heartbeat_s)))},
            ) from None
        if owner is not None:
            raise OwnedElsewhere(
                f"session {session_id} is served by {owner.address} (its heartbeat is {owner.age_s:.1f} s old;"
                f" another server takes it over only after {self.expiry_s:g} s); send its requests there",
                headers={OWNER_HEADER: owner.address},
            )

    def release(self, session_id: str) -> None:
        """The session ended here: its row goes with the next renewal."""
        self._released.add(session_id)

    # ------------------------------------------------------------------ renewal
    async def renew(self) -> None:
        started = time.monotonic()
        released, self._released = self._released, set()
        try:
            owned = await self.runtime.offload(owners.heartbeat, self.engine, self.address, released)
        except Exception:
            self._released |= released
            log.warning("renewing session ownership failed", exc_info=True)
            return
        self._valid_until = started + self.expiry_s - self.heartbeat_s
        for lease in self.leases:
            if lease.session_id not in owned and lease.claimed_at < started:
                log.warning("session %s was taken over by another server; forgetting it", lease.session_id)
                self.leases.drop(lease.session_id)
                lease.closed = True
                if self.on_moved is not None:
                    self.on_moved(lease.session_id)

    async def _renew_forever(self) -> None:
        while True:
            await asyncio.sleep(self.heartbeat_s)
            await self.renew()
