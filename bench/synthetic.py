"""Synthetic chunk tables: clustered unit vectors and text from a seeded vocabulary (no corpus, no model).

Vectors: ``clusters`` random centres in ``dim`` dimensions, each row a centre plus Gaussian
noise, normalised. Text: 60-word chunks drawn from a 5,000-word vocabulary with Zipf-like
frequencies, the chunk's cluster adding its own 20 topic words, so full-text search has common
and rare words as real text does. Documents of 10 chunks, round-robin over ``areas`` areas.
Questions: 6 words of a random chunk and that chunk's vector with noise.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

VOCABULARY = 5000
CHUNK_WORDS = 60
TOPIC_WORDS = 20
CHUNKS_PER_DOCUMENT = 10
SYLLABLES = ("ka", "lo", "mi", "ne", "ru", "sa", "te", "vo", "zi", "ber", "den", "gal", "hor", "kin", "mar", "pol",
             "rin", "sto", "tur", "wen")


def vocabulary(n: int = VOCABULARY, seed: int = 11) -> list[str]:
    """Return n distinct pronounceable words (seeded)."""
    rng = np.random.default_rng(seed)
    words: dict[str, None] = {}
    while len(words) < n:
        words["".join(rng.choice(SYLLABLES, size=int(rng.integers(2, 5))))] = None
    return list(words)


@dataclass
class Synthetic:
    """A reproducible synthetic corpus of ``rows`` chunks."""

    rows: int
    dim: int = 512
    areas: int = 20
    clusters: int = 400
    seed: int = 5

    def __post_init__(self) -> None:
        rng = np.random.default_rng(self.seed)
        self.words = vocabulary()
        self.centres = rng.standard_normal((self.clusters, self.dim)).astype(np.float32)
        self.topics = rng.integers(0, len(self.words), size=(self.clusters, TOPIC_WORDS))
        ranks = np.arange(1, len(self.words) + 1, dtype=np.float64)
        self.weights = (1 / ranks) / (1 / ranks).sum()

    def documents(self, batch_documents: int = 1000) -> Iterator[list[tuple[int, int, list[str], np.ndarray]]]:
        """Yield batches of (document id, area id, chunk texts, vectors)."""
        count = -(-self.rows // CHUNKS_PER_DOCUMENT)
        for first in range(0, count, batch_documents):
            yield [self.document(d) for d in range(first, min(count, first + batch_documents))]

    def document(self, doc: int) -> tuple[int, int, list[str], np.ndarray]:
        rng = np.random.default_rng((self.seed, doc))
        n = min(CHUNKS_PER_DOCUMENT, self.rows - doc * CHUNKS_PER_DOCUMENT)
        cluster = rng.integers(0, self.clusters, size=n)
        vectors = self.centres[cluster] * 0.35 + rng.standard_normal((n, self.dim)).astype(np.float32) * 0.06
        texts = [self._text(rng, int(c)) for c in cluster]
        return doc + 1, doc % self.areas + 1, texts, vectors.astype(np.float32)

    def _text(self, rng: np.random.Generator, cluster: int) -> str:
        common = rng.choice(len(self.words), size=CHUNK_WORDS - 12, p=self.weights)
        topic = rng.choice(self.topics[cluster], size=12)
        order = rng.permutation(np.concatenate([common, topic]))
        return " ".join(self.words[i] for i in order)

    def questions(self, n: int, seed: int = 9) -> list[tuple[str, np.ndarray]]:
        """n (question text, question vector) pairs, each from a random chunk."""
        rng = np.random.default_rng(seed)
        out = []
        for _ in range(n):
            doc_id, _area, texts, vectors = self.document(int(rng.integers(0, self.rows // CHUNKS_PER_DOCUMENT)))
            words = texts[0].split()
            picked = [words[i] for i in rng.choice(len(words), size=6, replace=False)]
            vector = vectors[0] + rng.standard_normal(self.dim).astype(np.float32) * 0.03
            out.append((" ".join(picked), vector / np.linalg.norm(vector)))
        return out


def fill(store, corpus: Synthetic) -> None:
    """Append the corpus to a VectorStore (one commit per batch of documents)."""
    import pyarrow as pa

    from irisrag.vectors.store import ChunkIn

    for batch in corpus.documents():
        tables = [store.arrow_rows(doc, area, [ChunkIn(i, t) for i, t in enumerate(texts)], vectors)
                  for doc, area, texts, vectors in batch]
        store.append(pa.concat_tables(tables))
