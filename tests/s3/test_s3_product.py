"""The product on LanceDB in S3 (SeaweedFS): import through a real worker, ask, rebuild, delete,
index upkeep, backup and restore.

The app (this process) reaches the store through ``LANCEDB_STORAGE_OPTIONS``; the worker
process gets the standard ``AWS_*`` variables only, so both documented ways are exercised.
"""
from __future__ import annotations

import time
from collections import Counter
from datetime import timedelta

import pyarrow.fs as pafs
import pytest

from irisrag import components
from irisrag.errors import Conflict
from irisrag.extensions import db
from irisrag.jobs.maintenance import run_maintenance
from irisrag.models import Area, Document, Group
from irisrag.services.admin import admin as admin_service
from irisrag.services.admin import api_keys
from irisrag.services.documents import documents as document_service
from irisrag.services.operations import backup, system
from irisrag.vectors import index as vectorindex
from irisrag.vectors.index import IndexPolicy
from tests.conftest import _database
from tests.integration.test_worker import start_worker, stop_worker
from tests.s3.conftest import s3_app

pytestmark = [pytest.mark.integration, pytest.mark.s3]
DOCS = 8
FINAL = ("done", "unchanged", "failed")


def _text(i: int) -> str:
    """About 3,500 characters (5-6 chunks) with a word of its own: stichwort<i>."""
    return "\n\n".join(f"Kapitel {p} von Handbuch {i}: stichwort{i} erklärt die Einrichtung der Anlage "
                       f"{i} im Abschnitt {p}. " * 4 for p in range(6))


def _seed(app) -> str:
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, "Handbook")
        admin_service.create_named(Group, "staff")
        admin_service.create_user("alice", "password123")
        admin_service.link_area("Handbook", "staff")
        admin_service.link_user("alice", "staff")
        return api_keys.create_key("alice").plain


def _wait(app, ids, seconds: float = 180) -> dict[int, Document]:
    deadline = time.monotonic() + seconds
    while True:
        with app.app_context(), db.connection_context():
            docs = {d.id: d for d in Document.select().where(Document.id.in_(ids))}
        if all(d.status in FINAL and d.status != "queued" for d in docs.values()) or time.monotonic() > deadline:
            return docs
        time.sleep(0.3)


def _ask(app, key: str, word: str) -> set[str]:
    resp = app.test_client().post("/api/v1/answer", json={"question": f"Wo steht {word}?",
                                                          "use_llm": False}, headers={"X-API-Key": key})
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return {s["name"] for s in resp.get_json()["sources"]}


def _objects(local_s3, uri: str) -> list[str]:
    root = uri.removeprefix("s3://")
    infos = local_s3.filesystem().get_file_info(pafs.FileSelector(root, recursive=True, allow_not_found=True))
    return [i.path for i in infos if i.type == pafs.FileType.File]


def test_s3_import_ask_rebuild_delete_upkeep_backup_restore(tmp_path, database_url, redis_url, local_s3, s3_uri):
    app = s3_app(tmp_path, database_url, redis_url, local_s3, s3_uri, VECTOR_INDEX_MIN_ROWS=32)
    key = _seed(app)
    worker = start_worker(app, tmp_path, **local_s3.env())  # AWS_* only: no storage options
    try:
        with app.app_context(), db.connection_context():
            ids = [document_service.import_upload("Handbook", f"handbuch-{i}.txt", _text(i).encode()).id
                   for i in range(DOCS)]
        docs = _wait(app, ids)
        log = (tmp_path / "worker.log").read_text(errors="replace")[-3000:]
        assert Counter(d.status for d in docs.values()) == {"done": DOCS}, log
        # Nothing of LanceDB on local disk: the chunks are objects in the bucket.
        assert not (tmp_path / "lancedb").exists()
        assert any(p.endswith(".lance") for p in _objects(local_s3, s3_uri))
        with app.app_context(), db.connection_context():
            store = components.get().store
            assert store.count_by_document() == {d.id: d.chunk_count for d in docs.values()}
            total = store.count()
        assert total >= 32
        assert _ask(app, key, "stichwort3") == {"handbuch-3.txt"}

        # Rebuild: same chunks again, one new table version, no duplicates.
        with app.app_context(), db.connection_context():
            version = components.get().store.version()
            document_service.rebuild(ids[3])
        assert _wait(app, [ids[3]])[ids[3]].status == "done"
        with app.app_context(), db.connection_context():
            store = components.get().store
            assert store.version() > version and store.count() == total
            assert [h.chunk_index for h in store.chunks_of(ids[3])] == list(range(docs[ids[3]].chunk_count))

        # Delete: the chunks go, the document is no longer found.
        with app.app_context(), db.connection_context():
            document_service.delete_document(ids[5])
            assert components.get().store.count() == total - docs[ids[5]].chunk_count
        assert _ask(app, key, "stichwort5") == set()
        total -= docs[ids[5]].chunk_count
    finally:
        stop_worker(worker)

    # Index upkeep on S3: full-text fold-in, vector index (past the threshold), optimize, cleanup.
    with app.app_context(), db.connection_context():
        store = components.get().store
        report = run_maintenance(full=True)
        assert report["status"] == "done", report
        table = store._open()
        assert vectorindex.fts_index(table).num_unindexed_rows == 0
        assert vectorindex.vector_index(table) is not None
        assert vectorindex.vector_index(table).num_unindexed_rows == 0
        versions = len(table.list_versions())
        time.sleep(1.2)
        cleaned = store.maintain(IndexPolicy(min_rows=32, cleanup_older_than=timedelta(seconds=1)), full=True)
        assert cleaned.optimized and cleaned.versions_removed > 0 and len(table.list_versions()) < versions
        assert store.count() == total
        hits = store.search_fulltext("stichwort6", [docs[ids[6]].area_id], 5)
        assert {t.hit.document_id for t in hits} == {ids[6]}
        # The admin system page reads the tables on S3 too (no local disk to show for LanceDB).
        index = system.index_view()
        assert index.error is None and [(t.rows, t.fulltext_index) for t in index.tables] == [(total, True)]
    assert _ask(app, key, "stichwort6") == {"handbuch-6.txt"}

    # Backup from S3 to a local directory, then restore into a fresh installation on another prefix.
    with app.app_context(), db.connection_context():
        summary = backup.backup(tmp_path / "backup")
        with pytest.raises(Conflict, match=s3_uri):
            backup.restore(tmp_path / "backup")  # the live target is not empty
    assert [t["rows"] for t in summary.tables.values()] == [total]
    assert any(p.endswith(".manifest") for p in map(str, (tmp_path / "backup" / "lancedb").rglob("*")))

    kind = "postgres" if database_url.startswith("postgres") else "sqlite"
    (tmp_path / "restored").mkdir()
    url, cleanup = _database(kind, tmp_path / "restored")
    try:
        second_uri = local_s3.uri(s3_uri.rsplit("/", 1)[1] + "-restored")
        restored = s3_app(tmp_path / "restored", url, redis_url, local_s3, second_uri, VECTOR_INDEX_MIN_ROWS=32)
        with restored.app_context(), db.connection_context():
            result = backup.restore(tmp_path / "backup")
            assert result.documents == DOCS - 1
            store = components.get().store
            assert store.count() == total
            assert store.count_by_document() == {d.id: d.chunk_count for d in Document.select()}
            assert vectorindex.fts_index(store._open()) is not None
        assert _ask(restored, key, "stichwort6") == {"handbuch-6.txt"}
        assert _objects(local_s3, second_uri)
    finally:
        if not db.is_closed():
            db.close()
        cleanup()
