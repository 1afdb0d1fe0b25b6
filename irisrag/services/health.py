"""Readiness checks for load balancers and supervisors: each dependency answers or says why not."""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from irisrag import components
from irisrag.extensions import db


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    seconds: float


def _timed(name: str, probe: Callable[[], str]) -> Check:
    began = time.perf_counter()
    try:
        detail = probe()
        ok = True
    except Exception as exc:  # a readiness probe reports every failure, it never raises
        detail, ok = f"{type(exc).__name__}: {exc}", False
    return Check(name, ok, detail, round(time.perf_counter() - began, 4))


def _database() -> str:
    db.execute_sql("SELECT 1")
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


def readiness(*, deep: bool = False) -> list[Check]:
    """Check database, Redis and LanceDB; with ``deep`` also call the embedder."""
    checks = [_timed("database", _database), _timed("redis", _redis), _timed("lancedb", _lancedb)]
    if deep:
        checks.append(_timed("embedder", _embedder))
    return checks
