"""Context building with LanceDB on S3 (SeaweedFS, ``tests.support.locals3``) vs a local directory, same run.

The same table is written to both places with the product's write path and upkeep
(``bench.context_bench.write_table``: ``replace_documents`` commits, compaction, full-text index;
the vector index when the size reaches VECTOR_INDEX_MIN_ROWS). Real SciFact chunks with USE
vectors (the quick set, 2,000 chunks) are repeated with noise up to the size, as in the
context benchmark. Readers use the web processes' ``LANCEDB_READ_CONSISTENCY_SECONDS``.

Three readers: the local directory, S3 read directly, and S3 read through the local mirror a
web process keeps (``irisrag.vectors.mirror``: the same S3 table, copied to a local folder and
kept current by a sync thread; the first copy into an empty folder is timed separately).

Measured per reader, interleaved question by question (the order alternates):

* steady state: hybrid ``build_context`` (the app's default mode) with the question's vector
  passed in (the embedding costs the same on both);
* first question of a new web process: a new connection, its first question;
* first question after an import: a writer (another connection, as a worker) replaces one
  document, the reader waits the consistency interval, then asks (it must load the new
  version: manifest and new fragment from the store); the second question after it too.

SeaweedFS runs on this machine, so S3 here costs HTTP and the gateway, not a network's
latency: add your store's round trip (about 10-30 ms a request on AWS S3) times the requests.
"""
from __future__ import annotations

import functools
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from bench import context_bench
from bench.common import load_average, log, machine, median, ms, percentile, table, write_report

AFTER_IMPORT_ROUNDS = 5
NEW_PROCESS_ROUNDS = 3


@functools.cache
def words_of(embedder):
    """The term bridge's word vectors (the app's: Components.word_vectors, USE's)."""
    from irisrag.rag.bridge import WordVectors

    return WordVectors(embedder.embed_documents)


MIRRORS: list = []   # the mirrors' sync threads, stopped at the end


def _stores(uri: str, embedder, options: dict | None, consistency: float | None, mirror: Path | None = None):
    """A store as a worker (consistency None) or a web process reads it; ``mirror``: its local copy's folder."""
    from irisrag.vectors.store import VectorStore

    store = VectorStore(uri, embedder.key, embedder.dim, read_consistency_seconds=consistency, storage_options=options)
    if mirror is not None:
        MIRRORS.append(store.read_from_mirror(mirror))
        MIRRORS[-1].wait_first_sync()   # what the web process's warm-up waits for
    return store


def _ask(store, embedder, settings, question: str, vector: np.ndarray) -> float:
    from irisrag.rag.retrieve import build_context

    started = time.perf_counter()
    build_context(question, context_bench.SELECTED, embedder=embedder, store=store, settings=settings,
                  query_vector=vector, mode="hybrid", words=words_of(embedder))
    return time.perf_counter() - started


def _build(label: str, uri: str, options, embedder, docs, vectors, size: int, min_rows: int) -> dict:
    writer = _stores(uri, embedder, options, None)
    log(f"{label}: writing {size} chunks to {uri}")
    _, _, _, build = context_bench.write_table(writer, docs, vectors, size, keep=False)
    if size >= min_rows:
        context_bench.build_vector_index(writer, build)
    return build


def _after_import(stores: dict, writers: dict, embedder, settings, questions, qvecs, consistency: float) -> dict:
    """Replace one document through the writer, wait the interval, time the reader's next two questions."""
    from irisrag.vectors.store import ChunkIn

    out = {name: {"first": [], "second": [], "commit": []} for name in stores}
    text = "Imported meanwhile: a new document about lipid metabolism and its regulation."
    for r in range(AFTER_IMPORT_ROUNDS):
        for name in (list(stores) if r % 2 == 0 else list(reversed(stores))):
            started = time.perf_counter()
            writers[name].replace_document(10**7 + r, context_bench.SELECTED[0], [ChunkIn(0, text)],
                                           embedder.embed_documents([text]))
            out[name]["commit"].append(time.perf_counter() - started)
            time.sleep(consistency + 0.2)
            q, v = questions[r % len(questions)], qvecs[r % len(qvecs)]
            out[name]["first"].append(_ask(stores[name], embedder, settings, q, v))
            out[name]["second"].append(_ask(stores[name], embedder, settings, q, v))
    return out


def _measure(uris: dict, options: dict, embedder, settings, questions, qvecs, consistency: float,
             mirrors: dict) -> dict:
    stores = {name: _stores(uri, embedder, options[name], consistency, mirrors.get(name)) for name, uri in uris.items()}
    writers = {name: _stores(uri, embedder, options[name], None) for name, uri in uris.items()}
    result = {name: {"steady": [], "new_process": []} for name in uris}
    for name in uris:  # warm this process (tokenizers, code paths) so the first round is not unfair
        _ask(stores[name], embedder, settings, questions[0], qvecs[0])
    for r in range(NEW_PROCESS_ROUNDS):  # a new web process: fresh connection, its first question
        for name in (list(uris) if r % 2 == 0 else list(reversed(uris))):
            fresh = _stores(uris[name], embedder, options[name], consistency, mirrors.get(name))
            result[name]["new_process"].append(_ask(fresh, embedder, settings, questions[r + 1], qvecs[r + 1]))
    for n, (question, vector) in enumerate(zip(questions, qvecs, strict=True)):
        for name in (list(uris) if n % 2 == 0 else list(reversed(uris))):
            seconds = _ask(stores[name], embedder, settings, question, vector)
            if n >= context_bench.WARMUP:
                result[name]["steady"].append(seconds)
    after = _after_import(stores, writers, embedder, settings, questions, qvecs, consistency)
    for name in uris:
        result[name].update(after[name])
    return result


