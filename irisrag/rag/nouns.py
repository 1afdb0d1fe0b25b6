"""The question's nouns that no candidate holds: evidence that the documents are about something else.

A German question names its topic with nouns and names, which German capitalises ("Wann ist
der nächste Vollmond?"). When such a noun is nowhere among the candidates of both legs (the
full-text leg searched the permitted areas for it), the documents do not cover what the
question is about, however close the rest of its words come: the evidence gate then asks for
more evidence (``gate.py``, UNKNOWN_NOUN_MARGIN times the unknown nouns' share of its nouns).

A noun is a capitalised word of at least MIN_LETTERS letters, without digits, that does not
begin a sentence. It counts as *known* when

- a candidate's search text (its text, title and compound parts) holds its normal form, or
  that of its compound's head noun ("Kilometergeld": "Geld"; ``compounds.py``) while some
  candidate also holds its first part ("Kilometer"): a generic head alone ("Probezeit":
  "Zeit", "Krankenkasse": "Kasse", "Urlaubstage": "Tage") says nothing of the topic;
- the term bridge mapped it onto a word of the candidates (``bridge.Bridge.words``);
- it is not a word of the word list (BRIDGE_DICTIONARY): a name, a technical term or a
  misspelling ("Cydippida", "Beriods") may be a variant the stemmer does not join, so it is
  left to the evidence alone.

A question *none* of whose nouns the candidates hold (``none_known``) counts ``NONE_KNOWN``
times a question whose nouns are all unknown: its topic is nowhere in the documents. Here a
compound the list does not hold but splits into its words ("Firmenlauf", "Sauerteigbrot") is
asked too, and a compound is known by its head only where one document holds both its head
and its first part ("Poststelle": "Post" in one document and "Stelle" in another say nothing
of a mail room). Off-topic questions of this shape ("Wie backe ich ein Sauerteigbrot?", "Wann
hat die Poststelle geöffnet?", "Wie melde ich mich für den Firmenlauf an?") came within 0.07
of the threshold; no answerable question of the seven libraries nor of xquad/de (1,182) has
this shape (docs/evaluation.md: a question none of whose nouns is known).

A name most of the candidates' documents hold (``collection_name``: not a word of the list, held
by COLLECTION_SHARE of the candidate documents and COLLECTION_DOCUMENTS at least) is the collection's
own name, its organisation or town ("Haselbrück", "Debian"), and is left out of the question's
nouns: "Wie hoch ist die Hundesteuer in Haselbrück?" asks about "Hundesteuer", which no document
holds, and counting the town as a known noun halved the unknown share. Measured on the nine
libraries: two more off-topic questions refused, no answerable one lost (at a share of one third,
"PIDs" of three manual pages counted as a name and one answer was lost; docs/evaluation.md).

A question one of whose words the list translated whole into words of the candidates
(``bridge.Bridge.whole``: "Bereich" -> "field") is read in another language than its
documents: its nouns are unknown for that reason, so the rule leaves it alone. Without a word
list the rule is off.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from irisrag.rag.lexical import match, normal_form, stop_word, tokens

if TYPE_CHECKING:
    from irisrag.rag.bridge import Bridge
    from irisrag.rag.compounds import Compounds
    from irisrag.rag.dictionary import Dictionary
    from irisrag.vectors.store import Hit

MIN_LETTERS = 3
NONE_KNOWN = 2.0  # the unknown share of a question none of whose nouns is known (none_known): twice all unknown
COLLECTION_SHARE, COLLECTION_DOCUMENTS = 0.4, 3   # a name this many candidate documents hold (collection_name)
SENTENCE_ENDS = ".?!:;"
_TOOL = re.compile(r"\b(?:mit|bei|per|via)\s+([a-z][a-z0-9._+-]*[a-z0-9])(?![\w-])")


@dataclass(frozen=True)
class Noun:
    """A question noun and the normal forms any of which, in a candidate, make it known."""

    word: str
    forms: frozenset[str]
    head: frozenset[str] = frozenset()       # the compound's head's form: known only together with ``modifier``
    modifier: frozenset[str] = frozenset()   # the compound's first part's form


def question_nouns(question: str, splitter: Compounds | None = None) -> list[Noun]:
    """The question's capitalised words that do not begin a sentence, with their own and their head's forms."""
    found = []
    for m in tokens(question):
        word, form = m.group(), normal_form(m.group())
        if form and _noun(word) and not _begins_sentence(question, m.start()):
            parts = splitter.split(word) if splitter else ()
            found.append(Noun(word, frozenset({form}), *(_forms(parts[-1:]), _forms(parts[:1])) if parts else ()))
    return found


def _forms(words: Sequence[str]) -> frozenset[str]:
    return frozenset(filter(None, map(normal_form, words)))


def _known(noun: Noun, found: frozenset[str]) -> bool:
    return bool(noun.forms & found) or bool(noun.head & found and noun.modifier & found)


def _noun(word: str) -> bool:
    return len(word) >= MIN_LETTERS and word[:1].isupper() and not any(ch.isdigit() for ch in word)


def _begins_sentence(text: str, start: int) -> bool:
    before = text[:start].rstrip(" \t\n\"'„“‚‘»«(")
    return not before or before[-1] in SENTENCE_ENDS


def unknown_share(question: str, hits: Sequence[Hit], bridged: Bridge, words: Dictionary | None,
                  splitter: Compounds | None = None) -> float:
    """The share of the question's nouns that are words of the list and that no candidate holds (0 to 1),
    or ``NONE_KNOWN`` when none of its nouns is known (``none_known``)."""
    nouns = question_nouns(question, splitter)
    if words is None or bridged.whole:
        return 0.0
    if unheld_tool(question, hits, words):
        return NONE_KNOWN
    nouns = [n for n in nouns if not collection_name(n, hits, words)]
    if not nouns:
        return 0.0
    if none_known(nouns, hits, bridged, words):
        return NONE_KNOWN
    asked = [n for n in nouns if n.word not in bridged.words and words.knows(n.word)]
    forms = frozenset().union(*(n.forms | n.head | n.modifier for n in asked))
    found = frozenset().union(*(match(forms, hit.lexical_text).terms for hit in hits)) if forms else frozenset()
    return sum(not _known(n, found) for n in asked) / len(nouns)


def collection_name(noun: Noun, hits: Sequence[Hit], words: Dictionary) -> bool:
    """Tell whether a noun is a name the whole collection shares (the organisation, its town: "Haselbrück",
    "VHS"): no word of the list nor a compound of its words, held by at least COLLECTION_SHARE of the candidates'
    documents and COLLECTION_DOCUMENTS of them. Such a name says nothing of a question's topic."""
    if words.knows(noun.word) or noun.head:
        return False
    documents = {hit.document_id for hit in hits}
    holding = {hit.document_id for hit in hits if match(noun.forms, hit.lexical_text).terms}
    return len(holding) >= max(COLLECTION_DOCUMENTS, COLLECTION_SHARE * len(documents))


