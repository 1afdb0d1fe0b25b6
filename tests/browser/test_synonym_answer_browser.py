"""A question in everyday words ("Ordner") finds the manual's word ("Verzeichnis") through the German
thesaurus, with the real USE embedder, and the browser shows the option that answers it."""
from __future__ import annotations

import os

import pytest

from irisrag.extensions import db
from irisrag.jobs.documents import import_document
from irisrag.models import Area, Group
from irisrag.rag import thesaurus
from irisrag.services.admin import admin as admin_service
from irisrag.services.documents import documents
from tests.browser.test_admin_flow import login
from tests.conftest import make_app, missing

pytestmark = pytest.mark.browser
SHOTS = os.environ.get("IRISRAG_SCREENSHOTS")

MANUAL = """CP(1)                        Dienstprogramme für Benutzer                        CP(1)

BEZEICHNUNG
       cp - Dateien und Verzeichnisse kopieren

ÜBERSICHT
       cp [OPTION]… [-T] QUELLE ZIEL

BESCHREIBUNG
       QUELLE nach ZIEL oder mehrere QUELLEN in VERZEICHNIS kopieren.

       -a, --archive
              identisch zu -dR --preserve=all

       -i, --interactive
              vor dem Überschreiben nachfragen

       -l, --link
              Dateien verknüpfen statt kopieren

       -n, --no-clobber
              keine existierende Datei überschreiben

       -R, -r, --recursive
              Verzeichnisse rekursiv kopieren

       -u, --update
              nur kopieren, wenn die QUELL-Datei neuer ist als die Zieldatei oder die Zieldatei fehlt

       -v, --verbose
              erklären, was gerade geschieht
"""
RULES = """Hausordnung

Die Mülltonnen stehen im Hof. Sperrmüll meldet jedes Mitglied selbst bei der Stadt an.
Fahrräder gehören in den Fahrradkeller, nicht in das Treppenhaus.
Die Waschküche ist werktags von 7 bis 20 Uhr geöffnet.
"""


@pytest.fixture
def app(tmp_path, database_url, redis_url):
    if not thesaurus.PATH.is_file():
        missing("Debian's openthesaurus-de-text (the term bridge's synonyms) is not installed")
    app = make_app(tmp_path, database_url, redis_url, LLM="none", EMBEDDER="use")
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, "Technik")
        admin_service.create_named(Group, "IT")
        admin_service.create_user("erika", "erikapassword")
        admin_service.link_user("erika", "IT")
        admin_service.link_area("Technik", "IT")
        for name, text in (("man-cp.txt", MANUAL), ("hausordnung.txt", RULES)):
            doc = documents.import_upload("Technik", name, text.encode())
            assert import_document(doc.id)["status"] == "done"
    return app


def test_browser_a_question_in_everyday_words_finds_the_manual_s_option(page, live_server):
    page.set_viewport_size({"width": 1366, "height": 900})
    login(page, live_server, "/login", "erika", "erikapassword")
    page.fill("#question", "Wie kopiere ich einen kompletten Ordner mit allem, was darin liegt?")
    page.click("#composer button[type=submit]")
    page.wait_for_selector("#turns .answer-card[data-status=extractive]")   # without the synonym: no information
    answer = page.inner_text("#turns .answer-card .answer")
    assert "--recursive" in answer and "Hausordnung" not in answer
    assert len(answer) < 500
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/synonym-answer-1366.png", full_page=True)
