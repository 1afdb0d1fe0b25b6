"""Records the question names by a field and its value: their document is on topic.

A question about one record of a table often names it the way the table does: "Wie viele
Personen passen in den Raum Ems?" names the record whose field ``raum`` holds "Ems". Such a
record may share no other word with the question ("plaetze: 40" for "Personen passen"), and
a record's cosine to a question is low (field lines, not prose: 0.33 against the gate's 0.45),
so the evidence gate refused it (eval/holdout2-de br-01). A candidate record whose field name
and that field's whole value (at most MAX_VALUE_TERMS terms, not only the name's own terms)
are both among the question's terms makes its document pass the gate (``gate.py``, ``named``).
An off-topic question rarely names both: "Betriebsrat in Papenburg" names the value of no
field called "Betriebsrat".

A record's first field is its key (a CSV's first column, a JSON object's "name" or "id"): a
question that names that whole value (at least MIN_KEY_CHARS characters) names the record
without the field's name: "Wann läuft die Sicherung der Netzlaufwerke?" asks about the backup
job whose first field ``name`` is "netzlaufwerke" (eval/holdout-de bk-03).

A product's name (at least MIN_NAME_LETTERS letters, a capital inside: "MailWall", "KeePassXC";
not in the word list) that the candidates of only one document hold names that document: "Bis
wann müssen wir MailWall kündigen?" names the licence register's record "MailWall Gateway",
whose English fields ("Contract renews ... 60 days") share no other word with the question and
whose cosine is low (evidence 0.29; eval/holdout5-de lic-03). Any capitalised word outside the
list also named a place ("Wann blühen die Kirschbäume in Japan?" passed on the one chapter that
names Japan: eval/real-de off-30), and a name several documents hold ("Baunatal", the
company's own name) says nothing of which one is meant. A surname after "Herr" or "Frau" is a
person's name and counts as a product's does: "Wann hat Herr Feddersen
Sprechstunde?" names the one contact record that holds "Feddersen", whose English key
``office_hours`` shares no word with the question (evidence 0.31; eval/holdout8-de ap-04).

A program the question names ("mit tee", "bei stat", or any lower-case word of it that is no stop word: "Wie sage
ich cut, dass …?"; ``lower_words``) names the documents that are its manual: a candidate chunk holds the manual's
title ("TEE(1)") or its name line ("tee - Von Standardeingabe lesen …") at a line's start. A question about a manual in everyday words shares few words with the option that
answers it ("Ich leite die Ausgabe mit tee in eine Logdatei um, aber die wird jedes Mal überschrieben. Wie hänge
ich stattdessen hinten an?" for "-a, --append"), and its evidence stayed under the bar (0.50 against 0.58 with
the unknown noun "Logdatei"; eval/holdout9-de tee-01).
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from irisrag.ingest.records import parse_records
from irisrag.rag.lexical import match, stop_word, terms
from irisrag.rag.nouns import question_nouns

if TYPE_CHECKING:
    from irisrag.rag.dictionary import Dictionary
    from irisrag.vectors.store import Hit

MAX_VALUE_TERMS = 3
_DIGIT = re.compile(r"(?<![\w.,])\d(?![\w.,])")
MIN_KEY_CHARS = 5
MIN_NAME_LETTERS = 5
_LOWER = re.compile(r"(?<![\w-])([a-z][a-z0-9._+-]*[a-z0-9])(?![\w-])")
_PERSON = re.compile(r"\b(?:Herrn?|Frau)\s+([A-ZÄÖÜ][\w-]+)")   # "Herr Feddersen"


def named_documents(question_terms: frozenset[str], hits: Sequence[Hit], question: str = "",
                    words: Dictionary | None = None, manuals: frozenset[int] | None = None) -> frozenset[int]:
    """The documents of the candidates that hold a record the question names by a field and its value
    (the question's one-digit numbers count as terms here: "Woche 3" names ``woche: 3``), or the only
    document holding a name of the question that the word list lacks (``named_by_name``), or the manual of a program
    it names (``manuals``: ``named_by_tool``'s result where the caller has it already)."""
    asked = question_terms | frozenset(_DIGIT.findall(question))
    return (frozenset(hit.document_id for hit in hits if names_record(asked, hit.text))
            | named_by_name(question, hits, words) | (named_by_tool(question, hits) if manuals is None else manuals))


def named_by_tool(question: str, hits: Sequence[Hit]) -> frozenset[int]:
    """The documents among the candidates that are the manual of a program the question names (see above); the
    name may be a word of the list ("tee", "split", "stat"): the manual's title tells it is a program."""
    tools = list(dict.fromkeys(lower_words(question)))   # "mit tee" (nouns.tool_words) among them
    if not tools:
        return frozenset()
    title = manual_title(tools)
    return frozenset(hit.document_id for hit in hits if title.search(hit.text))


def manual_title(tools: Sequence[str]) -> re.Pattern[str]:
    """A manual's title or name line for any of these programs ("CUT(1)", "cut - Teile jeder Zeile ausgeben")."""
    return re.compile("|".join(rf"^(?:{re.escape(t)}\s+[-–]\s|{re.escape(t.upper())}\(\d)" for t in tools),
                      re.MULTILINE)


def lower_words(question: str) -> list[str]:
    """The question's lower-case words that are no stop word: a program may be named anywhere ("Wie sage ich cut,
    dass …?", "Reicht rm dafür?"); only a candidate manual's title or name line makes one a program's name."""
    return [w for w in _LOWER.findall(question) if not stop_word(w)]


def named_by_name(question: str, hits: Sequence[Hit], words: Dictionary | None) -> frozenset[int]:
    """The documents that are the only candidates' document holding one of the question's names (see above)."""
    if words is None:
        return frozenset()
    named: set[int] = set()
    persons = frozenset(_PERSON.findall(question))
    for noun in question_nouns(question):
        if (_product_name(noun.word) or noun.word in persons) and not words.knows(noun.word):
            holders = {hit.document_id for hit in hits if match(noun.forms, hit.lexical_text).terms}
            if len(holders) == 1:
                named |= holders
    return frozenset(named)


def names_record(question_terms: frozenset[str], text: str) -> bool:
    """Tell whether a record chunk holds a field whose name and whole value the question's terms contain."""
    chunk = parse_records(text) if text.startswith("#") else None
    return chunk is not None and any(_named(question_terms, name, value) or (n == 0 and _keyed(question_terms, value))
                                     for record in chunk.records for n, (name, value) in enumerate(record))


def _value_terms(value: str) -> frozenset[str]:
    """A value's terms; a one-digit number, which is no term, is its own."""
    found = terms(value)
    return found or (frozenset({value.strip()}) if _DIGIT.fullmatch(value.strip()) else frozenset())


def _named(asked: frozenset[str], name: str, value: str) -> bool:
    name_terms, value_terms = terms(name), _value_terms(value)
    return (bool(name_terms) and name_terms <= asked and 0 < len(value_terms) <= MAX_VALUE_TERMS
            and value_terms <= asked and not value_terms <= name_terms)


def _keyed(asked: frozenset[str], value: str) -> bool:
    value_terms = terms(value)
    return len(value.strip()) >= MIN_KEY_CHARS and 0 < len(value_terms) <= MAX_VALUE_TERMS and value_terms <= asked


def _product_name(word: str) -> bool:
    """A word of MIN_NAME_LETTERS letters with a capital after its first letter, not all capitals ("MailWall")."""
    return len(word) >= MIN_NAME_LETTERS and any(ch.isupper() for ch in word[1:]) and not word.isupper()
