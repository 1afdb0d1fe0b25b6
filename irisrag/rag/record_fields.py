"""A record as an answer shows it: a small two-column table of its fields, the fields that answer when it is long.

A record of structured data (``ingest.records``: a CSV row, a JSON object, an XML element) is
an answer unit of its own (``extractive.record_units``), shown as a table of its field names
and values under the table's name. A record whose names and values take up to ``RECORD_CHARS``
characters is shown whole (a CSV row of fourteen short fields: 340-370 characters). A longer one
(a JSON incident with twenty fields: 633 characters, more than an answer may take, eval/holdout6-de
json-01) shows, in the record's own order and within ``RECORD_CHARS`` where the first two allow:

1. its first field (the key: ``id``, ``Lfd.Nr.``, the name),
2. the fields that share a question term, in name or value (``Ostheide``, ``Strom``),
3. the fields holding the kind of span the question asks for (``span_kinds``: the date for "Wann"),
4. the fields of prose (``PROSE_WORDS`` words or more: a description, a cause, a remark), which
   say why and how where the other fields only name and count,

and a last row ``…`` that says fields were left out; the whole record is one click away in the viewer.
A number the question names only inside a code ("ST-2026-0311") matches no field by itself: the
year in an incident's number made every date of the record a match. The code's key field is kept anyway.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from irisrag.rag import span_kinds
from irisrag.rag.lexical import terms

RECORD_CHARS = 420  # an answer's 450-500 characters (extractive.UNSURE_CHARS), less the table's name and citation
PROSE_WORDS = 4
OMITTED = "…"
_BAR = re.compile(r"(?<!\\)\|")
_CODE = re.compile(r"(?=[\w./-]*[^\W\d_])(?=[\w./-]*\d)\w+(?:[./-]\w+)+")   # letters and digits joined: ST-2026-0311

Fields = Sequence[tuple[str, str]]


def field_terms(question: str, question_terms: frozenset[str]) -> frozenset[str]:
    """The question's terms a field may match: all but the numbers it names only inside a code."""
    coded = {t for code in _CODE.findall(question) for t in terms(code) if t.isdigit()}
    rest = terms(_CODE.sub(" ", question))
    return frozenset(t for t in question_terms if t not in coded or t in rest)


def table(title: str, fields: Fields) -> str:
    """Return the record as a Markdown table: the table's name over one row per field."""
    cell = lambda value: value.replace("|", "\\|")  # noqa: E731 - a cell's own bars are text
    return "\n".join([f"| {cell(title)} | |", "|---|---|", *(f"| {cell(n)} | {cell(v)} |" for n, v in fields)])


def parse(text: str) -> tuple[str, list[tuple[str, str]]] | None:
    """Read a table written by ``table`` back into its name and fields; None for other text."""
    lines = text.split("\n")
    if len(lines) < 3 or lines[1] != "|---|---|":
        return None
    cells = [[c.strip().replace("\\|", "|") for c in _BAR.split(line)[1:-1]] for line in lines]
    if any(len(row) != 2 for row in cells):
        return None
    return cells[0][0], [(name, value) for name, value in cells[2:]]


def shown(text: str, matches: Callable[[str], bool], kinds: frozenset[str]) -> str:
    """Return the record table as the answer shows it: whole, or the fields that answer (module docstring)."""
    record = parse(text)
    if record is None or sum(map(_size, record[1])) <= RECORD_CHARS:
        return text
    title, fields = record
    kept = chosen(fields, matches, kinds)
    rows = [fields[i] for i in sorted(kept)]
    return table(title, rows + [(OMITTED, "")] if len(kept) < len(fields) else rows)


def chosen(fields: Fields, matches: Callable[[str], bool], kinds: frozenset[str]) -> set[int]:
    """Return the indexes of the fields to show: the key and the matching ones always, then by priority while they fit."""
    matching = [i for i, (name, value) in enumerate(fields) if matches(f"{name} {value}")]
    kept = {0, *matching}
    used = sum(_size(fields[i]) for i in kept)
    for i in _by_priority(fields, kinds):
        if i not in kept and used + _size(fields[i]) <= RECORD_CHARS:
            kept.add(i)
            used += _size(fields[i])
    return kept


def _by_priority(fields: Fields, kinds: frozenset[str]) -> list[int]:
    held = [i for i, (_, value) in enumerate(fields) if kinds and span_kinds.holds(kinds, value)]
    prose = [i for i, (_, value) in enumerate(fields) if len(value.split()) >= PROSE_WORDS]
    return held + [i for i in prose if i not in held]


def _size(field: tuple[str, str]) -> int:
    return len(field[0]) + len(field[1]) + 2
