"""What real model servers do that simple stubs did not: keep-alives, length limits, interruptions, refusals.

Each test drives the real clients over HTTP on 127.0.0.1 against ``tests.support.llm_servers``,
replies as llama-cpp-python's OpenAI-compatible server and Ollama send them.
"""
from __future__ import annotations

import json
import time

import pytest

from irisrag.errors import LLMBrokeOff, LLMContextTooLong, LLMCutOff, LLMModelNotFound, LLMTimeout
from irisrag.extensions import db
from irisrag.llm.clients import OllamaLLM, OpenAILLM
from irisrag.rag import outcome as answer_outcome
from irisrag.services.asking import asking
from irisrag.services.operations import health
from tests.conftest import make_app
from tests.services import QUESTION, add_document, seed_library
from tests.support.http_stub import Reply
from tests.support.llm_servers import (
    context_exceeded,
    ollama_line,
    ollama_stream,
    ollama_tags,
    openai_chunk,
    openai_models,
    openai_reply,
    openai_stream,
)

MESSAGES = [{"role": "user", "content": "Was ist X?"}]
WORDS = ["X ", "ist ", "Y [1]"]
CHAT = "/v1/chat/completions"


def openai(stub, **limits) -> OpenAILLM:
    return OpenAILLM(stub.url + "/v1", "", "smollm2", **{"timeout": 10, **limits})


# --- the clients -----------------------------------------------------------------------


def test_keepalives_before_the_first_token_do_not_stretch_the_first_token_deadline(http_stub):
    http_stub.add("POST", CHAT, openai_stream(WORDS, keepalives=40, keepalive_delay=0.1))
    started = time.monotonic()
    with pytest.raises(LLMTimeout) as info:
        list(openai(http_stub, first_token_timeout=0.5).stream(MESSAGES))
    assert time.monotonic() - started < 3.0  # the server's first word comes after 4 s of keep-alives
    assert info.value.message == "The language model did not send its first word within 0.5 s"


def test_a_stream_that_keeps_writing_is_cut_at_the_total_deadline(http_stub):
    http_stub.add("POST", CHAT, openai_stream(["w "] * 400, word_delay=0.01, keepalives=3, keepalive_delay=0.1))
    started, received = time.monotonic(), []
    with pytest.raises(LLMTimeout) as info:
        received.extend(openai(http_stub, timeout=1.0, first_token_timeout=0.8).stream(MESSAGES))
    assert time.monotonic() - started < 3.0 and received  # the server would write for over 4 s
    assert info.value.message == "The language model did not finish its answer within 1 s"


def test_an_abandoned_stream_is_closed_so_the_server_stops_writing(http_stub):
    produced = []

    def endless():
        for i in range(3000):
            produced.append(i)
            yield openai_chunk("w ")
            yield ""
            time.sleep(0.005)

    http_stub.add("POST", CHAT, Reply(lines=endless(), content_type="text/event-stream"))
    with pytest.raises(LLMTimeout):
        list(openai(http_stub, timeout=0.5).stream(MESSAGES))
    time.sleep(0.3)
    stopped_at = len(produced)
    time.sleep(0.3)
    assert len(produced) == stopped_at < 1000  # the server noticed the closed connection


def test_every_request_carries_the_token_limit(http_stub):
    http_stub.add("POST", CHAT, openai_reply("kurz"))
    http_stub.add("POST", "/api/chat", Reply(json=ollama_line("kurz", done=True)))
    assert openai(http_stub, max_tokens=300).chat(MESSAGES) == "kurz"
    assert http_stub.last("POST", CHAT).json["max_tokens"] == 300
    assert OllamaLLM(http_stub.url, "llama3", max_tokens=300).chat(MESSAGES, max_tokens=12) == "kurz"
    assert http_stub.last("POST", "/api/chat").json["options"] == {"num_predict": 12}


