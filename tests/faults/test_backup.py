"""`flask rag backup` / `flask rag restore`: database, LanceDB and staged files, taken while the app runs.

The round trip restores into a fresh directory (another database file, LanceDB directory and
upload root) and the same question must return the same sources.
"""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from irisrag import components
from irisrag.extensions import db
from irisrag.jobs import documents as document_jobs
from irisrag.models import Document, User
from irisrag.services.asking import asking
from irisrag.services.documents import documents
from irisrag.services.operations import backup as backup_service
from irisrag.vectors.store import ChunkIn
from tests.conftest import make_app
from tests.services import QUESTION, seed_library

STAGED = "OpenTelemetry wird im Handbuch konfiguriert: die Datei otel.yaml im Ordner config."


def rag(app, *args):
    return app.test_cli_runner().invoke(args=["rag", *map(str, args)])


def sources(app, user: str = "carol") -> list[tuple[int, str, str, float]]:
    with app.app_context(), db.connection_context():
        user_id = User.get(User.username == user).id
        result = asking.ask(user_id, QUESTION, None, use_llm=False, record=False)
    return [(s.document_id, s.name, s.area_name, round(s.score, 6)) for s in result.sources]


def seed_with_staged_upload(app) -> int:
    """The two-area library plus one uploaded (staged) document, imported in-process."""
    seed_library(app)
    with app.app_context(), db.connection_context():
        doc = documents.import_upload("Alpha", "handbuch.md", STAGED.encode())
        document_jobs.import_document(doc.id)
        return doc.id


def fresh_app(tmp_path: Path, redis_url: str, name: str = "restored"):
    base = tmp_path / name
    base.mkdir()
    return make_app(base, f"sqlite:///{base / 'irisrag.db'}", redis_url)


@pytest.fixture
def sqlite_app(tmp_path, redis_url):
    return make_app(tmp_path, f"sqlite:///{tmp_path / 'irisrag.db'}", redis_url)


def test_backup_restore_into_a_fresh_directory_gives_the_same_sources(sqlite_app, tmp_path, redis_url):
    app = sqlite_app
    staged_id = seed_with_staged_upload(app)
    before = sources(app)
    assert staged_id in [s[0] for s in before] and len(before) >= 2

    result = rag(app, "backup", tmp_path / "bak")
    assert result.exit_code == 0, result.output
    assert "Backup written to" in result.output and "chunks" in result.output
    manifest = json.loads((tmp_path / "bak" / "manifest.json").read_text())
    assert manifest["database"]["kind"] == "sqlite" and manifest["staged_files"] == 1
    [(table, state)] = manifest["lancedb"].items()
    assert state["rows"] == 4 and state["version"] >= 1
    assert all(len(f["sha256"]) == 64 for f in manifest["files"].values())
    assert not list(tmp_path.glob("bak.partial-*"))

    restored = fresh_app(tmp_path, redis_url)
    result = rag(restored, "restore", tmp_path / "bak")
    assert result.exit_code == 0, result.output
    assert sources(restored) == before
    with restored.app_context(), db.connection_context():
        doc = Document.get_by_id(staged_id)
        root = documents.upload_root()
        assert Path(doc.directory).is_relative_to(root)  # staged documents point at the new upload root
        assert (Path(doc.directory) / doc.name).read_text() == STAGED
        assert components.get().store.version() == state["version"]
        assert components.get().store.refresh_indexes() == "current"  # the full-text index came along


def test_backup_refuses_a_non_empty_destination_and_restore_a_used_target(sqlite_app, tmp_path, redis_url):
    app = sqlite_app
    seed_with_staged_upload(app)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    result = rag(app, "backup", tmp_path / "full")
    assert result.exit_code == 1 and "not empty" in result.output
    assert rag(app, "backup", tmp_path / "bak").exit_code == 0
    result = rag(app, "restore", tmp_path / "bak")  # into the installation it came from: in use
    assert result.exit_code == 1 and "--force" in result.output
    assert rag(app, "restore", tmp_path / "bak", "--force").exit_code == 0


def test_restore_refuses_a_damaged_backup_before_touching_anything(sqlite_app, tmp_path, redis_url):
    seed_with_staged_upload(sqlite_app)
    assert rag(sqlite_app, "backup", tmp_path / "bak").exit_code == 0
    staged = next((tmp_path / "bak" / "staging").rglob("*.md"))
    staged.write_text("tampered")
    restored = fresh_app(tmp_path, redis_url)
    result = rag(restored, "restore", tmp_path / "bak")
    assert result.exit_code == 1 and "damaged" in result.output and staged.name in result.output
    with restored.app_context(), db.connection_context():
        assert Document.select().count() == 0
    assert rag(restored, "restore", tmp_path / "nothing-here").exit_code != 0


