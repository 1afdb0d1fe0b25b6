"""The evaluation's embedding caches: a corpus run resumes after an interruption, rerankers embed lazily."""
from __future__ import annotations

import numpy as np
import pytest

from irisrag.embeddings import FakeEmbedder
from irisrag.evaluation import vectors


class Interrupted(Exception):
    pass


class CountingEmbedder(FakeEmbedder):
    """The hashed fake, counting texts; raises after ``fail_after`` document batches (an interrupted run)."""

    def __init__(self, fail_after: int | None = None) -> None:
        super().__init__(dim=16)
        self.documents, self.batches, self.fail_after = 0, 0, fail_after

    def embed_documents(self, texts):
        if self.fail_after is not None and self.batches >= self.fail_after:
            raise Interrupted
        self.batches += 1
        self.documents += len(texts)
        return super().embed_documents(texts)


def test_embed_chunks_resumes_where_an_interrupted_run_stopped(tmp_path, monkeypatch):
    monkeypatch.setattr(vectors, "FLUSH_SECONDS", 0.0)  # a shard after every batch
    texts = [f"chunk number {i}" for i in range(10)]
    cache = tmp_path / "chunks-x.npy"
    with pytest.raises(Interrupted):
        vectors.embed_chunks(CountingEmbedder(fail_after=3), texts, cache, batch_size=2)
    assert not cache.exists() and len(list((tmp_path / "chunks-x.parts").glob("*.npy"))) == 3
    lines: list[str] = []
    resumed = CountingEmbedder()
    result = vectors.embed_chunks(resumed, texts, cache, batch_size=2, progress=lines.append)
    assert resumed.documents == 4  # only the two batches the first run did not finish
    assert np.allclose(result, FakeEmbedder(dim=16).embed_documents(texts))
    assert cache.is_file() and not (tmp_path / "chunks-x.parts").exists()
    assert lines and "6/10 chunks" in lines[0] and "ETA" in lines[0]
    again = CountingEmbedder()
    assert np.array_equal(vectors.embed_chunks(again, texts, cache, batch_size=2), result) and again.documents == 0


def test_lazy_embedder_embeds_only_what_it_is_asked_and_charges_cached_texts(tmp_path):
    inner = CountingEmbedder()
    lazy = vectors.LazyEmbedder(inner, vectors.TextCache(tmp_path / "texts", 16))
    first = lazy.embed_documents(["a passage", "b passage", "a passage"])
    lazy.embed_query("question?")
    assert inner.documents == 3 and first.shape == (3, 16)  # two passages and the question
    assert lazy.take_cost() == 0.0  # nothing came from the cache yet
    lazy.cache.flush()
    reopened = vectors.LazyEmbedder(inner, vectors.TextCache(tmp_path / "texts", 16))
    assert np.array_equal(reopened.embed_documents(["a passage", "b passage", "a passage"]), first)
    reopened.embed_query("question?")
    assert inner.documents == 3  # all from the cache written before
    recorded = sum(reopened.cache.cost.values())
    assert reopened.take_cost() == pytest.approx(recorded) and recorded > 0
    assert reopened.take_cost() == 0.0
    wrong_dim = vectors.TextCache(tmp_path / "texts", 8)
    assert wrong_dim.vectors == {}  # another embedder's dimension is ignored, not misread


def test_meter_reports_rate_and_time_left():
    lines: list[str] = []
    meter = vectors.Meter("questions", 100, "questions", lines.append, every=0.0)
    meter.start -= 10.0  # ten seconds ago
    meter.update(20)
    assert lines == ["  questions: 20/100 questions, 2.0/s, ETA 40 s"]


def test_query_embeddings_batched_equal_single_calls(tmp_path):
    embedder = CountingEmbedder()
    questions = [f"question {i}?" for i in range(30)]
    batched, seconds = vectors.embed_queries(embedder, questions, tmp_path / "q.npz", batch_size=4)
    assert embedder.batches == 1 + vectors.TIMED_QUERIES + 3 and seconds > 0  # warm-up, 20 timed, 10 in batches of 4
    assert np.allclose(batched, np.stack([FakeEmbedder(dim=16).embed_query(q) for q in questions]))