def test_openai_finish_reason_length_is_a_cut_off_answer(http_stub):
    http_stub.add("POST", CHAT, openai_stream(WORDS, finish="length"), openai_reply("X ist", finish="length"))
    received = []
    with pytest.raises(LLMCutOff) as info:
        received.extend(openai(http_stub).stream(MESSAGES))
    assert received == WORDS and info.value.partial == "X ist Y [1]"
    with pytest.raises(LLMCutOff) as info:
        openai(http_stub).chat(MESSAGES)
    assert info.value.partial == "X ist" and "length" in info.value.detail


def test_ollama_done_reason_length_is_a_cut_off_answer(http_stub):
    http_stub.add("POST", "/api/chat", ollama_stream(WORDS, done_reason="length"),
                  Reply(json=ollama_line("X ist", done=True, done_reason="length")))
    llm = OllamaLLM(http_stub.url, "llama3", timeout=10)
    received = []
    with pytest.raises(LLMCutOff):
        received.extend(llm.stream(MESSAGES))
    assert received == WORDS
    with pytest.raises(LLMCutOff) as info:
        llm.chat(MESSAGES)
    assert info.value.partial == "X ist"


def test_done_marker_without_a_finish_reason_is_an_interrupted_answer(http_stub):
    """llama-cpp-python interrupts a request for the next one and ends it with ``[DONE]`` alone."""
    http_stub.add("POST", CHAT, openai_stream(WORDS[:2], finish=None))
    received = []
    with pytest.raises(LLMBrokeOff) as info:
        received.extend(openai(http_stub).stream(MESSAGES))
    assert received == WORDS[:2] and "[DONE] without a finish reason" in info.value.detail


def test_context_length_refusal_is_named_on_both_paths(http_stub):
    http_stub.add("POST", CHAT, context_exceeded())
    for call in (lambda llm: list(llm.stream(MESSAGES)), lambda llm: llm.chat(MESSAGES)):
        with pytest.raises(LLMContextTooLong) as info:
            call(openai(http_stub))
        assert "context_length_exceeded" in info.value.detail


def test_probe_needs_the_configured_model_in_the_list(http_stub):
    http_stub.add("GET", "/v1/models", openai_models("other-model"), openai_models("other-model", "smollm2"))
    with pytest.raises(LLMModelNotFound) as info:
        openai(http_stub).probe(2.0)
    assert "other-model" in info.value.message
    openai(http_stub).probe(2.0)
    http_stub.add("GET", "/api/tags", ollama_tags("qwen2:latest"), ollama_tags("llama3:latest"))
    with pytest.raises(LLMModelNotFound):
        OllamaLLM(http_stub.url, "llama3").probe(2.0)
    OllamaLLM(http_stub.url, "llama3").probe(2.0)


# --- what the user is told --------------------------------------------------------------


@pytest.fixture
def openai_app(tmp_path, database_url, redis_url, http_stub):
    app = make_app(tmp_path, database_url, redis_url, LLM="openai", OPENAI_BASE_URL=http_stub.url + "/v1",
                   OPENAI_CHAT_MODEL="smollm2", LLM_TIMEOUT=5.0, LLM_FIRST_TOKEN_TIMEOUT=0.5)
    library = seed_library(app)
    with app.app_context(), db.connection_context():
        yield app, library


def streamed(library) -> list:
    return list(asking.stream(library.users["alice"], QUESTION, None))


def test_a_cut_off_answer_is_incomplete_and_says_so(openai_app, http_stub):
    app, library = openai_app
    http_stub.add("POST", CHAT, openai_stream(["otel.yaml ", "[1] und"], finish="length"),
                  openai_reply("otel.yaml [1] und", finish="length"))
    last = streamed(library)[-1]
    assert isinstance(last, asking.Error) and last.message == answer_outcome.LLM_CUT_OFF
    assert last.result.status == asking.INCOMPLETE and last.partial == "otel.yaml [1] und"
    whole = asking.ask(library.users["alice"], QUESTION, None)
    assert (whole.status, whole.error, whole.answer_text) == (asking.INCOMPLETE, answer_outcome.LLM_CUT_OFF,
                                                              "otel.yaml [1] und")


