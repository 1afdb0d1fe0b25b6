"""Short documents queued together are imported in one work horse, each on its own (issue 41 item 3).

A real Redis and a real worker.py: the documents are queued before the worker starts, so its
first job finds the others waiting behind it.
"""
from __future__ import annotations

import pytest
from rq import Queue
from rq.job import Job

from irisrag import components
from irisrag.extensions import db
from irisrag.i18n import english_stored
from irisrag.ingest.extract import EMPTY_MESSAGE
from irisrag.jobs.chain import CHAIN_MAX_BYTES
from irisrag.jobs.keys import pointer_key
from irisrag.jobs.queue import failed_jobs
from irisrag.models import Area, Document
from irisrag.services.admin import admin as admin_service
from irisrag.services.documents import documents
from tests.conftest import make_app
from tests.integration.test_worker import start_worker, stop_worker
from tests.support.imports import wait_final, wait_status

pytestmark = pytest.mark.integration


def page(title: str, words: str) -> bytes:
    return f"<html><head><title>{title}</title></head><body><h1>{title}</h1><p>{words}</p></body></html>".encode()


def queue_pages(app, pages: dict[str, bytes]) -> list[int]:
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, "Handbook")
        return [documents.import_upload("Handbook", name, data).id for name, data in pages.items()]


def run_worker(app, tmp_path, ids: list[int]) -> list[Document]:
    worker = start_worker(app, tmp_path)
    try:
        return [wait_final(app, document_id) for document_id in ids]
    finally:
        stop_worker(worker)


def finished_results(app) -> list[dict]:
    with app.app_context():
        redis = components.get().redis
        registry = Queue(app.config["QUEUE_NAME"], connection=redis).finished_job_registry
        return [Job.fetch(job_id, connection=redis).return_value() for job_id in registry.get_job_ids()]


def test_queued_short_pages_run_in_one_job_each_with_its_own_outcome(app, tmp_path):
    pages = {"urlaub.html": page("Urlaub", "Jede Mitarbeiterin hat 30 Tage Urlaub im Jahr."),
             "leer.html": b"<html><body></body></html>",
             "kopie.html": page("Urlaub", "Jede Mitarbeiterin hat 30 Tage Urlaub im Jahr."),
             "reisen.html": page("Reisen", "Dienstreisen beantragt man beim Sekretariat.")}
    ids = queue_pages(app, pages)

    docs = run_worker(app, tmp_path, ids)

    assert [d.status for d in docs] == ["done", "failed", "failed", "done"]
    assert english_stored(docs[1].error) == english_stored(EMPTY_MESSAGE)
    assert "urlaub.html" in english_stored(docs[2].error)  # the duplicate names the page holding it
    assert all(d.chunk_count > 0 for d in (docs[0], docs[3]))
    results = {r["document_id"]: r for r in finished_results(app) if isinstance(r, dict) and "document_id" in r}
    assert sorted(results) == [ids[0], ids[3]]
    # The horse of the first job took the pages queued behind it, each under its own job; a sweep
    # job put at the head of the queue meanwhile (every 15 s) ends a chain, so later pages may
    # have been taken by the next horse.
    chained = [job_id for r in results.values() for job_id in r.get("chained", ())]
    assert chained and chained[0].split("-doc-")[1].startswith(f"{ids[1]}-")
    if results[ids[3]].get("chained_in"):
        assert results[ids[3]]["chained_in"].split("-doc-")[1].split("-")[0] in {str(i) for i in ids[:3]}
    with app.app_context():
        failed = failed_jobs(10)
        redis = components.get().redis
        assert {job.args[0] for job in failed} == {ids[1], ids[2]}  # each failure is its own failed job
        assert all("Traceback" in job.error for job in failed)
        assert redis.get(pointer_key(ids[0])) is None  # the first document no longer waits on the chain
        pointers = [redis.get(pointer_key(i)).decode() for i in ids[1:]]
        assert all(f"-doc-{i}-" in job_id for i, job_id in zip(ids[1:], pointers, strict=True))  # each its own job
        assert set(chained) <= set(pointers)


def test_a_large_file_queued_next_keeps_its_own_job(app, tmp_path):
    big = page("Groß", "Ein langer Text über Reisen.<!--" + "x" * CHAIN_MAX_BYTES + "-->")
    ids = queue_pages(app, {"klein.html": page("Klein", "Ein kurzer Text über Urlaub."), "gross.html": big})

    docs = run_worker(app, tmp_path, ids)

    assert [d.status for d in docs] == ["done", "done"]
    results = [r for r in finished_results(app) if isinstance(r, dict) and "document_id" in r]
    assert sorted(r["document_id"] for r in results) == ids
    assert not any(r.get("chained") or r.get("chained_in") for r in results)


def test_cancelling_a_chained_import_stops_only_that_document(tmp_path, database_url, redis_url):
    app = make_app(tmp_path, database_url, redis_url, EMBEDDING_BATCH_SIZE=1, FAKE_EMBED_DELAY=0.2)
    slow = page("Reisen", " ".join(f"Absatz {n}: Dienstreisen beantragt man beim Sekretariat." * 20
                                   for n in range(20)))
    ids = queue_pages(app, {"klein.html": page("Klein", "Ein kurzer Text über Urlaub."), "lang.html": slow,
                            "danach.html": page("Danach", "Der Text danach über Gleitzeit.")})
    worker = start_worker(app, tmp_path)
    try:
        wait_status(app, ids[1], "embedding")
        with app.app_context(), db.connection_context():
            documents.cancel_import(ids[1])
        docs = [wait_final(app, i) if i != ids[1] else wait_status(app, i, "cancelled") for i in ids]
    finally:
        stop_worker(worker)
    assert [d.status for d in docs] == ["done", "cancelled", "done"]
    with app.app_context():
        assert components.get().store.chunks_of(ids[1]) == []  # nothing half-written
