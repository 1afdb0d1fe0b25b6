"""A real worker process (worker.py) runs jobs from a real Redis inside the app context."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rq import Queue
from rq.job import Job

from irisrag import components
from irisrag.jobs.queue import enqueue
from irisrag.jobs.tasks import ping
from tests.support.process_env import process_env

ROOT = Path(__file__).resolve().parents[2]


def start_worker(app, tmp_path: Path, log_name: str = "worker.log", args: tuple[str, ...] = (),
                 **extra_env: str) -> subprocess.Popen:
    """Start worker.py as its own process group (so a test can kill it and its work horse)."""
    env = process_env({
        **os.environ,
        "IRISRAG_SECRET_KEY": "test",
        "IRISRAG_DATABASE_URL": app.config["DATABASE_URL"],
        "IRISRAG_REDIS_URL": app.config["REDIS_URL"],
        "IRISRAG_QUEUE_NAME": app.config["QUEUE_NAME"],
        "IRISRAG_LANCEDB_URI": app.config["LANCEDB_URI"],
        "IRISRAG_UPLOAD_ROOT": app.config["UPLOAD_ROOT"],
        "IRISRAG_EMBEDDER": app.config["EMBEDDER"],
        "IRISRAG_LLM": "none",
        "IRISRAG_URL_ALLOWLIST": ",".join(app.config["URL_ALLOWLIST"]),
        "IRISRAG_SRC_VOLUME_PATH": app.config["SRC_VOLUME_PATH"],
        "IRISRAG_EMBEDDING_BATCH_SIZE": str(app.config["EMBEDDING_BATCH_SIZE"]),
        "IRISRAG_FAKE_EMBED_DELAY": str(app.config["FAKE_EMBED_DELAY"]),
        "IRISRAG_LANCEDB_READ_CONSISTENCY_SECONDS": "0",
        "IRISRAG_IMPORT_STALE_SECONDS": str(app.config["IMPORT_STALE_SECONDS"]),
        "IRISRAG_VECTOR_INDEX_MIN_ROWS": str(app.config["VECTOR_INDEX_MIN_ROWS"]),
        "IRISRAG_MAINTENANCE_INTERVAL": str(app.config["MAINTENANCE_INTERVAL"]),
        **extra_env,
    })
    log = open(tmp_path / log_name, "ab")
    return subprocess.Popen([sys.executable, "worker.py", *args], cwd=ROOT, env=env, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)


def _children(pid: int) -> list[int]:
    """Return child pids (RQ's work horse runs in a session of its own)."""
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def stop_worker(worker: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
    """Stop a worker; with SIGKILL its work horse dies with it, as in a machine crash."""
    if sig == signal.SIGKILL:
        for child in _children(worker.pid):
            try:
                os.kill(child, signal.SIGKILL)
            except ProcessLookupError:
                pass
    try:
        os.killpg(worker.pid, sig)
    except ProcessLookupError:
        return
    try:
        worker.wait(20)
    except subprocess.TimeoutExpired:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(10)


def wait_for(job: Job, seconds: float = 60) -> Job:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        status = job.get_status(refresh=True)
        if status in ("finished", "failed"):
            return job
        time.sleep(0.1)
    raise AssertionError(f"job {job.id} still {job.get_status()} after {seconds}s")


@pytest.mark.integration
def test_worker_process_runs_a_job_in_the_app_context(app, make_user, tmp_path):
    make_user("someone")
    worker = start_worker(app, tmp_path)
    try:
        with app.app_context():
            job = enqueue(ping, "hello", job_id=f"ping-{app.config['QUEUE_NAME']}")  # test runs share a Redis
            wait_for(job)
            result = job.return_value()
        assert job.get_status() == "finished", (tmp_path / "worker.log").read_text()
        assert result["token"] == "hello" and result["users"] == 1
        assert result["queue"] == app.config["QUEUE_NAME"] and result["pid"] != os.getpid()
    finally:
        stop_worker(worker)
        with app.app_context():
            Queue(app.config["QUEUE_NAME"], connection=components.get().redis).empty()


@pytest.mark.integration
def test_a_worker_whose_name_a_killed_worker_still_holds_starts_under_the_next_name(app, make_user, tmp_path):
    from rq import Worker

    make_user("someone")
    name = f"node-{app.config['QUEUE_NAME']}"
    with app.app_context():
        redis = components.get().redis
        crashed = Worker([app.config["QUEUE_NAME"]], connection=redis, name=name)
        crashed.register_birth()                   # and never its death: killed with SIGKILL, machine lost
    worker = start_worker(app, tmp_path, args=(name,))
    try:
        with app.app_context():
            job = enqueue(ping, "again", job_id=f"ping-taken-{app.config['QUEUE_NAME']}")
            wait_for(job)
        log = (tmp_path / "worker.log").read_text()
        assert job.get_status() == "finished", log
        assert f"worker_name_taken name={name}" in log and worker.poll() is None
        running = {w.name for w in Worker.all(connection=redis)}
        assert f"{name}-2" in running               # the next name, at once (not after RQ's worker TTL)
    finally:
        stop_worker(worker)
        with app.app_context():
            crashed.register_death()
            Queue(app.config["QUEUE_NAME"], connection=components.get().redis).empty()


@pytest.mark.integration
def test_enqueue_says_clearly_when_redis_is_down(tmp_path, database_url, redis_url):
    from irisrag.errors import QueueUnavailable
    from tests.conftest import free_port, make_app

    app = make_app(tmp_path, database_url, redis_url, REDIS_URL=f"redis://127.0.0.1:{free_port()}/0")
    with app.app_context(), pytest.raises(QueueUnavailable, match="not reachable"):
        enqueue(ping, "x")
