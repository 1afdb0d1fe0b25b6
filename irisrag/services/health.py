"""Readiness checks for load balancers and supervisors: each dependency answers or says why not.

The database, Redis and LanceDB are always checked. ``deep`` adds the embedder (embeds a
probe text) and the language model: its client's ``probe``, a cheap GET of its model list
(Ollama ``/api/tags``, OpenAI-compatible ``/models``), never a generation. The LLM is not ``required``: without it
answers fall back to the best passages, so an unreachable LLM is reported but leaves the
service ready.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from irisrag import components
from irisrag.errors import LLMUnavailable
from irisrag.extensions import db


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    seconds: float
    required: bool = True


LLM_PROBE_TIMEOUT = 3.0


def _timed(name: str, probe: Callable[[], str], *, required: bool = True) -> Check:
    began = time.perf_counter()
    try:
        detail = probe()
        ok = True
    except Exception as exc:  # a readiness probe reports every failure, it never raises
        detail, ok = f"{type(exc).__name__}: {exc}", False
    return Check(name, ok, detail, round(time.perf_counter() - began, 4), required)


def _database() -> str:
    opened = db.connect(reuse_if_open=True)  # the ops blueprint opens no connection for the request
    try:
        db.execute_sql("SELECT 1")
    finally:
        if opened:
            db.close()
    return type(db.obj).__name__


def _redis() -> str:
    components.get().redis.ping()
    return "ping ok"


def _lancedb() -> str:
    store = components.get().store
    return f"{store.count()} chunks"


def _embedder() -> str:
    embedder = components.get().embedder
    vector = embedder.embed_query("readiness")
    if vector.shape != (embedder.dim,):
        raise RuntimeError(f"answered {vector.shape}, expected ({embedder.dim},)")
    return embedder.key


def _llm() -> str:
    # The client's message leaves the URL out: /readyz answers without a login.
    try:
        components.get().llm.probe(LLM_PROBE_TIMEOUT)
    except LLMUnavailable as exc:
        raise RuntimeError(exc.message) from None
    return f"{components.get().config['LLM']} answers"


def ready(checks: list[Check]) -> bool:
    """Return whether every required check passed."""
    return all(c.ok or not c.required for c in checks)


def readiness(*, deep: bool = False) -> list[Check]:
    """Check database, Redis and LanceDB; with ``deep`` also the embedder and a configured LLM (not required)."""
    checks = [_timed("database", _database), _timed("redis", _redis), _timed("lancedb", _lancedb)]
    if deep:
        checks.append(_timed("embedder", _embedder))
        if callable(getattr(components.get().llm, "probe", None)):  # no model: answers are extractive by design
            checks.append(_timed("llm", _llm, required=False))
    return checks
