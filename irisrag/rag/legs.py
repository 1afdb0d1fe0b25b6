"""The vector leg runs beside the full-text leg: a hybrid question waits for the slower of the two, not their sum.

So does the term bridge's second vector search (the question in the documents' words) beside its second
full-text search.

LanceDB does a search's work in its own native threads and releases the GIL while the Python
side waits, so the vector search (a quantised scan of the index's partitions) and the full-text
search (BM25 over the inverted index) can use two cores at once. Measured at 1M chunks on two
cores (bench/README.md, "Hybrid context at 1M chunks"). Each process has its own pool, made on
first use: a forked RQ work horse does not inherit its parent's threads, so it must not inherit
a pool that believes it has them.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager
from typing import Any, TypeVar

T = TypeVar("T")
WORKERS = 16   # vector searches at once per process; more questions at once wait for a free one

_pool: tuple[int, ThreadPoolExecutor] | None = None
_lock = threading.Lock()


def started(stage: Callable[[str], AbstractContextManager[Any]], name: str, search: Callable[..., T], *args: Any,
            alone: bool = False) -> Future[T]:
    """Start ``search(*args)`` timed as the stage ``name`` (``beside``) and return its future."""
    return beside(_timed, stage, name, search, *args, alone=alone)


def beside(call: Callable[..., T], *args: Any, alone: bool = False) -> Future[T]:
    """Start ``call(*args)`` in the process's pool and return its future; ``alone``: at once, in this thread (no
    other search runs meanwhile), its exception raised here."""
    if alone:
        done: Future[T] = Future()
        done.set_result(call(*args))
        return done
    return _executor().submit(call, *args)


def _timed(stage: Callable[[str], AbstractContextManager[Any]], name: str, search: Callable[..., T], *args: Any) -> T:
    with stage(name):
        return search(*args)


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None or _pool[0] != os.getpid():
            _pool = (os.getpid(), ThreadPoolExecutor(WORKERS, thread_name_prefix="vector-leg"))
        return _pool[1]
