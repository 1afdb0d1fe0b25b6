"""The asked entry of a named manual reaches the context past the manual's cap (``rag/manual_entries.py``)."""
from __future__ import annotations

from irisrag.rag.gate import GATE_DOCUMENT_CAP, GATE_TOTAL_CAP, Candidate
from irisrag.rag.lexical import match, terms
from irisrag.rag.manual_entries import holds_entry, with_asked_entries
from irisrag.vectors.store import Hit

QUESTION = "Was macht apt-cache stats?"
ASKED = frozenset({"apt", "apt-cache", "cache", "make", "stats"})   # option_names.asked_words' kind of set
TITLE = "APT-CACHE(8) APT APT-CACHE(8)\n\nNAME\n       apt-cache - den APT-Zwischenspeicher abfragen"
OVERVIEW = "apt-cache führt eine Vielzahl von Aktionen auf dem Paketzwischenspeicher von APT durch.\napt-cache verändert nichts."
STATS = "       stats\n           stats zeigt einige Statistiken über den Zwischenspeicher."


def _candidate(n: int, document: int, text: str, kept: bool, gate: str | None = None) -> Candidate:
    return Candidate(Hit(document, 1, n, None, text, 0.5, n), match(terms(QUESTION), text), kept, gate)


def _manual(last: str, last_gate: str = GATE_DOCUMENT_CAP) -> list[Candidate]:
    kept = [_candidate(n, 7, text, True) for n, text in enumerate([TITLE, OVERVIEW, "Exit-Status 0.", "SIEHE AUCH"])]
    return [*kept, _candidate(4, 8, "Ein anderes Dokument.", True), _candidate(5, 7, last, False, last_gate)]


def test_the_asked_entry_takes_the_named_manual_s_last_slot():
    out = with_asked_entries(_manual(STATS), frozenset({7}), ASKED, QUESTION)
    assert [c.hit.chunk_index for c in out if c.kept] == [0, 1, 2, 4, 5]
    assert out[3].gate == GATE_DOCUMENT_CAP and out[5].gate is None


def test_nothing_changes_without_a_named_manual_an_asked_entry_or_a_cap_drop():
    assert with_asked_entries(_manual(STATS), frozenset(), ASKED, QUESTION) == _manual(STATS)
    assert with_asked_entries(_manual("Nichts dergleichen."), frozenset({7}), ASKED, QUESTION) == _manual("Nichts dergleichen.")
    # a chunk the total cap dropped stays out: the context is full
    assert with_asked_entries(_manual(STATS, GATE_TOTAL_CAP), frozenset({7}), ASKED, QUESTION) == _manual(STATS, GATE_TOTAL_CAP)
    held = _manual(STATS)
    held[2] = _candidate(2, 7, STATS, True)   # a kept chunk holds the entry already
    assert with_asked_entries(held, frozenset({7}), ASKED, QUESTION) == held


def test_the_program_s_own_name_is_no_asked_entry():
    # the overview's lines begin with "apt-cache", which the question names: it does not count as the entry
    assert holds_entry(OVERVIEW, ASKED) and not holds_entry(OVERVIEW, ASKED - {"apt", "apt-cache", "cache"})
    assert with_asked_entries(_manual(STATS), frozenset({7}), ASKED, QUESTION)[5].kept



def test_only_an_entry_named_by_an_asked_word_itself_counts():
    assert holds_entry(STATS, frozenset({"stats"})) and not holds_entry(STATS, frozenset({"statistics"}))


def test_the_question_s_frame_is_no_asked_entry():
    option = "  -o, --option\n      eine Konfigurationsoption setzen"
    candidates = _manual(option)
    assert with_asked_entries(candidates, frozenset({7}), ASKED | {"option"}, "Welche Option von apt-cache?") == candidates
