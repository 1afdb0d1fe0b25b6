"""Load what a question needs when a web process starts, in a background thread (issue 41, item 1).

A fresh web process otherwise loads the embedder, opens the LanceDB table, reads its index
metadata and the full-text index's reader, and builds the retrieval wiring (term bridge, stemmers)
on the first question someone asks. ``start`` does it in a daemon thread right after the app is
built (``wsgi.py``: each gunicorn worker, after its fork); readiness (``/readyz``) answers
"warming up" until it is done, so a load balancer sends questions elsewhere meanwhile.

With LanceDB on S3, ``start`` also makes this process read a local mirror of the table
(``irisrag.vectors.mirror``); the store step waits for its first copy before warming it.

The warm-up asks one probe question through the app's own retriever over every area (no
reranker, no query expansion: those would call a model), so every reader a real question
touches is open afterwards. Then it fills the term bridge's word vectors (``bridge.WordVectors``)
with the WARM_WORDS commonest content words of the first WARM_SAMPLE stored chunks: the bridge
embeds the words of a question's first candidates it has not seen, which made the first ready
question 2.5x a warm one (bench/README.md, the first question after a restart). Last it parses
the German thesaurus the bridge looks unknown nouns up in. A failed warm-up is logged and reported, never fatal: the first
question then loads what is missing itself, as before.

A process that exits while its warm-up runs (a worker restarted at once, a probe) first lets
the step in progress end (``atexit``, at most EXIT_WAIT_SECONDS) and runs no further step: the
interpreter otherwise stops a daemon thread wherever it is, and one stopped inside a native
call that catches every exception (Arrow's C++) aborted the process ("FATAL: exception not
rethrown", SIGABRT; seen once in CI).
"""
from __future__ import annotations

import atexit
import logging
import os
import threading
import time
from collections import Counter
from dataclasses import dataclass, field, replace

from flask import Flask

from irisrag import components
from irisrag.extensions import db

log = logging.getLogger(__name__)
EXTENSION = "irisrag_warmup"
PROBE_QUESTION = "Wie funktioniert die Suche? How does the search work?"
WARM_SAMPLE = 5_000    # chunks whose words are counted (one scan of the text column)
WARM_WORDS = 6_000     # ... and the commonest of their content words embedded (about 3 s of USE)
RUNNING, DONE, FAILED = "running", "done", "failed"
EXIT_WAIT_SECONDS = 30.0   # how long an exiting process waits for the warm-up step in progress


@dataclass
class WarmupState:
    """What the warm-up of this process did: ``state`` running | done | failed, seconds per step."""

    state: str = RUNNING
    started: float = field(default_factory=time.monotonic)
    seconds: float | None = None
    error: str | None = None
    steps: dict[str, float] = field(default_factory=dict)
    stop: threading.Event = field(default_factory=threading.Event, repr=False)   # the process is exiting


def _area_ids() -> list[int]:
    """Every area's id (the probe question searches them all)."""
    from irisrag.models import Area

    opened = db.connect(reuse_if_open=True)
    try:
        return [int(a.id) for a in Area.select(Area.id)]
    finally:
        if opened:
            db.close()


def _embedder() -> None:
    components.get().embedder.embed_query(PROBE_QUESTION)


def _store() -> None:
    components.get().store.warm()


def _question() -> None:
    areas = _area_ids()
    if areas:
        retriever = replace(components.get().retriever, reranker=None, expander=None)
        retriever.context(PROBE_QUESTION, areas)


def common_words(texts: list[str], most: int) -> list[str]:
    """The ``most`` content words (as the term bridge reads them) found in most of the texts."""
    from irisrag.rag.bridge import content_words

    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(content_words(text).keys())
    return [word for word, _ in counts.most_common(most)]


def _words() -> None:
    words = components.get().retriever.words
    if words is not None:
        words(common_words(components.get().store.sample_texts(WARM_SAMPLE), WARM_WORDS))


def _synonyms() -> None:
    """The term bridge's German synonyms (``rag/thesaurus.py``, ~0.7 s to parse), where it reads German."""
    from irisrag.rag import thesaurus

    if components.get().retriever.settings.bridge.word_list() is not None:
        thesaurus.load()


STEPS = (("embedder", _embedder), ("store", _store), ("question", _question), ("words", _words),
         ("synonyms", _synonyms))


def _run(app: Flask, state: WarmupState) -> None:
    try:
        with app.app_context():
            for name, step in STEPS:
                if state.stop.is_set():
                    return
                began = time.monotonic()
                step()
                state.steps[name] = round(time.monotonic() - began, 3)
        state.state = DONE
    except Exception as exc:  # the first question loads what is missing itself
        state.error, state.state = f"{type(exc).__name__}: {exc}", FAILED
        log.warning("event=warmup_failed error=%s", state.error)
    state.seconds = round(time.monotonic() - state.started, 3)
    log.info("event=warmup state=%s seconds=%.3f steps=%s", state.state, state.seconds, state.steps)


def start(app: Flask) -> threading.Thread | None:
    """Start the warm-up of this process in a daemon thread; None if it already ran or runs here."""
    current = app.extensions.get(EXTENSION)
    if current is not None and current[0] == os.getpid():
        return None
    state = WarmupState()
    app.extensions[EXTENSION] = (os.getpid(), state)  # a forked child starts its own
    app.extensions["irisrag"].read_from_mirror()  # LanceDB on S3: read a local copy (irisrag.vectors.mirror)
    thread = threading.Thread(target=_run, args=(app, state), name="irisrag-warmup", daemon=True)
    thread.start()
    atexit.register(_stop, state, thread)
    return thread


def _stop(state: WarmupState, thread: threading.Thread) -> None:
    """At exit: no further warm-up step; the one in progress may end (EXIT_WAIT_SECONDS)."""
    state.stop.set()
    thread.join(EXIT_WAIT_SECONDS)


def state_of(app: Flask) -> WarmupState | None:
    """This process's warm-up, None where none was started (CLI, tests, a child of a preloading master)."""
    current = app.extensions.get(EXTENSION)
    return current[1] if current is not None and current[0] == os.getpid() else None
