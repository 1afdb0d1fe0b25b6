"""The asking use case: areas computed per call, validation, fallback, view objects."""
from __future__ import annotations

import pytest

from irisrag import components
from irisrag.errors import EmbeddingError, Forbidden, ValidationError
from irisrag.extensions import db
from irisrag.llm.clients import FakeLLM
from irisrag.rag import outcome as answer_outcome
from irisrag.rag.answer import NO_CONTEXT_MESSAGE, NO_LLM_MESSAGE
from irisrag.services.admin import admin as admin_service
from irisrag.services.asking import asking
from irisrag.vectors.store import Hit
from tests.conftest import make_app
from tests.services import BETA_SECRET, QUESTION, add_document
from tests.support.http_stub import closed_port


def assert_no_beta(result, library):
    assert library.beta not in result.area_ids
    assert all(s.area_id != library.beta and s.document_id != library.beta_doc for s in result.sources)
    assert all(c.area_id != library.beta and c.document_id != library.beta_doc for c in result.context)
    assert BETA_SECRET not in result.answer_text and BETA_SECRET not in result.answer_html
    assert all(BETA_SECRET not in p.text for s in result.sources for p in s.passages)


def test_questions_ask_searches_only_the_users_areas(library, ctx):
    result = asking.ask(library.users["alice"], QUESTION, None)
    assert result.area_ids == (library.alpha,)
    assert [s.document_id for s in result.sources] == [library.alpha_doc]
    assert_no_beta(result, library)
    both = asking.ask(library.users["carol"], QUESTION, None)
    assert {s.document_id for s in both.sources} == {library.alpha_doc, library.beta_doc}


def test_questions_ask_refuses_a_named_foreign_area(library, ctx):
    for requested in ([library.beta], [library.alpha, library.beta]):
        with pytest.raises(Forbidden):
            asking.ask(library.users["alice"], QUESTION, requested)
    relaxed = asking.ask(library.users["alice"], QUESTION, [library.alpha, library.beta], strict=False)
    assert relaxed.area_ids == (library.alpha,)
    with pytest.raises(Forbidden):
        asking.ask(library.users["dave"], QUESTION, None)
    with pytest.raises(ValidationError):
        asking.ask(library.users["alice"], QUESTION, [])


def test_questions_web_drops_foreign_selections_silently(library, ctx):
    crafted = asking.ask_from_web(library.users["alice"], QUESTION, [library.beta])
    assert crafted.status == asking.NO_AREA and crafted.error == asking.NO_AREA_SELECTED
    assert crafted.sources == () and crafted.context == () and crafted.answer_text == ""
    mixed = asking.ask_from_web(library.users["alice"], QUESTION, [library.alpha, library.beta])
    assert mixed.area_ids == (library.alpha,) and mixed.sources
    assert_no_beta(mixed, library)
    none = asking.ask_from_web(library.users["dave"], QUESTION, [library.alpha])
    assert none.error == asking.NO_AREA_PERMITTED


def test_questions_permissions_are_recomputed_on_every_call(library, ctx):
    carol = library.users["carol"]
    assert library.beta in asking.ask_from_web(carol, QUESTION, [library.alpha, library.beta]).area_ids
    admin_service.unlink_user("carol", "team-b")
    after = asking.ask_from_web(carol, QUESTION, [library.alpha, library.beta])
    assert after.area_ids == (library.alpha,)
    assert_no_beta(after, library)
    with pytest.raises(Forbidden):
        asking.ask(carol, QUESTION, [library.beta])


def test_questions_validate_the_question(library, ctx):
    alice = library.users["alice"]
    for text in ("", "   \n ", None):
        result = asking.ask_from_web(alice, text, [library.alpha])
        assert (result.status, result.error) == (asking.INVALID, asking.EMPTY_QUESTION)
    long = asking.ask_from_web(alice, "x" * 4001, [library.alpha])
    assert long.error == asking.QUESTION_TOO_LONG and long.sources == ()
    assert asking.ask_from_web(alice, "OpenTelemetry " + "x" * 3986, [library.alpha]).status != asking.INVALID
    with pytest.raises(ValidationError, match="too long"):
        asking.ask(alice, "x" * 4001, None)
    with pytest.raises(ValidationError, match="enter a question"):
        asking.ask(alice, " ", None)


def test_questions_without_llm_answer_extractively_with_sources(library, ctx):
    result = asking.ask_from_web(library.users["alice"], QUESTION, [library.alpha])  # tests run with LLM=none
    assert result.status == asking.EXTRACTIVE and result.extractive and result.llm == "none"
    assert result.notice == answer_outcome.ASSEMBLED  # no model configured is no error
    assert (result.error, result.error_detail) == (None, None)
    assert result.answer_text.startswith("OpenTelemetry wird über die Datei otel.yaml konfiguriert. [1]")
    assert "<mark>OpenTelemetry</mark>" in result.answer_html and NO_LLM_MESSAGE not in result.answer_text
    source = result.sources[0]
    assert (source.name, source.area_name, source.link) == ("otel-guide.md", "Alpha", "https://docs.example.org/otel")
    marked = [text for text, hit in source.passages[0].segments if hit]
    assert marked == ["OpenTelemetry", "konfiguriert", "konfiguriert"]
    assert source.passages[0].text.startswith("OpenTelemetry wird")


def test_questions_cli_no_llm_is_not_an_error(library, app):
    app.config["LLM"] = "fake"
    with app.app_context(), db.connection_context():
        result = asking.ask(library.users["alice"], QUESTION, None, use_llm=False)
        assert result.extractive and result.error is None and result.llm == "none"
        assert components.get().llm.calls == []


