"""One answer, one form per medium: the live answer and its stored turn render alike, one JSON form."""
from __future__ import annotations

from irisrag.llm.clients import FakeLLM
from irisrag.rag.answer_types import AskResult, CitationView, SourceView
from irisrag.rag.render import to_terminal
from irisrag.services.asking import asking, conversations
from irisrag.services.asking.answer_json import answer_json, terminal_json
from tests.services import QUESTION


def test_a_stored_turn_is_the_answer_read_back_and_renders_as_it_did_live(library, ctx):
    ctx.__dict__["llm"] = FakeLLM("OpenTelemetry wird in **otel.yaml** konfiguriert [1].")
    live = asking.ask_from_web(library.users["alice"], QUESTION, [library.alpha])
    turn = conversations.shown_turn(library.users["alice"], live)
    assert type(turn) is type(live) and turn.question_id == live.question_id and turn.created_at is not None
    assert live.answer_html.count('href="#cite-1"') == 1 and "<strong>otel.yaml</strong>" in live.answer_html
    prefix = f"q{live.question_id}-"
    assert turn.answer_html == live.answer_html.replace('"#cite-', f'"#{prefix}cite-')
    assert (turn.status, turn.llm, turn.citations[0].chunk_id) == (live.status, live.llm, live.citations[0].chunk_id)


def test_the_terminal_json_is_the_api_json_for_a_terminal(library, ctx):
    result = asking.ask(library.users["alice"], QUESTION, None, use_llm=False, record=False)
    full, terminal = answer_json(result, admin=False), terminal_json(result)
    assert full["error_detail"] is None and full["status"] == terminal["status"] == "extractive"
    assert terminal["answer"] == to_terminal(full["answer"]) and terminal["citations"] == full["citations"]
    assert [(s["document_id"], s["area"]) for s in terminal["sources"]] == [
        (s["document_id"], s["area"]["name"]) for s in full["sources"]]
    assert [c["chunk_index"] for c in terminal["context"]] == [c["chunk_index"] for c in full["context"]]


def test_cited_sources_and_other_candidates_are_apart(library, ctx):
    ctx.__dict__["llm"] = FakeLLM("OpenTelemetry wird in otel.yaml konfiguriert [1].")
    result = asking.ask(library.users["alice"], QUESTION, [library.alpha], record=False)
    cited = {c.document_id for c in result.citations}
    assert cited and {s.document_id for s in result.cited_sources} == cited
    assert not cited & {s.document_id for s in result.other_sources}
    assert len(result.cited_sources) + len(result.other_sources) == len(result.sources)



def _listed(sources, cited) -> AskResult:
    return AskResult("?", (1,), "answered", answer_text="x [1]", shown_text="x [1]",
                     sources=tuple(SourceView(i, f"doc{i}", 1, "a", None, None, 1.0, ()) for i in sources),
                     citations=tuple(CitationView(n, "c", i, 0, "", None, 1, f"doc{i}", "…")
                                     for n, i in enumerate(cited, 1)))


def test_every_medium_lists_the_cited_documents_as_sources_and_the_others_apart():
    result = _listed((1, 2, 3), (3, 1))
    assert [s.document_id for s in result.listed_sources] == [3, 1]  # in the order of their first citation
    assert [s.document_id for s in result.other_matches] == [2]
    full, terminal = answer_json(result, admin=False), terminal_json(result)
    assert [s["document_id"] for s in full["sources"]] == [3, 1] == [s["document_id"] for s in terminal["sources"]]
    assert [s["document_id"] for s in full["other_sources"]] == [2] == [s["document_id"] for s in terminal["other_sources"]]
    uncited = answer_json(_listed((1, 2), ()), admin=False)  # an answer that cites nothing lists every source
    assert [s["document_id"] for s in uncited["sources"]] == [1, 2] and uncited["other_sources"] == []
