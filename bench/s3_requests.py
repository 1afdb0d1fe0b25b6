"""Count what LanceDB asks of an S3 store: a counting HTTP proxy on 127.0.0.1 in front of SeaweedFS.

LanceDB's object store is pointed at the proxy (``aws_endpoint``); every request is forwarded
unchanged (the ``Host`` header too, so the SigV4 signature stays valid) and recorded as
``(method, kind, key)`` where kind is what the request does: ``GET`` (a whole object), ``GET
range`` (a byte range), ``HEAD``, ``LIST``, ``PUT``, ``DELETE``, ``POST``. ``take`` returns and
clears what was recorded, so a benchmark counts the requests of one question.
"""
from __future__ import annotations

import http.client
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

HOP_HEADERS = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection"}


def kind_of(method: str, path: str, headers) -> str:
    """Name what an S3 request does (LIST is a GET with ``list-type`` or on the bucket)."""
    query = parse_qs(urlsplit(path).query)
    if method == "GET" and ("list-type" in query or "prefix" in query):
        return "LIST"
    if method == "GET" and headers.get("Range"):
        return "GET range"
    return method


def key_of(path: str) -> str:
    """The object's key below the table folder (``_versions/…``, ``data/…``, ``_indices/…``), or the prefix listed."""
    parts = urlsplit(path)
    query = parse_qs(parts.query)
    key = query["prefix"][0] if "prefix" in query else parts.path
    for marker in ("_versions", "_indices", "data/", "_transactions", "_deletions"):
        at = key.find(marker)
        if at >= 0:
            return key[at:]
    return key


class CountingProxy:
    """A forwarding proxy that records every request; ``endpoint`` is its URL."""

    def __init__(self, upstream: str) -> None:
        target = urlsplit(upstream)
        self.upstream = (target.hostname, target.port)
        self.lock = threading.Lock()
        self.requests: list[tuple[str, str, str]] = []
        self.ranges: list[tuple[str, str]] = []   # (key, Range header) of each ranged GET, for exact repeats
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> CountingProxy:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def take(self) -> list[tuple[str, str, str]]:
        """Return the requests recorded since the last call and forget them."""
        with self.lock:
            taken, self.requests = self.requests, []
        return taken

    def take_ranges(self) -> list[tuple[str, str]]:
        """Return the (key, range) pairs of the ranged GETs since the last call and forget them."""
        with self.lock:
            taken, self.ranges = self.ranges, []
        return taken

    def record(self, method: str, path: str, headers) -> None:
        with self.lock:
            self.requests.append((method, kind_of(method, path, headers), key_of(path)))
            if headers.get("Range"):
                self.ranges.append((key_of(path), headers.get("Range")))

    def _handler(self):
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet
                pass

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                proxy.record(self.command, self.path, self.headers)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_HEADERS}
                upstream = http.client.HTTPConnection(*proxy.upstream, timeout=60)
                try:
                    upstream.request(self.command, self.path, body=body, headers=headers)
                    response = upstream.getresponse()
                    data = response.read()
                    self.send_response_only(response.status, response.reason)
                    head = self.command == "HEAD"   # its Content-Length is the object's size: kept
                    for name, value in response.getheaders():
                        if name.lower() not in HOP_HEADERS and (head or name.lower() != "content-length"):
                            self.send_header(name, value)
                    if not head:
                        self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    if self.command != "HEAD":
                        self.wfile.write(data)
                finally:
                    upstream.close()

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _forward

        return Handler


def summary(requests: list[tuple[str, str, str]]) -> Counter:
    """Count requests by kind."""
    return Counter(kind for _method, kind, _key in requests)


def repeated(requests_per_question: list[list[tuple[str, str, str]]]) -> Counter:
    """Count (kind, key) pairs that every question sent again: the candidates for a per-process cache."""
    seen = [Counter((kind, key) for _m, kind, key in one) for one in requests_per_question]
    if not seen:
        return Counter()
    common = set(seen[0])
    for one in seen[1:]:
        common &= set(one)
    return Counter({pair: min(one[pair] for one in seen) for pair in common})


