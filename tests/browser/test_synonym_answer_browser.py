"""A question in everyday words ("Ordner") finds the manual's word ("Verzeichnis") through the German
thesaurus, with the real USE embedder, and the browser shows the option that answers it."""
from __future__ import annotations

import os

import pytest

from irisrag.rag import thesaurus
from tests.browser.library import ask, seed
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
    seed(app, "Technik", "IT", [("man-cp.txt", MANUAL.encode()), ("hausordnung.txt", RULES.encode())])
    return app


def test_browser_a_question_in_everyday_words_finds_the_manual_s_option(page, live_server):
    card = ask(page, live_server, "Wie kopiere ich einen kompletten Ordner mit allem, was darin liegt?")
    answer = page.inner_text(f"{card} .answer")   # without the synonym: no information (no extractive card)
    assert "--recursive" in answer and "Hausordnung" not in answer
    assert len(answer) < 500
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/synonym-answer-1366.png", full_page=True)
