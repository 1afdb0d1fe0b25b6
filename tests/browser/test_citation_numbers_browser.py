"""In a real browser, a model citing its passages out of order shows [1], [2] in reading order (issue 37 item 8)."""
from __future__ import annotations

import re

import pytest

from tests.browser.test_stream_browser import app, ask, stub  # noqa: F401  (the fixtures and the login)
from tests.support.http_stub import Reply
from tests.test_llm_stream import ollama_line

pytestmark = pytest.mark.browser


def test_browser_citations_read_one_two_in_order_while_streaming_and_after(page, live_server, stub):  # noqa: F811
    words = ["Das ", "Debian-Projekt ", "ist ", "eine ", "Vereinigung ", "[2]. ", "Es ", "hat ", "Entwickler ", "[1]."]
    lines = [ollama_line(w) for w in words] + [{"message": {"content": ""}, "done": True}]
    stub.add("POST", "/api/chat", Reply(lines=lines, line_delay=0.1))
    ask(page, live_server)
    page.wait_for_selector("#turns .answer-card[data-status=answered] a.cite")
    cited = [int(n) for n in page.locator("#turns .answer-card .answer a.cite").all_inner_texts()]
    context = page.locator("#turns .answer-card details.chip").count()
    assert cited == [1, 1] or cited == [1, 2], cited   # the model's [2] then [1]: read as 1, 2
    assert context == len(set(cited))
    assert [int(n) for n in page.locator("#turns details.chip").evaluate_all(
        "els => els.map(e => e.dataset.number)")] == cited
    text = page.inner_text("#turns .answer-card .answer")
    assert re.search(r"Vereinigung\s*\[1\]", text) and re.search(r"Entwickler\s*\[2\??\]", text), text
    sources = page.inner_text("#turns .sources")
    assert re.search(r"cited as \[1\]", sources)
