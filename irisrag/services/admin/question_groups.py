"""Group similar questions by their embedding vectors: greedy clustering with a cosine threshold.

Each question, in the order given, joins the group whose centroid (the normalised mean of its
members' vectors) is most similar to it when that cosine reaches the threshold, and starts a
group of its own otherwise. One pass, O(questions x groups): a few thousand questions group
in milliseconds. The threshold depends on the embedder (cosines of unrelated texts are near 0
for USE and near 0.85 for E5), so it is chosen by the embedder's key (``threshold_for``).
"""
from __future__ import annotations

import numpy as np

# Measured on German paraphrases (tests/services/test_question_groups.py): with USE, paraphrases of
# one question reach 0.62-0.87 and different questions stay below 0.55; E5's scale is compressed.
THRESHOLDS = {"use": 0.6, "e5": 0.94, "fake": 0.5}
DEFAULT_THRESHOLD = 0.75  # an embedder not measured here (Ollama, OpenAI-compatible)


def threshold_for(embedder_key: str) -> float:
    """Return the cosine threshold for an embedder key such as ``use-m3-512`` or ``fake-64``."""
    return THRESHOLDS.get(embedder_key.split("-", 1)[0], DEFAULT_THRESHOLD)


def group_vectors(vectors: np.ndarray, threshold: float) -> list[list[int]]:
    """Return groups of row indices of ``vectors`` (L2-normalised rows), each group in input order."""
    groups: list[list[int]] = []
    sums: list[np.ndarray] = []
    for index, vector in enumerate(np.asarray(vectors, dtype=np.float32)):
        best = _best_group(sums, vector, threshold)
        if best is None:
            groups.append([index])
            sums.append(vector.copy())
        else:
            groups[best].append(index)
            sums[best] += vector
    return groups


def _best_group(sums: list[np.ndarray], vector: np.ndarray, threshold: float) -> int | None:
    """Return the group whose centroid is most similar to ``vector`` if it reaches ``threshold``."""
    if not sums:
        return None
    centroids = np.stack(sums)
    centroids /= np.maximum(np.linalg.norm(centroids, axis=1, keepdims=True), 1e-12)
    cosines = centroids @ vector
    best = int(np.argmax(cosines))
    return best if cosines[best] >= threshold else None


def representative(vectors: np.ndarray, members: list[int]) -> int:
    """Return the member closest to the group's centroid (the first such on a tie)."""
    rows = np.asarray(vectors, dtype=np.float32)[members]
    centroid = rows.sum(axis=0)
    return members[int(np.argmax(rows @ centroid))]
