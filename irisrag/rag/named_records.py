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
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from irisrag.ingest.records import parse_records
from irisrag.rag.lexical import terms

if TYPE_CHECKING:
    from irisrag.vectors.store import Hit

MAX_VALUE_TERMS = 3
_DIGIT = re.compile(r"(?<![\w.,])\d(?![\w.,])")
MIN_KEY_CHARS = 5


def named_documents(question_terms: frozenset[str], hits: Sequence[Hit], question: str = "") -> frozenset[int]:
    """The documents of the candidates that hold a record the question names by a field and its value
    (the question's one-digit numbers count as terms here: "Woche 3" names ``woche: 3``)."""
    asked = question_terms | frozenset(_DIGIT.findall(question))
    return frozenset(hit.document_id for hit in hits if names_record(asked, hit.text))


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
