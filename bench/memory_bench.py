"""Memory: peak RSS of a worker importing the 2,415-page R reference manual, and how it grows with pages.

``.venv/bin/python -m bench.memory_bench [--quick] [--embedder use|fake] [--prefixes 250,1000]
[--worker-only] [--baseline DIR] [--render JSON]``

Input: ``fullrefman.pdf`` (the R reference manual, 2,415 pages, written by pdfTeX with its
objects packed into object streams) from Debian's ``r-doc-pdf`` package, fetched with
``apt-get download`` into ``bench/data/`` (gitignored) and unpacked with ``dpkg-deb -x``. To
see how memory grows with pages, the first 250 and 1,000 pages and all 2,415 are written
with pypdf's ``PdfWriter`` (cached in ``bench/data/inputs/``). pypdf cannot write object
streams, so these rewrites hold the same pages and text with every object at the top level
of the file, and that alone changes pypdf's memory a lot: the original file is measured too,
and ``R-exts.pdf`` from the same package (236 pages, same toolchain and structure) as a small
original. ``--quick``: the 250-page prefix only. ``--goal``: only the prefixes and the original
manual (no ``R-exts.pdf``, no whole rewrite). ``--prefixes 500``: other prefixes (the
goal of issue 17 compares the whole manual with a 500-page slice). ``--worker-only``: view 1
only. ``--baseline DIR``: every worker import runs twice in a row, first with ``worker.py`` of
the checkout ``DIR`` (e.g. a worktree of main, to measure the code before a change in the
same run), then with this one; the baseline's rows are labelled ``[baseline]``.

Three views, each input on its own:

1. **Worker**: a real ``worker.py`` started by ``bench.import_bench.start_worker`` (temporary
   instance: SQLite, LanceDB and staging folder; unique RQ queue; Redis db 14 at
   127.0.0.1:6379 or the bundled Valkey; ``IRISRAG_MAINTENANCE_INTERVAL=0``; the USE
   embedder unless ``--embedder fake``), a fresh instance and worker per input so that no
   earlier import's rows are in the table. ``services.documents.import_local_file`` enqueues
   the PDF and RQ forks a work horse for the job. A thread of this process reads
   ``/proc/<pid>/status`` (VmRSS, VmHWM, RssAnon, RssFile) of the worker and all its
   descendants, and ``smaps_rollup`` (private memory) of the children, every 50 ms from just
   before the service call until the Document row is ``done`` and the horse has exited. The
   horse is the child that was not there while the worker was idle (RQ's scheduler is a child
   too). Baseline: the idle worker (model loaded and warmed up, nothing imported). The horse
   is a fork of it: its anonymous memory starts equal to the worker's, its RSS lower (file
   pages are faulted back in on use), so the headline is the horse's peak ``RssAnon`` minus the
   idle worker's; its peak VmRSS / VmHWM and private memory (USS) are reported with it. The
   row's status, polled every 50 ms, tells the stage of each sample. Wall time: from the
   service call until the row is ``done``.
2. **In-process pipeline**: ``irisrag.ingest.pipeline.run_import`` in a fresh Python process
   per input (``ru_maxrss`` = VmHWM of that process at the end; RSS and RssAnon sampled every
   20 ms), with the fake embedder on every input and USE on the smallest (the model's working
   memory is per batch, not per page). LanceDB in a temporary directory; no Redis, no
   database, no index upkeep. Per stage: the stage the pipeline last reported to its progress
   callback, or ``embedder.<method>`` / ``store.<method>`` while it is inside a call to the
   embedder or the vector store (thin proxies around both), so the LanceDB write shows as
   ``store.replace_document`` (a short document's one commit) or ``store.staged.add`` /
   ``store.staged.commit`` (a long one's batches and switch) whatever the pipeline's own stages are.
3. **Extraction alone**: ``irisrag.ingest.extract.iter_pages`` over the file in a fresh
   process, each page counted and dropped: RSS after the first page (opening the PDF) and the
   peak. What the PDF library costs by itself, whatever the pipeline keeps.

The benchmark only calls public paths (the service, the worker, ``run_import``, ``iter_pages``),
so it measures whichever pipeline is in the tree. RSS figures are MiB. The machine may be
shared (load averages are in the tables): memory is what this measures, wall times are only
indicative. Writes ``bench/out/memory.md`` (and a timestamped copy with the raw JSON);
``--render`` re-renders the report from such a JSON.
"""
from __future__ import annotations

import argparse
import json
import logging
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from bench.common import DATA, ROOT, load_average, log, machine, table, write_report
from bench.data import DataUnavailable, pdf_slice
from bench.import_bench import (
    POLL_SECONDS,
    children,
    delete_queue,
    instance_config,
    register_with_retry,
    start_redis,
    start_worker,
    stop_worker,
    tail,
)

PACKAGE = "r-doc-pdf"
MANUALS = DATA / "extract" / "usr" / "share" / "R" / "doc" / "manual"
REFMAN = MANUALS / "fullrefman.pdf"
SMALL_ORIGINAL = MANUALS / "R-exts.pdf"
INPUTS = DATA / "inputs"
EXPECTED_PAGES = 2415
PREFIXES = (250, 1000)
QUICK_PREFIX = 250
SAMPLE_SECONDS = 0.05
CHILD_SAMPLE_SECONDS = 0.02
IMPORT_LIMIT_SECONDS = 3600


