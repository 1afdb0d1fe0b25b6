"""The answer in a real browser: short, each passage once (chips), fits 2 viewports, no page scrolls sideways."""
from __future__ import annotations

import os

import pytest

from irisrag.extensions import db
from irisrag.jobs.documents import import_document
from irisrag.models import Area, Group
from irisrag.rag.extractive import UNSURE_CHARS
from irisrag.services.admin import admin as admin_service
from irisrag.services.documents import documents
from tests.browser.test_admin_flow import login
from tests.conftest import make_app

pytestmark = pytest.mark.browser
QUESTION = "Wie wird der Collector für OpenTelemetry konfiguriert?"
SHOTS = os.environ.get("IRISRAG_SCREENSHOTS")  # a folder: keep screenshots of the answer there


def manual(topic: int) -> bytes:
    """A Markdown manual whose every section mentions the question's terms (many matching chunks)."""
    parts = [f"# Handbuch {topic}\n"]
    for section in range(8):
        parts.append(
            f"## Abschnitt {section}\n\nDer Collector für OpenTelemetry wird in Teil {topic}.{section} über die Datei "
            f"otel-{topic}-{section}.yaml konfiguriert, z. B. mit dem Empfänger otlp und ca. 2.5 MB Puffer. "
            "Die Einstellung gilt für alle Dienste im Netz. Danach wird der Collector neu gestartet und geprüft.\n\n"
            "| Schlüssel | Wert |\n|---|---|\n| endpoint | 0.0.0.0:4317 |\n| batch | 512 |\n\n"
            "- erster Punkt der Liste zum Collector\n- zweiter Punkt mit einem sehr langen Wort "
            "Donaudampfschifffahrtsgesellschaftskapitänsmützenabzeichenhalterung\n")
    return "\n".join(parts).encode()


@pytest.fixture
def app(tmp_path, database_url, redis_url):
    app = make_app(tmp_path, database_url, redis_url, LLM="none")
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, "Betrieb")
        admin_service.create_named(Group, "Leser")
        admin_service.create_user("erika", "erikapassword")
        admin_service.create_user("root", "rootpassword", is_admin=True)
        admin_service.link_user("erika", "Leser")
        admin_service.link_area("Betrieb", "Leser")
        for topic in range(3):
            doc = documents.import_upload("Betrieb", f"handbuch-{topic}.md", manual(topic))
            assert import_document(doc.id)["status"] == "done"
    return app


def ask(page, live_server) -> None:
    page.fill("#question", QUESTION)
    page.click("#composer button[type=submit]")
    page.wait_for_selector("#turns .answer-card[data-status=extractive]")


def no_sideways_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


def test_browser_answer_fits_two_viewports_and_chips_open_in_place(page, live_server):
    page.set_viewport_size({"width": 1366, "height": 900})
    login(page, live_server, "/login", "erika", "erikapassword")
    page.wait_for_selector("#question")
    ask(page, live_server)
    chips = page.locator("#turns .answer-card details.chip")
    assert chips.count() >= 1
    assert page.locator("#turns .answer-card .error").count() == 0  # no model is no error box
    assert page.locator("#answer-mode").count() == 1
    assert page.locator("#turns .answer-card .answer mark").count() > 0  # the question's terms highlighted
    # eight equal sections are a tie: the answer takes the longest budget (extractive.adaptive_budget), no more
    assert len(page.inner_text("#turns .answer-card .answer")) <= UNSURE_CHARS[1] + 40
    assert page.locator("#turns .sources blockquote, #turns .sources .passage").count() == 0  # passages are not repeated
    height = page.evaluate("document.body.scrollHeight")
    assert height <= 2 * 900, height
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/answers-1366.png", full_page=True)
    first = chips.first
    assert not first.evaluate("d => d.open")
    first.locator("summary").click()
    assert first.evaluate("d => d.open") and first.locator(".passage").is_visible()
    page.locator("#turns .answer-card .answer a[href*='cite-']").first.click()  # a citation link opens its chip
    assert page.evaluate("document.querySelector(location.hash).closest('details').open")


def test_browser_no_page_scrolls_sideways_on_a_phone(page, live_server, browser):
    page.set_viewport_size({"width": 390, "height": 844})
    login(page, live_server, "/login", "erika", "erikapassword")
    page.wait_for_selector("#question")
    assert no_sideways_scroll(page), "dashboard"
    ask(page, live_server)
    for chip in page.locator("details.chip summary").all():
        chip.click()
    assert no_sideways_scroll(page), "answer"
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/answers-390.png", full_page=True)
    viewer = page.locator("details.chip a[href*='/documents/']").first.get_attribute("href")
    for path in [viewer, "/c", "/documents/1", "/documents/1?chunk=2"]:
        page.goto(live_server + path)
        assert no_sideways_scroll(page), path
    admin = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    login(admin, live_server, "/admin/login", "root", "rootpassword")
    admin.wait_for_url(live_server + "/admin")
    tabs = [a.get_attribute("href") for a in admin.locator(".tabs a").all()]
    for path in ["/login", "/admin/login", "/admin", *tabs]:
        admin.goto(live_server + path)
        assert no_sideways_scroll(admin), path
