from __future__ import annotations

import pytest

from irisrag.rag.lexical import (
    ENGLISH_STOP_WORDS,
    GERMAN_STOP_WORDS,
    LexicalMatch,
    match,
    normal_form,
    terms,
)


def test_lexical_german_inflections_share_a_term():
    assert terms("entwickelt") == terms("entwickelte")
    assert match(terms("Wer hat das entwickelt?"), "Das Team entwickelte die Lösung.").count == 1


@pytest.mark.parametrize("variant", ["konfiguriert", "konfigurieren", "konfigurierte", "konfiguriere"])
def test_lexical_ieren_verb_forms_share_a_term(variant):
    assert terms(variant) == terms("konfigurieren")


def test_lexical_english_inflections_share_a_term():
    assert terms("developers") == terms("developer")
    assert terms("studies") == terms("study")
    assert match(terms("Which developers?"), "A developer wrote it.").terms == terms("developer")


@pytest.mark.parametrize("variant", ["Häuser", "Haeuser", "HÄUSER", "Haus", "Hauses"])
def test_lexical_umlauts_fold_consistently(variant):
    assert terms(variant) == {"haus"}


def test_lexical_accents_and_sharp_s_fold():
    assert terms("Straße") == terms("Strasse")
    assert terms("café") == terms("cafe")
    assert terms("ＡＰＩ") == terms("api")


def test_lexical_stop_words_are_ignored():
    assert terms("Was ist die Antwort und wie geht es?") == terms("Antwort geht")
    assert terms("What is the answer and how does it work?") == terms("answer work")
    assert terms("und oder the of über für") == frozenset()


def test_lexical_stop_word_lists_are_substantial():
    assert len(GERMAN_STOP_WORDS) >= 150
    assert len(ENGLISH_STOP_WORDS) >= 150


def test_lexical_single_characters_dropped_numbers_kept():
    assert terms("a b c 7") == frozenset()
    assert terms("Version 2024 v3") == {normal_form("version"), "2024", "v3"}


def test_lexical_punctuation_and_underscores_split_words():
    assert terms("node.js/user_id-Feld") == terms("node js user id Feld")


def test_lexical_score_short_terms_once_each():
    # "neu" and "team" are short (weight 1.0): 1 + 1
    assert match(terms("neu team"), "Das neue Team.") == LexicalMatch(terms("neu team"), 2, 2.0)


def test_lexical_score_specific_term_weighs_more():
    # "opentelemetri" has 13 characters: 1.5 per occurrence, 3 occurrences; "team" once: 1.0
    found = match(terms("OpenTelemetry team"), "OpenTelemetry, opentelemetry and OPENTELEMETRY for the team")
    assert found.count == 2
    assert found.score == pytest.approx(3 * 1.5 + 1.0)


def test_lexical_score_caps_repetitions_at_four():
    found = match(terms("OpenTelemetry"), " ".join(["OpenTelemetry"] * 9))
    assert found.count == 1
    assert found.score == pytest.approx(4 * 1.5)


def test_lexical_match_without_question_terms_is_empty():
    assert match(frozenset(), "anything at all") == LexicalMatch(frozenset(), 0, 0.0)
    assert match(["haus"], "Das Haus").count == 1


def test_normal_form_is_right_when_many_threads_stem_at_once():
    """A web worker runs 32 threads; a shared Snowball stemmer gave wrong stems and IndexError."""
    import random
    import threading

    from irisrag.rag import lexical

    rng = random.Random(1)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyzäöüß") for _ in range(rng.randint(4, 16)))
             + rng.choice(["ungen", "lich", "iert", "ness", "ing", "ed", "s", ""]) for _ in range(40_000)]
    stem = lexical.normal_form.__wrapped__  # the uncached function: every call stems
    expected = [stem(w) for w in words]
    wrong: list[str] = []

    def work(offset: int) -> None:
        try:
            wrong.extend(words[i] for i in range(offset, len(words), 8) if stem(words[i]) != expected[i])
        except Exception as exc:  # noqa: BLE001 - the failure being tested for
            wrong.append(repr(exc))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []


def test_a_verb_that_folds_into_a_stop_word_keeps_its_term_and_function_words_stay_stop_words():
    from irisrag.rag.lexical import terms
    assert terms("Wie ändere ich die Rechte?") == terms("Rechte ändern")    # "ändere" is no "andere"
    assert not terms("andere für über würde hätte") and not terms("fur uber")