# --- data --------------------------------------------------------------------------

@dataclass(frozen=True)
class Input:
    """One PDF to import."""

    label: str
    path: Path
    pages: int
    structure: str
    written_seconds: float | None = None  # time to write it with pypdf this run (None: cached or original)


def _help(reason: str) -> str:
    return (f"The memory benchmark needs the R reference manual (Debian package {PACKAGE}), but {reason}.\n"
            f"Fix: on a Debian/Ubuntu machine with network access run\n"
            f"  cd {DATA} && apt-get download {PACKAGE}\n"
            f"(or copy the .deb file there, or its unpacked usr/share/R/doc/manual/ files to {MANUALS}/), "
            f"then rerun.")


def fetch_refman() -> Path:
    """Download and unpack r-doc-pdf unless already there; return the path of fullrefman.pdf."""
    if REFMAN.is_file():
        return REFMAN
    DATA.mkdir(parents=True, exist_ok=True)
    debs = sorted(DATA.glob(f"{PACKAGE}_*.deb"))
    if not debs:
        if not shutil.which("apt-get"):
            raise DataUnavailable(_help("apt-get is not available on this machine"))
        log(f"downloading {PACKAGE} with apt-get download into {DATA}")
        result = subprocess.run(["apt-get", "download", PACKAGE], cwd=DATA, capture_output=True, text=True)
        if result.returncode != 0:
            raise DataUnavailable(_help(f"`apt-get download {PACKAGE}` failed: "
                                        f"{(result.stderr or result.stdout).strip()[-500:]}"))
        debs = sorted(DATA.glob(f"{PACKAGE}_*.deb"))
        if not debs:
            raise DataUnavailable(_help(f"`apt-get download {PACKAGE}` left no {PACKAGE}_*.deb in {DATA}"))
    if not shutil.which("dpkg-deb"):
        raise DataUnavailable(_help("dpkg-deb is not available to unpack the package"))
    subprocess.run(["dpkg-deb", "-x", str(debs[-1]), str(DATA / "extract")], check=True)
    if not REFMAN.is_file():
        raise DataUnavailable(_help(f"the package did not contain {REFMAN}"))
    return REFMAN


def _page_count(path: Path) -> int:
    from pypdf import PdfReader

    return len(PdfReader(str(path), strict=False).pages)


def _rewrite(source: Path, pages: int, target: Path) -> float | None:
    """Write the first ``pages`` pages with pypdf (cached); return the seconds it took, None if cached."""
    if target.is_file():
        return None
    started = time.perf_counter()
    pdf_slice(source, pages, target)
    return time.perf_counter() - started


def inputs(quick: bool, prefixes: tuple[int, ...] = PREFIXES, goal: bool = False) -> tuple[list[Input], int]:
    """Return the PDFs to import, smallest first (only the 250-page prefix with ``quick``), and the manual's pages."""
    refman = fetch_refman()
    INPUTS.mkdir(parents=True, exist_ok=True)
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    total = _page_count(refman)
    if total != EXPECTED_PAGES:
        log(f"warning: {refman.name} has {total} pages, expected {EXPECTED_PAGES} (another r-doc-pdf version?)")
    rewritten = "pypdf rewrite (no object streams)"
    items = []
    for pages in (QUICK_PREFIX,) if quick else (*prefixes, total):
        pages = min(pages, total)
        name = f"fullrefman.p1-{pages}.pdf" if pages < total else "fullrefman.rewritten.pdf"
        target = INPUTS / name
        seconds = _rewrite(refman, pages, target)
        if seconds is not None:
            log(f"wrote {target.name} ({pages} pages, {target.stat().st_size / 1e6:.1f} MB) in {seconds:.1f} s")
        label = f"refman pages 1–{pages:,}" if pages < total else f"refman all {pages:,} pages, rewritten"
        items.append(Input(label, target, pages, rewritten, seconds))
    if not quick:
        original = "original pdfTeX (object streams)"
        if SMALL_ORIGINAL.is_file():
            items.insert(0, Input(f"{SMALL_ORIGINAL.name} (original)", SMALL_ORIGINAL,
                                  _page_count(SMALL_ORIGINAL), original))
        items.append(Input(f"refman all {total:,} pages, original file", refman, total, original))
    if goal:  # the goal of issue 17: the prefixes and the original whole manual, nothing else
        items = [i for i in items if i.pages in prefixes or i.path == refman]
    return items, total


# --- /proc sampling ----------------------------------------------------------------

_STATUS_KEYS = ("VmRSS:", "VmHWM:", "RssAnon:", "RssFile:")


def proc_memory(pid: int | str = "self", private: bool = False) -> dict[str, float] | None:
    """Return VmRSS, VmHWM, RssAnon, RssFile (and with ``private`` Private = USS) in MiB; None when gone."""
    out = {}
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith(_STATUS_KEYS):
                    key, value = line.split(":", 1)
                    out[key] = int(value.split()[0]) / 1024
        if private:
            with open(f"/proc/{pid}/smaps_rollup") as handle:
                out["Private"] = sum(int(line.split()[1]) for line in handle
                                     if line.startswith(("Private_Clean:", "Private_Dirty:"))) / 1024
    except (OSError, ValueError, IndexError):
        return None
    return out if "VmRSS" in out else None


