"""The app, `flask rag eval` and the quality regression test run the same retrieval values (config.py's)."""
from __future__ import annotations

import os

from irisrag import components, config, create_app
from irisrag.cli.evaluate import eval_options
from irisrag.rag.retrieve import RetrievalSettings
from tests.evaluation import test_quality_regression


def _app(monkeypatch, tmp_path, **overrides):
    for name in [n for n in os.environ if n.startswith("IRISRAG_") and not n.startswith(config.TOOLING_PREFIXES)]:
        monkeypatch.delenv(name)   # the app's defaults, whatever the shell sets
    return create_app({"SECRET_KEY": "k", "TESTING": True, "INSTANCE_PATH": str(tmp_path),
                       "DATABASE_URL": f"sqlite:///{tmp_path / 'x.db'}", **overrides})


def test_the_app_the_eval_and_the_quality_regression_test_run_the_same_values(monkeypatch, tmp_path):
    app = _app(monkeypatch, tmp_path, LANCEDB_URI=str(tmp_path / "lancedb"))
    with app.app_context():
        comps = components.get()
        retriever, evaluated = comps.retriever, eval_options(comps, "German")
        search_text = comps.store.search_text
    embedder, quality = test_quality_regression.options("German")
    assert retriever.settings == evaluated.settings == quality.settings == RetrievalSettings.from_config(config.DEFAULTS)
    assert evaluated.search_text == quality.search_text == search_text and search_text.compounds   # German: parts
    assert (evaluated.chunk_size, evaluated.chunk_overlap) == (quality.chunk_size, quality.chunk_overlap) == (700, 150)
    assert evaluated.words is comps.word_vectors is retriever.words and quality.words is not None
    assert comps.embedder.key == embedder.key == "use-m3-512"
    assert retriever.settings != RetrievalSettings.original()   # what the regression test measured before


def test_the_profile_follows_the_embedder_and_overrides_name_its_fields(monkeypatch, tmp_path):
    app = _app(monkeypatch, tmp_path, EMBEDDER="e5", GATE_TOP_DOCUMENTS=3)
    settings = RetrievalSettings.from_config(app.config)
    assert settings.gate.min_evidence == config.PROFILES["e5"]["GATE_MIN_EVIDENCE"] == 0.92
    assert settings.gate.top_documents == 3
    ollama = RetrievalSettings.from_config(_app(monkeypatch, tmp_path, EMBEDDER="ollama").config)
    assert ollama == RetrievalSettings.from_config(config.DEFAULTS)   # generic: USE's values until measured
