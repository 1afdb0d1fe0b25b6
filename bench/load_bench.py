"""Web under load: N users asking at once against the production server, and page latency meanwhile.

``.venv/bin/python -m bench.load_bench [--quick] [--users N] [--seconds S] [--delay D]``

The app runs as in production (``bench.stream_bench.start_app``): gunicorn with the worker
class, workers and threads of the Procfile's ``web`` line, SQLite and LanceDB in a temporary
directory, the fake embedder (retrieval time is the store and the pipeline, not a model).
The language model is a stub on 127.0.0.1 speaking Ollama's non-streaming ``/api/chat`` (the
path ``POST /ask`` takes through ``OllamaLLM.chat``) that answers after a fixed delay
(``--delay``, default 0.5 s) with a marker text. Corpus: 300 synthetic documents of 20 chunks
each (6,000 chunks, 12 topics) in 3 areas, compacted and full-text indexed as the app's upkeep
keeps them; every user may search all three areas and asks in all of them (``hybrid``
retrieval, 256 candidates).

Load: ``--users`` (default 20) accounts, each a logged-in ``requests.Session`` in its own
thread, ask for ``--seconds`` (default 60): ``POST /ask`` as the dashboard's htmx form does
(CSRF header, ``HX-Request``), one of five questions in turn, the whole answer fragment read.
A request is an error if it fails, is not HTTP 200, or its fragment lacks
``data-status="answered"`` or the stub's marker text. Requests/s counts the answers completed
inside the window. Meanwhile a prober thread, every 0.5 s, times the stub directly, the
dashboard (``GET /`` as another user) and, as an admin, the console (``GET /admin/``, users
tab) and its documents tab (``GET /admin/?tab=documents``, all 300 documents).

Baselines, in the same run: before the load and again after it, with nothing else running,
the same probes interleaved with one user asking alone (N samples each: 30, quick 10); the
stub's own delay measured directly (the app cannot answer faster). Reported: requests/s,
p50 / p95 / max latency, errors, p50 minus the stub's delay (the app's overhead), ratios
against the single-user and unloaded figures; the theoretical ceiling
``min(users, workers x threads) / delay`` and the share achieved; the app's CPU seconds per
answer (gunicorn's workers, from ``/proc``) and the machine's CPU use during the load; the
server's own time for ``/ask`` from the app's request log (the rest is waiting for a thread
or the CPU, and the network). ``--quick``: 5 users for 10 s. Prints Markdown tables and
writes ``bench/out/load.md``.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import requests

from bench.common import load_average, log, machine, median, ms, percentile, table, write_report
from bench.stream_bench import THREADS, WORKERS, environment, login, start_app, stop_app

PASSWORD = "loadbenchpassword1"
MARKER = "STUBREPLY"
AREAS = ("Operations", "Development", "Support")
DOCUMENTS = 300
CHUNKS_PER_DOCUMENT = 20
PROBE_PERIOD = 0.5

TOPICS = (
    ("OpenTelemetry Collector", ("collector", "receiver", "exporter", "pipeline", "processor", "otlp")),
    ("PostgreSQL backup", ("postgresql", "pg_dump", "restore", "backup", "replica", "archive")),
    ("nginx reverse proxy", ("nginx", "upstream", "certificate", "tls", "proxy", "location")),
    ("Kubernetes deployment", ("kubernetes", "helm", "namespace", "rollout", "deployment", "pod")),
    ("Prometheus alerting", ("prometheus", "alertmanager", "alert", "rule", "scrape", "threshold")),
    ("LDAP login", ("ldap", "directory", "bind", "login", "account", "group")),
    ("Postfix mail relay", ("postfix", "relay", "smtp", "queue", "mailbox", "spam")),
    ("WireGuard VPN", ("wireguard", "tunnel", "peer", "handshake", "vpn", "keypair")),
    ("GitLab CI", ("gitlab", "runner", "job", "artifact", "stage", "cache")),
    ("DNS zones", ("bind9", "zone", "record", "resolver", "dnssec", "serial")),
    ("Ceph storage", ("ceph", "osd", "placement", "pool", "monitor", "rebalance")),
    ("Redis cache", ("redis", "eviction", "persistence", "sentinel", "keyspace", "memory")),
)
SENTENCES = (
    "The {t} section {d}.{c} explains how the {a} and the {b} work together in the {e} setup.",
    "Before changing the {a}, check the {b} settings and note the current {e} values in ticket {d}.",
    "In step {c} the {a} is restarted; the {b} keeps running and the {e} is verified afterwards.",
    "Common problems with the {a}: a wrong {b}, a missing {e}, or an outdated configuration file.",
    "The runbook {d} lists every {a} option; the {b} defaults are safe for most {e} installations.",
    "Monitoring covers the {a} latency, the {b} error rate and the {e} capacity of each host.",
    "Ask the platform team before you change the {a} of a production {b}; document the {e} change.",
)
QUESTIONS = (
    "How is the OpenTelemetry collector pipeline configured with receivers and exporters?",
    "How do I restore a PostgreSQL backup made with pg_dump from the archive?",
    "How does the nginx reverse proxy load the TLS certificate for an upstream?",
    "How is a Kubernetes deployment rolled out with helm in a namespace?",
    "Which Prometheus alert rule thresholds does the alertmanager use?",
)


# --- the stub language model --------------------------------------------------------

class ChatStub(ThreadingHTTPServer):
    """Ollama's non-streaming /api/chat: one JSON reply after ``delay`` seconds."""

    daemon_threads = True
    request_queue_size = 1024

    def __init__(self, delay: float) -> None:
        super().__init__(("127.0.0.1", 0), _ChatHandler)
        self.delay = delay
        self.calls = 0
        self._lock = threading.Lock()

    def handle_error(self, request, client_address) -> None:
        pass  # a client that gave up is the client's problem, counted there

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def count(self) -> int:
        with self._lock:
            self.calls += 1
            return self.calls


