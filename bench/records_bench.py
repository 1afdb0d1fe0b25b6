"""Records (issue 37): a 100,000-row CSV import's peak memory and time; packed vs one record a chunk.

``.venv/bin/python -m bench.records_bench [--rows 100000] [--embedder fake|use] [--baseline DIR]
[--no-memory] [--no-retrieval]``

1. **Memory and time.** A CSV of ``--rows`` rows (an article list: number, name, group, price,
   stock, supplier, note; ~95 bytes a row) and, as the baseline measured in the same run, a
   plain-text file of the same byte size (German sentences, paragraphs of ~600 characters).
   Each is imported by ``irisrag.ingest.pipeline.run_import`` in a fresh Python process
   (LanceDB in a temporary directory, the fake embedder unless ``--embedder use``), the way an
   RQ work horse runs it: peak RSS (``ru_maxrss``, = VmHWM), RssAnon sampled every 20 ms,
   wall time and chunks. ``--embedder use-random`` loads and warms up USE as the worker does
   but embeds with random 512-d vectors: the store part of a USE import, full size, in minutes. A third row reads and chunks the CSV alone (no embedder, no store;
   RssAnon at the end): the record path's own memory. ``--baseline DIR`` runs the CSV once
   more with the code of the checkout ``DIR`` (e.g. main before this change) in the same run.
2. **Retrieval: packed vs one record a chunk.** Three small tables (a CSV price list, a JSON
   staff list, an XML book catalogue; 150 records each) imported into one area, once with
   whole records packed into chunks (``chunk_pages(pack_records=True)``, the default) and
   once with one record a chunk; 30 German questions, each about one record (``Was kostet
   Artikel 4711?``), asked through ``build_context`` with the app's defaults (hybrid
   retrieval, USE embedder). Hit@1: the first context chunk holds the record; MRR over the
   context chunks.

Writes ``bench/out/records.md`` (and a timestamped copy with the raw JSON).
"""
from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.common import ROOT, log, machine, table, write_report

GROUPS = ("Befestigung", "Werkzeug", "Elektro", "Sanitär", "Garten", "Farbe")
NAMES = ("Schraube", "Mutter", "Scheibe", "Dübel", "Nagel", "Winkel", "Haken", "Niete", "Zange", "Kabel")
SENTENCE = ("Die Verwaltung der Pakete übernimmt apt, das Abhängigkeiten selbst auflöst und die Archive "
            "der Spiegelserver nach neuen Versionen durchsucht. ")

