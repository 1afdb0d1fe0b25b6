"""``flask rag eval-answers`` end to end with the app's (fake) embedder: a BEIR set with gold answers, and a library."""
from __future__ import annotations

import json

from irisrag.extensions import db
from irisrag.models import Document, User

from .test_metrics import write_dataset


def _beir(tmp_path):
    corpus = [{"_id": "d0", "title": "Reisekosten", "text": "Reisekosten erstattet die Buchhaltung monatlich."},
              {"_id": "d1", "title": "Urlaub", "text": "Urlaubsanträge werden im Portal Zeitwerk gestellt."}]
    queries = [{"_id": "q1", "text": "Wer erstattet Reisekosten?"}, {"_id": "q2", "text": "Wo stelle ich Urlaubsanträge?"}]
    path = write_dataset(tmp_path / "eval" / "tiny", corpus, queries, [("q1", "d0", 1), ("q2", "d1", 1)])
    (path / "answers.jsonl").write_text('{"_id": "q1", "answers": ["Buchhaltung"]}\n'
                                        '{"_id": "q2", "answers": ["Zeitwerk"]}\n', encoding="utf-8")
    return path


def _library(tmp_path):
    root = tmp_path / "lib"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "handbuch.txt").write_text(
        "Reisekosten\n\nDie Reisekostenabrechnung geht an die Buchhaltung, Ansprechpartnerin ist Sabine Krüger.\n\n"
        "Kantine\n\nDas Mittagessen kostet für Beschäftigte 4,20 Euro und für Gäste 7,50 Euro.\n", encoding="utf-8")
    (root / "docs" / "liste.csv").write_text("Name;Abteilung\nSabine Krüger;Buchhaltung\nNina Brandt;IT\n",
                                             encoding="utf-8")
    rows = {"questions.jsonl": [{"id": "q1", "document": "handbuch.txt", "kind": "text",
                                 "question": "Wer ist Ansprechpartnerin für Reisekosten?", "answers": ["Sabine Krüger"]},
                                {"id": "q2", "document": "liste.csv", "kind": "csv",
                                 "question": "In welcher Abteilung arbeitet Nina Brandt?", "answers": ["IT"]}],
            "offtopic.jsonl": [{"id": "o1", "question": "Wie hoch ist die Zugspitze?"}],
            "followups.jsonl": [{"id": "f1", "document": "handbuch.txt", "first": "Was kostet das Mittagessen?",
                                 "first_answers": ["4,20 Euro"], "follow_up": "Und für Gäste?",
                                 "answers": ["7,50 Euro"]}]}
    for name, records in rows.items():
        (root / name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return root


def test_cli_eval_answers_json_on_a_beir_set_with_gold_answers(app, tmp_path):
    result = app.test_cli_runner().invoke(args=["rag", "eval-answers", str(_beir(tmp_path)), "--scratch",
                                                str(tmp_path / "scratch"), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["dataset"], data["questions"], data["llm"]) == ("tiny", 2, "extractive")
    assert 0.0 <= data["answer_contains_gold"] <= data["passages_contain_gold"] <= 1.0
    assert data["median_answer_chars"] > 0 and set(data["timings"]) == {"embed", "context", "answer"}


def test_cli_eval_answers_on_a_library_reports_dumps_and_leaves_the_app_alone(app, tmp_path):
    dump, lib = tmp_path / "rows.jsonl", _library(tmp_path)
    result = app.test_cli_runner().invoke(args=["rag", "eval-answers", str(lib), "--scratch",
                                                str(tmp_path / "scratch"), "--json", "--dump", str(dump)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["library"], data["documents"], data["failed_imports"]) == ("lib", 2, [])
    assert (data["questions"], data["offtopic_questions"], data["followups"], data["llm"]) == (2, 1, 1, "extractive")
    for key in ("right", "clean", "right_and_clean", "offtopic_refused", "followups_right", "uncited_sources"):
        assert 0.0 <= data[key] <= 1.0, key
    rows = [json.loads(line) for line in dump.read_text(encoding="utf-8").splitlines()]
    assert [(r["id"], r["set"]) for r in rows] == [("q1", "answerable"), ("q2", "answerable"), ("o1", "offtopic"),
                                                   ("f1/first", "followup-first"), ("f1", "followup")]
    assert rows[4]["previous"] == "Was kostet das Mittagessen?" and rows[4]["question"] == "Und für Gäste?"
    assert rows[3]["expected"] == ["4,20 Euro"] and 0.0 <= data["followup_firsts_right"] <= 1.0
    assert all(r["status"] for r in rows) and rows[0]["expected"] == ["Sabine Krüger"]
    with app.app_context(), db.connection_context():  # the app's database is bound again and was not written
        assert Document.select().count() == 0 and not User.select().where(User.username == "evaluator").exists()
    assert [p.name for p in (tmp_path / "scratch").iterdir()] == []  # the temporary instance is gone

    text = app.test_cli_runner().invoke(args=["rag", "eval-answers", str(lib), "--scratch",
                                              str(tmp_path / "scratch")])
    assert text.exit_code == 0, text.output
    assert text.stdout.splitlines()[0].startswith("lib: 2 documents (") and "off-topic refused" in text.stdout
