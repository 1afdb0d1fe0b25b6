"""Citation numbers 1..n without gaps, the same in the result, its HTML, the JSON and the history (issue 37 item 8)."""
from __future__ import annotations

import re

from irisrag.llm.clients import FakeLLM
from irisrag.rag.citations import numbers
from irisrag.services.asking import asking
from irisrag.services.asking.answer_json import answer_json, terminal_json
from tests.services import QUESTION, add_document

PORT_TEXT = "Der OpenTelemetry Collector wird mit otel.yaml konfiguriert und lauscht auf Port 4317."


def _cite_last_first(messages) -> str:
    """Cite the prompt's last passage first, then its first: prompt numbers out of reading order."""
    found = [int(n) for n in re.findall(r"^\[(\d+)\]\n", messages[-1]["content"], re.M)]
    return f"Port 4317 [{max(found)}]. Die Datei heißt otel.yaml [{min(found)}]."


def _assert_gapless(result) -> None:
    cited = numbers(result.shown_text)
    assert cited and sorted(cited) == list(range(1, len(cited) + 1))
    assert [c.number for c in result.citations] == sorted(cited)
    assert [c.position for c in result.context] == list(range(1, len(result.context) + 1))


def test_a_model_citing_out_of_order_is_shown_with_numbers_in_reading_order(library, ctx):
    port_doc = add_document(library.alpha, "collector.md", [PORT_TEXT])
    ctx.__dict__["llm"] = FakeLLM(_cite_last_first)
    result = asking.ask(library.users["alice"], QUESTION, None)
    assert len(result.context) >= 2
    assert re.fullmatch(r"Port 4317 \[1\]\. Die Datei heißt otel\.yaml \[2\]\.", result.shown_text)
    _assert_gapless(result)
    first = result.citations[0]
    assert "4317" in first.text and result.context[0].document_id == first.document_id
    assert 'href="#cite-1"' in result.answer_html and 'href="#cite-2"' in result.answer_html
    assert result.cited_sources[0].document_id == first.document_id
    data = answer_json(result, admin=False)
    assert "[1]" in data["answer"] and [c["number"] for c in data["citations"]] == [1, 2]
    assert port_doc in {c["document_id"] for c in data["citations"]}
    assert terminal_json(result)["citations"] == data["citations"]


def test_the_extractive_answer_numbers_its_citations_without_gaps(library, ctx):
    add_document(library.alpha, "collector.md", [PORT_TEXT])
    result = asking.ask(library.users["alice"], QUESTION, None)
    assert result.extractive
    _assert_gapless(result)