class _ChatHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        server: ChatStub = self.server  # type: ignore[assignment]
        time.sleep(server.delay)
        reply = {"model": "stub", "created_at": "2026-01-01T00:00:00Z", "done": True,
                 "message": {"role": "assistant",
                             "content": f"{MARKER} {server.count()}: the passage describes the configuration [1]."}}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


# --- data ------------------------------------------------------------------------

def _chunk_text(rng: random.Random, topic: int, doc: int, index: int) -> str:
    title, terms = TOPICS[topic]
    parts = []
    while sum(len(p) + 1 for p in parts) < 650:
        a, b, e = rng.sample(terms, 3)
        parts.append(rng.choice(SENTENCES).format(t=title, a=a, b=b, e=e, d=doc, c=index))
    return " ".join(parts)


def seed(env: dict[str, str], users: int) -> dict:
    """Create areas, a group, the users, the viewer and the admin, and the corpus; return what was made."""
    from irisrag import components, config, create_app
    from irisrag.extensions import db
    from irisrag.models import Area, Document, Group
    from irisrag.models.schema import upgrade
    from irisrag.services.admin import admin
    from irisrag.vectors.store import ChunkIn

    started = time.perf_counter()
    rng = random.Random(7)
    app = create_app(config.load(env))
    with app.app_context(), db.connection_context():
        upgrade()
        areas = [admin.create_named(Area, name) for name in AREAS]
        admin.create_named(Group, "staff")
        for area in AREAS:
            admin.link_area(area, "staff")
        for name in [f"load{i:02d}" for i in range(users)] + ["loadviewer"]:
            admin.create_user(name, PASSWORD)
            admin.link_user(name, "staff")
        admin.create_user("loadadmin", PASSWORD, is_admin=True)
        comps = components.get()
        batch, rows = [], 0
        for d in range(DOCUMENTS):
            topic, area = d % len(TOPICS), areas[d % len(areas)]
            texts = [_chunk_text(rng, topic, d, i) for i in range(CHUNKS_PER_DOCUMENT)]
            with db.atomic():
                doc = Document.create(area=area.id, name=f"{TOPICS[topic][0].lower().replace(' ', '-')}-{d}.md",
                                      directory="bench", status="done", chunk_count=len(texts),
                                      embedder_key=comps.embedder.key)
            batch.append((doc.id, area.id, [ChunkIn(i, t) for i, t in enumerate(texts)],
                          comps.embedder.embed_documents(texts)))
            rows += len(texts)
            if len(batch) >= 50:
                comps.store.replace_documents(batch)
                batch = []
        if batch:
            comps.store.replace_documents(batch)
        maintained = comps.store.maintain()
        return {"area_ids": [a.id for a in areas], "chunks": rows, "documents": DOCUMENTS,
                "seconds": time.perf_counter() - started, "maintain": str(maintained)}


