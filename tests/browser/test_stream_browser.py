"""In a real browser, the found sources come first, then the answer grows; Stop ends it and the model too."""
from __future__ import annotations

import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from irisrag.extensions import db
from irisrag.jobs.documents import import_document
from irisrag.models import Area, Group, QuestionLog
from irisrag.services.admin import admin as admin_service
from irisrag.services.documents import documents
from tests.browser.test_admin_flow import login
from tests.conftest import make_app
from tests.support.http_stub import HttpStub, Reply
from tests.test_llm_stream import Counting, ollama_line

pytestmark = pytest.mark.browser
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
WORDS = ["Das ", "Debian-Projekt ", "ist ", "eine ", "**Vereinigung ", "von ", "Einzelpersonen** ", "[1]."]


@pytest.fixture
def stub():
    with HttpStub() as server:
        yield server


@pytest.fixture
def app(tmp_path, database_url, redis_url, stub):
    app = make_app(tmp_path, database_url, redis_url, LLM="ollama", OLLAMA_URL=stub.url)
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, "Handbuch")
        admin_service.create_named(Group, "Leser")
        admin_service.create_user("erika", "erikapassword")
        admin_service.link_user("erika", "Leser")
        admin_service.link_area("Handbuch", "Leser")
        doc = documents.import_upload("Handbuch", "vorwort.md", (FIXTURES / "excerpt-de.md").read_bytes())
        assert import_document(doc.id)["status"] == "done"
    return app


def ask(page, live_server) -> None:
    page.script_errors = []
    page.on("pageerror", lambda error: page.script_errors.append(str(error)))
    login(page, live_server, "/login", "erika", "erikapassword")
    page.wait_for_selector("#question")
    page.fill("#question", "Was ist das Debian-Projekt?")
    page.click("#composer button[type=submit]")


def test_browser_stream_shows_sources_first_then_the_answer_grows(page, live_server, stub):
    lines = [ollama_line(w) for w in WORDS] + [{"message": {"content": ""}, "done": True}]
    stub.add("POST", "/api/chat", Reply(lines=lines, line_delay=0.25))
    ask(page, live_server)
    page.wait_for_selector("#turns .sources .source")
    assert "vorwort.md" in page.inner_text("#turns .sources")
    assert page.get_attribute("#answer-result", "data-status") == "searching"  # no answer yet
    assert page.locator("#turns a.cite").count() == 0
    seen: list[str] = []
    deadline = time.monotonic() + 10
    # One atomic read per poll: the body is replaced when the stream ends, and a count()
    # followed by inner_text() could wait 15 s for an element that was just swapped out.
    read = "() => { const body = document.querySelector('#answer-body'); return body ? body.innerText : null; }"
    while time.monotonic() < deadline and (text := page.evaluate(read)) is not None:
        if text and (not seen or text != seen[-1]):
            seen.append(text)
        time.sleep(0.05)
    assert len(seen) >= 3, seen  # the answer grew in place, several times
    assert all(text.startswith("Das") for text in seen) and len(seen[0]) < len(seen[-1])
    page.wait_for_selector("#turns strong:has-text('Vereinigung von Einzelpersonen')")
    page.wait_for_selector("#turns a.cite[href$='-cite-1']")  # citations are links once the check ran
    assert page.get_attribute("#turns .answer-card", "data-status") == "answered"
    expect(page.locator("#ask-stop")).to_be_hidden()
    expect(page.locator("#composer button[type=submit]")).to_be_enabled()
    assert page.locator("#turns form.feedback").count() == 1
    assert [r.path for r in stub.requests] == ["/api/chat"]  # streamed once; htmx's fallback post stayed out
    blocked = [e for e in page.console_errors if "Content Security Policy" in e or "Refused" in e]
    assert blocked == [] and page.script_errors == []  # nothing blocked by the CSP, no script error


def test_browser_stream_stop_button_ends_the_answer_and_the_model(page, live_server, stub, app):
    counting = Counting(lambda i: ollama_line(f"Wort{i} "))
    stub.add("POST", "/api/chat", counting)
    ask(page, live_server)
    page.wait_for_selector("#answer-body:has-text('Wort5')")
    assert page.is_visible("#ask-stop")
    page.click("#ask-stop")
    page.wait_for_selector("#answer-stopped", state="visible")
    expect(page.locator("#ask-stop")).to_be_hidden()
    expect(page.locator("#composer button[type=submit]")).to_be_enabled()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        before = counting.produced
        time.sleep(0.3)
        if counting.produced == before:
            break
    assert counting.produced < 1000, "the model kept writing after Stop"
    with app.app_context(), db.connection_context():
        row = QuestionLog.select().order_by(QuestionLog.id.desc()).get()
    assert row.status == "incomplete" and row.answer.startswith("Wort0 Wort1")
