"""Bringing a store written by an older release up to the current schema, in place, by version.

`create_all` makes missing tables but never alters one that exists, so a store created before a
column was added would fail at its first insert, and rows written under older rules would mean
something else today. The store keeps its schema version in `schema_version` (one row); a store
without it predates versioning (version 0). `upgrade` runs every step above the stored version,
in order, and records the new version.

Every step is idempotent (a column is added only if missing, a value is rewritten only from an
old value), because every process that opens the store runs `upgrade`: two that race do the
same work twice and agree on the result. Steps never delete or rewrite recorded steps; a status
rewritten from an older release keeps its old value in `end_reason` ("legacy:<value>").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Column, Connection, Engine, Integer, Table, case, func, inspect, select, text, update
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from coevo.end_status import SCORED, EndStatus, from_legacy
from coevo.store import rescores, rollouts, tables, task_stats  # noqa: F401  (registers the tables the steps use)
from coevo.store.db import Base
from coevo.store.task_stats import UNTAGGED, add_outcomes


class SchemaVersion(Base):
    """The store's schema version: one row, the last migration step applied."""

    __tablename__ = "schema_version"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    version: Mapped[int] = mapped_column(Integer)


#: Columns added to `episodes` after its first release; all nullable, so old rows stay valid.
ADDED_EPISODE_COLUMNS = ("policy", "run", "success", "error")
#: Columns added to `rollout_trajectories` after its first release.
ADDED_TRAJECTORY_COLUMNS = ("end_reason", "env_version", "score_mode")
#: close_reasons under which a still-running episode was left by its lease (abandoned); other
#: reasons (a failed session, a refused record) cannot say whose fault it was: unknown.
_LEASE_ENDED = ("closed", "expired_idle", "expired_age", "reset", "not_stored")


def _add_column(engine: Engine, table: Table, column: Column) -> None:
    kind = column.type.compile(dialect=engine.dialect)
    preparer = engine.dialect.identifier_preparer
    statement = f"ALTER TABLE {preparer.format_table(table)} ADD COLUMN {preparer.format_column(column)} {kind}"
    try:
        with engine.begin() as conn:
            conn.execute(text(statement))
    except DBAPIError as exc:
        message = str(exc.orig).lower()
        if "duplicate" not in message and "already exists" not in message:
            raise


def _add_columns(engine: Engine, name: str, columns: tuple[str, ...]) -> None:
    """Add what an older table lacks (columns, then the indexes that use them)."""
    table = Base.metadata.tables.get(name)  # registered only where the tables are imported
    if table is None or not inspect(engine).has_table(name):
        return
    present = {column["name"] for column in inspect(engine).get_columns(name)}
    for column in columns:
        if column not in present:
            _add_column(engine, table, table.c[column])
    indexes = {index["name"] for index in inspect(engine).get_indexes(name)}
    for index in table.indexes:
        if index.name not in indexes:
            try:
                index.create(engine, checkfirst=True)
            except DBAPIError as exc:
                if "already exists" not in str(exc.orig).lower():
                    raise


def _step_1_tags(engine: Engine) -> None:
    """The policy, run and success columns of `episodes` (the additive columns of early releases)."""
    _add_columns(engine, "episodes", ("policy", "run", "success"))


def _step_2_end_status(engine: Engine) -> None:
    """The end-status taxonomy (coevo.end_status): the `error` and `end_reason` columns, and
    every status an older release wrote mapped to it: a truncated episode stays truncated, a
    done one with a recorded success is a success, a running one its lease left is abandoned,
    the rest `unknown`, never `failure`."""
    _add_columns(engine, "episodes", ADDED_EPISODE_COLUMNS)
    _add_columns(engine, "rollout_trajectories", ("end_reason",))
    names = set(inspect(engine).get_table_names())
    current = tuple(s.value for s in EndStatus)
    with engine.begin() as conn:
        if "episodes" in names:
            episodes = Base.metadata.tables["episodes"]
            c = episodes.c
            conn.execute(
                update(episodes)
                .where(c.status == "running", c.closed_at.is_not(None), c.close_reason.in_(_LEASE_ENDED))
                .values(status=EndStatus.ABANDONED.value)
            )
            conn.execute(
                update(episodes).where(c.status == "done", c.success.is_(True)).values(status=EndStatus.SUCCESS.value)
            )
            conn.execute(
                update(episodes)
                .where(c.status.not_in(current), (c.status != "running") | c.closed_at.is_not(None))
                .values(status=EndStatus.UNKNOWN.value)
            )
        if "rollout_trajectories" in names:
            rows = Base.metadata.tables["rollout_trajectories"]
            c = rows.c
            found = conn.execute(rows.select().with_only_columns(c.status, c.success).distinct()).all()
            for status, success in found:
                if status in current:
                    continue
                conn.execute(
                    update(rows)
                    .where(c.status == status, c.success.is_(bool(success)))
                    .values(status=from_legacy("trajectories", status, bool(success)), end_reason=f"legacy:{status}")
                )