# --- requests --------------------------------------------------------------------

@dataclass
class User:
    base: str
    session: requests.Session
    csrf: str


@dataclass
class Sample:
    started: float  # seconds since the phase began
    seconds: float
    error: str | None = None
    detail: str = ""


def ask(user: User, question: str, area_ids: list[int]) -> Sample:
    """POST /ask as the dashboard's htmx form does; an error unless HTTP 200 with the stub's answer in it."""
    started = time.perf_counter()
    try:
        response = user.session.post(f"{user.base}/ask", timeout=120,
                                     data={"question": question, "areas": area_ids, "show_sources": "on"},
                                     headers={"X-CSRFToken": user.csrf, "HX-Request": "true"})
        body = response.text
    except requests.RequestException as exc:
        return Sample(started, time.perf_counter() - started, type(exc).__name__, str(exc)[:300])
    elapsed = time.perf_counter() - started
    if response.status_code != 200:
        return Sample(started, elapsed, f"HTTP {response.status_code}", _snippet(body))
    if 'data-status="answered"' not in body or MARKER not in body:
        status = re.search(r'data-status="(\w+)"', body)
        return Sample(started, elapsed, f"no answer (status {status.group(1) if status else '?'})", _snippet(body))
    return Sample(started, elapsed)


def get_page(user: User, path: str) -> Sample:
    """GET a page; an error unless HTTP 200 and still logged in."""
    started = time.perf_counter()
    try:
        response = user.session.get(f"{user.base}{path}", timeout=120)
    except requests.RequestException as exc:
        return Sample(started, time.perf_counter() - started, type(exc).__name__, str(exc)[:300])
    elapsed = time.perf_counter() - started
    if response.status_code != 200 or "/login" in response.url:
        return Sample(started, elapsed, f"HTTP {response.status_code} {response.url}", _snippet(response.text))
    return Sample(started, elapsed)


def stub_direct(stub: ChatStub, session: requests.Session) -> Sample:
    """The stub's own answer time, over HTTP like the app's client."""
    started = time.perf_counter()
    try:
        response = session.post(stub.url + "/api/chat", json={"stream": False, "messages": []}, timeout=60)
        response.raise_for_status()
        response.json()
    except (requests.RequestException, ValueError) as exc:
        return Sample(started, time.perf_counter() - started, type(exc).__name__, str(exc)[:300])
    return Sample(started, time.perf_counter() - started)


def _snippet(body: str) -> str:
    errors = re.findall(r'class="error"[^>]*>([^<]{0,200})', body)
    text = errors[0] if errors else re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body))
    return text.strip()[:200]


# --- measurement -----------------------------------------------------------------

PAGES = (("dashboard `GET /` (user)", "viewer", "/"),
         ("admin console `GET /admin/` (users tab)", "admin", "/admin/"),
         ("admin documents tab `GET /admin/?tab=documents` (300 rows)", "admin", "/admin/?tab=documents"))
STUB = "LLM stub alone `POST /api/chat` (baseline)"


@dataclass
class Phase:
    """The samples of one phase: probes by name, asks, CPU and log figures."""

    probes: dict[str, list[Sample]] = field(default_factory=dict)
    asks: list[Sample] = field(default_factory=list)
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    def add(self, name: str, sample: Sample) -> None:
        self.probes.setdefault(name, []).append(sample)


def _probe_round(phase: Phase, stub: ChatStub, stub_session: requests.Session, viewer: User, admin: User) -> None:
    phase.add(STUB, stub_direct(stub, stub_session))
    for name, who, path in PAGES:
        phase.add(name, get_page(viewer if who == "viewer" else admin, path))


def unloaded(reps: int, stub: ChatStub, asker: User, viewer: User, admin: User, area_ids: list[int]) -> Phase:
    """Nothing else running: per repetition the stub alone, one ask, then each page."""
    phase, session = Phase(), requests.Session()
    started = time.perf_counter()
    for i in range(reps):
        _probe_round(phase, stub, session, viewer, admin)
        phase.asks.append(ask(asker, QUESTIONS[i % len(QUESTIONS)], area_ids))
    phase.seconds = time.perf_counter() - started
    return phase


