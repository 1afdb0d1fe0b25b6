"""The sources under an answer: the documents it cites, then the other found documents under their own heading."""
from __future__ import annotations

from flask import render_template

from irisrag.rag.answer_types import EXTRACTIVE, AskResult, CitationView, SourceView


def _source(document_id: int, name: str) -> SourceView:
    return SourceView(document_id, name, 1, "Handbuch", None, None, 1.0, ())


def _render(app, result: AskResult) -> str:
    with app.test_request_context("/"):
        return render_template("dashboard/_sources.html", result=result, show_sources=True)


def test_cited_documents_are_the_sources_and_the_others_are_listed_apart(app):
    cited = CitationView(1, "c1", 2, 0, "", None, 1, "urlaub.md", "Urlaub wird …")
    result = AskResult("Wie viele Urlaubstage?", (1,), EXTRACTIVE, shown_text="30 Tage [1]",
                       sources=(_source(1, "kantine.md"), _source(2, "urlaub.md")), citations=(cited,))
    html = _render(app, result)
    sources, others = html.split('id="others-title"')
    assert "urlaub.md" in sources and "kantine.md" not in sources
    assert "kantine.md" in others and "urlaub.md" not in others and "Other matches" in html


def test_an_answer_without_citations_lists_every_found_source_under_sources(app):
    result = AskResult("?", (1,), EXTRACTIVE, shown_text="…", sources=(_source(1, "a.md"), _source(2, "b.md")))
    html = _render(app, result)
    assert "a.md" in html and "b.md" in html and "others-title" not in html