# --- the benchmark: requests and latency per question, S3 vs local ----------------------------

PHASES = ("first question of a new process", "steady, back to back", "steady, > interval apart",
          "first after an import", "second after an import")


def _store(uri: str, options, consistency, mirror=None):
    """A store as a worker (consistency None) or a web process reads it; ``mirror``: its local copy's folder."""
    from irisrag.vectors.store import VectorStore

    store = VectorStore(uri, "fake-512", 512, read_consistency_seconds=consistency, storage_options=options)
    if mirror is not None:
        MIRRORS.append(store.read_from_mirror(mirror))
        MIRRORS[-1].wait_first_sync()   # what the web process's warm-up waits for
    return store


MIRRORS: list = []   # the sync threads started, stopped after each phase run


def _stop_mirrors() -> None:
    while MIRRORS:
        MIRRORS.pop().stop()


def _ask(store, question, proxy: CountingProxy | None) -> tuple[float, list]:
    import time
    from dataclasses import replace

    from irisrag.config import DEFAULTS
    from irisrag.embeddings import FakeEmbedder
    from irisrag.rag.retrieve import RetrievalSettings, build_context

    settings = replace(RetrievalSettings.from_config(DEFAULTS), mode="hybrid")
    if proxy:
        proxy.take()
    started = time.perf_counter()
    build_context(question[0], AREAS, embedder=FakeEmbedder(512), store=store, settings=settings,
                  query_vector=question[1], mode="hybrid")
    return time.perf_counter() - started, proxy.take() if proxy else []


AREAS = (1, 2, 3)


def _phases(uri, options, proxy, writer, questions, consistency: float, rounds: int, mirror=None) -> dict:
    """Time (and count, through the proxy) each phase's questions on one backend (``mirror``: read a local copy)."""
    try:
        return _run_phases(uri, options, proxy, writer, questions, consistency, rounds, mirror)
    finally:
        _stop_mirrors()


def _run_phases(uri, options, proxy, writer, questions, consistency: float, rounds: int, mirror) -> dict:
    import time

    from irisrag.vectors.store import ChunkIn

    out = {phase: [] for phase in PHASES}
    for r in range(rounds):   # a new process: a new store (connection, handle, caches; the machine's mirror)
        out[PHASES[0]].append(_ask(_store(uri, options, consistency, mirror), questions[r], proxy))
        _stop_mirrors()
    store = _store(uri, options, consistency, mirror)
    _ask(store, questions[0], proxy)
    for q in questions[1:]:
        out[PHASES[1]].append(_ask(store, q, proxy))
    for q in questions[1:1 + rounds * 3]:
        time.sleep(consistency + 0.1)
        out[PHASES[2]].append(_ask(store, q, proxy))
    for r in range(rounds):
        text = "imported meanwhile " + questions[r][0]
        writer.replace_document(10**7 + r, AREAS[0], [ChunkIn(0, text)], questions[r][1].reshape(1, -1))
        time.sleep(consistency + 0.1)
        out[PHASES[3]].append(_ask(store, questions[r + 1], proxy))
        out[PHASES[4]].append(_ask(store, questions[r + 2], proxy))
    return out


