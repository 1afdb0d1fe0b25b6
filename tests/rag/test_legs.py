"""The vector leg runs beside the full-text leg (``rag/legs.py``)."""
from __future__ import annotations

import os
import threading

import pytest

from irisrag.rag import legs
from irisrag.rag.retrieve import RetrievalSettings, build_context

from .fakes import HashEmbedder, unit
from .test_rerank import TextStore


class MeetingStore(TextStore):
    """Each leg waits until the other has started: run one after the other, the first would wait in vain."""

    def __init__(self) -> None:
        super().__init__()
        self.vector_started, self.text_started = threading.Event(), threading.Event()
        self.threads: set[str] = set()

    def search(self, vector, area_ids, k):
        self.vector_started.set()
        self.threads.add(threading.current_thread().name)
        assert self.text_started.wait(5), "the full-text leg did not start while the vector leg ran"
        return super().search(vector, area_ids, k)

    def search_fulltext(self, text, area_ids, k, *, vector=None):
        self.text_started.set()
        assert self.vector_started.wait(5), "the vector leg did not start while the full-text leg ran"
        return super().search_fulltext(text, area_ids, k, vector=vector)


def test_a_hybrid_question_searches_both_legs_at_once():
    store = MeetingStore()
    store.add(1, 1, 0, "Das Passwort ändern Sie mit passwd.", unit(0.3))
    context = build_context("Wie ändere ich das Passwort?", [1], embedder=HashEmbedder(), store=store,
                            settings=RetrievalSettings.original(mode="hybrid"))
    assert [c.hit.document_id for c in context.chunks] == [1]
    assert any(name.startswith("vector-leg") for name in store.threads)
    assert context.timings["search"] > 0 and context.timings["fulltext"] > 0


def test_a_vector_question_searches_in_the_asking_thread():
    store = TextStore()
    store.add(1, 1, 0, "Das Passwort ändern Sie mit passwd.", unit(0.3))
    seen = []
    search = store.search
    store.search = lambda *a: seen.append(threading.current_thread()) or search(*a)
    build_context("Wie ändere ich das Passwort?", [1], embedder=HashEmbedder(), store=store,
                  settings=RetrievalSettings.original(mode="vector"))
    assert seen == [threading.current_thread()]


def test_a_failing_vector_leg_fails_the_question():
    store = TextStore()
    store.add(1, 1, 0, "Das Passwort ändern Sie mit passwd.", unit(0.3))

    def broken(*args):
        raise RuntimeError("the table is gone")
    store.search = broken
    with pytest.raises(RuntimeError, match="the table is gone"):
        build_context("Wie ändere ich das Passwort?", [1], embedder=HashEmbedder(), store=store,
                      settings=RetrievalSettings.original(mode="hybrid"))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork")
def test_a_forked_child_gets_its_own_pool():
    parent = legs._executor()
    assert legs.started(lambda name: _nothing(), "search", lambda: 1).result() == 1
    pid = os.fork()
    if pid == 0:   # the child: a pool of its own, which runs
        ok = legs._executor() is not parent and legs.started(lambda name: _nothing(), "search", lambda: 2).result(5) == 2
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def _nothing():
    from contextlib import nullcontext

    return nullcontext()
