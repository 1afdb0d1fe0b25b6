"""The embedder's vectors of answer units, kept per process for the next use of the same text.

Retrieval scores a context's units once to decide whether it holds an answer
(``extractive.unanswered``), and the extractive answer scores the same units again to choose
its sentences: the second pass reads them from here. Each embedder keeps the last ``SIZE``
texts (an LRU; a unit vector of the default embedder is 2 KiB, so at most ~8 MiB); an embedder
that cannot be weakly referenced is asked every time.
"""
from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from typing import Protocol

import numpy as np

SIZE = 4096


class PassageEmbedder(Protocol):
    def embed_documents(self, texts: Sequence[str]) -> np.ndarray: ...


_caches: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def embedded(texts: Sequence[str], embedder: PassageEmbedder) -> np.ndarray:
    """Return the texts' vectors (rows in order), embedding only those not kept from an earlier call."""
    cache = _cache_of(embedder)
    if cache is None:
        return np.asarray(embedder.embed_documents(list(texts)), dtype=np.float32)
    with _lock:
        found = {text: cache[text] for text in texts if text in cache}
        for text in found:
            cache.move_to_end(text)
    missing = list(dict.fromkeys(text for text in texts if text not in found))
    if missing:
        vectors = np.asarray(embedder.embed_documents(missing), dtype=np.float32)
        found.update(zip(missing, vectors, strict=True))
        with _lock:
            cache.update(zip(missing, vectors, strict=True))
            while len(cache) > SIZE:
                cache.popitem(last=False)
    return np.stack([found[text] for text in texts])


def _cache_of(embedder: PassageEmbedder) -> OrderedDict | None:
    try:
        with _lock:
            return _caches.setdefault(embedder, OrderedDict())
    except TypeError:   # not weakly referable or not hashable
        return None
