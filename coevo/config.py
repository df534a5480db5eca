"""Server configuration: one dataclass, defaults that are safe to run, environment overrides.

Precedence (highest first): explicit arguments (CLI flags) > `COEVO_*` environment variables >
the defaults below. Leases are ON by default: a server that forgets idle sessions is how
AgentGym-style servers run out of memory under RL.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, Literal

AgentGymStyle = Literal["auto", "id", "env_idx", "env_idx_item"]
Durability = Literal["process", "machine", "buffered"]


@dataclass(frozen=True)
class ServerConfig:
    #: Interface and port `coevo serve` binds (loopback unless told otherwise).
    host: str = "127.0.0.1"
    port: int = 8000
    #: SQLAlchemy URL of the trajectory store; None means $COEVO_DB_URL or ./coevo.db.
    db_url: str | None = None
    #: Record episodes and steps (and so allow crash recovery). Off only for throwaway servers.
    record: bool = True
    #: Rebuild sessions recorded by an earlier process of this server on their next use.
    recover: bool = True
    #: Most live sessions; a create beyond it answers 429 with Retry-After.
    max_sessions: int = 4096
    #: A session unused for this many seconds is released (0 disables).
    idle_ttl_s: float = 900.0
    #: A session older than this is released however busy it is (0 disables).
    max_age_s: float = 6 * 3600.0
    #: How often the reaper looks for idle and old sessions.
    reap_interval_s: float = 5.0
    #: Retry-After (seconds) sent with 429.
    retry_after_s: int = 2
    #: Largest action, in UTF-8 bytes (413 above).
    max_action_bytes: int = 64 * 1024
    #: Largest request body, in bytes (413 above, checked before parsing).
    max_body_bytes: int = 1024 * 1024
    #: A request must arrive whole (headers and body) within this many seconds of its first byte,
    #: or of the connection's opening; else 408 and the connection is closed (0 disables).
    request_read_timeout_s: float = 30.0
    #: Most open connections from one client address; more are answered 429 and closed (0: no limit).
    max_client_connections: int = 1024
    #: The base URL clients reach this server at, recorded as the owner of its sessions and sent
    #: with a 409 to a client that asks another replica (None: http://<host>:<port>). It is also
    #: the server's identity as an owner: every replica on one store needs its own, and a
    #: restarted server with the same address resumes its sessions at once.
    advertise_url: str | None = None
    #: How often a recording server renews its sessions' ownership in the store.
    owner_heartbeat_s: float = 5.0
    #: Another server may take a session over once its owner's heartbeat is this old (by the
    #: database's clock); the owner stops serving it after expiry − heartbeat without a renewal.
    owner_expiry_s: float = 20.0
    #: A GET /mcp event stream ends after this many seconds (the server is stateless and sends
    #: nothing on it, so an open stream is always idle); 0 keeps streams open.
    mcp_stream_idle_s: float = 60.0
    #: Largest batch a client may send in one POST /batch/step.
    max_batch_items: int = 4096
    #: Bytes of serialized GET /tasks pages kept in memory (an LRU cache).
    tasks_cache_bytes: int = 32 * 1024 * 1024
    #: Bearer token for POST /admin/{command}; None answers every admin call with 403.
    admin_token: str | None = None
    #: Admin commands read only paths under this directory (None: the data dir, coevo.paths.cache_dir()).
    admin_dir: str | None = None
    #: Most bytes an admin command may read from one path (a file, or a directory's files together).
    admin_max_read_bytes: int = 8 * 1024**3
    #: Threads that run cpu_heavy envs' reset/step off the event loop (0: os.cpu_count()+4).
    env_threads: int = 0
    #: FastAPI's native OpenTelemetry spans, metrics and logs. Off, FastAPI skips the provider
    #: lookups it makes on every request (14% of a step's CPU under wrk); on for a process with
    #: an OpenTelemetry provider configured. Prometheus metrics (/metrics) are on either way.
    telemetry: bool = False
    #: A cpu_heavy env's kind of call (step, reset, ...) runs inline on the event loop once it has
    #: taken less than this many seconds many times in a row (server/inline_calls.py); 0: never.
    inline_env_below_s: float = 0.0005
    #: When a response may be sent. process: after its rows are committed (survives a SIGKILL of
    #: the server); machine: also fsynced (survives an OS crash or power loss); buffered: before
    #: they are written (a SIGKILL loses up to flush_interval_s of acknowledged work).
    durability: Durability = "process"
    #: Store writer: flush at least this often, and as soon as this many rows wait.
    flush_interval_s: float = 0.1
    flush_max_rows: int = 2000
    #: Field AgentGym's clients use for the env id ("auto": by env name, WebShop/SQLGym use env_idx).
    agentgym_style: AgentGymStyle = "auto"

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None, **overrides: Any) -> ServerConfig:
        """Defaults, then `COEVO_<FIELD>` variables, then `overrides` whose value is not None."""
        environ = dict(os.environ if environ is None else environ)
        values: dict[str, Any] = {}
        for f in fields(cls):
            raw = environ.get(f"COEVO_{f.name.upper()}")
            if raw is not None and raw != "":
                values[f.name] = _parse(f.name, f.type, raw)
        values.update({k: v for k, v in overrides.items() if v is not None})
        unknown = set(values) - {f.name for f in fields(cls)}
        if unknown:
            raise TypeError(f"unknown ServerConfig fields: {sorted(unknown)}")
        return cls(**values).validated()

    def with_(self, **changes: Any) -> ServerConfig:
        return replace(self, **changes).validated()

    def validated(self) -> ServerConfig:
        if self.max_sessions < 1:
            raise ValueError("max_sessions must be at least 1")
        if self.idle_ttl_s < 0 or self.max_age_s < 0:
            raise ValueError("idle_ttl_s and max_age_s must be >= 0 (0 disables)")
        if self.max_action_bytes < 1 or self.max_body_bytes < 1024:
            raise ValueError("max_action_bytes must be >= 1 and max_body_bytes >= 1024")
        if self.request_read_timeout_s < 0 or self.max_client_connections < 0:
            raise ValueError("request_read_timeout_s and max_client_connections must be >= 0 (0 disables)")
        if self.agentgym_style not in ("auto", "id", "env_idx", "env_idx_item"):
            raise ValueError("agentgym_style must be auto, id, env_idx or env_idx_item")
        if self.durability not in ("process", "machine", "buffered"):
            raise ValueError("durability must be process, machine or buffered")
        if not 0 < 2 * self.owner_heartbeat_s <= self.owner_expiry_s:
            raise ValueError("owner_expiry_s must be at least twice owner_heartbeat_s (> 0)")
        return self

    @property
    def owner_address(self) -> str:
        """`advertise_url`, or the bind address."""
        if self.advertise_url:
            return self.advertise_url.rstrip("/")
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _parse(name: str, annotation: Any, raw: str) -> Any:
    kind = str(annotation)
    if "bool" in kind:
        low = raw.strip().lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise ValueError(f"COEVO_{name.upper()}={raw!r} is not a boolean")
    if "float" in kind:
        return float(raw)
    if "int" in kind:
        return int(raw)
    return raw


def parse_key_values(pairs: Sequence[str]) -> dict[str, object]:
    """`key=value` pairs (env options: `coevo serve -o`, a trainer's env_options) as a dict;
    values that parse as JSON (numbers, true, lists) become those types, the rest stay text."""
    options: dict[str, object] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"an option is key=value, got {pair!r}")
        try:
            value: object = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        options[key.strip()] = value
    return options
