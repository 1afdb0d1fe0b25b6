"""Why the forking RQ worker is safe with LanceDB (issue 19), shown on a real worker running real imports.

LanceDB warns in every forked child that its fork support is experimental: state of its Rust
runtime could be mid-operation at fork time. That runtime (threads named ``lancedb-tokio-w``)
starts with the first connection; the worker's own process never opens one, since the jobs,
which do, run in the forked horses. This test imports documents through a real worker, then
looks at the worker process's threads: no runtime, so nothing to be mid-operation. worker.py
therefore silences the warning (and checks before every fork that it still has not opened one).
"""
from __future__ import annotations

import time
from pathlib import Path

import pytest
from rq import Queue

from irisrag import components
from irisrag.extensions import db
from irisrag.models import Area, Document
from irisrag.services.admin import admin as admin_service
from irisrag.services.documents import documents as document_service
from tests.integration.test_worker import start_worker, stop_worker

pytestmark = pytest.mark.integration


def _thread_names(pid: int) -> list[str]:
    return sorted(p.read_text().strip() for p in Path(f"/proc/{pid}/task").glob("*/comm"))


def _wait_done(app, ids: list[int], seconds: float = 120) -> dict[int, str]:
    deadline = time.monotonic() + seconds
    while True:
        with app.app_context(), db.connection_context():
            statuses = {d.id: d.status for d in Document.select().where(Document.id.in_(ids))}
        if all(s in ("done", "failed") for s in statuses.values()) or time.monotonic() > deadline:
            return statuses
        time.sleep(0.3)


def test_worker_never_opens_lancedb_itself_so_its_horses_fork_without_a_warning(app, tmp_path):
    with app.app_context(), db.connection_context():
        area = admin_service.create_named(Area, "Handbuch")
    worker = start_worker(app, tmp_path)
    try:
        with app.app_context(), db.connection_context():
            ids = [document_service.import_upload(area.id, f"teil-{i}.md", f"# Teil {i}\n\nInhalt {i}.".encode()).id
                   for i in range(3)]
        statuses = _wait_done(app, ids)
        log = (tmp_path / "worker.log").read_text()
        assert set(statuses.values()) == {"done"}, log[-3000:]
        threads = _thread_names(worker.pid)
        assert threads and not [t for t in threads if "lancedb-tokio" in t], threads  # its runtime never started
    finally:
        stop_worker(worker)
        with app.app_context():
            Queue(app.config["QUEUE_NAME"], connection=components.get().redis).empty()
    assert log.count("job_done") == 3
    assert "fork support is experimental" not in log and "lancedb_opened_before_fork" not in log


def test_worker_check_names_a_lancedb_connection_opened_before_a_fork(tmp_path, caplog):
    import os

    import worker
    from irisrag.vectors import store as vectorstore

    worker._fork_checked["warned"] = False
    vectorstore.connect(str(tmp_path / "lancedb"))  # as if the worker's own process had opened it
    assert vectorstore.opened_here()
    worker._check_before_fork()
    worker._check_before_fork()
    lines = [r.getMessage() for r in caplog.records if "lancedb_opened_before_fork" in r.getMessage()]
    assert len(lines) == 1 and f"pid={os.getpid()}" in lines[0]  # once, not per job


def test_worker_freezes_its_objects_before_forking_so_horses_do_not_copy_them(app, tmp_path):
    """The horse sees the worker's objects frozen (gc.freeze): its collections leave those pages shared."""
    import gc

    worker = start_worker(app, tmp_path)
    try:
        with app.app_context():
            queue = Queue(app.config["QUEUE_NAME"], connection=components.get().redis)
            jobs = [queue.enqueue(gc.get_freeze_count) for _ in range(2)]
        deadline = time.monotonic() + 120
        while any(j.get_status(refresh=True) not in ("finished", "failed") for j in jobs):
            assert time.monotonic() < deadline, (tmp_path / "worker.log").read_text()[-3000:]
            time.sleep(0.2)
        frozen = [j.return_value() for j in jobs]
    finally:
        stop_worker(worker)
        with app.app_context():
            Queue(app.config["QUEUE_NAME"], connection=components.get().redis).empty()
    # the app, the libraries and the embedder: tens of thousands of objects, in every horse
    assert all(count > 20_000 for count in frozen), frozen


def compound_lists_loaded() -> int:
    """Run in a work horse: how many compound word lists it holds before anything asked for one."""
    from irisrag.vectors.searchtext import compounds_of

    return compounds_of.cache_info().currsize


def test_horses_inherit_the_compound_word_list_instead_of_loading_it_per_job(app, tmp_path):
    from irisrag.vectors.searchtext import SearchText

    assert SearchText.from_config(app.config).compounds  # German full text: chunks are split with a word list
    worker = start_worker(app, tmp_path)
    try:
        with app.app_context():
            queue = Queue(app.config["QUEUE_NAME"], connection=components.get().redis)
            job = queue.enqueue(compound_lists_loaded)
        deadline = time.monotonic() + 120
        while job.get_status(refresh=True) not in ("finished", "failed"):
            assert time.monotonic() < deadline, (tmp_path / "worker.log").read_text()[-3000:]
            time.sleep(0.2)
        log = (tmp_path / "worker.log").read_text()
    finally:
        stop_worker(worker)
        with app.app_context():
            Queue(app.config["QUEUE_NAME"], connection=components.get().redis).empty()
    assert job.return_value() == 1, log[-3000:]
    assert "compound_splitter_loaded" in log
