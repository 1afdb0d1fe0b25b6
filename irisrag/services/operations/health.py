"""Readiness checks for load balancers and supervisors: each dependency answers or says why not.

The database (its document table is read), Redis and LanceDB (its chunks are counted against
the document records: far fewer means the store lost data) are always checked. ``deep`` adds
the embedder (embeds a probe text) and the language model: its client's ``probe``, a cheap GET
of its model list (Ollama ``/api/tags``, OpenAI-compatible ``/models``) within LLM_PROBE_TIMEOUT,
never a generation, which must list the configured model. Each check has a ``state``: ``up``,
``down``, or for the model ``busy`` (it accepted the connection but did not answer in time:
a server busy generating, not a dead one) and ``missing`` (the model is not listed). The LLM is
not ``required``: without it answers fall back to the best passages, so a model that is down
is reported but leaves the service ready.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from irisrag import components
from irisrag.errors import LLMModelNotFound, LLMTimeout, LLMUnavailable
from irisrag.extensions import db
from irisrag.llm import auto as llm_auto


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    seconds: float
    required: bool = True
    state: str = ""  # up, down; for the model also busy or missing


LLM_PROBE_TIMEOUT = 3.0
WARMING_UP = "warming_up"  # the state of the warm-up check while the process loads what a question needs
# Imports replace a document's chunks before its row is updated, so the two counts may differ
# for a moment by one document; under half of the recorded chunks is damage, not a race.
MIN_STORED_SHARE = 0.5


def _timed(name: str, probe: Callable[[], str], *, required: bool = True) -> Check:
    began = time.perf_counter()
    try:
        detail, ok, state = probe(), True, "up"
    except Exception as exc:  # a readiness probe reports every failure, it never raises
        detail, ok, state = f"{type(exc).__name__}: {exc}", False, _STATES.get(type(exc).__name__, "down")
    return Check(name, ok, detail, round(time.perf_counter() - began, 4), required, state)


def _database() -> str:
    """Read the document table itself: a damaged or unreadable table fails every question."""
    from irisrag.models import Document

    opened = db.connect(reuse_if_open=True)  # the ops blueprint opens no connection for the request
    try:
        documents = Document.select(Document.id).count()
    finally:
        if opened:
            db.close()
    return f"{type(db.obj).__name__}, {documents} documents"


def _redis() -> str:
    from irisrag.jobs import queue

    queue.check()
    return "ping ok"


def recorded_chunks() -> int:
    """Return the chunks the document records say the current embedder's table holds."""
    from peewee import fn

    from irisrag.models import Document

    key = components.get().embedder.key
    opened = db.connect(reuse_if_open=True)
    try:
        total = Document.select(fn.SUM(Document.chunk_count)).where(Document.embedder_key == key).scalar()
    finally:
        if opened:
            db.close()
    return int(total or 0)


def _lancedb() -> str:
    """Count the stored chunks and compare them with the records: far fewer means data was lost."""
    stored = components.get().store.count()
    try:
        recorded = recorded_chunks()
    except Exception:  # the database check reports that; this one is about the store
        return f"{stored} chunks (records not readable)"
    if recorded and stored < recorded * MIN_STORED_SHARE:
        raise RuntimeError(f"{stored} chunks stored, {recorded} on record: the vector store lost data "
                           "(restore it from a backup, or `flask rag rebuild --all`)")
    return f"{stored} chunks ({recorded} on record)"


def _embedder() -> str:
    embedder = components.get().embedder
    vector = embedder.embed_query("readiness")
    if vector.shape != (embedder.dim,):
        raise RuntimeError(f"answered {vector.shape}, expected ({embedder.dim},)")
    return embedder.key


class ModelBusy(RuntimeError):
    """The model's server accepted the connection but did not answer in time."""


class ModelMissing(RuntimeError):
    """The model's server answers but does not list the configured model."""


_STATES = {"ModelBusy": "busy", "ModelMissing": "missing"}


def _llm() -> str:
    # The client's message leaves the URL out: /readyz answers without a login.
    llm = llm_auto.chat_model(components.get().llm)
    try:
        llm.probe(LLM_PROBE_TIMEOUT)  # type: ignore[union-attr]
    except LLMTimeout as exc:
        raise ModelBusy(exc.message) from None
    except LLMModelNotFound as exc:
        raise ModelMissing(exc.message) from None
    except LLMUnavailable as exc:
        raise RuntimeError(exc.message) from None
    return f"{components.get().config['LLM']}: {getattr(llm, 'model', '')} is listed"


def _warmup() -> Check | None:
    """The process's warm-up (``warmup.py``): not ready while it runs; a failed one is reported, not required."""
    from flask import current_app

    from irisrag.services.operations import warmup

    state = warmup.state_of(current_app)
    if state is None:
        return None
    seconds = round(time.monotonic() - state.started, 4) if state.seconds is None else state.seconds
    if state.state == warmup.RUNNING:
        return Check("warmup", False, "warming up", seconds, True, WARMING_UP)
    if state.state == warmup.FAILED:
        return Check("warmup", False, state.error or "failed", seconds, False, "down")
    return Check("warmup", True, f"warmed up: {state.steps}", seconds, True, "up")


def status(checks: list[Check]) -> str:
    """The readiness answer's status: ready, warming up (only the warm-up is pending) or unavailable."""
    if ready(checks):
        return "ready"
    failing = [c for c in checks if c.required and not c.ok]
    return "warming up" if all(c.state == WARMING_UP for c in failing) else "unavailable"


def ready(checks: list[Check]) -> bool:
    """Return whether every required check passed."""
    return all(c.ok or not c.required for c in checks)


def readiness(*, deep: bool = False) -> list[Check]:
    """Check the warm-up (where one runs), database, Redis and LanceDB; with ``deep`` also the embedder and a configured LLM (not required)."""
    checks = [_timed("database", _database), _timed("redis", _redis), _timed("lancedb", _lancedb)]
    warming = _warmup()
    if warming is not None:
        checks.insert(0, warming)
    if deep:
        checks.append(_timed("embedder", _embedder))
        if callable(getattr(llm_auto.chat_model(components.get().llm), "probe", None)):  # none: extractive by design
            checks.append(_timed("llm", _llm, required=False))
    return checks