def _gunicorn_cpu(master: int) -> float:
    """CPU seconds (user + system) of the gunicorn master and its workers, from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(entry) == master or int(fields[1]) == master:  # fields[1]: the parent's pid
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def _machine_cpu() -> tuple[float, float]:
    """(busy, total) jiffies of all CPUs from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def loaded(users: list[User], seconds: float, delay: float, stub: ChatStub, viewer: User, admin: User,
           area_ids: list[int], master: int) -> Phase:
    """Every user asks in its own thread for ``seconds``; the prober times the pages meanwhile."""
    phase, stop = Phase(), threading.Event()
    results: list[list[Sample]] = [[] for _ in users]

    def asking(index: int) -> None:
        stop.wait(index * delay / len(users))  # staggered, not in lockstep
        turn = index
        while not stop.is_set() and time.perf_counter() < until:
            sample = ask(users[index], QUESTIONS[turn % len(QUESTIONS)], area_ids)
            sample.started -= t0
            results[index].append(sample)
            turn += 1

    def probing() -> None:
        session = requests.Session()
        while not stop.is_set() and time.perf_counter() < until:
            tick = time.perf_counter()
            _probe_round(phase, stub, session, viewer, admin)
            stop.wait(max(0.0, PROBE_PERIOD - (time.perf_counter() - tick)))

    cpu_app, cpu_own, (busy, total) = _gunicorn_cpu(master), _own_cpu(), _machine_cpu()
    load_before = load_average()
    t0 = time.perf_counter()
    until = t0 + seconds
    threads = [threading.Thread(target=asking, args=(i,), daemon=True) for i in range(len(users))]
    threads.append(threading.Thread(target=probing, daemon=True))
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            while thread.is_alive():
                thread.join(0.5)
    finally:
        stop.set()
    phase.seconds = time.perf_counter() - t0
    busy2, total2 = _machine_cpu()
    phase.asks = sorted((s for r in results for s in r), key=lambda s: s.started)
    phase.extra = {"app_cpu": _gunicorn_cpu(master) - cpu_app, "own_cpu": _own_cpu() - cpu_own,
                   "machine_busy": (busy2 - busy) / max(1, total2 - total), "window": seconds,
                   "in_window": sum(1 for s in phase.asks if s.started + s.seconds <= seconds and not s.error),
                   "load_before": load_before, "load_after": load_average()}
    return phase


def server_times(log_text: str, path: str) -> list[float]:
    """The app's own milliseconds for ``path`` from its request log lines, as seconds."""
    pattern = re.compile(rf"method=\w+ path={re.escape(path)} status=\d+ ms=([\d.]+)")
    return [float(m) / 1000 for m in pattern.findall(log_text)]


def log_problems(log_text: str) -> Counter:
    """Count the lines of gunicorn's and the app's log that point at a problem."""
    kinds = {"Traceback": "Traceback", "WORKER TIMEOUT": "WORKER TIMEOUT", "database is locked": "database is locked",
             " ERROR ": "ERROR lines", " WARNING ": "WARNING lines", "status=5": "HTTP 5xx in request log",
             "Connection pool is full": "urllib3 pool full"}
    found = Counter()
    for line in log_text.splitlines():
        for needle, label in kinds.items():
            if needle in line:
                found[label] += 1
    return found


# --- report ----------------------------------------------------------------------

def _ok(samples: list[Sample]) -> list[float]:
    return [s.seconds for s in samples if not s.error]


def _ratio(value: float, base: float) -> str:
    return f"{value / base:.2f}×" if base and base == base and value == value else "–"


def _ask_row(name: str, samples: list[Sample], rate: float, stub_delay: float, single_p50: float) -> list[str]:
    good = _ok(samples)
    p50 = median(good)
    return [name, str(len(samples)), str(len(samples) - len(good)), f"{rate:.1f}", ms(p50), ms(percentile(good, 95)),
            ms(max(good) if good else float("nan")), ms(p50 - stub_delay), _ratio(p50, single_p50)]


def _p(values: list[float]) -> str:
    return f"{ms(median(values))} / {ms(percentile(values, 95))}"