def _descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        for child in children(todo.pop()):
            found.append(child)
            todo.append(child)
    return found


class Sampler(threading.Thread):
    """Read VmRSS and VmHWM of a process and all its descendants every ``interval`` seconds."""

    def __init__(self, root: int, interval: float = SAMPLE_SECONDS) -> None:
        super().__init__(daemon=True)
        self.root, self.interval = root, interval
        self.series: list[tuple[float, int, dict[str, float]]] = []  # (time.time(), pid, memory)
        self.first: dict[int, dict[str, float]] = {}
        self.peak: dict[int, dict[str, float]] = {}  # per pid: the largest value of each field
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.is_set():
            now = time.time()
            for pid in (self.root, *_descendants(self.root)):
                mem = proc_memory(pid, private=pid != self.root)
                if mem is None:
                    continue
                self.series.append((now, pid, mem))
                self.first.setdefault(pid, mem)
                peak = self.peak.setdefault(pid, {})
                for key, value in mem.items():
                    peak[key] = max(peak.get(key, 0.0), value)
            self._stop_event.wait(self.interval)

    def stop(self) -> None:
        self._stop_event.set()
        self.join(5)


def _idle_memory(pid: int, seconds: float = 1.5) -> dict[str, float]:
    """Return the process's memory after ``seconds`` without work (the last of a few reads)."""
    found: dict[str, float] = {}
    for _ in range(4):
        time.sleep(seconds / 4)
        found = proc_memory(pid) or found
    if not found:
        raise RuntimeError(f"cannot read /proc/{pid}/status")
    return found


def _stage_peaks(series: list[tuple[float, int, dict[str, float]]], pid: int, statuses: list[tuple[float, str]],
                 key: str) -> dict[str, float]:
    """Largest ``key`` of ``pid`` per Document status (the status last seen before each sample)."""
    peaks: dict[str, float] = {}
    index, current = 0, "queued"
    for when, sample_pid, mem in series:
        if sample_pid != pid:
            continue
        while index < len(statuses) and statuses[index][0] <= when:
            current = statuses[index][1]
            index += 1
        peaks[current] = max(peaks.get(current, 0.0), mem[key])
    return peaks


# --- view 1: the worker --------------------------------------------------------------

_IMPORTED = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3}) \w+ irisrag\.ingest\.pipeline imported "
                       r"document_id=(\d+)\b")


def _with_upkeep(statuses: list[tuple[float, str]], logfile: Path, document_id: int) -> list[tuple[float, str]]:
    """Add the end of ``run_import`` (the pipeline's ``imported document_id=`` log line) as a status.

    The row keeps the pipeline's last stage until the job marks it done, after the LanceDB write
    and the index upkeep pass; the log line's time (local time, ms) splits off the upkeep. Without
    the line (another log format) the statuses are returned as they are.
    """
    try:
        lines = logfile.read_text(errors="replace").splitlines()
    except OSError:
        return statuses
    for line in lines:
        found = _IMPORTED.match(line)
        if found and int(found.group(3)) == document_id:
            when = time.mktime(time.strptime(found.group(1), "%Y-%m-%d %H:%M:%S")) + int(found.group(2)) / 1000
            return sorted([*statuses, (when, "index upkeep (after run_import)")])
    return statuses

def _memory_instance(tmp: Path, redis_url: str, embedder: str):
    """Create a fresh app (schema, one area) in ``tmp``; return (config, app, area id)."""
    from irisrag import create_app
    from irisrag.extensions import db
    from irisrag.models import Area
    from irisrag.models.schema import upgrade
    from irisrag.services.admin.admin import create_named

    config = instance_config(tmp, redis_url, embedder)
    app = create_app(config)
    for name in ("irisrag", "rq"):
        logging.getLogger(name).setLevel(logging.WARNING)
    with app.app_context(), db.connection_context():
        upgrade()
        area_id = create_named(Area, "bench").id
    return config, app, area_id


def _follow(doc_id: int, started: float, statuses: list[tuple[float, str]], logfile: Path):
    """Poll the document's row until its import ended, noting each status; return (row, wall seconds)."""
    from irisrag.models import Document

    while True:
        row = Document.get_by_id(doc_id)
        now = time.perf_counter()
        if not statuses or statuses[-1][1] != row.status:
            statuses.append((time.time(), row.status))
        if row.status in ("done", "unchanged", "failed"):
            return row, now - started
        if now - started > IMPORT_LIMIT_SECONDS:
            raise RuntimeError(f"import still running after {IMPORT_LIMIT_SECONDS} s:\n{tail(logfile)}")
        time.sleep(POLL_SECONDS)