def run(rows: int = 100_000, n_questions: int = 30, rounds: int = 5) -> str:
    """Build the synthetic table locally and on SeaweedFS, then measure both; return the report."""
    import shutil
    import tempfile
    from pathlib import Path

    from bench.common import load_average, log, machine, write_report
    from bench.synthetic import Synthetic, fill
    from irisrag.config import DEFAULTS
    from irisrag.vectors.index import IndexPolicy
    from tests.support.locals3 import LocalS3

    consistency = float(DEFAULTS["LANCEDB_READ_CONSISTENCY_SECONDS"])
    corpus = Synthetic(rows)
    questions = corpus.questions(n_questions + 1)
    tmp = Path(tempfile.mkdtemp(prefix="irisrag-s3-requests-"))
    server = LocalS3(tmp / "seaweedfs").start()
    proxy = CountingProxy(server.endpoint).start()
    try:
        uris = {"local": str(tmp / "local"), "s3": server.uri("requests")}
        options = {"local": None, "s3": server.storage_options()}
        writers = {}
        for name in uris:
            writers[name] = _store(uris[name], options[name], None)
            fill(writers[name], corpus)
            log(f"{name}: {rows} rows; {writers[name].maintain(IndexPolicy()).as_dict()}")
        counted = {**options["s3"], "aws_endpoint": proxy.endpoint}
        # Timed without the proxy (it is Python in this process: it would add its own latency);
        # the same phases are then run once more through it, for the counts.
        args = (questions, consistency, rounds)
        results = {"local": _phases(uris["local"], None, None, writers["local"], *args),
                   "s3": _phases(uris["s3"], options["s3"], None, writers["s3"], *args),
                   "s3_counted": _phases(uris["s3"], counted, proxy, writers["s3"], *args)}
        copy = _cold_copy(uris["s3"], options["s3"], tmp / "mirror")
        results["mirror"] = _phases(uris["s3"], options["s3"], None, writers["s3"], *args, mirror=tmp / "mirror")
        results["mirror_counted"] = _phases(uris["s3"], counted, proxy, writers["s3"], *args, mirror=tmp / "mirror")
    finally:
        proxy.stop()
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    report = render(rows, results, consistency, machine(), load_average(), copy)
    raw = {name: {phase: [[s, [list(x) for x in req]] for s, req in values] for phase, values in phases.items()}
           for name, phases in results.items()}
    write_report("s3_requests", "Requests per question on S3", [report], {"rows": rows, "results": raw, "copy": copy})
    return report


def _cold_copy(uri: str, options, directory) -> dict:
    """The first copy of the table into an empty mirror folder (a new machine): seconds, files, MiB."""
    import time

    from irisrag.vectors.mirror import TableMirror
    from irisrag.vectors.objectstore import location
    from irisrag.vectors.tables import table_name

    started = time.perf_counter()
    report = TableMirror(location(uri, options), table_name("fake-512"), directory, 2.0).sync()
    return {"seconds": round(time.perf_counter() - started, 2), "files": report.fetched,
            "mib": round(report.fetched_bytes / 2**20, 1)}


def _kinds(requests: list) -> tuple[str, str]:
    """Median requests per question in total and by kind."""
    from bench.common import median

    counts = [summary(req) for _, req in requests]
    kinds = sorted({k for c in counts for k in c})
    per_kind = ", ".join(f"{k} {median([c.get(k, 0) for c in counts]):.0f}" for k in kinds) or "–"
    return f"{median([sum(c.values()) for c in counts]):.0f}", per_kind


def render(rows: int, results: dict, consistency: float, machine_text: str, load: str, copy: dict) -> str:
    from bench.common import median, ms, percentile, table

    lines = []
    for phase in PHASES:
        local = [s for s, _ in results["local"][phase]]
        for name, label in (("s3", "S3"), ("mirror", "S3, local mirror")):
            s3 = [s for s, _ in results[name][phase]]
            lines.append([phase, label, str(len(s3)), ms(median(local)), ms(median(s3)),
                          f"{median(s3) / median(local):.1f}×", ms(percentile(s3, 95)),
                          *_kinds(results[f"{name}_counted"][phase])])
    return (f"## Requests per question on S3 (SeaweedFS) vs a local directory, {rows:,} synthetic chunks\n\n"
            f"{machine_text}\n\nLoad average at the end: {load}. Hybrid `build_context`, question vector passed in; "
            f"readers at LANCEDB_READ_CONSISTENCY_SECONDS = {consistency:g} s; the app's indexes (full-text, "
            "IVF_SQ, area BITMAP). \"S3\": reads from the store; \"local mirror\": what a web process does "
            "(`irisrag.vectors.mirror`: a local copy kept current by a sync thread every interval). Times without "
            "the proxy; requests counted in a second pass of the same phases through a proxy between LanceDB and "
            "SeaweedFS (medians per question; the mirror's background LIST and downloads are counted when they "
            f"fall within a question). The first copy into an empty mirror: {copy['seconds']} s, {copy['files']} "
            f"files, {copy['mib']} MiB.\n\n"
            + table(["phase", "reads from", "questions", "local ms", "ms", "× local", "p95 ms", "S3 requests",
                     "by kind"], lines) + "\n")


