"""Many machines, simulated: 2 web and 3 worker processes, each in its own directory, against one
PostgreSQL, one Redis and SeaweedFS S3; 300 documents uploaded through both web processes
while both answer questions and index upkeep runs (periodic passes in the workers plus an
operator's ``maintain`` loop), so upkeep commits race import commits.

At the end: every document ``done`` by exactly one job, LanceDB rows = the records, no
duplicate chunk id, no failed question, both web processes find new documents. The commit
conflicts our upkeep retried are counted and reported (Lance retries import commits itself).

``IRISRAG_TEST_SCALEOUT_SEED`` picks another document mix (types, lengths, upload order).
"""
from __future__ import annotations

import logging
import os
import random
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests
from rq.job import Job
from rq.registry import FailedJobRegistry, FinishedJobRegistry

from irisrag import components
from irisrag.extensions import db
from irisrag.jobs.maintenance import run_maintenance
from irisrag.models import Area, Document, Group
from irisrag.services.admin import admin as admin_service
from irisrag.services.admin import api_keys
from irisrag.vectors import index as vectorindex
from tests.conftest import _database, make_app
from tests.s3 import cluster

pytestmark = [pytest.mark.integration, pytest.mark.s3, pytest.mark.postgres, pytest.mark.timeout(900)]
DOCUMENTS = int(os.environ.get("IRISRAG_TEST_SCALEOUT_DOCUMENTS", "300"))
SEED = int(os.environ.get("IRISRAG_TEST_SCALEOUT_SEED", "20"))
READ_CONSISTENCY = 2.0  # the web processes' LANCEDB_READ_CONSISTENCY_SECONDS (the default)


def _document(i: int, rng: random.Random) -> tuple[str, bytes]:
    """A small document of a random type and 1-4 chunks that carries the word kennung<i>x."""
    parts = [f"Abschnitt {p} zu kennung{i}x beschreibt Wartung, Prüfung und Betrieb von Gerät {i}. " * rng.randint(3, 7)
             for p in range(rng.randint(1, 4))]
    kind = rng.choice(["txt", "md", "html", "csv"])
    if kind == "md":
        body = "\n\n".join(f"## Teil {p}\n\n{text}" for p, text in enumerate(parts))
    elif kind == "html":
        body = ("<html><head><title>Gerät</title></head><body><main>"
                + "".join(f"<h2>Teil {p}</h2><p>{text}</p>" for p, text in enumerate(parts)) + "</main></body></html>")
    elif kind == "csv":
        body = "teil;text\n" + "\n".join(f"{p};{text}" for p, text in enumerate(parts))
    else:
        body = "\n\n".join(parts)
    return f"geraet-{i:03d}.{kind}", body.encode()


class Asker(threading.Thread):
    """Ask one web process about documents uploaded so far until told to stop; record every reply."""

    def __init__(self, url: str, key: str, uploaded: list[int], rng: random.Random) -> None:
        super().__init__(daemon=True)
        self.url, self.key, self.uploaded, self.rng = url, key, uploaded, rng
        self.stop = threading.Event()
        self.replies: list[tuple[int, float]] = []
        self.failures: list[str] = []

    def run(self) -> None:
        session = requests.Session()
        while not self.stop.is_set():
            if not self.uploaded:
                time.sleep(0.1)
                continue
            i = self.rng.choice(self.uploaded)
            start = time.monotonic()
            try:
                resp = session.post(f"{self.url}/api/v1/answer", headers={"X-API-Key": self.key}, timeout=60,
                                    json={"question": f"kennung{i}x", "use_llm": False})
                self.replies.append((resp.status_code, time.monotonic() - start))
                if resp.status_code != 200 or "answer" not in resp.json():
                    self.failures.append(f"{resp.status_code}: {resp.text[:300]}")
            except (requests.RequestException, ValueError) as exc:
                self.failures.append(repr(exc))
            self.stop.wait(0.2)


class Upkeep(threading.Thread):
    """An operator's ``flask rag maintain`` every 3 s, on top of the workers' periodic passes."""

    def __init__(self, app) -> None:
        super().__init__(daemon=True)
        self.app = app
        self.stop = threading.Event()
        self.reports: list[dict] = []
        self.errors: list[str] = []

    def run(self) -> None:
        with self.app.app_context():
            while not self.stop.wait(3.0):
                try:
                    with db.connection_context():
                        self.reports.append(run_maintenance(full=True))
                except Exception as exc:  # reported by the test: upkeep must not fail under load
                    self.errors.append(repr(exc))


