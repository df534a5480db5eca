"""The SQL store: episodes and steps recorded by servers, trajectories and pools by trainers.

SQLite file by default, PostgreSQL (or any SQLAlchemy URL) through `--db-url` / `COEVO_DB_URL`.
"""

from coevo.store.db import Base, default_db_url, make_engine, make_sessionmaker

__all__ = ["Base", "default_db_url", "make_engine", "make_sessionmaker"]