def _row(label: str, values: dict, key: str) -> list[str]:
    local, cells = values["local"][key], []
    for name in ("s3", "mirror"):
        ratio = median(values[name][key]) / median(local) if median(local) else float("nan")
        cells += [ms(median(values[name][key])), f"{ratio:.1f}x", ms(percentile(values[name][key], 95))]
    return [label, ms(median(local)), *cells]


def run(quick: bool, sizes: list[int] | None = None, queries: int | None = None) -> str:
    """Run the S3 column of the context benchmark; return the Markdown report."""
    if not (context_bench.CORPUS_DIR / "corpus.jsonl").is_file():
        return f"## Context building on S3\n\nSkipped: no BEIR corpus at {context_bench.CORPUS_DIR}.\n"
    from irisrag.config import DEFAULTS
    from irisrag.embeddings import UseEmbedder
    from irisrag.rag.retrieve import RetrievalSettings
    from tests.support.locals3 import LocalS3

    sizes = sizes or ([20_000] if quick else [100_000])
    consistency = float(DEFAULTS["LANCEDB_READ_CONSISTENCY_SECONDS"])
    settings = replace(RetrievalSettings.from_config(DEFAULTS), mode="hybrid")
    min_rows = int(DEFAULTS["VECTOR_INDEX_MIN_ROWS"])
    machine_text = machine()
    embedder = UseEmbedder()
    docs, vectors, _ = context_bench.inputs(True, max(sizes), embedder)
    questions = context_bench.load_questions(queries or (20 if quick else 50))
    qvecs = [embedder.embed_query(q) for q in questions]
    tmp = Path(tempfile.mkdtemp(prefix="irisrag-bench-s3-"))
    server = LocalS3(tmp / "seaweedfs").start()
    sections, raw = [], {"sizes": sizes, "consistency_s": consistency, "results": {}, "builds": {}}
    try:
        for size in sizes:
            label = context_bench.size_label(size)
            uris = {"local": str(tmp / f"local-{label}"), "s3": server.uri(f"bench-{label}")}
            options = {"local": None, "s3": server.storage_options()}
            builds = {name: _build(f"{label} {name}", uris[name], options[name], embedder, docs, vectors, size,
                                   min_rows) for name in uris}
            builds["mirror"] = _first_copy(uris["s3"], options["s3"], embedder, tmp / f"mirror-{label}")
            uris["mirror"], options["mirror"] = uris["s3"], options["s3"]   # the same table, read from a local copy
            log(f"{label}: measuring {len(questions) - context_bench.WARMUP} questions on all three")
            values = _measure(uris, options, embedder, settings, questions, qvecs, consistency,
                              {"mirror": tmp / f"mirror-{label}"})
            raw["results"][label], raw["builds"][label] = values, builds
            sections.append(_report(label, size, min_rows, builds, values, consistency))
    finally:
        while MIRRORS:
            MIRRORS.pop().stop()
        server.stop()
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    header = (f"## Context building: LanceDB on S3 (SeaweedFS) vs a local directory\n\n{machine_text}\n\n"
              f"Load average at the end: {load_average()}. Readers use LANCEDB_READ_CONSISTENCY_SECONDS = "
              f"{consistency:g} s; hybrid mode, question vector passed in (the embedding costs the same on both); "
              f"milliseconds.\n")
    report = header + "\n" + "\n\n".join(sections) + "\n"
    write_report("s3", "Context building on S3", [report], raw)
    return report


def _first_copy(uri: str, options: dict, embedder, directory: Path) -> dict:
    """The mirror's first copy of the table into an empty folder (a new web machine)."""
    from irisrag.vectors.mirror import TableMirror
    from irisrag.vectors.objectstore import location
    from irisrag.vectors.tables import table_name

    started = time.perf_counter()
    report = TableMirror(location(uri, options), table_name(embedder.key), directory, 2.0).sync()
    return {"copy_s": time.perf_counter() - started, "files": report.fetched, "mib": report.fetched_bytes / 2**20}


def _report(label: str, size: int, min_rows: int, builds: dict, values: dict, consistency: float) -> str:
    index = "IVF_SQ vector index + full-text index" if size >= min_rows else "full-text index, exact vector search"
    rows = [
        _row("steady state (a question)", values, "steady"),
        _row("first question of a new web process", values, "new_process"),
        _row(f"first question after an import (> {consistency:g} s later)", values, "first"),
        _row("second question after an import", values, "second"),
        _row("the import's commit (one document)", values, "commit"),
    ]
    write = [[name, f"{b['write_s']:.0f} s", f"{b['compact_s']:.0f} s", f"{b['fts_s']:.0f} s",
              f"{b.get('index_s', 0):.0f} s"] for name, b in builds.items() if name != "mirror"]
    copy = builds["mirror"]
    return (f"### {label} chunks ({index})\n\n"
            + table(["", "local median", "S3 median", "S3 / local", "S3 p95", "S3 + local mirror median",
                     "mirror / local", "mirror p95"], rows)
            + "\n\nBuilding the table:\n\n"
            + table(["store", "write", "compact", "full-text index", "vector index"], write)
            + f"\n\nThe mirror's first copy into an empty folder: {copy['copy_s']:.1f} s, {copy['files']} files, "
            f"{copy['mib']:.0f} MiB.")