class ConflictCounter(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += "event=commit_conflict" in record.getMessage()


@pytest.fixture
def postgres_url(tmp_path):
    url, cleanup = _database("postgres", tmp_path)
    yield url
    cleanup()


def _seed(app) -> tuple[str, str]:
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, "Geräte")
        admin_service.create_named(Group, "technik")
        admin_service.link_area("Geräte", "technik")
        for name, is_admin in (("root", True), ("alice", False)):
            admin_service.create_user(name, "password123", is_admin=is_admin)
            admin_service.link_user(name, "technik")
        return api_keys.create_key("root").plain, api_keys.create_key("alice").plain


def _upload(webs, admin_key: str, rng: random.Random, uploaded: list[int]) -> dict[str, int]:
    """Upload every document, half through each web process at the same time; return name -> document id."""
    order = list(range(DOCUMENTS))
    rng.shuffle(order)
    documents = [(i, *_document(i, rng)) for i in order]
    ids: dict[str, int] = {}

    def send(web, share) -> None:
        session = requests.Session()
        for i, name, body in share:
            resp = session.post(f"{web.url}/api/v1/documents", headers={"X-API-Key": admin_key},
                                data={"area": "Geräte"}, files={"file": (name, body)}, timeout=60)
            assert resp.status_code == 202, resp.text
            ids[name] = resp.json()["id"]
            uploaded.append(i)

    with ThreadPoolExecutor(2) as pool:
        for future in [pool.submit(send, web, documents[n::2]) for n, web in enumerate(webs)]:
            future.result()
    return ids


def _wait_done(app, ids, seconds: float) -> list[Document]:
    deadline = time.monotonic() + seconds
    while True:
        with app.app_context(), db.connection_context():
            docs = list(Document.select().where(Document.id.in_(ids)))
        if all(d.status in ("done", "failed", "unchanged") for d in docs) or time.monotonic() > deadline:
            return docs
        time.sleep(0.5)


def _found(url: str, key: str, i: int) -> set[str]:
    resp = requests.post(f"{url}/api/v1/answer", headers={"X-API-Key": key}, timeout=60,
                         json={"question": f"kennung{i}x", "use_llm": False})
    assert resp.status_code == 200, resp.text
    return {s["name"].split(".")[0] for s in resp.json()["sources"]}


