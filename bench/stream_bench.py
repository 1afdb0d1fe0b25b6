"""Streamed answers: time to sources and time to first token through the app, against the LLM's own TTFT.

``.venv/bin/python -m bench.stream_bench [--quick] [--reps N] [--ttft S] [--rate TOKENS_PER_S]``

A local stub LLM speaks Ollama's streaming ``/api/chat`` (JSON lines) with a fixed time to
first token (``--ttft``, default 0.25 s) and a fixed rate (``--rate``, default 50 tokens/s,
60 tokens). The app runs as in production: gunicorn with the Procfile's worker class
(the worker class, workers and threads of the Procfile's ``web`` line), the fake embedder (so retrieval time is the store and
the pipeline, not a model), SQLite, LanceDB, 40 documents in one area.

Per repetition, interleaved: the stub's own TTFT (a direct streaming request), the dashboard
(``POST /ask/stream``: time to the ``sources`` event, to the first ``token`` event, to
``done``) and the API (``POST /api/v1/answer`` with ``"stream": true``). Then N concurrent
dashboard streams (N = the thread count, and twice that) started at once: TTFT and how many
finished. Times are measured by the client from sending the request. Prints Markdown tables
and writes ``bench/out/stream.md``.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import requests

from bench.common import ROOT, log, machine, med_p95, median, ms, table, write_report

PROCFILE_WEB = re.search(r"^web:.*$", (ROOT / "Procfile").read_text(), re.M).group(0)
WORKERS = int(re.search(r"--workers[ =](\d+)", PROCFILE_WEB).group(1))
THREADS = int(re.search(r"--threads[ =](\d+)", PROCFILE_WEB).group(1))
QUESTION = "Wie wird der OpenTelemetry Collector konfiguriert?"
TEXT = ("Der OpenTelemetry Collector wird über die Datei otel-{i}.yaml konfiguriert. Empfänger, Prozessoren "
        "und Exporter stehen dort; Abschnitt {i} beschreibt den Dienst und seine Pipelines im Detail.")


class StubLLM(ThreadingHTTPServer):
    """Ollama's streaming /api/chat: the first token after ``ttft`` s, then ``rate`` tokens per second."""

    daemon_threads = True
    request_queue_size = 1024

    def handle_error(self, request, client_address) -> None:
        pass  # a client that closed early (the TTFT probe) is expected

    def __init__(self, ttft: float, rate: float, tokens: int = 60) -> None:
        super().__init__(("127.0.0.1", 0), _StubHandler)
        self.ttft, self.rate, self.tokens = ttft, rate, tokens

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _StubHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        server: StubLLM = self.server  # type: ignore[assignment]
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        time.sleep(server.ttft)
        try:
            for i in range(server.tokens + 1):
                done = i == server.tokens
                line = {"model": "stub", "message": {"role": "assistant", "content": "" if done else "Wort [1] "},
                        "done": done}
                data = (json.dumps(line) + "\n").encode()
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()
                if not done:
                    time.sleep(1.0 / server.rate)
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass


def _events(response: requests.Response, started: float) -> dict[str, float]:
    """Read a text/event-stream body as it arrives; return the seconds to each event's first occurrence."""
    seen: dict[str, float] = {}
    buffer = b""
    while True:
        data = response.raw.read1(65536)
        if not data:
            return seen
        buffer += data
        for name in re.findall(rb"^event: (\w+)$", buffer, re.M):
            seen.setdefault(name.decode(), time.perf_counter() - started)
        buffer = buffer[buffer.rfind(b"\n") + 1:]
        if "done" in seen or "error" in seen:
            return seen


def stub_ttft(stub: StubLLM) -> float:
    """Return the stub's own time to its first token, over HTTP, as the app's client sees it."""
    started = time.perf_counter()
    with requests.post(stub.url + "/api/chat", json={"stream": True}, stream=True, timeout=30) as response:
        while b'"content": "Wort' not in response.raw.read1(65536):
            pass
        return time.perf_counter() - started


