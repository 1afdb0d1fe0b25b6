"""Follow-up questions through the asking service: the search query, its timing, the turns in the prompt."""
from __future__ import annotations

from irisrag.llm.clients import FakeLLM
from irisrag.rag.followup import PreviousTurn
from irisrag.services.asking import asking, conversations
from tests.services import QUESTION

FOLLOW_UP = "Und wo genau?"
PREVIOUS = (PreviousTurn(QUESTION, "In der Datei otel.yaml [1]."),)


def test_a_question_without_previous_turns_searches_itself(library, ctx):
    result = asking.ask(library.users["alice"], QUESTION, None, use_llm=False)
    assert result.search_query == QUESTION and "rewrite" not in result.timings


def test_without_a_model_the_follow_up_finds_what_the_previous_question_found(library, ctx):
    alone = asking.ask(library.users["alice"], FOLLOW_UP, None, use_llm=False)
    assert alone.context == ()
    result = asking.ask(library.users["alice"], FOLLOW_UP, None, use_llm=False, previous=PREVIOUS)
    assert result.question == FOLLOW_UP and result.search_query == f"{FOLLOW_UP} OpenTelemetry konfiguriert"
    assert [c.document_id for c in result.context] == [library.alpha_doc]


def test_with_a_model_the_rewrite_is_searched_timed_and_the_turns_are_in_the_prompt(library, ctx):
    rewritten = "Wo wird OpenTelemetry konfiguriert?"
    ctx.__dict__["llm"] = llm = FakeLLM(lambda m: rewritten if "standalone" in m[0]["content"] else "Dort [1].")
    result = asking.ask_from_web(library.users["alice"], FOLLOW_UP, [library.alpha], previous=PREVIOUS)
    assert result.status == asking.ANSWERED and result.search_query == rewritten
    assert "rewrite" in result.timings and result.timings["rewrite"] >= 0
    assert [c.document_id for c in result.context] == [library.alpha_doc]
    prompt = llm.calls[1]
    assert [m["role"] for m in prompt] == ["system", "user", "assistant", "user"]
    assert prompt[1]["content"] == QUESTION and prompt[2]["content"] == "In der Datei otel.yaml."
    assert prompt[3]["content"].endswith(f"Question: {FOLLOW_UP}")


def test_a_streamed_follow_up_reports_its_search_query_with_the_sources(library, ctx):
    ctx.__dict__["llm"] = FakeLLM(lambda m: "Wo wird OpenTelemetry konfiguriert?" if "standalone" in m[0]["content"] else "Dort [1].")
    events = list(asking.stream_from_web(library.users["alice"], FOLLOW_UP, [library.alpha], previous=PREVIOUS))
    assert events[0].result.search_query == "Wo wird OpenTelemetry konfiguriert?"
    assert events[-1].result.search_query == "Wo wird OpenTelemetry konfiguriert?"


def test_the_answer_says_what_was_searched_for_when_it_differs(app, library, ctx):
    from flask import render_template

    follow_up = asking.ask(library.users["alice"], FOLLOW_UP, None, use_llm=False, previous=PREVIOUS)
    plain = asking.ask(library.users["alice"], QUESTION, None, use_llm=False)
    with app.test_request_context("/", headers={"Accept-Language": "de"}):
        html = render_template("dashboard/_result.html", result=follow_up)
        assert f"Gesucht nach: {FOLLOW_UP} OpenTelemetry konfiguriert" in html
        assert "answer-search-query" not in render_template("dashboard/_result.html", result=plain)
        streaming = render_template("dashboard/_streaming.html", result=asking.sources_result(
            asking.retrieve(FOLLOW_UP, [library.alpha], previous=PREVIOUS)))
        assert f"Gesucht nach: {FOLLOW_UP} OpenTelemetry konfiguriert" in streaming


def test_retrieval_alone_asks_no_model_for_a_follow_up(library, ctx):
    ctx.__dict__["llm"] = llm = FakeLLM("Wo wird OpenTelemetry konfiguriert?")
    found = asking.retrieve(FOLLOW_UP, [library.alpha], previous=PREVIOUS)  # the API's /retrieve
    assert llm.calls == [] and found.search_query == f"{FOLLOW_UP} OpenTelemetry konfiguriert"
    rewritten = asking.retrieve(FOLLOW_UP, [library.alpha], previous=PREVIOUS, use_llm=True)
    assert len(llm.calls) == 1 and rewritten.search_query == "Wo wird OpenTelemetry konfiguriert?"


def test_a_recorded_turn_carries_the_documents_its_answer_cited_for_the_follow_up(library, ctx):
    user = library.users["alice"]
    first = asking.ask_from_web(user, QUESTION, [library.alpha])
    conversation = conversations.conversation_of(user, first.question_id)
    [turn] = conversations.previous_turns(user, conversation)
    assert turn.documents == tuple(dict.fromkeys(c.document_id for c in first.citations)) != ()
    follow_up = asking.ask_from_web(user, FOLLOW_UP, [library.alpha], previous=[turn], conversation_id=conversation)
    assert [c.document_id for c in follow_up.context][:1] == [library.alpha_doc]


def test_a_preferred_document_outside_the_users_areas_is_never_searched(library, ctx):
    previous = (PreviousTurn(QUESTION, "In der Datei otel.yaml [1].", (library.beta_doc,)),)
    result = asking.ask(library.users["alice"], FOLLOW_UP, None, use_llm=False, previous=previous)
    assert library.beta_doc not in {c.document_id for c in result.context}
    assert library.beta_doc not in {s.document_id for s in result.sources}
    assert [c.document_id for c in result.context] == [library.alpha_doc]
