"""Prometheus metrics, one registry per app so several servers in one process never clash."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from coevo.end_status import ALL_VALUES
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.metrics_core import CounterMetricFamily, Metric

#: Env steps range from microseconds (text games) to seconds (simulators).
_LATENCY_BUCKETS = (
    0.0001,
    0.00025,
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    30.0,
)


class _StoreCommits:
    """The writer's own counts, read when scraped: rows over transactions is the group commit's
    batch size, which shows whether commits keep up under load."""

    def __init__(self, env: str, counts: Callable[[], tuple[int, int]]) -> None:
        self.env = env
        self.counts = counts

    def collect(self) -> Iterator[Metric]:
        rows, transactions = self.counts()
        for name, doc, value in (
            ("coevo_store_rows_written", "Trajectory rows committed to the store", rows),
            ("coevo_store_transactions", "Store transactions committed (group commits)", transactions),
        ):
            family = CounterMetricFamily(name, doc, labels=["env"])
            family.add_metric([self.env], value)
            yield family


class ServerMetrics:
    content_type = CONTENT_TYPE_LATEST

    def __init__(
        self,
        env: str,
        active: Callable[[], int],
        pending_rows: Callable[[], int],
        store_counts: Callable[[], tuple[int, int]] | None = None,
    ) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.sessions_active = Gauge("coevo_sessions_active", "Live sessions", ["env"], registry=r).labels(env)
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
            reason: self._released.labels(env, reason) for reason in ("closed", "expired_idle", "expired_age")
        }
        self._ended = Counter(
            "coevo_episodes_ended_total",
            "Episodes ended, by end status (success, failure, truncated, abandoned, env_error, ...)",
            ["env", "status"],
            registry=r,
        )
        # Every status present from the start, so a dashboard sees a 0, not a missing series.
        self._ended_by = {status: self._ended.labels(env, status) for status in ALL_VALUES}
        self.sessions_expired = Counter(
            "coevo_sessions_expired_total",
            "Sessions released by the idle-TTL or max-age reaper",
            ["env"],
            registry=r,
        ).labels(env)
        self.sessions_recovered = Counter(
            "coevo_sessions_recovered_total",
            "Sessions rebuilt from the store after a restart",
            ["env"],
            registry=r,
        ).labels(env)
        self.step_seconds = Histogram(
            "coevo_step_seconds",
            "Env step latency (server side)",
            ["env"],
            buckets=_LATENCY_BUCKETS,
            registry=r,
        ).labels(env)
        self.reset_seconds = Histogram(
            "coevo_reset_seconds",
            "Env reset latency (server side)",
            ["env"],
            buckets=_LATENCY_BUCKETS,
            registry=r,
        ).labels(env)
        self.steps_total = Counter("coevo_steps_total", "Env steps taken", ["env"], registry=r).labels(env)
        self._errors = Counter(
            "coevo_errors_total",
            "Error responses by HTTP status and code",
            ["env", "status", "code"],
            registry=r,
        )
        self._env = env
        self.store_pending = Gauge(
            "coevo_store_pending_rows",
            "Trajectory rows buffered, not yet written",
            ["env"],
            registry=r,
        ).labels(env)
        self.store_pending.set_function(pending_rows)
        if store_counts is not None:
            r.register(_StoreCommits(env, store_counts))

    def released(self, reason: str) -> None:
        counter = self._released_by.get(reason)
        if counter is None:
            counter = self._released_by[reason] = self._released.labels(self._env, reason)
        counter.inc()
        if reason.startswith("expired"):
            self.sessions_expired.inc()

    def episode_ended(self, status: str) -> None:
        counter = self._ended_by.get(status)
        if counter is None:
            counter = self._ended_by[status] = self._ended.labels(self._env, status)
        counter.inc()

    def error(self, status: int, code: str) -> None:
        self._errors.labels(self._env, str(status), code).inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)