def login(base: str, username: str, password: str, *, form: str = "/login",
          home: str = "/") -> tuple[requests.Session, str]:
    """Log in through a login form (``/admin/login``, home ``/admin/``: the admin world); return the
    browser session and the CSRF token of its pages."""
    session = requests.Session()
    page = session.get(f"{base}{form}", timeout=30).text
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    session.post(f"{base}{form}", data={"username": username, "password": password, "csrf_token": token},
                 timeout=30)
    csrf = re.search(r'"X-CSRFToken": "([^"]+)"', session.get(f"{base}{home}", timeout=30).text).group(1)
    return session, csrf


class Client:
    """A logged-in browser session and an API key against the running app."""

    def __init__(self, base: str, key: str) -> None:
        self.base, self.key = base, key
        self.session, self.csrf = login(base, "bench", "benchpassword1")

    def dashboard(self, area_id: int) -> dict[str, float]:
        started = time.perf_counter()
        with self.session.post(f"{self.base}/ask/stream", data={"question": QUESTION, "areas": [area_id]},
                               headers={"X-CSRFToken": self.csrf}, stream=True, timeout=60) as response:
            return _events(response, started)

    def api(self) -> dict[str, float]:
        started = time.perf_counter()
        with requests.post(f"{self.base}/api/v1/answer", json={"question": QUESTION, "stream": True},
                           headers={"X-API-Key": self.key}, stream=True, timeout=60) as response:
            return _events(response, started)


def environment(tmp: Path, llm_url: str) -> dict[str, str]:
    """The app's settings: everything in ``tmp``, the fake embedder, Ollama at ``llm_url``."""
    from tests.support.process_env import process_env

    return process_env({**os.environ, "IRISRAG_SECRET_KEY": "bench-secret", "IRISRAG_DATABASE_URL": f"sqlite:///{tmp}/bench.db",
            "IRISRAG_LANCEDB_URI": str(tmp / "lancedb"), "IRISRAG_UPLOAD_ROOT": str(tmp / "staging"),
            "IRISRAG_INSTANCE_PATH": str(tmp), "IRISRAG_EMBEDDER": "fake", "IRISRAG_LLM": "ollama",
            "IRISRAG_OLLAMA_URL": llm_url, "IRISRAG_LANGUAGE": "en", "IRISRAG_LOGIN_RATE_LIMIT": "1000"})


def seed(env: dict[str, str]) -> tuple[int, str]:
    """Create the user, the area, 40 documents and an API key; return (area id, key)."""
    from irisrag import components, config, create_app
    from irisrag.extensions import db
    from irisrag.models import Area, Document, Group
    from irisrag.models.schema import upgrade
    from irisrag.services.admin import admin, api_keys
    from irisrag.vectors.store import ChunkIn

    app = create_app(config.load(env))
    with app.app_context(), db.connection_context():
        upgrade()
        area = admin.create_named(Area, "Betrieb")
        admin.create_named(Group, "ops")
        admin.create_user("bench", "benchpassword1")
        admin.link_user("bench", "ops")
        admin.link_area("Betrieb", "ops")
        comps = components.get()
        for i in range(40):
            doc = Document.create(area=area.id, name=f"otel-{i}.md", directory="bench", status="done", chunk_count=1)
            text = TEXT.format(i=i)
            comps.store.replace_document(doc.id, area.id, [ChunkIn(0, text)], comps.embedder.embed_documents([text]))
        comps.store.refresh_indexes()
        return area.id, api_keys.create_key("bench").plain


