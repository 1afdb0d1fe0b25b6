"""Web-process memory at 100k and 1M chunks: RSS of each gunicorn worker, idle, with the model, after questions.

``.venv/bin/python -m bench.scale_memory [--quick] [--sizes 100000,1000000] [--questions 50] [--burst 16]``

Tables: the cached tables of ``bench.context_bench`` (SciFact chunks embedded with USE,
noisy copies up to the size, 20 areas, full-text index and the app's IVF_SQ index built by
``VectorStore.maintain``; built into bench/data/tables/ on first use, which takes minutes).
The app opens them as its own: LANCEDB_URI points at the cached table's folder, the embedder
is the real USE (``use-m3-512``, so the app's table name ``chunks_use_m3_512`` is the one
``context_bench`` wrote), FTS_LANGUAGE stays German (the index's stemmer).

The metadata database (SQLite in a temporary folder) gets what access checks and found sources
need: the 20 areas (ids 1..20, as in the table), one ``done`` Document row per document of the
table (same id, same area), a user in a group granted areas 1-3 (~15 % of the rows) and an
API key. The LLM is ``bench.stream_bench``'s stub (Ollama's streaming /api/chat, first token
after 20 ms, 2,000 tokens/s), so answers cost no model time and the web process does
everything else it does in production.

The app runs as in production: gunicorn with the Procfile's ``web`` line (``stream_bench.start_app``;
gthread, 2 workers x 32 threads, no preload: each worker loads the app, the model and its own
LanceDB caches). ``GUNICORN_CMD_ARGS`` adds an access log with the worker pid, so every
request is attributed to the worker that served it. Phases, VmRSS and VmHWM of the master and
of each worker read from ``/proc/<pid>/status`` after each:

1. idle: booted, one ``GET /login`` served; nothing embedded or searched;
2. model: ``GET /readyz?deep=1`` until every worker has served one (loads USE, opens the
   table, counts rows; no search);
3. after N questions: SciFact questions, one at a time, through ``POST /api/v1/answer`` with
   ``"stream": true`` (retrieval in hybrid mode, sources, the stub's answer, citations,
   history), areas 1-3;
4. after a burst: B further questions sent at once (the peak a busy minute adds).

The USE model's own share is also measured in a fresh process (RSS before and after
``irisrag.embeddings.load_use()``). Client-side latency to the ``sources`` event is
reported for orientation (retrieval plus the database; the stub's 20 ms come after it).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

from bench.common import ROOT, load_average, log, machine, med_p95, table, write_report

GROUP_AREAS = (1, 2, 3)  # as context_bench.SELECTED
USER, PASSWORD = "bench", "benchpassword1"
STUB_TTFT, STUB_RATE = 0.02, 2000.0


# --- /proc ----------------------------------------------------------------------

def status_mb(pid: int) -> dict[str, float]:
    """Return VmRSS, VmHWM (MiB) and the process's CPU seconds."""
    out = {"rss": float("nan"), "hwm": float("nan"), "cpu": float("nan")}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                out["rss"] = int(line.split()[1]) / 1024
            elif line.startswith("VmHWM:"):
                out["hwm"] = int(line.split()[1]) / 1024
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        out["cpu"] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        pass
    return out