def _sampled_import(app, area_id: int, source: Path, worker_pid: int, sampler, logfile: Path) -> dict:
    """Import ``source`` while ``sampler`` samples; return the row, wall time, statuses and registration retries."""
    from irisrag.extensions import db
    from irisrag.services.documents.documents import import_local_file

    before = set(_descendants(worker_pid))
    retries: list[str] = []
    statuses: list[tuple[float, str]] = []
    sampler.start()
    with app.app_context(), db.connection_context():
        started = time.perf_counter()
        doc_id = register_with_retry(import_local_file, area_id, source, retries)
        row, wall = _follow(doc_id, started, statuses, logfile)
        # The horse still saves the job's result and exits; keep sampling until it is gone.
        deadline = time.monotonic() + 30
        while set(_descendants(worker_pid)) - before and time.monotonic() < deadline:
            time.sleep(0.02)
        sampler.stop()
    if row.status != "done":
        raise RuntimeError(f"import of {source.name} ended {row.status}: {row.error}\n{row.error_detail}\n"
                           f"worker log:\n{tail(logfile)}")
    return {"doc_id": doc_id, "chunks": row.chunk_count, "wall": wall, "statuses": statuses,
            "retries": retries, "before": before}


def _horse_row(item: Input, run: dict, sampler, worker_pid: int, logfile: Path) -> dict:
    """The memory and timing numbers of one import, from the sampler's view of the worker and its horse."""
    horses = [pid for pid in sampler.peak if pid != worker_pid and pid not in run["before"]]
    if not horses:
        raise RuntimeError(f"no work horse was seen for {item.path.name} (job shorter than "
                           f"{SAMPLE_SECONDS * 1000:.0f} ms?)")
    horse = max(horses, key=lambda pid: sampler.peak[pid]["VmRSS"])
    stages = _with_upkeep(run["statuses"], logfile, run["doc_id"])
    return {
        "horse_first": sampler.first[horse], "horse_peak": sampler.peak[horse], "horses": len(horses),
        "parent_peak_during": sampler.peak.get(worker_pid),
        "stages_anon": _stage_peaks(sampler.series, horse, stages, "RssAnon"),
        "stages_rss": _stage_peaks(sampler.series, horse, stages, "VmRSS"),
        "samples": sum(1 for _, pid, _ in sampler.series if pid == horse), "lock_retries": len(run["retries"]),
    }


def _worker_import(item: Input, redis_url: str, workroot: Path, embedder: str, root: Path = ROOT) -> dict:
    """Import one PDF through a fresh instance and a worker of checkout ``root``; return the numbers."""
    tmp = Path(tempfile.mkdtemp(prefix="memory-", dir=workroot))
    config, app, area_id = _memory_instance(tmp, redis_url, embedder)
    logfile = tmp / "worker.log"
    worker, worker_start = start_worker(config, logfile, root)
    try:
        idle = _idle_memory(worker.pid)
        source = tmp / "src" / item.path.name
        source.parent.mkdir(parents=True)
        shutil.copyfile(item.path, source)
        load = load_average()
        sampler = Sampler(worker.pid)
        run = _sampled_import(app, area_id, source, worker.pid, sampler, logfile)
        parent = proc_memory(worker.pid) or {}
        horse = _horse_row(item, run, sampler, worker.pid, logfile)
        first = {key: horse.pop(key) for key in ("horse_first", "horse_peak", "horses")}
        label = item.label if root == ROOT else f"{item.label} [baseline]"
        return {"label": label, "tree": str(root), "pages": item.pages, "chunks": run["chunks"], "wall": run["wall"], "load": load,
                "embedder": embedder, "worker_start": worker_start, "idle": idle, **first, "parent_after": parent,
                **horse}
    finally:
        stop_worker(worker)
        delete_queue(redis_url, config["QUEUE_NAME"])
        shutil.rmtree(tmp, ignore_errors=True)


# --- views 2 and 3: fresh processes ----------------------------------------------------

