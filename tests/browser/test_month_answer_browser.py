"""Records whose dates are written in digits, asked with the month's name, with the real USE embedder: the
browser shows the record of that month (without the months in the search text: the May record)."""
from __future__ import annotations

import os

import pytest

from tests.browser.library import ask, seed
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
    seed(app, "VHS", "Team", [("pruefungstermine.xml", EXAMS.encode()), ("teilnahmebedingungen.txt", RULES.encode())])
    return app


def test_browser_a_month_s_name_finds_the_record_of_that_date(page, live_server):
    card = ask(page, live_server, "Wo wird der DTZ im Juli geschrieben?")
    answer = page.inner_text(f"{card} .answer")
    assert "Steinbühl, Dorfgemeinschaftshaus" in answer and "Saal 0.01" not in answer
    assert "<" not in answer and len(answer) < 500
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/month-record-1366.png", full_page=True)