def test_two_web_three_worker_machines_import_300_documents_on_s3(tmp_path: Path, postgres_url, redis_url,
                                                                  local_s3, s3_uri, capfd):
    # This process is the operator's machine: schema, accounts, the upkeep loop and the checks.
    shared = tmp_path / "shared-staging"
    app = make_app(tmp_path / "operator", postgres_url, redis_url, LANCEDB_URI=s3_uri, UPLOAD_ROOT=str(shared),
                   LANCEDB_STORAGE_OPTIONS=local_s3.storage_options(), VECTOR_INDEX_MIN_ROWS=DOCUMENTS)
    admin_key, user_key = _seed(app)
    env = dict(database_url=postgres_url, redis_url=redis_url, queue=app.config["QUEUE_NAME"], lancedb_uri=s3_uri,
               shared=shared, IRISRAG_VECTOR_INDEX_MIN_ROWS=str(DOCUMENTS), IRISRAG_MAINTENANCE_INTERVAL="10",
               IRISRAG_LANCEDB_READ_CONSISTENCY_SECONDS=str(READ_CONSISTENCY))
    machines = [cluster.start_worker(f"worker-{n}", tmp_path / f"worker-{n}",
                                     cluster.settings(directory=tmp_path / f"worker-{n}", **env), local_s3)
                for n in range(3)]
    webs = [cluster.start_web(f"web-{n}", tmp_path / f"web-{n}",
                              cluster.settings(directory=tmp_path / f"web-{n}", **env), local_s3) for n in range(2)]
    machines += webs
    rng = random.Random(SEED)
    uploaded: list[int] = []
    askers = [Asker(web.url, user_key, uploaded, random.Random(SEED + n)) for n, web in enumerate(webs)]
    upkeep = Upkeep(app)
    conflicts = ConflictCounter()
    logging.getLogger("irisrag.vectors.index").addHandler(conflicts)
    started = time.monotonic()
    try:
        for web in webs:
            cluster.wait_ready(web)
        for thread in (*askers, upkeep):
            thread.start()
        ids = _upload(webs, admin_key, rng, uploaded)
        uploaded_in = time.monotonic() - started
        docs = _wait_done(app, list(ids.values()), 420)
        imported_in = time.monotonic() - started
        for thread in (*askers, upkeep):
            thread.stop.set()
        for thread in (*askers, upkeep):
            thread.join(90)
        logs = "\n".join(f"--- {m.name}\n{m.log_text(2500)}" for m in machines)
        assert Counter(d.status for d in docs) == {"done": DOCUMENTS}, logs
        # Both web processes see the last documents once the read-consistency interval has passed.
        time.sleep(READ_CONSISTENCY + 0.5)
        for i in rng.sample(range(DOCUMENTS), 8):
            for web in webs:
                assert _found(web.url, user_key, i) == {f"geraet-{i:03d}"}, (web.name, i)
    finally:
        for thread in (*askers, upkeep):
            thread.stop.set()
        logging.getLogger("irisrag.vectors.index").removeHandler(conflicts)
        for machine in machines:
            cluster.stop(machine)

    worker_logs = "\n".join(m.log_text(10**8) for m in machines if m.name.startswith("worker"))
    lance_logs = worker_logs + capfd.readouterr().err  # Lance's own warnings (Rust log) go to stderr
    questions = [r for a in askers for r in a.replies]
    assert not [f for a in askers for f in a.failures], [f for a in askers for f in a.failures][:5]
    assert all(a.replies for a in askers) and len(questions) >= 20
    assert not upkeep.errors, upkeep.errors[:3]
    with app.app_context(), db.connection_context():
        comps = components.get()
        finished = FinishedJobRegistry(queue=comps.queue).get_job_ids()
        failed = FailedJobRegistry(queue=comps.queue).get_job_ids()
        assert not failed, [(j.id, j.exc_info) for j in Job.fetch_many(failed, connection=comps.redis) if j]
        per_doc = Counter(int(job_id.split("-doc-")[1].split("-")[0]) for job_id in finished if "-doc-" in job_id)
        assert per_doc == {doc_id: 1 for doc_id in ids.values()}
        jobs = [job for job in Job.fetch_many(finished, connection=comps.redis) if job is not None]
        assert {job.worker_name for job in jobs if "-doc-" in job.id} == {"worker-0", "worker-1", "worker-2"}
        store = comps.store
        rows = store._open().search().select(["id", "document_id", "chunk_index"]).limit(None).to_arrow()
        chunk_ids = rows.column("id").to_pylist()
        assert len(chunk_ids) == len(set(chunk_ids)) == store.count() == sum(d.chunk_count for d in docs)
        assert store.count_by_document() == {d.id: d.chunk_count for d in docs}
        assert run_maintenance(full=True)["status"] == "done"
        table = store._open()
        assert vectorindex.vector_index(table) is not None and vectorindex.fts_index(table).num_unindexed_rows == 0
    for machine in machines:  # no LanceDB store or staging on a machine's own disk; web machines read a mirror
        assert not (machine.directory / "lancedb").exists() and not (machine.directory / "staging").exists()
        mirrored = list((machine.directory / "lancedb-mirror").glob(f"*/{store.table_name}.lance/_versions/*.manifest"))
        assert bool(mirrored) == machine.name.startswith("web"), machine.name
    full_passes = sum(1 for r in upkeep.reports if r["status"] == "done")
    report = {
        "documents": DOCUMENTS, "seed": SEED, "chunks": len(chunk_ids), "uploaded_s": round(uploaded_in, 1),
        "imported_s": round(imported_in, 1), "questions": len(questions),
        "question_median_s": round(sorted(s for _, s in questions)[len(questions) // 2], 3),
        "upkeep_passes_operator": full_passes, "upkeep_busy_operator": len(upkeep.reports) - full_passes,
        "upkeep_passes_workers": worker_logs.count("event=maintenance "),
        "conflict_retries_operator": conflicts.count,
        "conflict_retries_workers": worker_logs.count("event=commit_conflict"),
        "lance_compactions_given_up": lance_logs.count("Compaction commit failed"),
    }
    with capfd.disabled():
        print(f"\nscale-out on S3: {report}")