def start_app(env: dict[str, str], log_file: Path | None = None) -> tuple[subprocess.Popen, str]:
    """Start the Procfile's web command on a free port; its output goes to ``log_file`` (or nowhere)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    # The Procfile's web command, on a free port; .venv/bin/gunicorn becomes this interpreter's gunicorn.
    args = PROCFILE_WEB.split(":", 1)[1].split()[1:]
    args = [f"127.0.0.1:{port}" if a.startswith("127.0.0.1:") else a for a in args]
    command = [str(Path(sys.executable).with_name("gunicorn")), *args]
    output = open(log_file, "ab") if log_file else subprocess.DEVNULL  # noqa: SIM115 - the child keeps it
    try:
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=output, stderr=output)
    finally:
        if log_file:
            output.close()
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            requests.get(f"{base}/login", timeout=1)
            return proc, base
        except requests.RequestException:
            time.sleep(0.1)
    stop_app(proc)
    raise RuntimeError("gunicorn did not start")


def stop_app(proc: subprocess.Popen) -> None:
    """Stop gunicorn (graceful SIGTERM, SIGKILL after 30 s)."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def _row(name: str, runs: list[dict[str, float]], own: list[float]) -> list[str]:
    first = [r["token"] for r in runs if "token" in r]
    overhead = ms(median(first) - median(own)) if first and own else "–"
    return [name, str(len(runs)), med_p95([r["sources"] for r in runs if "sources" in r]), med_p95(first),
            med_p95(own), overhead, med_p95([r.get("done", float("nan")) for r in runs])]


def concurrent(client_for, area_id: int, streams: int) -> list[dict[str, float]]:
    clients = [client_for() for _ in range(streams)]
    with ThreadPoolExecutor(streams) as pool:
        return list(pool.map(lambda c: c.dashboard(area_id), clients))


def run(quick: bool = False, reps: int | None = None, ttft: float = 0.25, rate: float = 50.0) -> str:
    reps = reps or (5 if quick else 20)
    stub = StubLLM(ttft, rate)
    threading.Thread(target=stub.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory(prefix="irisrag-stream-bench-") as tmp:
        env = environment(Path(tmp), stub.url)
        area_id, key = seed(env)
        proc, base = start_app(env)
        try:
            client = Client(base, key)
            client.dashboard(area_id)  # warm up: components are built on first use
            client.api()
            own, dash, api = [], [], []
            for i in range(reps):
                own.append(stub_ttft(stub))
                dash.append(client.dashboard(area_id))
                api.append(client.api())
                log(f"rep {i + 1}/{reps}: stub {ms(own[-1])} ms, dashboard first token {ms(dash[-1]['token'])} ms")
            levels = [WORKERS * THREADS] if quick else [WORKERS * THREADS, 2 * WORKERS * THREADS]
            crowd = {n: concurrent(lambda: Client(base, key), area_id, n) for n in levels}
        finally:
            proc.terminate()
            proc.wait(30)
    stub.shutdown()
    headers = ["path", "runs", "time to sources", "time to first token (app)", "LLM's own TTFT (stub)",
               "app TTFT − LLM TTFT (median)", "time to done"]
    rows = [_row("dashboard POST /ask/stream", dash, own), _row("API POST /api/v1/answer stream", api, own)]
    rows += [_row(f"{n} concurrent dashboard streams", runs, own) for n, runs in crowd.items()]
    finished = ", ".join(f"{n}: {sum('done' in r for r in runs)}/{n} finished" for n, runs in crowd.items())
    intro = (f"Stub LLM: first token after {ttft * 1000:.0f} ms, then {rate:g} tokens/s, 60 tokens. "
             f"App: gunicorn gthread, {WORKERS} workers x {THREADS} threads. Milliseconds, median / p95, "
             f"measured by the client from sending the request. Concurrent streams: {finished}.")
    report = "\n\n".join([intro, table(headers, rows)])
    write_report("stream", "Streamed answers: time to sources and first token", [machine(), report],
                 {"own": own, "dashboard": dash, "api": api, "concurrent": crowd})
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="5 repetitions, one concurrency level")
    parser.add_argument("--reps", type=int, default=None, help="sequential repetitions (default 20)")
    parser.add_argument("--ttft", type=float, default=0.25, help="the stub LLM's time to first token, seconds")
    parser.add_argument("--rate", type=float, default=50.0, help="the stub LLM's tokens per second")
    args = parser.parse_args(argv)
    print(run(args.quick, args.reps, args.ttft, args.rate), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
