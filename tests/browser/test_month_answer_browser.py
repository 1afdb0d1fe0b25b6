"""Records whose dates are written in digits, asked with the month's name, with the real USE embedder: the
browser shows the record of that month (without the months in the search text: the May record)."""
from __future__ import annotations

import os

import pytest

from irisrag.extensions import db
from irisrag.jobs.documents import import_document
from irisrag.models import Area, Group
from irisrag.services.admin import admin as admin_service
from irisrag.services.documents import documents
from tests.browser.test_admin_flow import login
from tests.conftest import make_app

pytestmark = pytest.mark.browser
SHOTS = os.environ.get("IRISRAG_SCREENSHOTS")

EXAMS = """<?xml version="1.0" encoding="UTF-8"?>
<pruefungstermine jahr="2027">
  <pruefung id="P27-04"><bezeichnung>Deutsch-Test für Zuwanderer (DTZ)</bezeichnung>
    <termin datum="2027-05-15"/><ort>Haus der Bildung, Saal 0.01</ort><plaetze>40</plaetze></pruefung>
  <pruefung id="P27-12"><bezeichnung>Deutsch-Test für Zuwanderer (DTZ)</bezeichnung>
    <termin datum="2027-07-10"/><ort>Steinbühl, Dorfgemeinschaftshaus</ort><plaetze>24</plaetze></pruefung>
  <pruefung id="P27-13"><bezeichnung>Telc Englisch B2</bezeichnung>
    <termin datum="2027-09-18"/><ort>Erlenau, Grundschule</ort><plaetze>12</plaetze></pruefung>
</pruefungstermine>
"""
RULES = """Teilnahmebedingungen

Die Anmeldung ist verbindlich. Eine Abmeldung bis zehn Tage vor Kursbeginn ist kostenfrei.
Kommt ein Kurs nicht zustande, erstatten wir das Entgelt vollständig.
Fundsachen heben wir drei Monate im Servicebüro auf.
"""


@pytest.fixture
def app(tmp_path, database_url, redis_url):
    app = make_app(tmp_path, database_url, redis_url, LLM="none", EMBEDDER="use")
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, "VHS")
        admin_service.create_named(Group, "Team")
        admin_service.create_user("erika", "erikapassword")
        admin_service.link_user("erika", "Team")
        admin_service.link_area("VHS", "Team")
        for name, text in (("pruefungstermine.xml", EXAMS), ("teilnahmebedingungen.txt", RULES)):
            doc = documents.import_upload("VHS", name, text.encode())
            assert import_document(doc.id)["status"] == "done"
    return app


def test_browser_a_month_s_name_finds_the_record_of_that_date(page, live_server):
    page.set_viewport_size({"width": 1366, "height": 900})
    login(page, live_server, "/login", "erika", "erikapassword")
    page.fill("#question", "Wo wird der DTZ im Juli geschrieben?")
    page.click("#composer button[type=submit]")
    page.wait_for_selector("#turns .answer-card[data-status=extractive]")
    answer = page.inner_text("#turns .answer-card .answer")
    assert "Steinbühl, Dorfgemeinschaftshaus" in answer and "Saal 0.01" not in answer
    assert "<" not in answer and len(answer) < 500
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/month-record-1366.png", full_page=True)