_CHILD = r"""
import json, logging, resource, sys, threading, time
from pathlib import Path

logging.getLogger("pypdf").setLevel(logging.ERROR)
args = json.loads(sys.argv[1])


def memory():
    out = {}
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(("VmRSS:", "VmHWM:", "RssAnon:")):
                key, value = line.split(":", 1)
                out[key] = int(value.split()[0]) / 1024
    return out


stage = ["start"]
peaks = {}
stop = threading.Event()


def sample():
    while not stop.is_set():
        mem, name = memory(), stage[0]
        peak = peaks.setdefault(name, {})
        for key in ("VmRSS", "RssAnon"):
            peak[key] = max(peak.get(key, 0.0), mem[key])
        stop.wait(args["interval"])


class Marked:
    # Proxy: while one of the wrapped object's methods runs, the stage reads "<label>.<method>".
    def __init__(self, inner, label):
        self._inner, self._label = inner, label

    def __getattr__(self, name):
        value = getattr(self._inner, name)
        if not callable(value):
            return value

        def call(*a, **k):
            previous, stage[0] = stage[0], f"{self._label}.{name}"
            try:
                result = value(*a, **k)
            finally:
                stage[0] = previous
            # A staged replacement's writes (add, commit) are the store's too: "store.staged.add".
            return Marked(result, f"{self._label}.staged") if name == "staged_replacement" else result
        return call


out = {}
if args["mode"] == "extract":
    from irisrag.ingest.extract import iter_pages

    idle = memory()
    thread = threading.Thread(target=sample, daemon=True)
    stage[0] = "open + first page"
    thread.start()
    started = time.perf_counter()
    pages = chars = 0
    checkpoints = {}
    for page in iter_pages(Path(args["path"]), "pdf"):
        pages += 1
        chars += len(page.text)
        if pages == 1:
            out["first_page"] = memory()
            out["first_page_seconds"] = time.perf_counter() - started
            stage[0] = "pages"
        if pages % 250 == 0:
            checkpoints[pages] = memory()
    seconds = time.perf_counter() - started
    out.update(pages=pages, chars=chars, checkpoints=checkpoints)
else:
    from irisrag.config import DEFAULTS
    from irisrag.embeddings import FakeEmbedder, UseEmbedder
    from irisrag.ingest.pipeline import ImportJob, PipelineSettings, run_import
    from irisrag.jobs.maintenance import policy
    from irisrag.vectors.store import VectorStore

    embedder = UseEmbedder() if args["embedder"] == "use" else FakeEmbedder()
    embedder.embed_documents(["warm-up"])
    store = VectorStore(args["lancedb"], embedder.key, embedder.dim, read_consistency_seconds=0)
    idle = memory()

    def progress(name, done, total):
        if "." not in stage[0]:  # a progress call from inside the embedder or the store keeps their label
            stage[0] = name

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    started = time.perf_counter()
    result = run_import(ImportJob(1, 1, Path(args["path"]), "pdf"), embedder=Marked(embedder, "embedder"),
                        store=Marked(store, "store"), settings=PipelineSettings(**args["settings"]),
                        progress=progress)
    seconds = time.perf_counter() - started
    out.update(chunks=result.chunks, timings=result.timings)
    if args.get("upkeep"):  # the index pass the import job runs next (maintain_after_import)
        began = time.perf_counter()
        Marked(store, "store").maintain(policy(DEFAULTS), full=False)
        out["upkeep_seconds"] = time.perf_counter() - began
stop.set()
thread.join()
mem = memory()
out.update(idle=idle, seconds=seconds, end=mem, hwm=mem["VmHWM"], stages=peaks,
           peak_anon=max(p["RssAnon"] for p in peaks.values()),
           maxrss=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
print("RESULT " + json.dumps(out))
"""


def _child(args: dict) -> dict:
    """Run ``_CHILD`` in a fresh Python process; return its JSON result."""
    args = {"interval": CHILD_SAMPLE_SECONDS, **args}
    proc = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=IMPORT_LIMIT_SECONDS)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"child {args['mode']} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(lines[-1][len("RESULT "):])


def _in_process(item: Input, embedder: str, settings: dict, workroot: Path) -> dict:
    with tempfile.TemporaryDirectory(dir=workroot) as tmp:
        result = _child({"mode": "pipeline", "path": str(item.path), "embedder": embedder,
                         "lancedb": str(Path(tmp) / "lancedb"), "settings": settings, "upkeep": True})
    result.update(label=item.label, pages=item.pages, embedder=embedder)
    return result


def _extract_only(item: Input) -> dict:
    result = _child({"mode": "extract", "path": str(item.path)})
    result.update(label=item.label)
    return result


# --- report ----------------------------------------------------------------------------

def _mb(value: float | None) -> str:
    return "–" if value is None or value != value else f"{value:.0f}"


def _per_1000(delta: float, pages: int) -> str:
    return f"{delta / pages * 1000:.1f}" if pages else "–"


def _slope(points: list[tuple[int, float]]) -> float | None:
    """Least-squares MiB per 1,000 pages through (pages, MiB) points."""
    if len({p for p, _ in points}) < 2:
        return None
    n = len(points)
    mean_x = sum(p for p, _ in points) / n
    mean_y = sum(v for _, v in points) / n
    sxx = sum((p - mean_x) ** 2 for p, _ in points)
    return 1000 * sum((p - mean_x) * (v - mean_y) for p, v in points) / sxx


def _slopes_text(rows: list[dict], structures: dict[str, str], value) -> str:
    parts = []
    for structure in dict.fromkeys(structures[r["label"]] for r in rows):
        points = [(r["pages"], value(r)) for r in rows if structures[r["label"]] == structure]
        slope = _slope(points)
        if slope is not None:
            parts.append(f"{structure}: **{slope:.1f} MiB per 1,000 pages** ({len(points)} inputs)")
    return "; ".join(parts) if parts else "(fewer than two inputs of one structure: no slope)"


def _stage_table(rows: list[dict], peaks, base, first_cols: list[str], first) -> str:
    """One row per input, one column per stage (in order of first appearance): peak − base."""
    order: list[str] = []
    for row in rows:
        for name in peaks(row):
            if name not in order:
                order.append(name)
    body = [[*first(row), *(_mb(peaks(row)[s] - base(row)) if s in peaks(row) else "–" for s in order)]
            for row in rows]
    return table([*first_cols, *order], body)