def _rate_single(phase: Phase) -> float:
    good = _ok(phase.asks)
    return len(good) / sum(good) if good else float("nan")


def _intro(meta: dict, load: Phase) -> str:
    delay, users, window = meta["delay"], meta["users"], load.extra["window"]
    return (
        f"App: gunicorn gthread as in the Procfile, {WORKERS} workers × {THREADS} threads, SQLite + LanceDB, fake "
        f"embedder, `hybrid` retrieval over {meta['chunks']:,} chunks ({meta['documents']} documents, 12 topics) in "
        f"{len(AREAS)} areas, every question searching all three. LLM stub: non-streaming Ollama `/api/chat`, "
        f"answers after {delay * 1000:.0f} ms. Load: {users} users, each a logged-in session in its own thread, "
        f"asking back to back (`POST /ask`, htmx fragment, 5 questions in turn) for {window:g} s; "
        f"meanwhile a prober every {PROBE_PERIOD:g} s times the stub alone, the dashboard and two admin pages. "
        f"Baselines from the same run: {meta['reps']} interleaved samples each with nothing else running, before "
        f"and after the load. Setup (seeding) took {meta['seed_seconds']:.1f} s. Load average (1/5/15 min): "
        f"{meta['load_start']} at the start, {load.extra['load_before']} when the load began, "
        f"{load.extra['load_after']} when it ended, {meta['load_end']} at the end.")


def _ask_table(meta: dict, before: Phase, load: Phase, after: Phase) -> str:
    users, window = meta["users"], load.extra["window"]
    single = median(_ok(before.asks))
    headers = ["phase", "requests", "errors", "answers/s", "p50 ms", "p95 ms", "max ms",
               "p50 − stub delay (app overhead) ms", "p50 × single user (before)"]
    rows = [
        _ask_row("single user, no load (before; baseline)", before.asks, _rate_single(before),
                 median(_ok(before.probes[STUB])), single),
        _ask_row(f"**{users} users, {window:g} s**", load.asks, load.extra["in_window"] / window,
                 median(_ok(load.probes[STUB])), single),
        _ask_row("single user, no load (after)", after.asks, _rate_single(after), median(_ok(after.probes[STUB])),
                 single),
    ]
    return table(headers, rows)


def _ceiling_table(meta: dict, before: Phase, load: Phase) -> str:
    delay, users = meta["delay"], meta["users"]
    single = median(_ok(before.asks))
    rate = load.extra["in_window"] / load.extra["window"]
    ceiling = min(users, WORKERS * THREADS) / delay
    latency_bound = users / single if single == single else float("nan")
    cores = os.cpu_count() or 1
    answered = max(1, len(_ok(load.asks)))
    cpu_per, own_per = load.extra["app_cpu"] / answered, load.extra["own_cpu"] / answered
    cpu_rows = [
        ["theoretical: min(users, workers × threads) / stub delay",
         f"min({users}, {WORKERS} × {THREADS}) / {delay:g} s = {ceiling:.1f}", f"{rate:.1f}", f"{rate / ceiling:.0%}"],
        ["at the unloaded latency: users / single-user p50", f"{users} / {ms(single)} ms = {latency_bound:.1f}",
         f"{rate:.1f}", f"{rate / latency_bound:.0%}"],
        [f"CPU: {cores} cores / (app + load generator CPU per answer)",
         f"{cores} / ({ms(cpu_per)} + {ms(own_per)} ms) = {cores / (cpu_per + own_per):.1f}", f"{rate:.1f}",
         f"{rate / (cores / (cpu_per + own_per)):.0%}"],
    ]
    return table(["ceiling", "answers/s", "achieved answers/s", "share"], cpu_rows)


def _cpu_note(load: Phase) -> str:
    app_cpu, answered = load.extra["app_cpu"], max(1, len(_ok(load.asks)))
    cores = os.cpu_count() or 1
    return (f"During the load gunicorn's processes used {app_cpu:.1f} CPU-s ({ms(app_cpu / answered)} ms per answer, "
            f"the prober's page requests included), this process (users, stub, prober) {load.extra['own_cpu']:.1f} "
            f"CPU-s ({ms(load.extra['own_cpu'] / answered)} ms per answer); the whole machine was "
            f"{load.extra['machine_busy']:.0%} busy ({cores} cores; other jobs included).")


