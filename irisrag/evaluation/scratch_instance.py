"""A temporary IrisRAG instance for evaluating a document library as a user gets it.

``open_instance`` builds a second app with the running app's settings but its own SQLite
database, LanceDB folder and staging root under a scratch folder, and with no language
model (``LLM=none``: the extractive answer a fresh install gives). The documents go
through the import pipeline the worker runs (``services.imports.start`` in ``SYNC`` mode:
the same job function, in this process); one user reaches one area through one group, as
an administrator would set it up. Creating an app points the shared database proxy at its
database; ``open_instance`` gives the proxy back the running app's database object (its
open connection and transaction state included) when it ends.
"""
from __future__ import annotations

import shutil
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Flask

from irisrag import config as config_module
from irisrag.extensions import db
from irisrag.models import Area, Group
from irisrag.services.admin import admin
from irisrag.services.documents import imports as import_service

AREA, USER = "evaluation", "evaluator"


@dataclass(frozen=True)
class Instance:
    """The temporary app, the evaluating user and the area the documents were imported into."""

    app: Flask
    user_id: int
    area_id: int
    imported: dict[str, str]   # document file name -> import status (done, failed, ...)
    chunks: int


def settings_of(running: Flask, folder: Path) -> dict[str, Any]:
    """Return the running app's settings with this instance's own database, stores and no language model."""
    known = {s.key for s in config_module.SETTINGS}
    settings = {k: v for k, v in running.config.items() if k in known}
    settings.update(DATABASE_URL=f"sqlite:///{folder / 'irisrag.db'}", LANCEDB_URI=str(folder / "lancedb"),
                    UPLOAD_ROOT=str(folder / "staging"), LLM="none", SECRET_KEY=running.config["SECRET_KEY"],
                    QUEUE_NAME=f"eval-{uuid.uuid4().hex[:8]}", LANCEDB_READ_CONSISTENCY_SECONDS=0.0)
    return settings


def _setup_user() -> tuple[int, int]:
    """Create the evaluating user, its group and the area; return (user id, area id)."""
    user = admin.create_user(USER, uuid.uuid4().hex)
    group = admin.create_named(Group, AREA)
    area = admin.create_named(Area, AREA)
    admin.link_user(user.id, group.id)
    admin.link_area(area.id, group.id)
    return user.id, area.id


def _import(documents: Sequence[Path], progress: Callable[[str], None] | None) -> tuple[dict[str, str], int]:
    """Import the documents through the worker's pipeline, in this process; return statuses and chunks."""
    report = import_service.start(import_service.file_items(AREA, documents), import_service.SYNC)
    for entry in report.entries:
        if progress:
            progress(f"imported {entry.name}: {entry.status}, {entry.chunks} chunks"
                     + (f" ({entry.error})" if entry.error else ""))
    return {e.name: e.status for e in report.entries}, sum(e.chunks or 0 for e in report.entries)


@contextmanager
def open_instance(running: Flask, documents: Sequence[Path], folder: Path,
                  progress: Callable[[str], None] | None = None) -> Iterator[Instance]:
    """Yield a temporary instance with the documents imported, inside its app context; remove it afterwards."""
    from irisrag import create_app
    from irisrag.models.schema import upgrade

    folder = folder / f"library-{uuid.uuid4().hex[:12]}"
    folder.mkdir(parents=True)
    running_database = db.obj
    try:
        app = create_app(settings_of(running, folder))
        with app.app_context(), db.connection_context():
            upgrade()
            user_id, area_id = _setup_user()
            imported, chunks = _import(documents, progress)
            yield Instance(app, user_id, area_id, imported, chunks)
    finally:
        db.initialize(running_database)
        shutil.rmtree(folder, ignore_errors=True)
