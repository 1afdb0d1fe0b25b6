"""Manual pages asked in everyday words, with the real USE embedder (eval/holdout9-de man-tee.txt and
man-split.txt): a question that opens with a sentence of background and names the program in passing is
answered with the option, not with the manual's name line or an option that merely shares its words (before:
"Wie hänge ich stattdessen hinten an?" got the ``--output-error`` lines, "Kann ich das verhindern?" the name
line "touch - Zeitstempel von Dateien ändern")."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.browser.library import ask, seed
from tests.conftest import make_app

pytestmark = pytest.mark.browser
SHOTS = os.environ.get("IRISRAG_SCREENSHOTS")
DOCS = Path(__file__).resolve().parents[2] / "eval" / "holdout9-de" / "docs"


@pytest.fixture
def app(tmp_path, database_url, redis_url):
    app = make_app(tmp_path, database_url, redis_url, LLM="none", EMBEDDER="use")
    seed(app, "Handbuch", "Team", [(name, (DOCS / name).read_bytes()) for name in ("man-tee.txt", "man-split.txt")])
    return app


def test_browser_a_manual_question_in_everyday_words_gets_the_option(page, live_server):
    card = ask(page, live_server, "Ich leite die Ausgabe mit tee in eine Logdatei um, aber die wird jedes Mal "
                                  "überschrieben. Wie hänge ich stattdessen hinten an?")
    answer = page.inner_text(f"{card} .answer")
    assert answer.lstrip().startswith("-a, --append"), answer
    assert "tee - Von Standardeingabe" not in answer.split("\n")[0]
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/manual-option-1366.png")
