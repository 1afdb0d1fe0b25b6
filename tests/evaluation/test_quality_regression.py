"""Retrieval quality regression with the real default embedder on fixed subsets of the shared sets.

A change that loses quality (chunking, lexical normalisation, fusion, the embedder wiring)
fails here. Thresholds sit a little under the values measured on these subsets (printed by
the assertion messages), far above what a broken leg gives.
"""

import pytest

from irisrag.embeddings import UseEmbedder
from irisrag.evaluation import beir, runner

from .shared import SHARED_EVAL

SHARED = SHARED_EVAL / "xquad"
CASES = {  # set: (queries, stemming, least hybrid nDCG@10)
    "de-en": (80, "German", 0.88),  # German questions over English text: the vectors must carry it
    "de": (80, "German", 0.88),
}


@pytest.mark.skipif(not (SHARED / "de" / "corpus.jsonl").is_file(), reason="../shared/eval is not there")
@pytest.mark.parametrize("name", sorted(CASES))
def test_quality_hybrid_default_holds_on_a_fixed_subset(name, tmp_path):
    limit, language, least = CASES[name]
    dataset = beir.load(SHARED / name, limit=limit)
    report = runner.run(dataset, UseEmbedder(), runner.EvalOptions.original(fts_language=language), tmp_path)
    scores = {mode: round(result.metrics["ndcg@10"], 3) for mode, result in report.modes.items()}
    assert scores["hybrid"] >= least, scores
    assert scores["hybrid"] >= max(scores["vector"], scores["fulltext"]) - 0.02, scores  # subset noise: 0.01 holds on the full sets
