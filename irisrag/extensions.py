"""Shared resources bound in ``init_app``: the Peewee database, Redis and the RQ queue."""
from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlparse

from peewee import DatabaseProxy, PostgresqlDatabase, SqliteDatabase

db = DatabaseProxy()

SQLITE_PRAGMAS = {
    "journal_mode": "wal",
    "foreign_keys": 1,
    "busy_timeout": 10000,
    "synchronous": "normal",
}


def open_database(url: str, root: Path | None = None):
    """Create a Peewee database from ``sqlite:///path`` or ``postgresql://...``."""
    parsed = urlparse(url)
    if parsed.scheme == "sqlite":
        raw = url[len("sqlite:///"):] if url.startswith("sqlite:///") else parsed.path
        if raw in ("", ":memory:"):
            return SqliteDatabase(":memory:", pragmas=SQLITE_PRAGMAS)
        path = Path(raw)
        if not path.is_absolute() and root is not None:
            path = root / path
        path.parent.mkdir(parents=True, exist_ok=True)
        # Transactions begin IMMEDIATE: a read-then-write transaction (register a document
        # while a worker writes progress) would otherwise fail at once with "database is
        # locked" when it upgrades its lock, instead of waiting busy_timeout like any write.
        return SqliteDatabase(str(path), pragmas=SQLITE_PRAGMAS, check_same_thread=False, lock_type="IMMEDIATE")
    if parsed.scheme in ("postgres", "postgresql"):
        kwargs = {
            "host": parsed.hostname or None,
            "port": parsed.port or 5432,
            "user": parsed.username or None,
            "password": parsed.password or None,
            "autorollback": True,
        }
        options = parse_qs(parsed.query).get("options")
        if options:
            kwargs["options"] = options[0]
        return PostgresqlDatabase(parsed.path.lstrip("/"), **kwargs)
    raise ValueError(f"Unsupported IRISRAG_DATABASE_URL scheme {parsed.scheme!r}: use sqlite:/// or postgresql://")


def bind_database(url: str, root: Path | None = None):
    """Point the shared proxy at the configured database and return it."""
    database = open_database(url, root)
    db.initialize(database)
    return database
