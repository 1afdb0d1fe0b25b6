"""The follow-up set: the documented rule that makes a follow-up, the pairs, and ``flask rag eval --followups``."""
from __future__ import annotations

import json

from irisrag.evaluation import beir, followups
from irisrag.extensions import db
from irisrag.models import EvalRun

from .test_metrics import write_dataset


def test_the_shared_key_words_become_a_pronoun_and_an_article_goes_with_them():
    first = "Wie viele Punkte gab die Verteidigung der Panthers ab?"
    second = "Wie viele Interceptions wurden der Verteidigung der Panthers im Jahr 2015 angerechnet?"
    assert followups.follow_up(first, second, "es") == "Wie viele Interceptions wurden es im Jahr 2015 angerechnet?"
    assert followups.follow_up("Who led the Panthers in sacks?", "How many Panthers players went?", "it") == \
        "How many it players went?"


def test_a_pair_needs_a_shared_key_word_and_a_word_of_its_own():
    assert followups.follow_up("Wie viele Punkte gab es?", "Wie viele Tackles gab es?", "es") is None  # lowercase only
    assert followups.follow_up("Wer sind die Panthers?", "Die Panthers?", "es") is None  # nothing left to ask


def _dataset(tmp_path):
    corpus = [{"_id": "d0", "text": "Die Elbphilharmonie in Hamburg wurde 2017 eröffnet. Sie ist 110 Meter hoch."},
              {"_id": "d1", "text": "Der Kölner Dom wurde 1880 vollendet. Seine Türme sind 157 Meter hoch."}]
    queries = [{"_id": "q1", "text": "Wann wurde die Elbphilharmonie eröffnet?"},
               {"_id": "q2", "text": "Wie hoch ist die Elbphilharmonie in Hamburg?"},
               {"_id": "q3", "text": "Wann wurde der Kölner Dom vollendet?"},
               {"_id": "q4", "text": "Wie hoch sind die Türme vom Kölner Dom?"}]
    qrels = [("q1", "d0", 1), ("q2", "d0", 1), ("q3", "d1", 1), ("q4", "d1", 1)]
    return write_dataset(tmp_path / "eval" / "tiny", corpus, queries, qrels)


def test_pairs_follow_the_corpus_and_question_order(tmp_path):
    pairs = followups.pairs(beir.load(_dataset(tmp_path)))
    assert [(p.first_id, p.second_id, p.follow_up) for p in pairs] == [
        ("q1", "q2", "Wie hoch ist es in Hamburg?"), ("q3", "q4", "Wie hoch sind die Türme vom es?")]
    sets = followups.question_sets(pairs)
    assert sets[followups.WITH_CONTEXT]["q2"] == "Wie hoch ist es in Hamburg? Elbphilharmonie eröffnet"
    assert sets[followups.SWITCH]["q2"] == "Wie hoch ist die Elbphilharmonie in Hamburg?"  # not elliptic: as asked


def test_cli_eval_followups_scores_the_second_questions_with_and_without_context(app, tmp_path):
    path, scratch = _dataset(tmp_path), tmp_path / "scratch"
    result = app.test_cli_runner().invoke(args=["rag", "eval", str(path), "--scratch", str(scratch), "--followups",
                                                "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["dataset"] == "tiny follow-ups" and data["queries"] == 2
    assert set(data["modes"]) == {followups.ASKED, followups.ALONE, followups.WITH_CONTEXT, followups.SWITCH}
    assert data["modes"][followups.WITH_CONTEXT]["recall@5"] == 1.0
    assert sorted(p.name for p in scratch.iterdir()) == ["cache"]
    with app.app_context(), db.connection_context():
        assert EvalRun.select().where(EvalRun.dataset == "tiny follow-ups").count() == 4
