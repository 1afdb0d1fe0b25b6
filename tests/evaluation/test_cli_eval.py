"""``flask rag eval`` end to end with the app's (fake) embedder, kept runs and no trace in the app."""
from __future__ import annotations

import json

from irisrag.extensions import db
from irisrag.models import EvalRun

from .test_metrics import write_dataset


def _dataset(tmp_path):
    corpus = [{"_id": f"d{i}", "title": f"Dokument {i}", "text": text} for i, text in enumerate([
        "Der Exporter sendet Metriken an den Collector.",
        "Urlaubsanträge werden im Portal gestellt.",
        "Reisekosten erstattet die Buchhaltung monatlich.",
        "Berechtigungen vergibt die Administration pro Gruppe.",
    ])]
    queries = [{"_id": "q1", "text": "Wohin sendet der Exporter Metriken?"},
               {"_id": "q2", "text": "Wer erstattet Reisekosten?"},
               {"_id": "q3", "text": "Wo stelle ich Urlaubsanträge?"}]
    return write_dataset(tmp_path / "eval" / "tiny", corpus, queries, [("q1", "d0", 1), ("q2", "d2", 1), ("q3", "d1", 1)])


def test_cli_eval_json_keeps_runs_and_leaves_no_trace(app, tmp_path):
    path, scratch = _dataset(tmp_path), tmp_path / "scratch"
    runner = app.test_cli_runner()
    result = runner.invoke(args=["rag", "eval", str(path), "--scratch", str(scratch), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["dataset"], data["split"], data["queries"]) == ("tiny", "test", 3)
    assert (data["embedder"], data["fts_language"], data["documents"], data["chunks"]) == ("fake-64", "German", 4, 4)
    assert set(data["prepare_seconds"]) == {"chunk", "embed", "write", "index"}
    assert data["settings"]["gate"]["rule"] == "evidence" and data["settings"]["caps"]["context_chunks"] == 9
    assert data["settings"]["caps"]["context_spread"] is True and "word_list_found" in data["settings"]["bridge"]
    assert data["settings"]["fulltext"]["titles"] is True and "compounds_found" in data["settings"]["fulltext"]
    assert set(data["modes"]) == {"vector", "fulltext", "hybrid"}
    for mode in data["modes"].values():
        assert {"ndcg@10", "recall@5", "recall@10", "recall@100", "mrr@10", "p@5", "timings", "context_recall",
                "sources_recall", "empty_context_rate"} <= set(mode)
        assert 0.0 <= mode["ndcg@10"] <= 1.0 and mode["timings"]["total"] > 0
        assert "offtopic_empty_rate" not in mode  # no --negatives
    # q3 "Wo stelle ich Urlaubsanträge?" shares one term with its document ("gestellt" keeps its own stem):
    # score 1.5 fails the lexical rule; the default gate (evidence) passes it: its document covers the term.
    assert (data["modes"]["fulltext"]["context_recall"], data["modes"]["fulltext"]["empty_context_rate"]) == (1.0, 0.0)
    with app.app_context(), db.connection_context():
        runs = list(EvalRun.select().order_by(EvalRun.id))
        assert [r.mode for r in runs] == ["vector", "fulltext", "hybrid"]
        assert runs[0].embedder_key == "fake-64" and runs[0].queries == 3
        assert runs[1].metrics["ndcg@10"] == 1.0 and runs[2].params["fusion"]["method"] == "convex"
        assert runs[0].params["fts_language"] == "German"
    assert not (tmp_path / "lancedb").exists()              # the app's LanceDB was never opened
    assert [p.name for p in scratch.iterdir()] == ["cache"]  # the scratch LanceDB is gone

    again = runner.invoke(args=["rag", "eval", str(path), "--scratch", str(scratch), "--mode", "vector"])
    assert again.exit_code == 0, again.output
    lines = again.stdout.splitlines()
    assert lines[0].startswith("tiny (test): 3 queries, 4 documents")
    assert any(line.startswith("vector ") for line in lines)
    change = next(line for line in lines if line.lstrip().startswith("change"))
    assert "+0.0000" in change and "-0.0000" not in change  # same settings, same numbers, never -0
    other = runner.invoke(args=["rag", "eval", str(path), "--scratch", str(scratch), "--mode", "vector",
                                "--fts-language", "English", "--json"])
    assert other.exit_code == 0, other.output
    assert "change" not in json.loads(other.stdout)["modes"]["vector"]  # other settings: not compared
    app.config["GATE_RULE"] = "lexical"  # the original's gate drops q3's only candidate chunk
    original = runner.invoke(args=["rag", "eval", str(path), "--scratch", str(scratch), "--mode", "fulltext", "--json"])
    fulltext = json.loads(original.stdout)["modes"]["fulltext"]
    assert (fulltext["context_recall"], fulltext["empty_context_rate"], fulltext["ndcg@10"]) == (0.6667, 0.3333, 1.0)
    assert "change" not in fulltext  # another gate: not compared with the default gate's runs
    with app.app_context(), db.connection_context():
        assert EvalRun.select().count() == 6


def test_cli_eval_refuses_a_directory_without_the_split(app, tmp_path):
    path = _dataset(tmp_path)
    result = app.test_cli_runner().invoke(args=["rag", "eval", str(path), "--split", "dev",
                                                "--scratch", str(tmp_path / "s")])
    assert result.exit_code == 1 and "BEIR" in result.output


def test_cli_eval_scores_a_reranker_and_query_expansion_as_extra_modes(app, tmp_path):
    from irisrag import components
    from irisrag.llm.clients import FakeLLM

    path, scratch = _dataset(tmp_path), tmp_path / "scratch"
    judge = FakeLLM(lambda messages: "Exporter Metriken Collector" if "keywords" in messages[0]["content"] else "2, 1")
    app.extensions["irisrag"].__dict__["llm"] = judge  # the cached LLM of this app: a scripted one
    runner = app.test_cli_runner()
    result = runner.invoke(args=["rag", "eval", str(path), "--scratch", str(scratch), "--mode", "hybrid",
                                 "--rerank", "llm", "--expand", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert list(data["modes"]) == ["hybrid", "hybrid+rerank", "hybrid+expand"]
    assert data["modes"]["hybrid+rerank"]["timings"]["rerank"] > 0
    assert data["modes"]["hybrid+expand"]["timings"]["expand"] > 0
    judged = [m for m in judge.calls if m[0]["content"].startswith("You rank")]
    assert len(judged) == 3 and "Wohin sendet der Exporter" in judged[0][1]["content"]
    with app.app_context(), db.connection_context():
        rerun = EvalRun.get(EvalRun.mode == "hybrid+rerank")
        assert rerun.params["reranker"]["name"] == "llm:fake" and rerun.params["reranker"]["top_n"] == 20
        assert components.get().llm is judge

    app.config["RERANK_EMBEDDER"] = "fake"  # the app's own embedder: no second model in a unit test
    embedded = runner.invoke(args=["rag", "eval", str(path), "--scratch", str(scratch), "--mode", "hybrid",
                                   "--rerank", "embedder", "--json"])
    assert embedded.exit_code == 0, embedded.output
    assert json.loads(embedded.stdout)["modes"]["hybrid+rerank"]["ndcg@10"] > 0


def test_cli_eval_off_topic_questions_get_nothing_and_the_per_query_lines_show_the_evidence(app, tmp_path):
    path, scratch = _dataset(tmp_path), tmp_path / "scratch"
    off = write_dataset(tmp_path / "eval" / "other", [{"_id": "x", "text": "Die Kantine öffnet um elf."}],
                        [{"_id": "o1", "text": "Welche Farbe hat der Himmel am Abend?"},
                         {"_id": "o2", "text": "Wie hoch ist der Eiffelturm in Paris?"}],
                        [("o1", "x", 1), ("o2", "x", 1)])
    lines = tmp_path / "per-query.jsonl"
    result = app.test_cli_runner().invoke(args=["rag", "eval", str(path), "--scratch", str(scratch), "--mode", "hybrid",
                                                "--negatives", str(off), "--per-query", str(lines), "--json"])
    assert result.exit_code == 0, result.output
    hybrid = json.loads(result.stdout)["modes"]["hybrid"]
    assert hybrid["offtopic_empty_rate"] == 1.0 and hybrid["context_recall"] == 1.0
    records = [json.loads(line) for line in lines.read_text(encoding="utf-8").splitlines()]
    assert [r["set"] for r in records] == ["judged"] * 3 + ["hybrid off-topic"] * 2
    chunks = [c for r in records[:3] for doc in r["relevant"].values() for c in doc["chunks"]]
    assert chunks and all(c["gate"] is None and c["evidence"] >= 0.36 for c in chunks)  # the gate's evidence, per chunk
    assert all(r["empty_context"] for r in records[3:])