def _claim(conn: Connection, version: int) -> bool:
    """Move the store to `version` in `conn`'s transaction if it is at the one before; False if
    another process already did. A step that must run once (a count) runs in that transaction."""
    table = SchemaVersion.__table__
    moved = conn.execute(update(table).where(table.c.id == 1, table.c.version == version - 1).values(version=version))
    return moved.rowcount == 1


def _step_3_task_stats(engine: Engine) -> None:
    """Per-task difficulty statistics (coevo.store.task_stats) from the episodes the store
    already holds with a verdict, counted once: by the process that moves the store to 3."""
    episodes = Base.metadata.tables["episodes"]
    c = episodes.c
    scored = tuple(s.value for s in SCORED)
    try:
        task_stats.TaskStat.__table__.create(engine, checkfirst=True)
    except DBAPIError as exc:  # another process created it meanwhile
        if "already exists" not in str(exc.orig).lower() and "duplicate" not in str(exc.orig).lower():
            raise
    with engine.begin() as conn:
        if not _claim(conn, 3) or not inspect(conn).has_table("episodes"):
            return
        found = conn.execute(
            select(
                c.env, c.task_id, c.policy, func.count(),
                func.sum(case((c.status == EndStatus.SUCCESS.value, 1), else_=0)), func.max(c.updated_at),
            )
            .where(c.status.in_(scored))
            .group_by(c.env, c.task_id, c.policy)
        ).all()  # fmt: skip
        counts: dict[tuple[str, str, str], dict[str, Any]] = {}
        for env, task, policy, n, wins, at in found:  # untagged (NULL) episodes count under ""
            row = counts.setdefault(
                (env, task, policy or UNTAGGED),
                {"env": env, "task_id": task, "policy": policy or UNTAGGED, "episodes": 0, "successes": 0},
            )
            row["episodes"] += int(n)
            row["successes"] += int(wins or 0)
            row["updated_at"] = max(at, row.get("updated_at", at))
        add_outcomes(conn, counts.values())


def _step_4_provenance(engine: Engine) -> None:
    """The env version and scoring mode a trajectory was scored under (NULL for older ones)."""
    _add_columns(engine, "rollout_trajectories", ("env_version", "score_mode"))


#: The migration steps, in order: step i brings a store from version i - 1 to version i. A step
#: once written is never changed (stores may have run it): a new change is a new step.
STEPS: tuple[Callable[[Engine], None], ...] = (
    _step_1_tags,
    _step_2_end_status,
    _step_3_task_stats,
    _step_4_provenance,
)
LATEST = len(STEPS)


def stored_version(engine: Engine) -> int:
    """The store's schema version (0: written before versioning, or empty)."""
    if not inspect(engine).has_table(SchemaVersion.__tablename__):
        return 0
    with engine.connect() as conn:
        value = conn.execute(SchemaVersion.__table__.select().with_only_columns(SchemaVersion.version)).scalar()
    return int(value or 0)


def _record(engine: Engine, version: int) -> None:
    table = SchemaVersion.__table__
    try:
        with engine.begin() as conn:
            changed = conn.execute(
                update(table).where(table.c.id == 1, table.c.version < version).values(version=version)
            )
            if changed.rowcount == 0 and conn.execute(table.select().where(table.c.id == 1)).first() is None:
                conn.execute(table.insert().values(id=1, version=version))
    except IntegrityError:
        pass  # another process inserted the row first; its version is at least this one


def upgrade(engine: Engine) -> list[str]:
    """Run every step above the stored version; returns the steps run (by function name).
    A store newer than this release is refused: its rows may mean what this code cannot read."""
    version = stored_version(engine)
    if version > LATEST:
        raise RuntimeError(
            f"the store's schema is version {version}, newer than this coevo's {LATEST}: upgrade coevo to read it"
        )
    SchemaVersion.__table__.create(engine, checkfirst=True)
    done = []
    for number, step in enumerate(STEPS, start=1):
        if number > version:
            step(engine)
            _record(engine, number)
            done.append(step.__name__)
    return done
