"""Retrieval quality regression with the real default embedder on fixed subsets of the shared sets.

A change that loses quality (chunking, lexical normalisation, fusion, the embedder wiring)
fails here. Thresholds sit a little under the values measured on these subsets (printed by
the assertion messages), far above what a broken leg gives.

It measures the configuration the app runs: the app's settings without environment
(``config.DEFAULTS``: the `use` profile, the German full-text index with its compound parts,
the term bridge with the word list), as ``flask rag eval`` does (``cli/evaluate.eval_options``;
tests/test_settings_in_force.py shows the three are the same). Where the shared sets are
missing it skips, and fails in CI (CI=true or IRISRAG_TEST_REQUIRE_ALL=1).
"""
import os

import pytest

from irisrag import config
from irisrag.embeddings import UseEmbedder
from irisrag.evaluation import beir, runner
from irisrag.rag.bridge import WordVectors
from tests.conftest import missing

from .shared import SHARED_EVAL

SHARED = SHARED_EVAL / "xquad"
CASES = {  # set: (queries, stemming, least hybrid nDCG@10)
    "de-en": (80, "German", 0.88),  # German questions over English text: the vectors must carry it
    "de": (80, "German", 0.88),
}


def options(language: str) -> tuple[UseEmbedder, runner.EvalOptions]:
    """The default embedder and the app's own settings, with the set's full-text language."""
    embedder = UseEmbedder()
    return embedder, runner.EvalOptions.from_config(config.DEFAULTS, words=WordVectors(embedder.embed_documents),
                                                    fts_language=language)


def shared_sets():
    """The shared sets' folder; skips without them, and fails in CI."""
    if not (SHARED / "de" / "corpus.jsonl").is_file():
        if os.environ.get("CI") == "true":
            pytest.fail(f"required in CI: the shared evaluation sets are not at {SHARED_EVAL}")
        missing(f"the shared evaluation sets are not at {SHARED_EVAL} (../shared/eval)")
    return SHARED


@pytest.mark.parametrize("name", sorted(CASES))
def test_quality_hybrid_default_holds_on_a_fixed_subset(name, tmp_path):
    limit, language, least = CASES[name]
    dataset = beir.load(shared_sets() / name, limit=limit)
    embedder, settings = options(language)
    report = runner.run(dataset, embedder, settings, tmp_path)
    scores = {mode: round(result.metrics["ndcg@10"], 3) for mode, result in report.modes.items()}
    assert scores["hybrid"] >= least, scores
    assert scores["hybrid"] >= max(scores["vector"], scores["fulltext"]) - 0.02, scores  # subset noise: 0.01 holds on the full sets
