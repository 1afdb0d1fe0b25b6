"""A long record answers in the browser as a small table of the fields that answer, with a last row '…'."""
from __future__ import annotations

import json
import os

import pytest

from tests.browser.library import ask, seed
from tests.conftest import make_app

pytestmark = pytest.mark.browser
SHOTS = os.environ.get("IRISRAG_SCREENSHOTS")


def incident(number: int, district: str, cause: str) -> dict:
    """An incident of twenty fields, as a utility's register nests them."""
    return {"id": f"ST-2026-03{number:02d}", "sparte": "Strom", "status": "closed",
            "ort": {"ortsteil": district, "strasse": "Lindenallee", "netz": {"ebene": "MS", "station": f"UW {district}"}},
            "zeit": {"beginn": "2026-10-14T07:42:00+02:00", "ende": "2026-10-14T10:05:00+02:00"},
            "betroffen": {"kunden": 1240 + number, "kritische_infrastruktur": "Pflegeheim Am Anger"},
            "ursache": {"code": "EXT-BAU", "description": cause},
            "massnahmen": "Umschaltung über Ring Nord; Notstromaggregat für Pflegeheim; Muffe gesetzt",
            "meldung": {"quelle": "Leitstelle", "eingang": "2026-10-14T07:44:00+02:00"},
            "bericht": {"autor": "Netzleitstelle Schicht B", "version": 3, "freigabe": "2026-10-20",
                        "pfad": f"/netze/stoerungen/2026/ST-2026-03{number:02d}.pdf"}}


@pytest.fixture
def app(tmp_path, database_url, redis_url):
    app = make_app(tmp_path, database_url, redis_url, LLM="none")
    register = {"stoerungen": [incident(11, "Ostheide", "Medium-voltage cable damaged by a third-party excavator"),
                               incident(12, "Westerfeld", "Marten in the secondary substation, short circuit")]}
    seed(app, "Netze", "Leitstelle", [("stoerungsregister.json", json.dumps(register).encode())])
    return app


def test_browser_a_long_record_shows_the_fields_that_answer(page, live_server):
    card = ask(page, live_server, "Was war die Ursache der Störung ST-2026-0311 in Ostheide?")
    table = page.locator(f"{card} .answer table").first
    cells = [c.strip() for c in table.locator("td").all_inner_texts()]
    assert "ST-2026-0311" in cells and "Ostheide" in cells and "Westerfeld" not in cells
    assert any("excavator" in c for c in cells)          # the prose field that says why
    assert "…" in cells and "bericht.pfad" not in cells  # fields left out, and said so
    assert len(page.inner_text("#turns .answer-card .answer")) < 500
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/record-answer-1366.png", full_page=True)