def children(pid: int) -> list[int]:
    """Return the child pids of a process (the gunicorn workers of the master)."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            pass
    return sorted(set(found))


def model_share() -> dict[str, float]:
    """Load USE in a fresh interpreter; return its RSS before and after (MiB)."""
    code = ("import json, pathlib\n"
            "def rss():\n"
            "    for line in pathlib.Path('/proc/self/status').read_text().splitlines():\n"
            "        if line.startswith('VmRSS:'): return int(line.split()[1]) / 1024\n"
            "import irisrag.embeddings as e\n"
            "before = rss()\n"
            "e.UseEmbedder().embed_query('readiness')\n"
            "print(json.dumps({'before': before, 'after': rss()}))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- the instance -----------------------------------------------------------------

def environment(tmp: Path, lancedb_uri: str, stub_url: str, access_log: Path) -> dict[str, str]:
    """The app's settings: temporary SQLite and staging, the cached table, real USE, the stub LLM."""
    from tests.support.process_env import process_env

    return process_env({**os.environ, "IRISRAG_SECRET_KEY": "bench-secret", "IRISRAG_DATABASE_URL": f"sqlite:///{tmp}/bench.db",
            "IRISRAG_LANCEDB_URI": lancedb_uri, "IRISRAG_UPLOAD_ROOT": str(tmp / "staging"),
            "IRISRAG_INSTANCE_PATH": str(tmp), "IRISRAG_EMBEDDER": "use", "IRISRAG_LLM": "ollama",
            "IRISRAG_OLLAMA_URL": stub_url, "IRISRAG_LANGUAGE": "en", "IRISRAG_LOGIN_RATE_LIMIT": "1000",
            "GUNICORN_CMD_ARGS": (f"--access-logfile {access_log} --access-logformat '%(p)s %(s)s %(m)s %(U)s' "
                                  f"--error-logfile {access_log.with_name('error.log')} --capture-output")})


def seed(env: dict[str, str], documents: list[tuple[int, int, int]]) -> str:
    """Create the areas, the Document rows of the table, the user with areas 1-3 and an API key; return the key."""
    from irisrag import config, create_app
    from irisrag.extensions import db
    from irisrag.models import Area, Document, Group
    from irisrag.models.schema import upgrade
    from irisrag.services.admin import admin, api_keys

    app = create_app(config.load(env))
    with app.app_context(), db.connection_context():
        upgrade()
        for i in range(1, 21):
            area = admin.create_named(Area, f"area-{i:02d}")
            assert area.id == i, "areas must get the ids 1..20 of the table"
        admin.create_named(Group, "bench")
        admin.create_user(USER, PASSWORD)
        admin.link_user(USER, "bench")
        for i in GROUP_AREAS:
            admin.link_area(f"area-{i:02d}", "bench")
        rows = [{"id": doc_id, "area": area, "name": f"scifact-{doc_id}.txt", "directory": "bench",
                 "kind": "text", "status": "done", "chunk_count": n, "embedder_key": "use-m3-512"}
                for doc_id, area, n in documents]
        for start in range(0, len(rows), 2000):
            with db.atomic():
                Document.insert_many(rows[start:start + 2000]).execute()
        return api_keys.create_key(USER).plain


class AccessLog:
    """Requests per worker pid, read from the gunicorn access log."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def counts(self, path_prefix: str) -> dict[int, int]:
        counts: dict[int, int] = {}
        try:
            lines = self.path.read_text().splitlines()
        except OSError:
            return counts
        for line in lines:
            parts = line.strip("'\" ").split()
            pid = parts[0].strip("<>") if parts else ""
            if len(parts) >= 4 and parts[3].startswith(path_prefix) and pid.isdigit():
                counts[int(pid)] = counts.get(int(pid), 0) + 1
        return counts

    def wait_for(self, path_prefix: str, total: int, timeout: float = 5.0) -> dict[int, int]:
        """Return the counts once ``total`` requests are logged (gunicorn logs after the response), or at the timeout."""
        deadline = time.monotonic() + timeout
        while sum((counts := self.counts(path_prefix)).values()) < total and time.monotonic() < deadline:
            time.sleep(0.1)
        return counts


def ask(base: str, key: str, question: str) -> dict:
    """One streamed API answer; return the seconds to each event and the server's stage timings (``done``)."""
    started = time.perf_counter()
    seen: dict = {}
    body = b""
    with requests.post(f"{base}/api/v1/answer", json={"question": question, "areas": list(GROUP_AREAS),
                                                      "stream": True},
                       headers={"X-API-Key": key}, stream=True, timeout=300) as response:
        seen["status"] = response.status_code
        if response.status_code != 200:
            seen["error"] = response.text[:300]
            return seen
        while data := response.raw.read1(65536):
            body += data
            for name in re.findall(rb"^event: (\w+)$", data, re.M):
                seen.setdefault(name.decode(), time.perf_counter() - started)
    for block in body.decode("utf-8", "replace").split("\n\n"):
        if block.startswith("event: done"):
            payload = "\n".join(line[6:] for line in block.splitlines() if line.startswith("data: "))
            try:
                seen["server"] = json.loads(payload).get("timings", {})
            except ValueError:
                pass
    return seen