def _server_table(meta: dict, before: Phase, load: Phase) -> str:
    server_load, server_single = meta["server_ask_load"], meta["server_ask_before"]
    server_rows = [
        ["single user, no load (before)", str(len(server_single)), _p(server_single), _p(_ok(before.asks)),
         ms(median(_ok(before.asks)) - median(server_single))],
        [f"{meta['users']} users", str(len(server_load)), _p(server_load), _p(_ok(load.asks)),
         ms(median(_ok(load.asks)) - median(server_load))],
    ]
    return table(["phase", "requests logged", "server time p50 / p95 ms (app's request log)",
                  "client time p50 / p95 ms", "client − server p50 ms (waiting for a thread / CPU, network)"],
                 server_rows)


def _page_table(before: Phase, load: Phase, after: Phase) -> str:
    page_rows = []
    for name in [STUB] + [p[0] for p in PAGES]:
        b, under, a = _ok(before.probes[name]), _ok(load.probes.get(name, [])), _ok(after.probes[name])
        errors = sum(1 for p in (before, load, after) for s in p.probes.get(name, []) if s.error)
        page_rows.append([name, _p(b), f"{_p(under)} (n={len(under)})", _p(a),
                          _ratio(median(under), median(b)), _ratio(percentile(under, 95), percentile(b, 95)),
                          str(errors)])
    return table(["probe", "no load, before: p50 / p95 ms", "under load: p50 / p95 ms",
                  "no load, after: p50 / p95 ms", "p50 × before", "p95 × before", "errors"], page_rows)


def _error_sections(phases: tuple[Phase, ...]) -> list[str]:
    failures = Counter(s.error for p in phases for s in p.asks if s.error)
    failures.update(s.error for p in phases for v in p.probes.values() for s in v if s.error)
    examples = {}
    for p in phases:
        for s in p.asks + [s for v in p.probes.values() for s in v]:
            if s.error and s.error not in examples:
                examples[s.error] = s.detail
    if not failures:
        return []
    return ["### Errors", table(["error", "count", "first example"],
                                [[k, str(v), examples[k].replace("|", "/")] for k, v in failures.items()])]


def render(meta: dict, before: Phase, load: Phase, after: Phase) -> str:
    ask_note = ("Answers/s: for the load, answers completed inside the window / window; for a single user, "
                "1 / mean latency. `p50 − stub delay` subtracts the stub's own median measured in the same phase "
                "(table below).")
    sections = [_intro(meta, load), "### Asking (`POST /ask`)", _ask_table(meta, before, load, after), ask_note,
                "### Ceilings", _ceiling_table(meta, before, load), _cpu_note(load),
                "### Where the time goes: server vs client", _server_table(meta, before, load),
                "### Pages under the same load", _page_table(before, load, after)]
    sections += _error_sections((before, load, after))
    problems = meta["log_problems"]
    sections.append("Gunicorn / app log: " + (", ".join(f"{k}: {v}" for k, v in problems.items())
                                               if problems else "no Traceback, ERROR, WORKER TIMEOUT, "
                                               "'database is locked' or 5xx lines."))
    return "\n\n".join(sections)


# --- run -------------------------------------------------------------------------

def _clients(base: str, users: int) -> tuple[list[User], User, User]:
    def user(name: str, **where: str) -> User:
        return User(base, *login(base, name, PASSWORD, **where))

    clients = [user(f"load{i:02d}") for i in range(users)]
    return clients, user("loadviewer"), user("loadadmin", form="/admin/login", home="/admin/")


def _warm_up(clients: list[User], stub: ChatStub, viewer: User, admin: User, area_ids: list[int]) -> None:
    log("warming up both workers")
    for _ in range(2):  # components are built per worker process on first use
        threads = [threading.Thread(target=ask, args=(c, QUESTIONS[0], area_ids)) for c in clients]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        _probe_round(Phase(), stub, requests.Session(), viewer, admin)