def _worker_section(raw: dict, structures: dict[str, str]) -> str:
    rows = []
    for r in raw["worker"]:
        idle, first, peak, after = r["idle"], r["horse_first"], r["horse_peak"], r["parent_after"]
        added = peak["RssAnon"] - idle["RssAnon"]
        rows.append([r["label"], f"{r['pages']:,}", f"{r['chunks']:,}", f"{_mb(idle['VmRSS'])} ({_mb(idle['RssAnon'])})",
                     f"{_mb(first['VmRSS'])} ({_mb(first['RssAnon'])})",
                     f"{_mb(peak['VmRSS'])} / {_mb(peak.get('VmHWM'))}", _mb(peak["VmRSS"] - idle["VmRSS"]),
                     f"**{_mb(added)}**", _per_1000(added, r["pages"]), _mb(peak.get("Private")),
                     f"{_mb(after.get('VmRSS'))} / {_mb(after.get('VmHWM'))}", f"{r['wall']:.1f}",
                     f"{r['chunks'] / r['wall']:.0f}", r["load"]])
    main = table(["input", "pages", "chunks", "idle worker RSS (anon)", "horse at first sample: RSS (anon)",
                  "peak horse RSS: sampled / VmHWM", "peak horse RSS − idle worker RSS",
                  "peak horse anon − idle worker anon", "anon MiB per 1,000 pages", "peak horse private (USS)",
                  "worker parent after: RSS / VmHWM", "wall s", "chunks/s", "load avg at start"], rows)
    slopes = _slopes_text(raw["worker"], structures, lambda r: r["horse_peak"]["RssAnon"] - r["idle"]["RssAnon"])
    stages = _stage_table(raw["worker"], lambda r: r["stages_anon"], lambda r: r["idle"]["RssAnon"],
                          ["input", "pages"], lambda r: [r["label"], f"{r['pages']:,}"])
    embedder = raw["worker"][0]["embedder"] if raw["worker"] else "?"
    return (
        f"### Worker (`worker.py`, {embedder} embedder, an RQ work horse per job)\n\n"
        "The idle worker is the worker process with the model loaded and warmed up, before the import; the "
        "horse is forked from it. Its RSS at first is below the worker's (file-backed pages of the libraries "
        "and the model are not mapped into a forked child until it touches them again), while the anonymous "
        "memory (`RssAnon`: heap, arrays, the model's weights) starts equal to the worker's. So "
        "**`peak horse anon − idle worker anon` is what the import added**; `peak RSS − idle RSS` also "
        "counts library pages the horse faults back in. Private (USS, from `smaps_rollup`) is the memory "
        "only the horse holds: its own allocations plus the worker's pages it wrote to (copy on write), "
        f"i.e. what the import costs the machine beyond the idle worker. Samples every "
        f"{SAMPLE_SECONDS * 1000:.0f} ms; VmHWM is the kernel's high-water mark at the last read.\n\n"
        + main + f"\n\nSlope of the added anonymous memory over pages, per file structure: {slopes}.\n\n"
        "Peak horse anon − idle worker anon per Document status (the status this process last read before "
        "the sample). The row keeps the pipeline's last stage through the LanceDB write; `index upkeep` is "
        "split off at the time of the pipeline's `imported document_id=…` line in the worker log (the pass "
        "the job runs before it marks the row `done`):\n\n" + stages
    )


def _in_process_section(raw: dict, structures: dict[str, str]) -> str:
    rows = []
    for r in raw["in_process"]:
        idle = r["idle"]
        added = r["peak_anon"] - idle["RssAnon"]
        t = r.get("timings", {})
        rows.append([r["label"], r["embedder"], f"{r['pages']:,}", f"{r['chunks']:,}",
                     f"{_mb(idle['VmRSS'])} ({_mb(idle['RssAnon'])})", _mb(r["hwm"]), _mb(r["hwm"] - idle["VmRSS"]),
                     f"**{_mb(added)}**", _per_1000(added, r["pages"]),
                     f"{_mb(r['end']['VmRSS'])} ({_mb(r['end']['RssAnon'])})", f"{r['seconds']:.1f}",
                     f"{r['chunks'] / r['seconds']:.0f}",
                     " / ".join(f"{t[k]:.1f}" if k in t else "–" for k in ("extract", "chunk", "embed", "store")),
                     f"{r['upkeep_seconds']:.1f}" if "upkeep_seconds" in r else "–"])
    main = table(["input", "embedder", "pages", "chunks", "idle RSS (anon)", "peak RSS (VmHWM = ru_maxrss)",
                  "peak RSS − idle RSS", "peak anon − idle anon", "anon MiB per 1,000 pages", "at the end: RSS (anon)",
                  "run_import wall s", "chunks/s", "extract / chunk / embed / store s (pipeline timings)",
                  "upkeep s"], rows)
    slopes = "; ".join(
        f"{emb} embedder: " + _slopes_text([r for r in raw["in_process"] if r["embedder"] == emb], structures,
                                           lambda r: r["peak_anon"] - r["idle"]["RssAnon"])
        for emb in dict.fromkeys(r["embedder"] for r in raw["in_process"]))
    stages = _stage_table(raw["in_process"], lambda r: {k: v["RssAnon"] for k, v in r["stages"].items()},
                          lambda r: r["idle"]["RssAnon"], ["input", "embedder"], lambda r: [r["label"], r["embedder"]])
    return (
        "### In-process pipeline (`run_import` in a fresh process per input)\n\n"
        "Idle = after the imports, the model's warm-up and opening the store. After `run_import` the process "
        "runs the index pass the import job runs next (`maintain_after_import` → "
        "`store.maintain(policy, full=False)`: full-text index, compaction). `peak RSS − idle RSS` also "
        "counts pages of the native libraries (LanceDB, Arrow) that the first write maps in; the anonymous "
        "memory (`RssAnon`, sampled every "
        f"{CHILD_SAMPLE_SECONDS * 1000:.0f} ms) is the heap the import allocates. The USE embedder runs on "
        "the smallest input only: its working memory is per batch, not per page, and on this machine it "
        "makes a run long (the worker view above runs it on every input).\n\n"
        + main + f"\n\nSlope of the added anonymous memory over pages: {slopes}.\n\n"
        "Peak anon − idle anon per stage: the stage last reported to the progress callback, or "
        "`embedder.<method>` / `store.<method>` while the pipeline is inside a call to the embedder or the "
        "vector store (the LanceDB write is `store.replace_document` for a short document, `store.staged.add` "
        "per batch and `store.staged.commit` for the switch of a long one):\n\n" + stages
    )


