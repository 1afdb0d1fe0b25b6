"""German questions over English records (issue 37 item 5), on real-de's JSON catalogue with its neighbours.

The catalogue's field names and values are English ("weight_kg", "city: Vienna"); the
questions are German. Measured when this test was written on the full library: the JSON kind
right 0.25 before, 0.75 after (docs/evaluation.md#records-across-languages). Here, with the
catalogue, the staff list and the handbook page (prose that competes for the words), the four
questions the word list's record vocabulary fixed must be right and the off-topic ones refused.
"""
from pathlib import Path

import pytest

from irisrag.evaluation import library, library_answers
from tests.conftest import make_app

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2] / "eval" / "real-de"
DOCUMENTS = {"nordlicht-produktkatalog.json", "nordlicht-mitarbeiter.csv", "nordlicht-handbuch.html"}
QUESTIONS = {"json-03", "json-05", "json-07", "json-08", "off-01", "off-02", "off-07", "off-13", "off-26"}


def test_german_questions_find_english_records_and_off_topic_ones_stay_refused(tmp_path, database_url, redis_url):
    subset = library.load(ROOT).subset(QUESTIONS).only_documents(DOCUMENTS)
    app = make_app(tmp_path, database_url, redis_url, EMBEDDER="use")
    with app.app_context():
        report = library_answers.evaluate(app, subset, tmp_path / "scratch")
    data = report.to_json()
    wrong = [r.id for r in report.rows if r.set == "answerable" and not r.right]
    assert data["failed_imports"] == [] and data["questions"] == 4 and data["offtopic_questions"] == 5
    assert data["right"] == 1.0, wrong
    assert data["offtopic_refused"] == 1.0, [r.id for r in report.rows if r.set == "offtopic" and not r.refused]
