"""Several "machines" on one host: web (gunicorn) and worker processes, each in its own working
directory and instance path, sharing only the services (PostgreSQL, Redis, S3) and the one
directory the README says must be shared (the staging root, ``IRISRAG_UPLOAD_ROOT``).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import requests

from tests.conftest import free_port
from tests.support.locals3 import LocalS3
from tests.support.process_env import process_env

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Machine:
    name: str
    directory: Path
    process: subprocess.Popen
    url: str | None = None  # web machines

    @property
    def log(self) -> Path:
        return self.directory / "process.log"

    def log_text(self, tail: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-tail:] if self.log.exists() else ""


def settings(*, database_url: str, redis_url: str, queue: str, lancedb_uri: str, shared: Path,
             directory: Path, **extra: str) -> dict[str, str]:
    """The environment of one machine: identical settings, its own instance path."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("IRISRAG_", "AWS_"))}
    return process_env({**base, "IRISRAG_SECRET_KEY": "scale-out-test", "IRISRAG_DATABASE_URL": database_url,
            "IRISRAG_REDIS_URL": redis_url, "IRISRAG_QUEUE_NAME": queue, "IRISRAG_LANCEDB_URI": lancedb_uri,
            "IRISRAG_UPLOAD_ROOT": str(shared), "IRISRAG_INSTANCE_PATH": str(directory), "IRISRAG_EMBEDDER": "fake",
            "IRISRAG_LLM": "none", **extra})


def _start(name: str, directory: Path, command: list[str], env: dict[str, str]) -> subprocess.Popen:
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / "process.log", "ab") as log:
        return subprocess.Popen(command, cwd=directory, env=env, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)


def start_worker(name: str, directory: Path, env: dict[str, str], s3: LocalS3) -> Machine:
    """A worker machine: worker.py run from its own directory, S3 credentials as AWS_* variables."""
    process = _start(name, directory, [sys.executable, str(ROOT / "worker.py"), name], {**env, **s3.env()})
    return Machine(name, directory, process)


def start_web(name: str, directory: Path, env: dict[str, str], s3: LocalS3, threads: int = 8) -> Machine:
    """A web machine: gunicorn (gthread), S3 endpoint and key in IRISRAG_LANCEDB_STORAGE_OPTIONS."""
    port = free_port()
    command = [sys.executable, "-m", "gunicorn", "--worker-class", "gthread", "--workers", "1", "--threads",
               str(threads), "--timeout", "120", "--bind", f"127.0.0.1:{port}", "--pythonpath", str(ROOT), "wsgi:app"]
    web_env = {**env, "IRISRAG_LANCEDB_STORAGE_OPTIONS": json.dumps(s3.storage_options())}
    return Machine(name, directory, _start(name, directory, command, web_env), f"http://127.0.0.1:{port}")


def wait_ready(machine: Machine, seconds: float = 60) -> None:
    """Wait until a web machine answers /healthz."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if machine.process.poll() is not None:
            raise AssertionError(f"{machine.name} exited: {machine.log_text()}")
        try:
            if requests.get(f"{machine.url}/healthz", timeout=2).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.3)
    raise AssertionError(f"{machine.name} did not answer: {machine.log_text()}")


def stop(machine: Machine) -> None:
    """Stop a machine's process group (SIGTERM, then SIGKILL after 20 s)."""
    try:
        os.killpg(machine.process.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        machine.process.wait(20)
    except subprocess.TimeoutExpired:
        os.killpg(machine.process.pid, signal.SIGKILL)
        machine.process.wait(10)
