"""A nested JSON of branches (eval/holdout9-de standorte.json) with the real USE embedder: a question about one
branch in everyday words shows that branch's record as a table with the field that answers, not its e-mail
address and the fields repeating its name (before: the whole file was one record of numbered names, then the
answering field sat in the record's second piece and the shown fields were the ones naming "Hafenmühle")."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.browser.library import ask, seed
from tests.conftest import make_app

pytestmark = pytest.mark.browser
SHOTS = os.environ.get("IRISRAG_SCREENSHOTS")
BRANCHES = Path(__file__).resolve().parents[2] / "eval" / "holdout9-de" / "docs" / "standorte.json"


@pytest.fixture
def app(tmp_path, database_url, redis_url):
    app = make_app(tmp_path, database_url, redis_url, LLM="none", EMBEDDER="use")
    seed(app, "Bibliothek", "Team", [("standorte.json", BRANCHES.read_bytes())])
    return app


def test_browser_a_branch_question_shows_the_field_that_answers(page, live_server):
    card = ask(page, live_server, "Komme ich mit dem Rollstuhl in die Bibliothek an der Hafenmühle?")
    answer = page.inner_text(f"{card} .answer")
    assert "Eingang über drei Stufen" in answer and "Stadtteilbibliothek Hafenmühle" in answer
    assert "standorte.4." not in answer and '"' not in answer and "{" not in answer
    assert page.locator(f"{card} .answer table").count() == 1
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/branch-record-1366.png", full_page=True)