def breakdown(rows: int = 60_000, n_questions: int = 8) -> str:
    """Requests per query of each leg with fewer columns or without the refine step: where the requests go."""
    import tempfile
    import time
    from pathlib import Path

    import numpy as np
    from lancedb.query import MatchQuery

    from bench.common import log, median, ms, table
    from bench.synthetic import Synthetic, fill
    from irisrag.vectors.index import IndexPolicy
    from tests.support.locals3 import LocalS3

    corpus = Synthetic(rows)
    tmp = Path(tempfile.mkdtemp(prefix="irisrag-s3-breakdown-"))
    server = LocalS3(tmp / "seaweedfs").start()
    proxy = CountingProxy(server.endpoint).start()
    try:
        writer = _store(server.uri("breakdown"), server.storage_options(), None)
        fill(writer, corpus)
        log(f"{rows} rows; {writer.maintain(IndexPolicy()).as_dict()}")
        table_ = _store(server.uri("breakdown"), {**server.storage_options(), "aws_endpoint": proxy.endpoint},
                        None).table()
        where = f"area_id IN ({', '.join(map(str, AREAS))})"
        payload = ["document_id", "area_id", "chunk_index", "page", "text", "search_text"]

        def vector(q, columns, refine):
            query = (table_.search(q[1], vector_column_name="vector").distance_type("cosine")
                     .where(where, prefilter=True).minimum_nprobes(20).maximum_nprobes(0))
            return (query.refine_factor(refine) if refine else query).select(columns).limit(256).to_arrow()

        def fulltext(q, columns):
            return (table_.search(MatchQuery(q[0], "search_text"), query_type="fts").where(where, prefilter=True)
                    .select(columns).limit(256).to_arrow())

        variants = {
            "vector leg as the app asks (payload columns, refine 2)": lambda q: vector(q, [*payload, "_distance"], 2),
            "vector leg, payload columns, no refine": lambda q: vector(q, [*payload, "_distance"], None),
            "vector leg, document id only, refine 2": lambda q: vector(q, ["document_id", "_distance"], 2),
            "vector leg, document id only, no refine": lambda q: vector(q, ["document_id", "_distance"], None),
            "full-text leg as the app asks (payload columns + vector)": lambda q: fulltext(
                q, [*payload, "_score", "vector"]),
            "full-text leg, payload columns": lambda q: fulltext(q, [*payload, "_score"]),
            "full-text leg, document id only": lambda q: fulltext(q, ["document_id", "_score"]),
        }
        questions = corpus.questions(n_questions + 2)
        for q in questions[:2]:
            for run in variants.values():
                run(q)
        lines = []
        for name, run in variants.items():
            counts, seconds = [], []
            for q in questions[2:]:
                proxy.take()
                started = time.perf_counter()
                run(q)
                seconds.append(time.perf_counter() - started)
                counts.append(len(proxy.take()))
            lines.append([name, f"{np.median(counts):.0f}", ms(median(seconds))])
    finally:
        proxy.stop()
        server.stop()
    return (f"### Where a question's S3 requests go ({rows:,} synthetic chunks, {n_questions} questions, "
            "through the counting proxy)\n\n" + table(["query", "requests (median)", "ms (with the proxy)"], lines)
            + "\n")


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="requests per question on S3 vs local")
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--questions", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--breakdown", action="store_true", help="requests per leg and column set instead")
    args = parser.parse_args(argv)
    print(breakdown(args.rows, args.questions) if args.breakdown else run(args.rows, args.questions, args.rounds))
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