def test_an_interrupted_stream_is_incomplete_not_answered(openai_app, http_stub):
    app, library = openai_app
    http_stub.add("POST", CHAT, openai_stream(["otel.yaml ", "[1]"], finish=None))
    last = streamed(library)[-1]
    assert isinstance(last, asking.Error) and last.result.status == asking.INCOMPLETE
    assert last.message == answer_outcome.LLM_INTERRUPTED


@pytest.mark.parametrize(("reply", "error", "notice"), [
    (context_exceeded(), answer_outcome.LLM_CONTEXT_TOO_LONG, answer_outcome.FALLBACK_CONTEXT_TOO_LONG),
    (openai_stream(WORDS, keepalives=60, keepalive_delay=0.1), answer_outcome.LLM_TIMEOUT,
     answer_outcome.FALLBACK_TIMEOUT),
    (Reply(status=404, json={"error": {"message": "The model `smollm2` does not exist",
                                       "code": "model_not_found"}}),
     answer_outcome.LLM_MODEL_NOT_FOUND, answer_outcome.FALLBACK_MODEL_NOT_FOUND),
])
def test_a_fallback_on_the_streaming_path_names_its_cause(openai_app, http_stub, reply, error, notice):
    app, library = openai_app
    http_stub.add("POST", CHAT, reply)
    started = time.monotonic()
    result = streamed(library)[-1].result
    assert time.monotonic() - started < 4.5  # keep-alives for 6 s do not hold the answer
    assert (result.status, result.error, result.notice) == (asking.EXTRACTIVE, error, notice)
    assert "otel.yaml" in result.answer_text and answer_outcome.NO_LLM not in (result.notice, result.error)


def test_model_urls_are_links_only_when_the_passages_have_them(openai_app, http_stub):
    app, library = openai_app
    http_stub.add("POST", CHAT, openai_reply("Siehe [Anleitung](https://evil.example/x) und "
                                             "<https://docs.example.org/otel> [1]."))
    add_document(library.alpha, "links.md", ["OpenTelemetry wird konfiguriert: https://docs.example.org/otel."])
    result = asking.ask(library.users["alice"], QUESTION, None)
    assert 'href="https://evil.example/x"' not in result.answer_html
    assert "Anleitung (https://evil.example/x)" in result.answer_html
    assert '<a href="https://docs.example.org/otel"' in result.answer_html  # a passage has it


# --- readiness and the checks -----------------------------------------------------------


def test_readyz_deep_reports_a_missing_model_and_a_busy_server(tmp_path, database_url, redis_url, http_stub,
                                                              monkeypatch):
    app = make_app(tmp_path, database_url, redis_url, LLM="openai", OPENAI_BASE_URL=http_stub.url + "/v1",
                   OPENAI_CHAT_MODEL="smollm2")
    monkeypatch.setattr(health, "LLM_PROBE_TIMEOUT", 0.3)
    http_stub.add("GET", "/v1/models", openai_models("some-other.gguf"), Reply(json={}, delay=2.0),
                  openai_models("smollm2"))
    states = []
    for _ in range(3):
        resp = app.test_client().get("/readyz?deep=1")
        assert resp.status_code == 200  # the model is not required: answers fall back to the passages
        llm = next(c for c in resp.json["checks"] if c["name"] == "llm")
        states.append((llm["ok"], llm["state"]))
        assert http_stub.url not in llm["detail"]
    assert states == [(False, "missing"), (False, "busy"), (True, "up")]


def run(app, *args: str):
    return app.test_cli_runner().invoke(args=["rag", *args], catch_exceptions=False)