def snapshot(master: int) -> dict[str, dict[str, float]]:
    """VmRSS / VmHWM / CPU of the master and each worker."""
    return {"master": status_mb(master), **{str(pid): status_mb(pid) for pid in children(master)}}


def _rss(snap: dict) -> str:
    return json.dumps({k: round(v["rss"]) for k, v in snap.items()})


def _load_models(out: dict, proc, base: str, log_reader: AccessLog, size: int) -> None:
    """Snapshot the idle workers, then have every worker load the model (``/readyz?deep=1``) and snapshot again."""
    time.sleep(2.0)  # every worker has booted (start_app returned on the first answer)
    workers = children(proc.pid)
    out["workers"] = workers
    out["idle"] = snapshot(proc.pid)
    log(f"{size}: idle {_rss(out['idle'])}")
    for _ in range(60):
        requests.get(f"{base}/readyz?deep=1", timeout=120)
        if all(log_reader.counts("/readyz").get(pid) for pid in workers):
            break
    out["ready_requests"] = log_reader.counts("/readyz")
    out["model"] = snapshot(proc.pid)
    log(f"{size}: model loaded {_rss(out['model'])}")


def _ask_all(out: dict, proc, app: tuple, questions: list[str], counts: tuple[int, int]) -> None:
    """Ask the sequential questions, then the burst; snapshot after each and count what each worker served."""
    base, key, log_reader, size = app
    n_questions, burst = counts
    timings = []
    for i, question in enumerate(questions[:n_questions]):
        timings.append(ask(base, key, question))
        if i % 10 == 0:
            log(f"{size}: question {i + 1}/{n_questions}")
    out["questions"] = snapshot(proc.pid)
    out["served_sequential"] = log_reader.wait_for("/api/v1/answer", n_questions)
    log(f"{size}: after {n_questions} questions {_rss(out['questions'])}")
    with ThreadPoolExecutor(burst) as pool:
        crowd = list(pool.map(lambda q: ask(base, key, q), questions[n_questions:n_questions + burst]))
    out["burst"] = snapshot(proc.pid)
    out["served_all"] = log_reader.wait_for("/api/v1/answer", n_questions + burst)
    out["timings"], out["burst_timings"] = timings, crowd
    out["load"] = load_average()
    out["failed"] = [t for t in timings + crowd if t.get("status") != 200]


def first_traceback(lines: list[str]) -> list[str]:
    """Return the first traceback of a log, through its exception line (the last 40 lines without one)."""
    first = next((i for i, line in enumerate(lines) if "Traceback" in line), max(0, len(lines) - 40))
    end = next((i + 1 for i in range(first + 1, len(lines)) if lines[i] and lines[i][:1] not in (" ", "\t")
                and not lines[i].startswith(("Traceback", "During", "The above"))), len(lines))
    return lines[first:end]


def _serve(out: dict, uri: str, documents: list, questions: list[str], counts: tuple[int, int], stub_url: str) -> None:
    """Seed a database for the table, start gunicorn on it and run the phases."""
    from bench.stream_bench import start_app

    size = out["size"]
    with tempfile.TemporaryDirectory(prefix="irisrag-scale-memory-") as tmp:
        access = Path(tmp) / "access.log"
        env = environment(Path(tmp), uri, stub_url, access)
        log(f"{size} chunks: seeding {len(documents):,} documents")
        started = time.perf_counter()
        key = seed(env, documents)
        out["seed_s"] = time.perf_counter() - started
        proc, base = start_app(env)
        log_reader = AccessLog(access)
        try:
            _load_models(out, proc, base, log_reader, size)
            _ask_all(out, proc, (base, key, log_reader, size), questions, counts)
            if out["failed"]:
                out["error_log"] = first_traceback(access.with_name("error.log").read_text().splitlines())
                log(f"{size}: {len(out['failed'])} failed requests; first traceback in the error log:\n"
                    + "\n".join(out["error_log"]))
        finally:
            proc.terminate()
            proc.wait(60)


