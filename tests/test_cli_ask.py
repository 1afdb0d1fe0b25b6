"""``flask rag ask``, the benchmarks and the checks, through the real command line."""
from __future__ import annotations

import json

import numpy as np
import pytest

from irisrag.embeddings import FakeEmbedder
from tests.conftest import make_app
from tests.services import BETA_SECRET, QUESTION, seed_library
from tests.support.http_stub import Reply
from tests.support.llm_servers import ollama_stream

MODEL = "llama-test:7b"


@pytest.fixture
def library(app):
    return seed_library(app)


def run(app, *args: str):
    return app.test_cli_runner().invoke(args=["rag", *args], catch_exceptions=False)


def test_cli_ask_json_has_answer_sources_context_and_timings(app, library):
    result = run(app, "ask", QUESTION, "--user", "alice", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert {"answer", "llm", "sources", "context", "timings"} <= set(data)
    assert data["llm"] == "none" and data["extractive"] is True
    assert "otel.yaml" in data["answer"] and BETA_SECRET not in result.output
    assert [(s["document_id"], s["name"], s["area"]) for s in data["sources"]] == [
        (library.alpha_doc, "otel-guide.md", "Alpha")]
    assert set(data["sources"][0]) == {"document_id", "name", "area", "score"} and data["sources"][0]["score"] > 0
    assert [(c["document_id"], c["chunk_index"]) for c in data["context"]] == [(library.alpha_doc, 0)]
    assert {"embed", "search", "llm", "total"} <= set(data["timings"])


def test_cli_ask_refuses_areas_the_user_may_not_query(app, library):
    for args in (["--area", "Beta"], ["--area", "Alpha", "--area", "Beta"]):
        result = run(app, "ask", QUESTION, "--user", "alice", *args)
        assert result.exit_code == 1
        assert "You may not query" in result.output and BETA_SECRET not in result.output
    assert run(app, "ask", QUESTION, "--user", "dave").exit_code == 1
    unknown = run(app, "ask", QUESTION, "--user", "nobody")
    assert unknown.exit_code == 1 and "There is no user" in unknown.output
    assert run(app, "ask", "x" * 4001, "--user", "alice").exit_code == 1


def test_cli_ask_continues_a_conversation_of_the_user_only(app, library):
    first = json.loads(run(app, "ask", QUESTION, "--user", "alice", "--json").output)
    conversation = first["conversation_id"]
    assert isinstance(conversation, int) and first["search_query"] == QUESTION
    alone = json.loads(run(app, "ask", "Und wo steht das?", "--user", "alice", "--json").output)
    assert alone["search_query"] == "Und wo steht das?" and alone["conversation_id"] != conversation
    follow = run(app, "ask", "Und wo steht das?", "--user", "alice", "--conversation", str(conversation), "--json")
    data = json.loads(follow.output)
    assert "OpenTelemetry" in data["search_query"] and "otel.yaml" in data["answer"]
    assert data["conversation_id"] == conversation
    foreign = run(app, "ask", "Und dort?", "--user", "carol", "--conversation", str(conversation))
    assert foreign.exit_code == 1 and "otel" not in foreign.output


def test_cli_ask_text_prints_answer_and_sources(app, library):
    result = run(app, "ask", QUESTION, "--user", "carol", "--area", "Alpha", "--no-llm")
    assert result.exit_code == 0, result.output
    assert "OpenTelemetry wird über die Datei otel.yaml konfiguriert. [1]" in result.output
    assert "Sources:\n  1. otel-guide.md  [Alpha]" in result.output
    assert "https://docs.example.org/otel" in result.output and BETA_SECRET not in result.output
    nothing = run(app, "ask", "Wann fährt der Zug nach Hamburg?", "--user", "alice")
    assert "No information was found in the context" in nothing.output and "No sources were found" in nothing.output
    closest = nothing.output.split("Closest documents", 1)[1]     # alice's one area, Alpha, only
    assert "otel-guide.md  [Alpha]" in closest and "policy.txt  [Alpha]" in closest and "beta-secret" not in closest
    as_json = json.loads(run(app, "ask", "Wann fährt der Zug nach Hamburg?", "--user", "alice", "--json").output)
    assert {n["name"] for n in as_json["nearest"]} == {"otel-guide.md", "policy.txt"} and as_json["sources"] == []


def test_cli_ask_with_ollama_reports_the_model_and_failures(tmp_path, database_url, redis_url, http_stub):
    http_stub.add("POST", "/api/chat", Reply(json={"message": {"content": "**otel.yaml** [1]"}}),
                  Reply(status=500, body="down"))
    app = make_app(tmp_path, database_url, redis_url, LLM="ollama", OLLAMA_URL=http_stub.url,
                   OLLAMA_CHAT_MODEL=MODEL)
    seed_library(app)
    data = json.loads(run(app, "ask", QUESTION, "--user", "alice", "--json").output)
    assert (data["answer"], data["llm"], data["extractive"]) == ("otel.yaml [1]", f"ollama:{MODEL}", False)
    assert http_stub.last("POST", "/api/chat").json["model"] == MODEL
    failed = run(app, "ask", QUESTION, "--user", "alice")
    assert failed.exit_code == 0
    assert "The language model reported an error." in failed.output and "HTTP 500" in failed.output


def test_cli_bench_context_prints_stage_statistics(app, library):
    result = run(app, "bench-context", QUESTION, "--runs", "3", "--k", "2", "--area", "Alpha")
    assert result.exit_code == 0, result.output
    assert "(3 runs, seconds)" in result.output and "candidates" in result.output
    for stage in ("embed", "search", "lexical", "select", "sources", "total"):
        assert any(line.split()[0] == stage and len(line.split()) == 4 for line in result.output.splitlines())
    assert result.output.startswith("2 candidates")
    assert run(app, "bench-context", QUESTION, "--area", "Nowhere").exit_code == 1


def test_cli_bench_context_no_embedding_embeds_once(app, library, monkeypatch):
    calls = []
    original = FakeEmbedder.embed_query

    def counting(self, text):
        calls.append(text)
        return original(self, text)

    monkeypatch.setattr(FakeEmbedder, "embed_query", counting)
    result = run(app, "bench-context-no-embedding", QUESTION, "--runs", "4")
    assert result.exit_code == 0, result.output
    assert calls == [QUESTION] and "embedded once" in result.output and "(4 runs, seconds)" in result.output
    calls.clear()
    run(app, "bench-context", QUESTION, "--runs", "4")
    assert len(calls) == 4


def test_cli_bench_ask_times_whole_answers(app, library):
    result = run(app, "bench-ask", QUESTION, "--user", "alice", "--runs", "2", "--no-llm")
    assert result.exit_code == 0, result.output
    assert "1 context chunks, 1 sources, llm none (extractive)" in result.output
    assert "(2 runs, seconds)" in result.output and "\nllm " in result.output and "\ntotal " in result.output
    assert run(app, "bench-ask", QUESTION, "--user", "alice", "--area", "Beta").exit_code == 1


def test_cli_check_embeddings_verifies_the_dimension(tmp_path, database_url, redis_url, http_stub):
    app = make_app(tmp_path, database_url, redis_url, EMBEDDER="ollama", OLLAMA_URL=http_stub.url,
                   OLLAMA_EMBED_MODEL="embed-test", EMBEDDING_DIM=4)
    http_stub.add("POST", "/api/embed", Reply(json={"embeddings": np.eye(2, 4).tolist()}),
                  Reply(json={"embeddings": np.eye(2, 3).tolist()}))
    ok = run(app, "check-embeddings")
    assert ok.exit_code == 0, ok.output
    assert "embed-test" in ok.output and http_stub.url in ok.output and "OK: 4-dimensional" in ok.output
    assert http_stub.last("POST", "/api/embed").json["model"] == "embed-test"
    wrong = run(app, "check-embeddings")
    assert wrong.exit_code == 1 and "3-dimensional vectors, expected 4" in wrong.output


def test_cli_check_llm_reports_model_and_latency(tmp_path, database_url, redis_url, http_stub, app):
    http_stub.add("POST", "/api/chat", ollama_stream(["OK"], model=MODEL), Reply(status=503, body="busy"))
    ollama = make_app(tmp_path / "o", database_url, redis_url, LLM="ollama", OLLAMA_URL=http_stub.url,
                      OLLAMA_CHAT_MODEL=MODEL)
    ok = run(ollama, "check-llm")
    assert ok.exit_code == 0, ok.output
    assert f"ollama:{MODEL}" in ok.output and http_stub.url in ok.output and "OK: the model replied as asked" in ok.output
    assert f"server:   model {MODEL}; first word after" in ok.output
    failed = run(ollama, "check-llm")
    assert failed.exit_code == 1 and "HTTP 503" in failed.output
    none = run(app, "check-llm")
    assert none.exit_code == 1 and "No language model is configured" in none.output


def test_cli_ask_lists_the_cited_documents_as_sources_and_the_others_apart(capsys):
    from irisrag.cli.ask import _echo_result
    from irisrag.rag.answer_types import AskResult, CitationView, SourceView

    result = AskResult("?", (1,), "extractive", answer_text="x [1]", shown_text="x [1]",
                       sources=tuple(SourceView(i, f"doc{i}.md", 1, "Alpha", None, None, 1.0, ()) for i in (1, 2)),
                       citations=(CitationView(1, "c", 2, 0, "", None, 1, "doc2.md", "…"),))
    _echo_result(result)
    out = capsys.readouterr().out
    assert "Sources:\n  1. doc2.md" in out and "Other matches (not cited in the answer):\n  1. doc1.md" in out