def _extract_section(raw: dict, structures: dict[str, str]) -> str:
    rows = []
    for r in raw["extract"]:
        idle = r["idle"]["VmRSS"]
        checkpoints = {int(k): v["VmRSS"] for k, v in r.get("checkpoints", {}).items()}
        shown = ", ".join(f"{k:,}: {v - idle:.0f}" for k, v in checkpoints.items()
                          if k in (250, 500, 1000, 1500, 2000, 2250))
        rows.append([r["label"], f"{r['pages']:,}", _mb(idle), _mb(r["first_page"]["VmRSS"] - idle),
                     f"{r['first_page_seconds']:.1f}", f"**{_mb(r['hwm'] - idle)}**",
                     _per_1000(r["hwm"] - idle, r["pages"]), _mb(r["peak_anon"] - r["idle"]["RssAnon"]),
                     shown or "–", f"{r['seconds']:.1f}", f"{r['chars']:,}"])
    main = table(["input", "pages", "idle RSS", "after opening + first page − idle", "s to first page",
                  "peak RSS − idle", "MiB per 1,000 pages", "peak anon − idle anon", "RSS − idle after N pages",
                  "s", "characters"], rows)
    slopes = _slopes_text(raw["extract"], structures, lambda r: r["hwm"] - r["idle"]["VmRSS"])
    return ("### Extraction alone (`iter_pages`, each page dropped)\n\n"
            "What the PDF library costs by itself, whatever the pipeline keeps.\n\n"
            + main + f"\n\nSlope of peak RSS − idle over pages: {slopes}.")


def _report(raw: dict) -> list[str]:
    structures = {i["label"]: i["structure"] for i in raw["inputs"]}
    structures.update({f"{label} [baseline]": f"{kind} [baseline]" for label, kind in list(structures.items())})
    input_rows = []
    for i in raw["inputs"]:
        written = "cached" if i["written_seconds"] is None else f"{i['written_seconds']:.1f} s"
        proportional = raw["refman_bytes"] * i["pages"] / raw["refman_pages"]
        input_rows.append([i["label"], f"{i['pages']:,}", i["structure"], f"{i['bytes'] / 1e6:.2f}",
                           f"{i['bytes'] / proportional:.2f}×", written if "rewrite" in i["structure"] else "–"])
    inputs_md = table(["input", "pages", "structure", "MB", "size ÷ the original's size × pages share",
                       "pypdf write time"], input_rows)
    settings = raw["settings"]
    method = (
        f"Input: `bench/data/{raw['refman']}` ({raw['refman_pages']:,} pages, {raw['refman_bytes'] / 1e6:.1f} MB) "
        f"from Debian's `{PACKAGE}`, written by pdfTeX with its objects packed into object streams. The prefixes "
        f"and the full rewrite are written with pypdf {raw['pypdf']} `PdfWriter`, which cannot write object "
        "streams: the same pages and text, but every object at the top level of the file. Chunking: "
        f"{settings['chunk_size']} characters, overlap {settings['chunk_overlap']}, embedding batches of "
        f"{settings['batch_size']}. RSS figures in MiB. Slopes are least-squares fits through the inputs of one "
        "file structure; for the originals that is two different documents (`R-exts.pdf` and the manual), so "
        "that slope mixes the documents' structure with their page counts."
        + (" Quick run: the 250-page prefix only." if raw["quick"] else "")
    )
    return [
        "## Machine\n\n" + raw["machine"],
        "## Worker memory importing the R reference manual\n\n" + method + "\n\n" + inputs_md,
        _worker_section(raw, structures),
        *([_in_process_section(raw, structures)] if raw["in_process"] else []),
        *([_extract_section(raw, structures)] if raw["extract"] else []),
    ]


# --- the benchmark -------------------------------------------------------------------