def measure_size(size: int, n_questions: int, burst: int, quick: bool) -> dict:
    """Build (or reuse) the cached table, start the app on it, run the phases; return the snapshots."""
    from bench import context_bench
    from bench.stream_bench import StubLLM
    from irisrag.embeddings import UseEmbedder

    docs, vectors, _ = context_bench.inputs(quick, size)
    uri, build, *_ = context_bench.cached_table(size, docs, vectors, UseEmbedder(), keep=False)
    documents = [(doc_id, area, n) for doc_id, area, _, n, _ in context_bench.layout(docs, size)]
    questions = context_bench.load_questions(n_questions + burst)[:n_questions + burst]
    stub = StubLLM(STUB_TTFT, STUB_RATE)
    threading.Thread(target=stub.serve_forever, daemon=True).start()
    out: dict = {"size": size, "documents": len(documents), "table": uri, "build": {
        k: build.get(k) for k in ("write_s", "compact_s", "fts_s", "index_s", "index_shape", "built")}}
    _serve(out, uri, documents, questions, (n_questions, burst), stub.url)
    stub.shutdown()
    return out


def _mb(value: float) -> str:
    return "–" if value != value else f"{value:,.0f}"


def _rows(res: dict) -> list[list[str]]:
    rows = []
    sequential, total = res.get("served_sequential", {}), res.get("served_all", {})
    for name in ["master", *map(str, res["workers"])]:
        idle, model, after, burst = (res[p].get(name, {}) for p in ("idle", "model", "questions", "burst"))
        role = "master" if name == "master" else f"worker {name}"
        served = ("–" if name == "master" else
                  f"{sequential.get(int(name), 0)} + {total.get(int(name), 0) - sequential.get(int(name), 0)}")
        growth = after.get("rss", float("nan")) - model.get("rss", float("nan"))
        rows.append([f"{res['size']:,}", role, _mb(idle.get("rss", float("nan"))), _mb(model.get("rss", float("nan"))),
                     served, _mb(after.get("rss", float("nan"))), _mb(burst.get("rss", float("nan"))),
                     _mb(burst.get("hwm", float("nan"))), ("–" if growth != growth else f"{growth:+,.0f}"),
                     _mb(burst.get("rss", float("nan")) - idle.get("rss", float("nan")))])
    workers = [str(w) for w in res["workers"]]
    total_rss = {p: sum(res[p][w]["rss"] for w in workers) + res[p]["master"]["rss"]
                 for p in ("idle", "model", "questions", "burst")}
    rows.append([f"{res['size']:,}", "**all (master + workers)**", _mb(total_rss["idle"]), _mb(total_rss["model"]),
                 f"{sum(sequential.values())} + {sum(total.values()) - sum(sequential.values())}",
                 _mb(total_rss["questions"]), _mb(total_rss["burst"]),
                 _mb(sum(res["burst"][w]["hwm"] for w in [*workers, "master"])),
                 f"{total_rss['questions'] - total_rss['model']:+,.0f}", _mb(total_rss["burst"] - total_rss["idle"])])
    return rows


def _latency_row(r: dict) -> list[str]:
    server = [t.get("server", {}) for t in r["timings"]]

    def stage(name: str) -> str:
        return med_p95([t[name] for t in server if name in t])

    return [f"{r['size']:,}", str(len(r["timings"])),
            med_p95([t["sources"] for t in r["timings"] if "sources" in t]),
            med_p95([t["done"] for t in r["timings"] if "done" in t]),
            stage("embed"), stage("search"), stage("fulltext"), stage("fuse"), stage("lexical"), stage("context"),
            med_p95([t["sources"] for t in r["burst_timings"] if "sources" in t]),
            f"{sum(t.get('status') != 200 for t in r['timings'])} / "
            f"{sum(t.get('status') != 200 for t in r['burst_timings'])}",
            f"{r['documents']:,}", f"{r['seed_s']:.1f}", r["build"].get("index_shape") or "–", r["load"]]


