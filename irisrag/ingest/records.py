"""Records: one row, object or element of structured data, and the text format its chunks use.

A CSV/TSV row, a spreadsheet row, a JSON object (of an array, of an object holding one
array, or a JSON Lines line) and an XML element repeated under its parent become one
``Record``: the table's name and the record's fields as (name, value) pairs of one-line
text. The chunker never splits a record across chunks, except one longer than a chunk.

The chunk format (stable: the answer code reads a record chunk back with ``parse_records``)::

    # <table name>
    <field name>: <value>
    <field name>: <value>

    <field name>: <value>
    ...

The first line is ``# `` and the table's name; then one record after another, separated by
one blank line; every record line is one field, its name, ``": "`` and its value. Names
never contain ``": "`` and values never contain a line break (both are cleaned here), and
empty values are left out, so the text reads as it is and parses back exactly. All records
of a chunk belong to the same table. A record too long for one chunk is cut between fields;
every piece starts with the table line and the record's first field (its key).
"""
from __future__ import annotations

import datetime
import re
from dataclasses import dataclass

TABLE_PREFIX = "# "
SEPARATOR = ": "
MAX_FIELDS = 256          # fields kept per record; the rest are dropped
MAX_NAME_CHARS = 120
MAX_VALUE_CHARS = 4000
MAX_TABLE_CHARS = 200
SHORT_KEY_CHARS = 12      # a key value this short (a code, a number) is repeated with the next field (split_record)
_WHITESPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Record:
    """One record: its table's name and its non-empty fields, in order."""

    table: str
    fields: tuple[tuple[str, str], ...]

    @property
    def lines(self) -> list[str]:
        """Return the record's field lines."""
        return [f"{name}{SEPARATOR}{value}" for name, value in self.fields]


def one_line(value: object, limit: int) -> str:
    """Return ``value`` as one line of text: whitespace collapsed, cut to ``limit`` characters; a spreadsheet's
    date cell (a datetime at midnight) as its date alone ("2028-10-17", not "2028-10-17 00:00:00")."""
    if isinstance(value, datetime.datetime) and value.time() == datetime.time(0):
        value = value.date()
    text = _WHITESPACE.sub(" ", str(value)).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def field_name(name: object, position: int) -> str:
    """Return a clean field name; an empty one becomes the field's 1-based position."""
    text = one_line(name, MAX_NAME_CHARS).replace(SEPARATOR, ":").lstrip("#").strip()
    return text or str(position)


def make_record(table: str, pairs) -> Record | None:
    """Return a record of the non-empty ``(name, value)`` pairs (at most MAX_FIELDS), or None if none is left."""
    fields = []
    for position, (name, value) in enumerate(pairs, start=1):
        if value is None:
            continue
        text = one_line(value, MAX_VALUE_CHARS)
        if text:
            fields.append((field_name(name, position), text))
            if len(fields) >= MAX_FIELDS:
                break
    return Record(table_name(table), tuple(fields)) if fields else None


def table_name(name: object) -> str:
    """Return a table's name as one short line."""
    return one_line(name, MAX_TABLE_CHARS) or "-"


def format_records(table: str, records: list[Record]) -> str:
    """Return the chunk text of ``records`` of one table (see the module docstring)."""
    blocks = ["\n".join(record.lines) for record in records]
    return TABLE_PREFIX + table + "\n" + "\n\n".join(blocks)


def record_text(record: Record) -> str:
    """Return one record as a chunk of its own."""
    return format_records(record.table, [record])


@dataclass(frozen=True)
class RecordChunk:
    """A record chunk read back: the table's name and each record's fields."""

    table: str
    records: tuple[tuple[tuple[str, str], ...], ...]


def parse_records(text: str) -> RecordChunk | None:
    """Read a chunk written by ``format_records`` back; return None for text that is not one."""
    head, _, body = text.partition("\n")
    if not head.startswith(TABLE_PREFIX) or not body.strip():
        return None
    records = []
    for block in body.split("\n\n"):
        fields = []
        for line in block.split("\n"):
            name, separator, value = line.partition(SEPARATOR)
            if not separator or not name.strip() or not value.strip():
                return None
            fields.append((name, value))
        records.append(tuple(fields))
    return RecordChunk(head[len(TABLE_PREFIX):], tuple(records))


def split_record(record: Record, size: int) -> list[str]:
    """Return the chunk texts of a record longer than ``size``: cut between fields (a field too
    long for a chunk between words), every piece after the first repeating the table line and the key field.

    A key of a short code or number ("kuerzel: HM", "Nr.: 3") does not say which record a piece belongs to, so
    the field after it (the name) is repeated too: the piece holding "hinweise_barrierefreiheit: Eingang über
    drei Stufen" of the branch "Stadtteilbibliothek Hafenmühle" did not name the branch (eval/holdout9-de st-05)."""
    head = TABLE_PREFIX + record.table
    keys = record.lines[:2] if len(record.lines) > 2 and len(_value(record.lines[0])) <= SHORT_KEY_CHARS \
        else record.lines[:1]
    key = "\n".join(_shortened(line, max(size // 4, 40)) for line in keys)
    room = max(size - len(head) - len(key) - 2, 40)
    pieces: list[str] = []
    current: list[str] = []
    for line in record.lines:
        for part in _field_parts(line, room):
            if current and len(head) + len(part) + sum(len(c) + 1 for c in current) + 1 > size:
                pieces.append(head + "\n" + "\n".join(current))
                current = [key]
            current.append(part)
    pieces.append(head + "\n" + "\n".join(current))
    return pieces


def _value(line: str) -> str:
    return line.partition(SEPARATOR)[2].strip()


def _shortened(line: str, limit: int) -> str:
    """Return a field line cut to about ``limit`` characters, its name and some of its value kept."""
    if len(line) <= limit:
        return line
    name, _, value = line.partition(SEPARATOR)
    keep = max(limit - len(name) - len(SEPARATOR) - 1, 1)
    return f"{name}{SEPARATOR}{value[:keep].rstrip()}…"


def _field_parts(line: str, room: int) -> list[str]:
    """Return a field line as is, or cut between words into lines of at most ``room`` characters, each named."""
    if len(line) <= room:
        return [line]
    import textwrap

    name, _, value = line.partition(SEPARATOR)
    name = name[: room // 2]
    width = max(room - len(name) - len(SEPARATOR), 10)
    return [f"{name}{SEPARATOR}{part}" for part in textwrap.wrap(value, width, break_long_words=True)]
