"""Index upkeep on a real LanceDB: vector index past a (low) threshold, recall, readers, cleanup, lock."""
from __future__ import annotations

import threading
import time
from datetime import timedelta

import numpy as np
import pytest

from irisrag.vectors import index as vectorindex
from irisrag.vectors.index import IndexPolicy
from irisrag.vectors.store import ChunkIn, VectorStore

DIM = 64
AREAS = 20
LOW = IndexPolicy(min_rows=1000)


def _clustered(n: int, seed: int = 0) -> np.ndarray:
    """Unit vectors around 100 centres, like embeddings of related texts."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(100, DIM)).astype(np.float32)
    x = centres[rng.integers(0, len(centres), n)] + rng.normal(scale=0.8, size=(n, DIM)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _fill(store: VectorStore, vectors: np.ndarray, first_doc: int = 0, per_doc: int = 10) -> None:
    """Write documents of ``per_doc`` chunks, areas round robin, 500 documents per commit."""
    docs = []
    for d in range(len(vectors) // per_doc):
        doc = first_doc + d
        chunks = [ChunkIn(i, f"Dokument {doc} Abschnitt {i} Wort{doc % 7}") for i in range(per_doc)]
        docs.append((doc, doc % AREAS, chunks, vectors[d * per_doc:(d + 1) * per_doc]))
    for start in range(0, len(docs), 500):
        store.replace_documents(docs[start:start + 500])


@pytest.fixture
def store(tmp_path) -> VectorStore:
    return VectorStore(str(tmp_path / "lance"), "fake-64", DIM, read_consistency_seconds=None)


def test_vector_index_recall_with_area_prefilter_on_20k_rows(store):
    vectors = _clustered(20_000)
    _fill(store, vectors)
    assert store.maintain(IndexPolicy(min_rows=50_000)).vector == "below_threshold"
    assert vectorindex.area_index(store._open()) is None  # below the threshold: no scalar index either
    report = store.maintain(LOW)
    assert (report.vector, report.rows, report.area_index) == ("created", 20_000, "created")
    assert vectorindex.vector_index(store._open()).num_indexed_rows == 20_000
    assert vectorindex.area_index(store._open()).num_indexed_rows == 20_000
    areas = [1, 2, 3]  # ~15 % of the rows
    area_of_row = (np.arange(20_000) // 10) % AREAS
    allowed = np.isin(area_of_row, areas)
    queries = _clustered(30, seed=7)
    recalls = []
    for query in queries:
        hits = store.search(query, areas, 256)
        assert len(hits) == 256 and {h.area_id for h in hits} <= set(areas)
        scores = np.where(allowed, vectors @ query, -np.inf)
        exact = {(int(i) // 10, int(i) % 10) for i in np.argpartition(-scores, 256)[:256]}
        recalls.append(len(exact & {(h.document_id, h.chunk_index) for h in hits}) / 256)
    assert np.mean(recalls) >= 0.98, recalls
    plan = store._open().search(queries[0]).distance_type("cosine").where("area_id IN (1)", prefilter=True)
    assert "ANNSubIndex" in plan.explain_plan()  # the query went through the index
    _fill(store, _clustered(100, seed=3), first_doc=5000)  # rows after the area index: still filtered right
    found = store.search(_clustered(1, seed=3)[0], [0], 20_000)
    assert 5000 in {h.document_id for h in found} and {h.area_id for h in found} == {0}
    assert store.maintain(LOW).area_index == "current"


def test_vector_index_readers_never_fail_during_maintenance(tmp_path):
    uri = str(tmp_path / "lance")
    writer = VectorStore(uri, "fake-64", DIM, read_consistency_seconds=None)
    _fill(writer, _clustered(6000))
    reader = VectorStore(uri, "fake-64", DIM, read_consistency_seconds=0)
    writer.maintain(LOW)  # the full-text index exists before the reader starts
    errors: list[BaseException] = []
    done = threading.Event()
    counts = {"vector": 0, "text": 0}

    def read() -> None:
        query = _clustered(1, seed=3)[0]
        while not done.is_set():
            try:
                assert len(reader.search(query, [1, 2, 3], 50)) == 50
                counts["vector"] += 1
                reader.search_fulltext("Abschnitt", [1, 2], 10)
                counts["text"] += 1
            except BaseException as exc:  # noqa: BLE001 - any error a reader sees fails the test
                errors.append(exc)
                return

    thread = threading.Thread(target=read)
    thread.start()
    try:
        short = IndexPolicy(min_rows=1000, cleanup_older_than=timedelta(seconds=1))
        for round_ in range(3):
            _fill(writer, _clustered(500, seed=10 + round_), first_doc=1000 + 100 * round_)
            writer.maintain(short, full=False)
            time.sleep(1.1)  # versions the reader used a moment ago become old enough to clean
            writer.maintain(short, full=True, retrain=round_ == 1)
    finally:
        done.set()
        thread.join(30)
    assert not errors, errors
    assert counts["vector"] > 5 and counts["text"] > 5
    assert reader.count() == 7500


def test_maintenance_small_table_keeps_fulltext_current_and_is_cheap_when_current(store):
    assert store.maintain(LOW).fulltext == "none"
    _fill(store, _clustered(50), per_doc=5)
    first = store.maintain(LOW, full=False)
    assert (first.fulltext, first.vector) == ("created", "below_threshold")
    _fill(store, _clustered(5, seed=1), first_doc=100, per_doc=5)
    assert store.maintain(LOW, full=False).fulltext == "optimized"  # no vector index: fold in at once
    version = store.version()
    again = store.maintain(LOW, full=False)
    assert (again.fulltext, again.optimized) == ("current", False) and store.version() == version
    assert [t.hit.document_id for t in store.search_fulltext("Dokument 100", [0], 5)][:1] == [100]


def test_maintenance_defers_fold_in_with_a_vector_index_and_retrains_when_stale(store):
    policy = IndexPolicy(min_rows=1000, max_segments=3, retrain_share=0.5)
    _fill(store, _clustered(2000))
    assert store.maintain(policy, full=False).vector == "created"  # the import that crosses the threshold
    _fill(store, _clustered(20, seed=2), first_doc=500)
    light = store.maintain(policy, full=False)
    assert (light.vector, light.fulltext, light.optimized) == ("deferred", "deferred", False)
    assert store.search(_clustered(20, seed=2)[0], [0], 1)[0].document_id == 500  # unindexed rows are found
    full = store.maintain(policy)
    assert (full.vector, full.fulltext, full.optimized) == ("folded", "optimized", True)
    assert vectorindex.vector_index(store._open()).num_unindexed_rows == 0
    for round_ in range(3):  # every fold adds a segment; past max_segments the index is rebuilt
        _fill(store, _clustered(10, seed=20 + round_), first_doc=600 + round_)
        last = store.maintain(policy)
    assert last.vector == "retrained" and vectorindex.vector_index(store._open()).num_segments == 1
    _fill(store, _clustered(1500, seed=3), first_doc=700)  # more unindexed rows than retrain_share allows
    assert store.maintain(policy, full=False).vector == "retrained"
    assert store.maintain(policy).vector == "current"


def test_maintenance_removes_versions_by_age_only(store):
    _fill(store, _clustered(100))
    policy = IndexPolicy(min_rows=10**9, cleanup_older_than=timedelta(seconds=1))
    store.maintain(policy)
    for doc in range(3):
        _fill(store, _clustered(10, seed=doc), first_doc=doc)
    assert store.maintain(IndexPolicy(min_rows=10**9)).versions_removed == 0  # one hour: all too young
    time.sleep(1.2)
    report = store.maintain(policy)
    assert report.versions_removed >= 3 and len(store._open().list_versions()) <= 2
    assert store.count() == 100


def test_retry_backs_off_on_commit_conflicts_only(monkeypatch):
    monkeypatch.setattr(vectorindex.time, "sleep", lambda s: None)
    calls = []

    def flaky():
        calls.append(1)
        if len(calls) < 3:
            raise RuntimeError("Retryable commit conflict for version 7")
        return "ok"

    assert vectorindex.retry(flaky) == "ok" and len(calls) == 3
    with pytest.raises(ValueError):
        vectorindex.retry(lambda: (_ for _ in ()).throw(ValueError("bad")))
    with pytest.raises(RuntimeError, match="conflict"):
        vectorindex.retry(lambda: (_ for _ in ()).throw(RuntimeError("commit conflict")), attempts=2)
    calls.clear()

    def contended():
        calls.append(1)
        if len(calls) < 2:
            raise RuntimeError("Too many concurrent writers. Attempted 7 times, but failed on retry_timeout of 30 s")
        return "ok"

    assert vectorindex.retry(contended) == "ok" and len(calls) == 2


def test_index_policy_rejects_unknown_types():
    with pytest.raises(ValueError, match="IVF_PQ"):
        IndexPolicy(index_type="IVF_PQ")


# --- one maintenance at a time (Redis lock), periodic schedule, CLI ------------------------------

def test_maintenance_lock_lets_one_process_run_and_picks_up_pending_imports(app, monkeypatch):
    from irisrag import components
    from irisrag.jobs import maintenance

    with app.app_context():
        redis = components.get().redis
        lock = redis.lock(maintenance._key("lock"), timeout=30)
        assert lock.acquire(blocking=False)
        try:
            assert maintenance.maintain_after_import() == {"status": "busy"}
            assert redis.exists(maintenance._key("pending"))  # the holder will run one more pass
        finally:
            lock.release()
        passes = []
        real = maintenance._pass

        def counting(full, retrain=False):
            run = real(full, retrain)

            def wrapped():
                passes.append(full)
                if len(passes) == 1:  # an import finishes while this pass runs
                    redis.set(maintenance._key("pending"), "1")
                return run()

            return wrapped

        monkeypatch.setattr(maintenance, "_pass", counting)
        report = maintenance.run_maintenance(full=True)
        assert report["status"] == "done" and report["passes"] == 2 and passes == [True, False]
        assert not redis.exists(maintenance._key("pending")) and not redis.exists(maintenance._key("lock"))


def test_pass_after_import_is_left_to_the_last_import_of_a_batch(app):
    from irisrag import components
    from irisrag.jobs import maintenance, tasks

    with app.app_context():
        queue = components.get().queue
        prefix = maintenance._prefix()
        other = queue.enqueue(tasks.ping, "x", job_id=f"{prefix}-ping-1")  # not an import: no deferral
        try:
            assert not maintenance.upkeep_job_waiting()
            assert maintenance.maintain_after_import()["status"] == "done"
            waiting = queue.enqueue(tasks.ping, "x", job_id=f"{prefix}-import-doc-7-abcd1234")
            assert maintenance.upkeep_job_waiting()
            assert maintenance.maintain_after_import() == {"status": "deferred"}
            assert maintenance.maintain_after_import(use_lock=False)["status"] == "done"  # CLI --sync: no queue
            assert maintenance.maintain_after_import(document_id=7)["status"] == "done"  # its own job: not another
            waiting.delete()
            assert maintenance.maintain_after_import()["status"] == "done"  # the last one of the batch runs it
        finally:
            for job_id in queue.get_job_ids():
                queue.remove(job_id)
            other.delete()


def test_periodic_maintenance_is_one_chain_of_slot_jobs(app):
    from datetime import UTC, datetime

    from rq.registry import ScheduledJobRegistry

    from irisrag import components
    from irisrag.jobs import maintenance

    app.config["MAINTENANCE_INTERVAL"] = 300
    with app.app_context():
        queue = components.get().queue
        now = datetime(2030, 1, 1, 12, 1, tzinfo=UTC)
        first = maintenance.schedule_maintenance(now)
        from rq.job import Job

        job = Job.fetch(first, connection=components.get().redis)  # the call a worker will make
        assert (job.args, job.kwargs, job.timeout) == ((), {}, app.config["JOB_TIMEOUT"])
        assert maintenance.schedule_maintenance(now.replace(minute=4)) == first  # a second worker: same job
        assert ScheduledJobRegistry(queue=queue).get_job_ids() == [first]
        assert maintenance.schedule_maintenance(now.replace(minute=5)) != first  # the run schedules the next
        report = maintenance.periodic_maintenance()
        assert report["status"] == "done" and report["fulltext"] == "none"
        assert len(ScheduledJobRegistry(queue=queue).get_job_ids()) == 3
        app.config["MAINTENANCE_INTERVAL"] = 0
        assert maintenance.schedule_maintenance() is None
        registry = ScheduledJobRegistry(queue=queue)
        for job_id in registry.get_job_ids():  # the test Redis is shared: leave nothing behind
            registry.remove(job_id, delete_job=True)


def test_cli_maintain_runs_a_pass(app):
    import json

    from irisrag import components

    with app.app_context():
        store = components.get().store
        store.replace_document(1, 1, [ChunkIn(0, "Ein Haus am See")], np.ones((1, store.dim), np.float32))
    result = app.test_cli_runner().invoke(args=["rag", "maintain", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert (report["status"], report["rows"], report["fulltext"], report["vector"]) == (
        "done", 1, "created", "below_threshold")
    result = app.test_cli_runner().invoke(args=["rag", "maintain"])
    assert result.exit_code == 0 and "full text current" in result.output