def _intro(share: dict, n_questions: int, burst: int) -> str:
    return (f"gunicorn as the Procfile's `web` line (gthread, 2 workers x 32 threads, no preload), real USE "
            f"embedder, hybrid retrieval (the default), stub LLM (first token after {STUB_TTFT * 1000:.0f} ms, "
            f"{STUB_RATE:g} tokens/s). MiB from `/proc/<pid>/status`: VmRSS after each phase; peak = VmHWM at the "
            f"end. Phases: idle (booted, one page served), model (`/readyz?deep=1` served by every worker: USE "
            f"loaded, table opened, no search), after {n_questions} sequential questions (`POST /api/v1/answer`, "
            f"streamed, areas 1-3 = ~15 % of the rows), after a burst of {burst} concurrent questions. `served` = "
            f"questions this worker answered, sequential + burst (from the access log). growth = after the "
            f"sequential questions − model loaded; `burst − idle` = everything a worker added since boot. "
            f"USE alone in a fresh interpreter: {share['before']:.0f} MiB before, {share['after']:.0f} MiB after "
            f"loading it (+{share['after'] - share['before']:.0f} MiB).")


def _memory_section(results: list[dict], share: dict, n_questions: int, burst: int) -> str:
    headers = ["chunks", "process", "idle RSS", "model loaded", "served", f"after {n_questions} questions",
               f"after +{burst} burst", "peak (VmHWM)", "growth (questions − model)", "burst − idle"]
    rows = [row for res in results for row in _rows(res)]
    return ("## Web-process memory at scale\n\n" + _intro(share, n_questions, burst) + "\n\n" + table(headers, rows)
            + "\n\nLatency in the web process, ms, median / p95: client-side time to the `sources` event (retrieval + "
              "database) and to `done` (with the stub's answer); `server:` the stage timings the app returns in the "
              "`done` event of the sequential questions:\n\n"
            + table(["chunks", "questions", "to sources", "to done", "server: embed", "server: search (vector leg)",
                     "server: fulltext", "server: fuse", "server: lexical", "server: `build_context` total",
                     "to sources in the burst", "failed (sequential / burst)", "Document rows",
                     "seed s", "vector index", "load avg at the end"], [_latency_row(r) for r in results]))


def _failure_section(results: list[dict]) -> list[str]:
    failures = [(r["size"], r["error_log"]) for r in results if r.get("error_log")]
    if not failures:
        return []
    size, lines = failures[0]
    cause = next((line for line in reversed(lines) if "Error" in line), lines[-1] if lines else "?")
    return [f"### Failed requests\n\nSome questions failed with HTTP 500 ({size:,} chunks; the last "
            f"line of the first traceback: `{cause.strip()}`). The first traceback in gunicorn's error "
            "log:\n\n```\n" + "\n".join(lines) + "\n```"]


def run(quick: bool = False, sizes: list[int] | None = None, questions: int | None = None,
        burst: int | None = None) -> str:
    """Measure the web workers' memory for each table size; return the Markdown report (also in bench/out/)."""
    sizes = sizes or ([100_000] if quick else [100_000, 1_000_000])
    n_questions = questions or (10 if quick else 50)
    burst = burst if burst is not None else (4 if quick else 16)
    machine_text = machine()
    share = model_share()
    log(f"USE alone in a fresh process: {share['before']:.0f} -> {share['after']:.0f} MiB")
    results = [measure_size(size, n_questions, burst, quick) for size in sizes]
    sections = ["## Machine\n\n" + machine_text, _memory_section(results, share, n_questions, burst),
                *_failure_section(results)]
    write_report("scale_memory", "IrisRAG web-process memory at 100k and 1M chunks", sections,
                 {"model_share": share, "results": results})
    return "\n\n".join(sections[1:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.scale_memory", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="100k only, 10 questions, a burst of 4")
    parser.add_argument("--sizes", default=None, help="comma-separated chunk counts (default 100000,1000000)")
    parser.add_argument("--questions", type=int, default=None, help="sequential questions (default 50)")
    parser.add_argument("--burst", type=int, default=None, help="concurrent questions after them (default 16)")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else None
    print(run(args.quick, sizes, args.questions, args.burst), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