def _phases(meta: dict, seconds: float, app: tuple, app_log: Path, area_ids: list[int]) -> tuple[Phase, ...]:
    """Baseline before, the load, baseline after; server-side ask times of the first two go into ``meta``."""
    (stub, proc, base), users, reps = app, meta["users"], meta["reps"]
    clients, viewer, admin = _clients(base, users)
    _warm_up(clients, stub, viewer, admin, area_ids)
    log(f"baseline before: {reps} samples each")
    mark = app_log.stat().st_size
    before = unloaded(reps, stub, clients[0], viewer, admin, area_ids)
    meta["server_ask_before"] = server_times(_read_from(app_log, mark), "/ask")
    log(f"load: {users} users for {seconds:g} s")
    mark = app_log.stat().st_size
    load = loaded(clients, seconds, meta["delay"], stub, viewer, admin, area_ids, proc.pid)
    meta["server_ask_load"] = server_times(_read_from(app_log, mark), "/ask")
    log(f"load done: {len(load.asks)} asks, {sum(1 for s in load.asks if s.error)} errors")
    log(f"baseline after: {reps} samples each")
    return before, load, unloaded(reps, stub, clients[0], viewer, admin, area_ids)


def _check_log(meta: dict, app_log: Path) -> None:
    meta["log_problems"] = log_problems(app_log.read_text(errors="replace"))
    if meta["log_problems"]:
        kept = Path(tempfile.gettempdir()) / "irisrag-load-bench-gunicorn.log"
        shutil.copyfile(app_log, kept)
        log(f"log problems {dict(meta['log_problems'])}; gunicorn log kept in {kept}")


def _measure(meta: dict, seconds: float, stub: ChatStub, tmp: Path) -> tuple[Phase, ...]:
    """Seed an instance, start gunicorn, run the phases, stop it and read its log."""
    env = environment(tmp, stub.url)
    log(f"seeding {DOCUMENTS} documents × {CHUNKS_PER_DOCUMENT} chunks, {meta['users']} users")
    made = seed(env, meta["users"])
    meta.update(chunks=made["chunks"], documents=made["documents"], seed_seconds=made["seconds"])
    log(f"seeded in {made['seconds']:.1f} s; starting gunicorn")
    app_log = tmp / "gunicorn.log"
    proc, base = start_app(env, app_log)
    try:
        phases = _phases(meta, seconds, (stub, proc, base), app_log, made["area_ids"])
        stop_app(proc)
        _check_log(meta, app_log)
    finally:
        stop_app(proc)
    return phases


def _raw(meta: dict, phases: tuple[Phase, ...]) -> dict:
    return {"meta": {k: v for k, v in meta.items() if not k.startswith("server_")},
            "server_ask_before": meta["server_ask_before"], "server_ask_load": meta["server_ask_load"],
            "phases": {name: {"asks": [vars(s) for s in p.asks], "seconds": p.seconds, "extra": p.extra,
                              "probes": {k: [vars(s) for s in v] for k, v in p.probes.items()}}
                       for name, p in zip(("before", "load", "after"), phases, strict=True)}}


def run(quick: bool = False, users: int | None = None, seconds: float | None = None,
        delay: float | None = None) -> str:
    meta = {"users": users or (5 if quick else 20), "delay": 0.5 if delay is None else delay,
            "reps": 10 if quick else 30, "load_start": load_average()}
    seconds = seconds or (10.0 if quick else 60.0)
    stub = ChatStub(meta["delay"])
    threading.Thread(target=stub.serve_forever, daemon=True).start()
    tmp = Path(tempfile.mkdtemp(prefix="irisrag-load-bench-"))
    try:
        phases = _measure(meta, seconds, stub, tmp)
    finally:
        stub.shutdown()
        stub.server_close()
        shutil.rmtree(tmp, ignore_errors=True)
    meta["load_end"] = load_average()
    report = render(meta, *phases)
    write_report("load", "Web under load: concurrent users asking, page latency meanwhile", [machine(), report],
                 _raw(meta, phases))
    return report


def _read_from(path: Path, offset: int) -> str:
    with open(path, "rb") as handle:
        handle.seek(offset)
        return handle.read().decode("utf-8", "replace")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="5 users for 10 s, 10 baseline samples")
    parser.add_argument("--users", type=int, default=None, help="concurrent users (default 20; quick 5)")
    parser.add_argument("--seconds", type=float, default=None, help="length of the load (default 60; quick 10)")
    parser.add_argument("--delay", type=float, default=None, help="the stub LLM's answer delay, seconds (default 0.5)")
    args = parser.parse_args(argv)
    print(run(args.quick, args.users, args.seconds, args.delay), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