def beyond_collection(question_terms: frozenset[str], hits: Sequence[Hit]) -> bool:
    """Tell whether a question asks, beside the collection's own names, only for words no candidate holds.

    A collection term is one COLLECTION_SHARE of the candidates' documents hold (COLLECTION_DOCUMENTS at least):
    the organisation, its town, its branches ("Falkenried", "Stadtbibliothek", "VHS"). When every other term of
    the question (the term bridge's words included) is in no candidate at all, the documents only name what the
    question is about: "Wann wurde die Stadtbibliothek Falkenried gegründet?" ("gegründet" nowhere) was answered
    with the annual report's preface, "Gibt es bei Lindwerk ein Jobrad?" with the company's name. Measured on the
    ten libraries: six off-topic questions refused, no right answer lost (docs/evaluation.md, seventh session)."""
    documents = {hit.document_id for hit in hits}
    if not question_terms or not documents:
        return False
    holders: dict[str, set[int]] = {t: set() for t in question_terms}
    for hit in hits:
        for term in match(question_terms, hit.lexical_text).terms:
            holders[term].add(hit.document_id)
    common = {t for t, held in holders.items() if len(held) >= max(COLLECTION_DOCUMENTS, COLLECTION_SHARE * len(documents))}
    asked = [t for t in question_terms if t not in common]
    return bool(common) and bool(asked) and not any(holders[t] for t in asked)


def named_tools(question: str, words: Dictionary) -> list[str]:
    """The programs a question names after "mit", "bei", "per" or "via" ("Wie benenne ich mit mv eine Datei
    um?"): lower-case words that are no stop word and no German word of the list."""
    return [word for word in tool_words(question) if not words.knows(word)]


def tool_words(question: str) -> list[str]:
    """The lower-case words after "mit", "bei", "per" or "via" that are no stop word: a program's name, or a
    word of the list ("mit tee", "bei stat", but also "mit wenig")."""
    return [m.group(1) for m in _TOOL.finditer(question) if not stop_word(m.group(1))]


def unheld_tool(question: str, hits: Sequence[Hit], words: Dictionary) -> bool:
    """Tell whether the question names a program (``named_tools``) that no candidate mentions."""
    forms = frozenset(filter(None, map(normal_form, named_tools(question, words))))
    found = frozenset().union(*(match(forms, hit.lexical_text).terms for hit in hits)) if forms else frozenset()
    return bool(forms - found)


def none_known(nouns: Sequence[Noun], hits: Sequence[Hit], bridged: Bridge, words: Dictionary) -> bool:
    """Tell whether no candidate holds any of the nouns: each is a word of the list or a compound of its
    words, not bridged, and no candidate holds its own form nor one document both its head and first part."""
    if any(n.word in bridged.words or not (words.knows(n.word) or n.head) for n in nouns):
        return False
    forms = frozenset().union(*(n.forms | n.head | n.modifier for n in nouns))
    held: dict[int, frozenset[str]] = {}
    for hit in hits:
        held[hit.document_id] = held.get(hit.document_id, frozenset()) | match(forms, hit.lexical_text).terms
    return not any(n.forms & found or (n.head & found and n.modifier & found) for n in nouns for found in held.values())
