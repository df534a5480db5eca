"""Prometheus metrics, one registry per app so several servers in one process never clash."""

from __future__ import annotations

from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

#: Env steps range from microseconds (text games) to seconds (simulators).
_LATENCY_BUCKETS = (
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
    10.0, 30.0,
)


class ServerMetrics:
    content_type = CONTENT_TYPE_LATEST

    def __init__(self, env: str, active: Callable[[], int], pending_rows: Callable[[], int]) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.sessions_active = Gauge(
            "coevo_sessions_active", "Live sessions", ["env"], registry=r
        ).labels(env)
        self.sessions_active.set_function(active)
        self.sessions_created = Counter(
            "coevo_sessions_created_total", "Sessions created (forks included)", ["env"], registry=r
        ).labels(env)
        self._released = Counter(
            "coevo_sessions_released_total",
            "Sessions released, by reason (closed, expired_idle, expired_age)",
            ["env", "reason"],
            registry=r,
        )
        self._released_by = {
            reason: self._released.labels(env, reason)
            for reason in ("closed", "expired_idle", "expired_age")
        }
        self.sessions_expired = Counter(
            "coevo_sessions_expired_total", "Sessions released by the idle-TTL or max-age reaper",
            ["env"], registry=r,
        ).labels(env)
        self.sessions_recovered = Counter(
            "coevo_sessions_recovered_total", "Sessions rebuilt from the store after a restart",
            ["env"], registry=r,
        ).labels(env)
        self.step_seconds = Histogram(
            "coevo_step_seconds", "Env step latency (server side)", ["env"],
            buckets=_LATENCY_BUCKETS, registry=r,
        ).labels(env)
        self.reset_seconds = Histogram(
            "coevo_reset_seconds", "Env reset latency (server side)", ["env"],
            buckets=_LATENCY_BUCKETS, registry=r,
        ).labels(env)
        self.steps_total = Counter(
            "coevo_steps_total", "Env steps taken", ["env"], registry=r
        ).labels(env)
        self._errors = Counter(
            "coevo_errors_total", "Error responses by HTTP status and code", ["env", "status", "code"],
            registry=r,
        )
        self._env = env
        self.store_pending = Gauge(
            "coevo_store_pending_rows", "Trajectory rows buffered, not yet written", ["env"],
            registry=r,
        ).labels(env)
        self.store_pending.set_function(pending_rows)

    def released(self, reason: str) -> None:
        counter = self._released_by.get(reason)
        if counter is None:
            counter = self._released_by[reason] = self._released.labels(self._env, reason)
        counter.inc()
        if reason.startswith("expired"):
            self.sessions_expired.inc()

    def error(self, status: int, code: str) -> None:
        self._errors.labels(self._env, str(status), code).inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)