def test_backup_while_imports_write_is_consistent(sqlite_app, tmp_path, redis_url):
    """Writers keep committing LanceDB versions and rows during the backup; the copy is one snapshot."""
    app = sqlite_app
    seed_with_staged_upload(app)
    stop = threading.Event()
    written = []

    def writer():
        with app.app_context(), db.connection_context():
            store = components.get().store
            area = Document.get(Document.name == "handbuch.md").area_id
            n = 0
            while not stop.is_set():
                doc = Document.create(area=area, name=f"busy-{n}.md", directory="/busy", status="done", chunk_count=3)
                texts = [f"Abschnitt {n}.{i} OpenTelemetry" for i in range(3)]
                store.replace_document(doc.id, area, [ChunkIn(i, t) for i, t in enumerate(texts)],
                                       np.ones((3, store.dim), dtype=np.float32))
                written.append(doc.id)
                n += 1

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        time.sleep(0.3)
        result = rag(app, "backup", tmp_path / "bak")
        time.sleep(0.2)
    finally:
        stop.set()
        thread.join(30)
    assert result.exit_code == 0, result.output
    assert len(written) > 2  # the writer really ran during the backup
    restored = fresh_app(tmp_path, redis_url)
    assert rag(restored, "restore", tmp_path / "bak").exit_code == 0
    with sqlite3.connect(tmp_path / "restored" / "irisrag.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    manifest = json.loads((tmp_path / "bak" / "manifest.json").read_text())
    with restored.app_context(), db.connection_context():
        store = components.get().store
        [state] = manifest["lancedb"].values()
        assert store.version() == state["version"] and store.count() == state["rows"]
        by_document = store.count_by_document()
        # Every restored busy row that has chunks has all three (never half a document).
        assert all(by_document.get(d.id, 3) == 3 for d in Document.select().where(Document.directory == "/busy"))


def test_restore_marks_imports_that_were_running_as_failed(sqlite_app, tmp_path, redis_url):
    seed_library(sqlite_app)
    with sqlite_app.app_context(), db.connection_context():
        running = Document.create(area=1, name="halb.md", directory="/x", status="embedding")
    assert rag(sqlite_app, "backup", tmp_path / "bak").exit_code == 0
    restored = fresh_app(tmp_path, redis_url)
    assert rag(restored, "restore", tmp_path / "bak").exit_code == 0
    with restored.app_context(), db.connection_context():
        row = Document.get_by_id(running.id)
    assert row.status == "failed" and "Retry" in row.error  # never "embedding" forever


def test_backup_postgres_round_trip(tmp_path, redis_url):
    """PostgreSQL: pg_dump of the schema, restored with psql after the schema was lost."""
    from tests.conftest import _drop_schema, _postgres_url

    url, schema = _postgres_url()
    try:
        app = make_app(tmp_path, url, redis_url)
        seed_with_staged_upload(app)
        before = sources(app)
        result = rag(app, "backup", tmp_path / "bak")
        assert result.exit_code == 0, result.output
        assert json.loads((tmp_path / "bak" / "manifest.json").read_text())["database"]["schema"] == schema
        import psycopg2

        from tests.conftest import PG_BASE

        with psycopg2.connect(PG_BASE) as conn, conn.cursor() as cur:  # the database is lost ...
            cur.execute(f'DROP SCHEMA "{schema}" CASCADE; CREATE SCHEMA "{schema}"')
        shutil.rmtree(tmp_path / "lancedb")
        shutil.rmtree(tmp_path / "staging")
        again = make_app(tmp_path, url, redis_url)  # ... a fresh start creates an empty schema
        result = rag(again, "restore", tmp_path / "bak")
        assert result.exit_code == 0, result.output
        assert sources(again) == before
    finally:
        if not db.is_closed():
            db.close()
        _drop_schema(schema)


def test_backup_without_pg_dump_says_what_to_install(monkeypatch, tmp_path, redis_url):
    from irisrag.errors import ConfigurationError

    monkeypatch.setattr(backup_service.shutil, "which", lambda tool: None)
    with pytest.raises(ConfigurationError) as caught:
        backup_service._run("pg_dump", ["--version"], dict(os.environ))
    assert "pg_dump was not found" in caught.value.message and "client tools" in caught.value.detail