def test_questions_llm_answer_is_rendered_and_sanitised(library, ctx):
    ctx.__dict__["llm"] = llm = FakeLLM("**otel.yaml** [1] <img src=x onerror=alert(1)>")
    result = asking.ask(library.users["alice"], QUESTION, None)
    assert result.status == asking.ANSWERED and result.llm == "fake" and result.error is None
    assert "<strong>otel.yaml</strong>" in result.answer_html
    assert "onerror" not in result.answer_html and "<img" not in result.answer_html
    prompt = llm.calls[0][1]["content"]
    assert "[1]\nOpenTelemetry wird" in prompt and QUESTION in prompt
    assert "(document" not in prompt and "chunk" not in prompt  # labelled by the citation number only
    assert BETA_SECRET not in prompt
    assert [(c.position, c.document_id) for c in result.context] == [(1, library.alpha_doc)]


def test_questions_nothing_found_gives_the_spec_message_without_calling_the_llm(library, ctx):
    ctx.__dict__["llm"] = llm = FakeLLM()
    result = asking.ask(library.users["alice"], "Wann fährt der Zug nach Hamburg?", None)
    assert result.status == asking.NO_CONTEXT_FOUND and result.notice == NO_CONTEXT_MESSAGE
    assert result.answer_text == NO_CONTEXT_MESSAGE and result.answer_html == ""
    assert result.sources == () and llm.calls == []
    assert "passed the lexical filter" in result.retrieval_detail and "MIN_SOURCE_SCORE" in result.retrieval_detail


def test_questions_result_carries_timings_and_context(library, ctx):
    result = asking.ask(library.users["alice"], QUESTION, None)
    assert {"embed", "search", "lexical", "select", "sources", "context", "llm", "documents", "total"} <= set(
        result.timings)
    assert result.timings["total"] >= result.timings["context"] >= 0
    entry = result.context[0]
    assert (entry.document_id, entry.area_id, entry.chunk_index) == (library.alpha_doc, library.alpha, 0)
    assert entry.lexical_score > 0


def test_questions_only_http_source_urls_become_links(library, ctx):
    add_document(library.alpha, "trap.md", ["OpenTelemetry wird hier konfiguriert, OpenTelemetry!"],
                 source_url="javascript:alert(1)")
    result = asking.ask(library.users["alice"], QUESTION, None)
    trap = next(s for s in result.sources if s.name == "trap.md")
    assert trap.link is None and trap.source_url == "javascript:alert(1)"


def test_questions_fail_closed_if_the_store_returns_a_foreign_chunk(library, ctx):
    class LeakyStore:
        def search(self, vector, area_ids, k):
            return [Hit(library.beta_doc, library.beta, 0, None, f"OpenTelemetry konfiguriert {BETA_SECRET}", 0.9, 0)]

    ctx.__dict__["store"] = LeakyStore()
    with pytest.raises(RuntimeError, match="outside"):
        asking.ask(library.users["alice"], QUESTION, None)


def test_questions_sources_need_a_document_row_in_the_searched_areas(library, ctx):
    # A document moved to Beta whose chunks still say Alpha must not be shown to alice.
    from irisrag.models import Document

    Document.update(area=library.beta).where(Document.id == library.alpha_doc).execute()
    result = asking.ask(library.users["alice"], QUESTION, None)
    assert all(s.document_id != library.alpha_doc for s in result.sources)


def test_questions_search_failure_is_a_message_on_the_web_and_an_error_elsewhere(tmp_path, database_url, redis_url):
    url = f"http://127.0.0.1:{closed_port()}"
    app = make_app(tmp_path, database_url, redis_url, EMBEDDER="ollama", OLLAMA_URL=url, OLLAMA_TIMEOUT=2.0)
    with app.app_context(), db.connection_context():
        alpha = admin_service.create_named(admin_service.Area, "Alpha")
        admin_service.create_named(admin_service.Group, "g")
        admin_service.link_area("Alpha", "g")
        user = admin_service.create_user("erin", "password123")
        admin_service.link_user("erin", "g")
        result = asking.ask_from_web(user.id, QUESTION, [alpha.id])
        assert (result.status, result.error) == (asking.FAILED, asking.SEARCH_FAILED)
        assert url in result.error_detail
        with pytest.raises(EmbeddingError):
            asking.ask(user.id, QUESTION, None)


def test_questions_use_the_configured_reranker_and_expansion_within_the_users_areas(library, ctx):
    ctx.config["RERANKER"], ctx.config["QUERY_EXPANSION"] = "llm", "llm"

    def reply(messages):
        system = messages[0]["content"]
        if system.startswith("You rank"):
            return "1"
        if "keywords" in system:
            return "OpenTelemetry Collector otel.yaml"
        return "Antwort [1]."

    ctx.__dict__["llm"] = llm = FakeLLM(reply)
    assert ctx.reranker.name == "llm:fake" and ctx.expander.name == "llm:fake"
    result = asking.ask(library.users["alice"], QUESTION, None)
    kinds = [m[0]["content"][:8] for m in llm.calls]
    assert kinds[0].startswith("You writ") and kinds[1].startswith("You rank") and len(kinds) == 3
    assert [s.document_id for s in result.sources] == [library.alpha_doc]
    assert_no_beta(result, library)
    assert all(BETA_SECRET not in m["content"] for call in llm.calls for m in call)  # judge sees only alice's areas