_CHILD = r"""
import json, resource, sys, threading, time
from pathlib import Path
args = json.loads(sys.argv[1])
sys.path.insert(0, args["root"])

def anon():
    for line in open("/proc/self/status"):
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) / 1024
    return 0.0

from irisrag.embeddings import FakeEmbedder, UseEmbedder
from irisrag.ingest.pipeline import ImportJob, PipelineSettings, run_import
from irisrag.vectors.store import VectorStore

if args["chunk_only"]:  # extraction and chunking alone: what the record path itself holds
    from irisrag.ingest.chunk import chunk_pages
    from irisrag.ingest.extract import iter_pages
    idle = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    started, count = time.perf_counter(), 0
    for chunk in chunk_pages(iter_pages(Path(args["path"]), args["kind"])):
        count += 1
    print("RESULT " + json.dumps({"seconds": time.perf_counter() - started, "chunks": count, "idle": idle,
                                  "peak_anon": anon(), "maxrss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
    sys.exit(0)
class UseLoadedRandomVectors(UseEmbedder):  # USE loaded (the worker's idle memory), vectors random: fast
    def _embed(self, texts):
        import numpy as np
        vectors = np.random.default_rng(len(texts)).standard_normal((len(texts), self.dim)).astype(np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
embedders = {"use": UseEmbedder, "use-random": UseLoadedRandomVectors, "fake": FakeEmbedder}
embedder = embedders[args["embedder"]]()
UseEmbedder().embed_documents(["warm-up"]) if args["embedder"] == "use-random" else None
embedder.embed_documents(["warm-up"])
store = VectorStore(args["lancedb"], embedder.key, embedder.dim, read_consistency_seconds=0)
idle = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
peak = [anon()]
stop = threading.Event()
def sample():
    while not stop.wait(0.02):
        peak[0] = max(peak[0], anon())
threading.Thread(target=sample, daemon=True).start()
started = time.perf_counter()
result = run_import(ImportJob(1, 1, Path(args["path"]), args["kind"], title=Path(args["path"]).name),
                    embedder=embedder, store=store, settings=PipelineSettings(), progress=lambda *a: None)
seconds = time.perf_counter() - started
stop.set()
print("RESULT " + json.dumps({"seconds": seconds, "chunks": result.chunks, "idle": idle, "peak_anon": peak[0],
                              "maxrss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def write_csv(path: Path, rows: int, seed: int = 1) -> Path:
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as out:
        out.write("Artikel;Bezeichnung;Gruppe;Preis;Lager;Lieferant;Notiz\n")
        for n in range(rows):
            out.write(f"{100000 + n};{rng.choice(NAMES)} M{rng.randint(2, 12)}x{rng.randint(10, 90)};"
                      f"{rng.choice(GROUPS)};{rng.randint(0, 99)},{rng.randint(0, 99):02d} €;{rng.randint(0, 500)};"
                      f"Lieferant {rng.randint(1, 40)};verzinkt, Packung zu {rng.randint(1, 9) * 10}\n")
    return path


def write_text(path: Path, size: int) -> Path:
    paragraph = SENTENCE * 4 + "\n\n"
    with path.open("w", encoding="utf-8") as out:
        written = 0
        while written < size:
            out.write(paragraph)
            written += len(paragraph.encode("utf-8"))
    return path


def import_in_child(path: Path, kind: str, embedder: str, root: Path, workroot: Path,
                    chunk_only: bool = False) -> dict:
    with tempfile.TemporaryDirectory(dir=workroot) as tmp:
        args = {"path": str(path), "kind": kind, "embedder": embedder, "lancedb": str(Path(tmp) / "lance"),
                "root": str(root), "chunk_only": chunk_only}
        proc = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(args)], cwd=root, capture_output=True,
                              text=True, timeout=3600, env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"import failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(lines[-1][len("RESULT "):])


def memory_section(rows: int, embedder: str, baseline: Path | None, workroot: Path) -> tuple[str, dict]:
    csv_path = write_csv(workroot / "artikel.csv", rows)
    size = csv_path.stat().st_size
    text_path = write_text(workroot / "text.txt", size)
    runs = {}
    log(f"memory: plain text of {size} bytes")
    runs["text"] = import_in_child(text_path, "text", embedder, ROOT, workroot)
    log(f"memory: {rows} CSV rows")
    runs["csv"] = import_in_child(csv_path, "csv", embedder, ROOT, workroot)
    log(f"memory: {rows} CSV rows, extraction and chunking alone")
    runs["csv-chunks"] = import_in_child(csv_path, "csv", embedder, ROOT, workroot, chunk_only=True)
    if baseline is not None:
        log(f"memory: {rows} CSV rows with {baseline}")
        runs["csv-baseline"] = import_in_child(csv_path, "csv", embedder, baseline, workroot)
    base = runs["text"]
    labels = {"text": f"plain text, {size / 1e6:.1f} MB (baseline)", "csv": f"CSV, {rows:,} rows, {size / 1e6:.1f} MB",
              "csv-baseline": f"CSV, {rows:,} rows, code of {baseline}",
              "csv-chunks": f"CSV, {rows:,} rows: extraction and chunking alone (no embedder, no store)"}
    body = table(["input", "chunks", "peak RSS MiB", "× text", "peak RssAnon MiB", "idle RSS MiB", "seconds", "× text"],
                 [[labels[k], r["chunks"], f"{r['maxrss']:.0f}", f"{r['maxrss'] / base['maxrss']:.2f}",
                   f"{r['peak_anon']:.0f}", f"{r['idle']:.0f}", f"{r['seconds']:.1f}",
                   f"{r['seconds'] / base['seconds']:.2f}"] for k, r in runs.items()])
    return f"## Import memory and time ({embedder} embedder)\n\n{body}", runs


def retrieval_section(workroot: Path) -> tuple[str, dict]:
    from bench.records_retrieval import compare

    results = compare(workroot)
    body = table(["chunking", "chunks", "hit@1", "MRR", "questions"],
                 [[name, r["chunks"], f"{r['hit1']:.2f}", f"{r['mrr']:.3f}", r["questions"]]
                  for name, r in results.items()])
    return "## Retrieval: whole records packed vs one record a chunk (USE, hybrid)\n\n" + body, results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--embedder", choices=("fake", "use", "use-random"), default="fake",
                        help="use-random: USE loaded and warmed up, but random 512-d vectors (the store part in minutes)")
    parser.add_argument("--baseline", type=Path, default=None, help="a checkout to run the CSV import with too")
    parser.add_argument("--no-memory", action="store_true")
    parser.add_argument("--no-retrieval", action="store_true")
    args = parser.parse_args(argv)
    sections, raw = [machine()], {}
    with tempfile.TemporaryDirectory() as tmp:
        if not args.no_memory:
            section, raw["memory"] = memory_section(args.rows, args.embedder, args.baseline, Path(tmp))
            sections.append(section)
        if not args.no_retrieval:
            section, raw["retrieval"] = retrieval_section(Path(tmp))
            sections.append(section)
    path = write_report("records", "Records: memory, time and retrieval", sections, raw)
    print("\n\n".join(sections[1:]))
    log(f"written {path}")


if __name__ == "__main__":
    main()
