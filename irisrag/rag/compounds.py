"""Split German compound nouns into their parts for the full-text index ("Nationalhymne" -> "national", "hymne").

BM25 matches whole words: a question about the "Hymne" misses a paragraph that only says
"Nationalhymne", and "Bevölkerungszahl" misses "Bevölkerung". So the full-text index reads
each chunk with the parts of its compound nouns added (``searchtext.py``), and a question's
full-text search adds the parts of its own. A word is split when it is a capitalised word
(a German noun) of at least MIN_WORD letters whose end is a noun of the word list (Debian's
``trans-de-en``, ``dictionary.py``) and whose beginning, less a linking "s", "es", "n" or
"en", is a word of it, both at least MIN_PART letters; of several cuts the one with the
longest last part (the compound's head noun) wins. Both sides are split by the same rule, so
a poor cut ("Regierungen" -> "regie", "rungen") mostly repeats the word it came from.

Measured on xquad/de (README: the search text, issue 16 ninth step): full text alone 0.936 -> 0.947
nDCG@10, hybrid 0.956 -> 0.961 in the replay; verbs and adjectives, shorter parts or a head
that need not be a noun were worse.
"""
from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from irisrag.rag.dictionary import Dictionary
from irisrag.rag.lexical import LexicalMatch, fold_accents, normal_form, term_weight

if TYPE_CHECKING:
    from irisrag.vectors.store import Hit

MIN_WORD = 9          # the shortest word that is split
MIN_PART = 4          # the shortest part
LINKS = ("s", "es", "n", "en", "")   # what may join the first part to the head noun (tried in this order)
WORD = re.compile(r"[^\W\d_]+")


class Compounds:
    """The compound splitter of one word list (kept per process with the list, ``dictionary.load``)."""

    def __init__(self, words: Dictionary) -> None:
        self.known = frozenset(words.folded)
        self.nouns = frozenset(word.casefold() for word in words.entries if word[:1].isupper())
        self.split = lru_cache(maxsize=50_000)(self._split)

    def _split(self, word: str) -> tuple[str, ...]:
        """The word's two parts, folded ("Nationalhymne" -> ("national", "hymne")); () when it is not split."""
        if len(word) < MIN_WORD or not word[:1].isupper():
            return ()
        folded = word.casefold()
        for cut in range(MIN_PART, len(folded) - MIN_PART + 1):
            head, tail = folded[:cut], folded[cut:]
            if tail in self.nouns:
                first = self._first_part(head)
                if first:
                    return first, tail
        return ()

    def _first_part(self, head: str) -> str:
        for link in LINKS:
            stem = head[: len(head) - len(link)]
            if head.endswith(link) and len(stem) >= MIN_PART and stem in self.known:
                return stem
        return ""

    def parts(self, text: str) -> list[str]:
        """The parts of every compound noun in the text, in text order."""
        return [part for match in WORD.finditer(text) for part in self.split(match.group())]


def head_alternates(question: str, splitter: Compounds | None) -> dict[str, str]:
    """Each compound noun's head, as a word of an answer unit (accents folded), -> the compound's question term.

    A unit that names the head answers a question about the compound more often than not:
    "Was kostet es, wenn ich meinen Werksausweis verliere?" is answered by "bei Verlust [des
    Ausweises] berechnen wir 15 €", "Wann soll ich an meinem ersten Arbeitstag da sein?" by
    "Ihr erster Tag beginnt um 8:30 Uhr" (eval/holdout5-de onb-03, onb-01). The extractive
    answer credits such a unit with the compound's term (``extractive.lexical_share``); the gate
    and the full-text leg are not changed.
    """
    found = {}
    for term, (_, last) in question_compounds(question, splitter):
        head = fold_accents(last)
        found[head] = term
        if head.startswith("s") and head[1:] in splitter.nouns:   # "Arbeitstag" cut as "arbeit" + "stag"
            found[head[1:]] = term
    return found


def question_compounds(question: str, splitter: Compounds | None) -> Iterator[tuple[str, tuple[str, str]]]:
    """Yield each compound noun of the question as its term and its two parts (folded, as ``split`` gives them)."""
    if splitter is None:
        return
    for match in WORD.finditer(question):
        parts, term = splitter.split(match.group()), normal_form(match.group())
        if parts and term:
            yield term, parts


def term_parts(question: str, splitter: Compounds | None, among: frozenset[str]) -> dict[str, tuple[str, str]]:
    """Each compound noun of the question whose term is ``among`` its terms: the term -> its parts' terms."""
    found = {}
    for term, parts in question_compounds(question, splitter):
        first, head = map(normal_form, parts)
        if term in among and first and head:
            found[term] = (first, head)
    return found


def with_parts(matches: Sequence[LexicalMatch], hits: Sequence[Hit],
               parts: dict[str, tuple[str, str]]) -> list[LexicalMatch]:
    """Count a question compound as found in a chunk that holds both its parts ("Strom" and "Tarif" for
    "Stromtarif"), once, with its own weight; the other matches stay as they are.

    The price sheet's record "Sparte: Strom / Tarif: ElbStrom Wärme … nur für Wärmepumpen" answers
    "Welchen Stromtarif gibt es für eine Wärmepumpe?", but shared only "Wärmepumpe" with it: its
    evidence stayed below the gate's bar (eval/holdout6-de ods-02). Both parts must be in the same
    chunk (the gate's compound rule for unknown nouns, ``nouns.py``, asks them of any candidate), and
    both as nouns, capitalised: "Reisepass" is not "Reisen" and "passt" (eval/real-de off-23, "Wie
    beantrage ich einen neuen Reisepass?", was answered from the travel policy with any two words).
    """
    if not parts:
        return list(matches)
    joined = []
    for found, hit in zip(matches, hits, strict=True):
        words = _nouns(hit.text)
        added = [t for t, (first, head) in parts.items() if t not in found.terms and first in words and head in words]
        joined.append(LexicalMatch(found.terms | frozenset(added), found.count + len(added),
                                   found.score + sum(map(term_weight, added))) if added else found)
    return joined


@lru_cache(maxsize=4096)
def _nouns(text: str) -> frozenset[str]:
    """The terms of the text's capitalised words (German nouns, and words starting a sentence)."""
    return frozenset(normal_form(m.group()) for m in WORD.finditer(text) if m.group()[:1].isupper())
