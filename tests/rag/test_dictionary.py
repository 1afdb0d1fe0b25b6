"""The German→English word list (dictionary.py): Ding lines parsed, looked up, cached."""
from __future__ import annotations

import pytest

from irisrag.rag import dictionary
from irisrag.rag.dictionary import Dictionary, parse

LINES = [
    "# Version :: test\n",
    "gewinnen; siegen {vi} | gewinnend | ich/er/sie gewann :: to win {won; won} | winning | I/he/she won\n",
    "Betrieb {m} (Arbeitsvorgänge) [adm.] | den Betrieb aufnehmen :: operations; operation | to start operations\n",
    "Betrieb {m}; Laufen {n} (Gerät) :: operation (of a device)\n",
    "Firma {f}; Betrieb {m} :: company; business\n",
    "Normanne {m} [hist.] | die Normannen :: Norman | the Normans\n",
    "sächsisch {adj} :: Saxon\n",
    "Sommer {m} :: summer\n",
    "Theater {n} :: theatre [Br.]; theater [Am.]\n",
    "Haus {n} | Häuser {pl} :: house | houses\n",
    "kaputt {adj} | ganz kaputt :: broken | completely broken; totally broken down\n",
    "unpaarig | eins; zwei :: unpaired\n",
]


@pytest.fixture()
def words() -> Dictionary:
    return Dictionary(parse(LINES))


def test_alternatives_pair_by_place_and_notes_articles_and_pronouns_go(words):
    assert words.lookup("gewinnen") == ("win",)
    assert words.lookup("siegen") == ("win",)
    assert words.lookup("gewann") == ("won",)                    # "ich/er/sie gewann" :: "I/he/she won"
    assert words.lookup("Normannen") == ("Normans",)              # "die Normannen" :: "the Normans"
    assert words.lookup("Laufen") == ("operation",)
    assert "Arbeitsvorgänge" not in words.entries and "aufnehmen" not in words.entries   # notes, phrases


def test_a_headword_s_own_meanings_come_first_then_the_dictionary_order(words):
    assert words.lookup("Betrieb") == ("operations", "operation", "company", "business")


def test_lines_whose_alternatives_do_not_pair_are_left_out(words):
    assert words.lookup("unpaarig") == ()
    assert words.lookup("ganz") == ()                             # a phrase, not a word


def test_case_is_folded_only_when_the_exact_word_is_missing(words):
    assert words.lookup("betrieb") == words.lookup("Betrieb")
    assert words.lookup("Gewann") == ("won",)


def test_inflected_adjectives_and_compounds_the_list_lacks(words):
    assert words.translations("Sächsischen") == ("Saxon",)        # sächsisch + en
    assert words.translations("Sommertheater") == ("summer theatre",)
    assert words.translations("Sommerstheater") == ("summer theatre",)   # a linking s
    assert words.translations("Xyzzytheater") == ()               # one part unknown: no guess
    assert words.translations("Hau") == ()


def test_load_parses_once_keeps_a_cache_and_names_no_missing_file(tmp_path, monkeypatch):
    source = tmp_path / "de-en"
    source.write_text("".join(LINES), encoding="utf-8")
    cache = tmp_path / "cache"
    monkeypatch.setattr(dictionary, "_loaded", {})
    loaded = dictionary.load(source, cache)
    assert loaded is not None and loaded.lookup("gewann") == ("won",)
    assert len(list(cache.glob("dictionary-de-en-*.pickle"))) == 1
    assert dictionary.load(source, cache) is loaded                # once per process
    monkeypatch.setattr(dictionary, "_loaded", {})
    source.write_text("", encoding="utf-8")                       # a changed file: another cache key
    assert len(dictionary.load(source, cache)) == 0
    assert dictionary.load(tmp_path / "missing", cache) is None


def test_the_debian_word_list(word_list):
    words = word_list
    assert len(words) > 200_000
    assert "defense" in words.translations("Verteidigung")
    assert "won" in words.translations("gewann")
    assert words.translations("Nationalhymne") == ("national anthem",)