def test_check_llm_fails_when_the_model_does_not_reply_as_asked(tmp_path, database_url, redis_url, http_stub):
    http_stub.add("POST", CHAT, openai_stream(["OK"], model="SmolLM2-135M-Instruct.gguf"),
                  openai_stream(["Hello", "! How", " can I"], finish="length"))
    app = make_app(tmp_path, database_url, redis_url, LLM="openai", OPENAI_BASE_URL=http_stub.url + "/v1",
                   OPENAI_CHAT_MODEL="smollm2")
    ok = run(app, "check-llm")
    assert ok.exit_code == 0, ok.output
    assert "model SmolLM2-135M-Instruct.gguf" in ok.output and "first word after" in ok.output
    assert "OK: the model replied as asked" in ok.output
    assert http_stub.last("POST", CHAT).json["max_tokens"] == 8
    wrong = run(app, "check-llm")
    assert wrong.exit_code == 1 and "did not reply as asked" in wrong.output and "Hello! How can I" in wrong.output


def test_cli_ask_json_has_the_citation_fields_and_the_status(tmp_path, database_url, redis_url, http_stub):
    http_stub.add("POST", CHAT, openai_reply("Über otel.yaml [1][7]."), openai_reply("Über otel.yaml [1]",
                                                                                 finish="length"))
    app = make_app(tmp_path, database_url, redis_url, LLM="openai", OPENAI_BASE_URL=http_stub.url + "/v1")
    seed_library(app)
    data = json.loads(run(app, "ask", QUESTION, "--user", "alice", "--json").output)
    assert (data["status"], data["incomplete"], data["invalid_citations"]) == (asking.ANSWERED, False, [7])
    assert [c["number"] for c in data["citations"]] == [1] and data["unsupported"] == []
    assert {"chunk_id", "document_id", "document_sha256", "text"} <= set(data["citations"][0])
    cut = json.loads(run(app, "ask", QUESTION, "--user", "alice", "--json").output)
    assert (cut["status"], cut["incomplete"]) == (asking.INCOMPLETE, True)
    assert "cut off at the length limit" in cut["error"]


# --- the small calls: limits, and expansion toward the documents' language -------------------


def test_judge_and_expansion_ask_for_few_tokens():
    from irisrag.llm.clients import FakeLLM
    from irisrag.rag import expand, rerank
    from irisrag.vectors.store import Hit

    judge, keywords = FakeLLM("2, 1"), FakeLLM("otel collector")
    hits = [Hit(1, 1, i, None, f"Text {i}", 0.5, i) for i in range(3)]
    rerank.LLMReranker(judge).rerank(QUESTION, hits)
    expand.LLMQueryExpander(keywords).expand(QUESTION)
    assert judge.limits == [rerank.JUDGE_MAX_TOKENS] and keywords.limits == [expand.MAX_TOKENS]
    assert max(rerank.JUDGE_MAX_TOKENS, expand.MAX_TOKENS) <= 128


def test_expansion_translates_toward_the_language_of_the_stored_documents():
    from irisrag.llm.clients import FakeLLM
    from irisrag.rag import expand, language

    assert language.detect("The collector is configured in the file otel.yaml, which is read at start.") == "English"
    assert language.detect("Der Collector wird in der Datei otel.yaml konfiguriert, die beim Start gelesen wird.") \
        == "German"
    assert language.detect("otel.yaml") is None

    class Store:
        def count_by_document(self):
            return {1: 2, 2: 1}

        def chunks_of(self, document_id):
            from irisrag.vectors.store import Hit
            return [Hit(document_id, 1, 0, None, "The service is started with the command and it reads the "
                        "settings from the file that is named in the unit.", 0.0, 0)]

    llm = FakeLLM("otel collector")
    expander = expand.build_expander({"QUERY_EXPANSION": "llm", "FTS_LANGUAGE": "German"}, llm=llm, store=Store())
    expander.expand("Wie wird der Dienst gestartet?")
    assert "translation into English" in llm.calls[0][0]["content"]
    empty = expand.build_expander({"QUERY_EXPANSION": "llm", "FTS_LANGUAGE": "German"}, llm=llm,
                                  store=type("Empty", (), {"count_by_document": lambda self: {}})())
    assert empty.language == "German"  # nothing to tell: the full-text setting
