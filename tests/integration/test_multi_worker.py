"""Scale-out: two worker processes on one queue import a folder of 200 documents concurrently."""
from __future__ import annotations

import time
from collections import Counter

import pytest
from rq.job import Job
from rq.registry import FailedJobRegistry, FinishedJobRegistry, ScheduledJobRegistry

from irisrag import components
from irisrag.extensions import db
from irisrag.jobs.maintenance import run_maintenance
from irisrag.models import Area, Document
from irisrag.services.admin import admin as admin_service
from irisrag.services.documents import documents
from irisrag.services.documents.imports import folder_files
from irisrag.vectors import index as vectorindex
from tests.conftest import make_app
from tests.integration.test_worker import start_worker, stop_worker

pytestmark = pytest.mark.integration
DOCUMENTS = 200
FINAL = ("done", "unchanged", "failed")


def _write_folder(folder, n: int) -> None:
    """Small text files of 1 to 4 chunks, each with a word of its own."""
    folder.mkdir()
    for i in range(n):
        paragraphs = [f"Dokument nummer {i} kennwort{i} beschreibt Abschnitt {p} der Anleitung. " * 8
                      for p in range(1 + i % 4)]
        (folder / f"doc-{i:03d}.txt").write_text("\n\n".join(paragraphs), encoding="utf-8")


def _wait_all(app, ids: list[int], seconds: float) -> list[Document]:
    deadline = time.monotonic() + seconds
    while True:
        with app.app_context(), db.connection_context():
            docs = list(Document.select().where(Document.id.in_(ids)))
        if all(d.status in FINAL for d in docs) or time.monotonic() > deadline:
            return docs
        time.sleep(0.25)


@pytest.fixture
def app(tmp_path, database_url, redis_url):
    """The app with a low vector-index threshold: the index is built while both workers write."""
    app = make_app(tmp_path, database_url, redis_url, VECTOR_INDEX_MIN_ROWS=300)
    yield app
    if not db.is_closed():
        db.close()


def test_two_workers_import_200_documents_each_exactly_once(app, tmp_path):
    folder = tmp_path / "folder"
    _write_folder(folder, DOCUMENTS)
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, "Handbook")
    workers = [start_worker(app, tmp_path, log_name=f"worker-{n}.log") for n in range(2)]
    try:
        with app.app_context(), db.connection_context():
            files, _ = folder_files(folder)
            ids = [documents.import_local_file("Handbook", path).id for path in files]
        assert len(set(ids)) == DOCUMENTS
        docs = _wait_all(app, ids, 240)
        logs = "\n".join((tmp_path / f"worker-{n}.log").read_text(errors="replace")[-3000:] for n in range(2))
        assert Counter(d.status for d in docs) == {"done": DOCUMENTS}, logs
    finally:
        for worker in workers:
            stop_worker(worker)

    with app.app_context():
        comps = components.get()
        store, queue = comps.store, comps.queue
        # Every document's job ran once, and both workers took part.
        finished = FinishedJobRegistry(queue=queue).get_job_ids()
        failed = FailedJobRegistry(queue=queue).get_job_ids()
        assert not failed, [(j.id, j.exc_info) for j in Job.fetch_many(failed, connection=comps.redis) if j]
        per_doc = Counter(int(job_id.split("-doc-")[1].split("-")[0]) for job_id in finished if "-doc-" in job_id)
        assert per_doc == {doc_id: 1 for doc_id in ids}
        jobs = [job for job in Job.fetch_many(finished, connection=comps.redis) if job is not None]
        assert len({job.worker_name for job in jobs}) == 2
        # Both workers scheduled the periodic upkeep: one chain, not two.
        scheduled = ScheduledJobRegistry(queue=queue)
        assert len([j for j in scheduled.get_job_ids() if "-maintenance-" in j]) == 1
        for job_id in scheduled.get_job_ids():
            scheduled.remove(job_id, delete_job=True)
        # The store holds exactly the chunks the rows report, each (document, chunk) once.
        rows = store._open().search().select(["document_id", "chunk_index"]).limit(None).to_arrow().to_pylist()
        pairs = Counter((r["document_id"], r["chunk_index"]) for r in rows)
        assert max(pairs.values()) == 1
        assert store.count() == len(pairs) == sum(d.chunk_count for d in docs)
        assert store.count_by_document() == {d.id: d.chunk_count for d in docs}
        assert min(d.chunk_count for d in docs) >= 1 and max(d.chunk_count for d in docs) >= 4
        # Upkeep ran one pass at a time: the vector index was built past the threshold while
        # imports went on; the periodic (full) pass folds the rest in.
        table = store._open()
        assert vectorindex.vector_index(table) is not None and vectorindex.fts_index(table) is not None
        assert run_maintenance(full=True)["status"] == "done"
        assert vectorindex.vector_index(table).num_unindexed_rows == 0
        assert vectorindex.fts_index(table).num_unindexed_rows == 0
        assert len(store.search(comps.embedder.embed_query("kennwort7"), [docs[0].area_id], 50)) == 50
        sample = docs[57]
        word = f"kennwort{int(sample.name[4:7])}"
        assert {t.hit.document_id for t in store.search_fulltext(word, [sample.area_id], 5)} == {sample.id}