def run(quick: bool, embedder: str = "use", prefixes: tuple[int, ...] = PREFIXES, worker_only: bool = False,
        baseline: Path | None = None, goal: bool = False) -> str:
    """Run the memory benchmark; return the Markdown report (also written to bench/out/memory.md).

    ``embedder`` is the worker's (``use``, as in production, or ``fake`` for a fast check of the
    pipeline's own memory); the in-process view runs the fake embedder on every input and USE on
    the smallest.
    """
    try:
        items, total_pages = inputs(quick, prefixes, goal)
    except DataUnavailable as exc:
        log(str(exc))
        return f"## Worker memory\n\nSkipped: {exc}\n"
    import pypdf

    from irisrag.config import DEFAULTS

    settings = {"chunk_size": int(DEFAULTS["CHUNK_SIZE"]), "chunk_overlap": int(DEFAULTS["CHUNK_OVERLAP"]),
                "batch_size": int(DEFAULTS["EMBEDDING_BATCH_SIZE"])}
    machine_text = machine()
    workroot = Path(tempfile.mkdtemp(prefix="irisrag-bench-memory-"))
    redis_url, redis_proc = start_redis()
    try:
        log(f"redis {redis_url}; inputs: " + ", ".join(f"{i.label} ({i.path.name})" for i in items))
        worker_rows = _worker_rows(items, redis_url, workroot, embedder, baseline)
        in_process_rows = [] if worker_only else _in_process_rows(items, settings, workroot)
        extract_rows = [] if worker_only else _extract_rows(items)
    finally:
        if redis_proc is not None:
            redis_proc.terminate()
            redis_proc.wait(10)
        shutil.rmtree(workroot, ignore_errors=True)
    raw = {
        "quick": quick, "machine": machine_text, "redis_url": redis_url, "settings": settings,
        "baseline": str(baseline) if baseline else None, "pypdf": pypdf.__version__, "refman": str(REFMAN.relative_to(DATA)), "refman_pages": total_pages,
        "refman_bytes": REFMAN.stat().st_size,
        "inputs": [{"label": i.label, "path": str(i.path), "pages": i.pages, "structure": i.structure,
                    "bytes": i.path.stat().st_size, "written_seconds": i.written_seconds} for i in items],
        "worker": worker_rows, "in_process": in_process_rows, "extract": extract_rows,
    }
    sections = _report(raw)
    path = write_report("memory", "IrisRAG worker memory", sections, raw)
    log(f"wrote {path}")
    return "\n\n".join(sections[1:])


def _worker_rows(items: list[Input], redis_url: str, workroot: Path, embedder: str,
                 baseline: Path | None = None) -> list[dict]:
    rows = []
    for item, root in [(item, root) for item in items for root in ([baseline] if baseline else []) + [ROOT]]:
        row = _worker_import(item, redis_url, workroot, embedder, root)
        rows.append(row)
        log(f"worker ({embedder}) {row['label']}: {row['chunks']} chunks in {row['wall']:.1f} s, idle "
            f"{row['idle']['VmRSS']:.0f} (anon {row['idle']['RssAnon']:.0f}), horse peak "
            f"{row['horse_peak']['VmRSS']:.0f} (anon {row['horse_peak']['RssAnon']:.0f}, "
            f"private {row['horse_peak'].get('Private', float('nan')):.0f}) MiB")
    return rows


def _in_process_rows(items: list[Input], settings: dict, workroot: Path) -> list[dict]:
    rows = []
    for item, kind in [(item, "fake") for item in items] + [(min(items, key=lambda i: i.pages), "use")]:
        row = _in_process(item, kind, settings, workroot)
        rows.append(row)
        log(f"in-process {kind} {item.label}: idle {row['idle']['VmRSS']:.0f} (anon "
            f"{row['idle']['RssAnon']:.0f}), peak {row['hwm']:.0f} (anon {row['peak_anon']:.0f}) MiB, "
            f"{row['seconds']:.1f} s")
    return rows


def _extract_rows(items: list[Input]) -> list[dict]:
    rows = []
    for item in items:
        row = _extract_only(item)
        rows.append(row)
        log(f"extract {item.label}: idle {row['idle']['VmRSS']:.0f}, first page "
            f"{row['first_page']['VmRSS']:.0f}, peak {row['hwm']:.0f} MiB, {row['seconds']:.1f} s")
    return rows


def render(path: Path) -> str:
    """Re-render the Markdown report from a run's raw JSON (bench/out/memory-*.json)."""
    raw = json.loads(Path(path).read_text())
    sections = _report(raw)
    out = write_report("memory", "IrisRAG worker memory", sections, raw)
    log(f"wrote {out}")
    return "\n\n".join(sections[1:])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.memory_bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="only the 250-page prefix (a few minutes)")
    parser.add_argument("--embedder", choices=("use", "fake"), default="use",
                        help="the worker's embedder (default use, as in production; fake: a fast check)")
    parser.add_argument("--render", type=Path, metavar="JSON",
                        help="re-render the report from a run's raw JSON instead of measuring")
    parser.add_argument("--prefixes", default=",".join(map(str, PREFIXES)),
                        help="page counts of the rewritten prefixes to import besides the whole manual "
                             f"(default {','.join(map(str, PREFIXES))})")
    parser.add_argument("--worker-only", action="store_true", help="only the worker view (no in-process, no extraction)")
    parser.add_argument("--baseline", type=Path, metavar="DIR",
                        help="also run every worker import with worker.py of this checkout, just before this one's")
    parser.add_argument("--goal", action="store_true",
                        help="only the prefixes and the original manual (e.g. --goal --prefixes 500)")
    args = parser.parse_args(argv)
    prefixes = tuple(int(p) for p in args.prefixes.split(",") if p.strip())
    print(render(args.render) if args.render else run(args.quick, args.embedder, prefixes, args.worker_only,
                                                      args.baseline, args.goal))


if __name__ == "__main__":
    main()
