"""Optional second stage: re-order the top of the fused candidate list (RERANKER setting).

``none`` (default)  the fused order stands.
``embedder``        a second, stronger embedder (RERANK_EMBEDDER, default the built-in e5)
                    scores the question against each of the top RERANK_TOP_N chunks; the new
                    order mixes its min-max scaled cosine with the fused order's position
                    (RERANK_WEIGHT is the reranker's share). For installations that keep the
                    fast default embedder for imports and pay e5's cost only at question time.
``llm``             the configured LLM reads the question and the top RERANK_TOP_N chunks and
                    lists the useful ones, best first; those move to the front in its order,
                    the rest keep their fused order behind them.

A reranker never drops a candidate and never fails a question: on any error it logs and
returns the fused order. Only ranks change; each hit keeps its cosine ``score``.
"""
from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol

import numpy as np

from irisrag.vectors.store import Hit

log = logging.getLogger(__name__)

KINDS = ("none", "embedder", "llm")
JUDGE_MAX_TOKENS = 64  # a list of passage numbers
PASSAGE_CHARS = 600  # of each chunk shown to the LLM judge (chunks are at most 700)

JUDGE_PROMPT = (
    "You rank search results. Read the question and the numbered passages. Reply with the numbers "
    "of the passages that help to answer the question, most helpful first, separated by commas "
    "(for example: 3, 1, 4). Leave out passages that do not help. Reply with numbers only."
)


class Reranker(Protocol):
    name: str

    def rerank(self, question: str, hits: Sequence[Hit]) -> list[Hit]: ...


def _reordered(hits: Sequence[Hit], head_order: Sequence[int], top_n: int) -> list[Hit]:
    """Return the hits with the first ``top_n`` in ``head_order``, ranks renumbered from 0."""
    head, tail = list(hits[:top_n]), list(hits[top_n:])
    ordered = [head[i] for i in head_order] + tail
    return [replace(hit, rank=rank) for rank, hit in enumerate(ordered)]


class EmbedderReranker:
    """Re-score the top chunks with another embedder, mixed with the fused order."""

    def __init__(self, embedder, top_n: int = 20, weight: float = 0.7) -> None:
        self.embedder = embedder
        self.top_n = max(1, int(top_n))
        self.weight = min(max(float(weight), 0.0), 1.0)
        self.name = f"embedder:{getattr(embedder, 'key', type(embedder).__name__)}"

    def scores(self, question: str, hits: Sequence[Hit]) -> np.ndarray:
        """Return the reranking embedder's cosine of the question to each hit's text."""
        query = np.asarray(self.embedder.embed_query(question), dtype=np.float32).reshape(-1)
        passages = np.asarray(self.embedder.embed_documents([h.text for h in hits]), dtype=np.float32)
        norms = np.linalg.norm(passages, axis=1) * max(float(np.linalg.norm(query)), 1e-12)
        return passages @ query / np.maximum(norms, 1e-12)

    def rerank(self, question: str, hits: Sequence[Hit]) -> list[Hit]:
        head = list(hits[:self.top_n])
        if len(head) < 2:
            return list(hits)
        try:
            cosine = self.scores(question, head)
        except Exception as exc:  # the fused order is a fine answer; never fail the question
            log.warning("event=rerank_failed reranker=%s error=%s", self.name, exc)
            return list(hits)
        spread = float(cosine.max() - cosine.min())
        scaled = (cosine - cosine.min()) / spread if spread > 0 else np.zeros_like(cosine)
        prior = 1.0 - np.arange(len(head), dtype=np.float32) / len(head)
        mixed = self.weight * scaled + (1.0 - self.weight) * prior
        order = sorted(range(len(head)), key=lambda i: (-mixed[i], i))
        return _reordered(hits, order, self.top_n)


def judged_order(reply: str, count: int) -> list[int]:
    """Return the 0-based passage indexes the judge listed, in its order, valid and unique."""
    order: list[int] = []
    for token in re.findall(r"\d+", reply or ""):
        index = int(token) - 1
        if 0 <= index < count and index not in order:
            order.append(index)
    return order


class LLMReranker:
    """Ask the LLM which of the top chunks help, best first; move those to the front."""

    def __init__(self, llm, top_n: int = 20) -> None:
        self.llm = llm
        self.top_n = max(1, int(top_n))
        self.name = f"llm:{getattr(llm, 'name', type(llm).__name__)}"

    def messages(self, question: str, hits: Sequence[Hit]) -> list[dict[str, str]]:
        passages = "\n\n".join(f"[{n}] {' '.join(h.text.split())[:PASSAGE_CHARS]}" for n, h in enumerate(hits, 1))
        return [{"role": "system", "content": JUDGE_PROMPT},
                {"role": "user", "content": f"Question: {question}\n\nPassages:\n\n{passages}"}]

    def rerank(self, question: str, hits: Sequence[Hit]) -> list[Hit]:
        head = list(hits[:self.top_n])
        if len(head) < 2:
            return list(hits)
        try:
            reply = self.llm.chat(self.messages(question, head), max_tokens=JUDGE_MAX_TOKENS)
        except Exception as exc:
            log.warning("event=rerank_failed reranker=%s error=%s", self.name, exc)
            return list(hits)
        listed = judged_order(str(reply), len(head))
        if not listed:
            log.warning("event=rerank_unparsed reranker=%s reply=%r", self.name, str(reply)[:200])
            return list(hits)
        order = listed + [i for i in range(len(head)) if i not in listed]
        return _reordered(hits, order, self.top_n)


def build_reranker(config: Mapping[str, Any], *, llm=None, embedder_factory=None) -> Reranker | None:
    """Return the configured reranker, or None for ``none``.

    ``llm`` is the app's LLM (for ``llm``); ``embedder_factory(kind)`` builds the reranking
    embedder (for ``embedder``).
    """
    kind = str(config.get("RERANKER", "none")).strip().lower()
    top_n = int(config.get("RERANK_TOP_N", 20))
    if kind == "none":
        return None
    if kind == "llm":
        return LLMReranker(llm, top_n)
    if kind == "embedder":
        return EmbedderReranker(embedder_factory(str(config.get("RERANK_EMBEDDER", "e5"))), top_n,
                                float(config.get("RERANK_WEIGHT", 0.7)))
    raise ValueError(f"unknown reranker {kind!r}; one of {', '.join(KINDS)}")
