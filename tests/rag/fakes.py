"""In-test fakes for retrieval: an exact-cosine store and deterministic embedders."""
from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

import numpy as np

from irisrag.vectors.store import Hit

DIM = 64


def unit(similarity: float, dim: int = DIM, axis: int = 1) -> np.ndarray:
    """Return a unit vector with the given cosine to the first axis (the fake question vector)."""
    vector = np.zeros(dim, dtype=np.float32)
    vector[0] = similarity
    vector[axis] = math.sqrt(max(0.0, 1.0 - similarity * similarity))
    return vector


class AxisEmbedder:
    """Embed every question as the first axis; count the calls."""

    key = "fake-axis-64"
    dim = DIM

    def __init__(self) -> None:
        self.calls: list[str] = []

    def embed_query(self, text: str) -> np.ndarray:
        self.calls.append(text)
        return unit(1.0)


class HashEmbedder:
    """Deterministic hashed bag of words, L2-normalised."""

    key = "fake-hash-64"
    dim = DIM

    def __init__(self) -> None:
        self.calls: list[str] = []

    def _vector(self, text: str) -> np.ndarray:
        vector = np.zeros(DIM, dtype=np.float32)
        for word in text.lower().split():
            vector[int(hashlib.sha256(word.encode()).hexdigest(), 16) % DIM] += 1.0
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm else vector

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self._vector(t) for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        self.calls.append(text)
        return self._vector(text)


class FakeStore:
    """Exact cosine over an in-memory matrix; the area filter applies before top-k."""

    def __init__(self) -> None:
        self.rows: list[tuple[int, int, int, int | None, str]] = []
        self.vectors: list[np.ndarray] = []
        self.calls: list[tuple[np.ndarray, tuple[int, ...], int]] = []

    def add(self, document_id: int, area_id: int, chunk_index: int, text: str,
            vector: np.ndarray, page: int | None = None) -> None:
        self.rows.append((document_id, area_id, chunk_index, page, text))
        self.vectors.append(np.asarray(vector, dtype=np.float32))

    def search(self, vector: np.ndarray, area_ids: Sequence[int], k: int) -> list[Hit]:
        self.calls.append((vector, tuple(area_ids), k))
        allowed = [i for i, row in enumerate(self.rows) if row[1] in set(area_ids)]
        if not allowed:
            return []
        matrix = np.stack([self.vectors[i] for i in allowed])
        scores = matrix @ np.asarray(vector, dtype=np.float32)
        order = np.argsort(-scores, kind="stable")[:k]
        return [Hit(*self.rows[allowed[j]], score=float(scores[j]), rank=rank) for rank, j in enumerate(order)]
