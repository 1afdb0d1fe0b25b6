"""JSON as records: an array of objects, an object holding such arrays (each a table), or JSON Lines.

Nested objects are flattened to dotted names (``adresse.ort``); an array of plain values
becomes one value joined by ``; ``, an array of objects numbered names (``preise.1.betrag``).
Nesting deeper than ``MAX_DEPTH`` is kept as compact JSON text. A ``.json`` file that holds
no array of objects (a settings object, a single value) stays plain text, as before; one
larger than ``MAX_JSON_BYTES`` too (parsed whole, it would take many times its size in
memory). JSON Lines (``.jsonl``, or a ``.json`` file of one object a line) stream line by line.

The other top-level fields beside the array, and a settings object whose values include
objects (a nested configuration), become one record per section (``section_records``): each
top-level object a record of its own, named ``<file> · <key>``, and the plain top-level values
one record named after the file. As one record of every field, a question about one section
("Wer ist für den Wiederherstellungstest verantwortlich?") was answered with all of them, and
a record of 30 fields was too long to show (eval/holdout-de, backup-konfiguration.json).
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from irisrag.errors import ExtractionError
from irisrag.i18n import N_
from irisrag.ingest.extract_csv import MAX_RECORDS, record_pages
from irisrag.ingest.pages import Page
from irisrag.ingest.records import MAX_FIELDS, Record, make_record
from irisrag.ingest.text_encoding import detect_encoding

MAX_JSON_BYTES = 16 << 20
MAX_DEPTH = 8
SECTION_SEPARATOR = " · "
MALFORMED = N_("The JSON file is not valid JSON (line %(line)s, column %(column)s).")
MALFORMED_LINE = N_("Line %(line)s of the JSON Lines file is not a valid JSON object.")


def flatten(value: object, prefix: str = "", depth: int = 0) -> Iterator[tuple[str, object]]:
    """Yield ``(dotted name, plain value)`` pairs of a JSON value."""
    if isinstance(value, dict) and depth < MAX_DEPTH:
        for key, item in value.items():
            yield from flatten(item, f"{prefix}.{key}" if prefix else str(key), depth + 1)
    elif isinstance(value, list) and depth < MAX_DEPTH and any(isinstance(i, dict | list) for i in value):
        for number, item in enumerate(value[:MAX_FIELDS], start=1):
            yield from flatten(item, f"{prefix}.{number}" if prefix else str(number), depth + 1)
    elif isinstance(value, list):
        yield prefix or "value", "; ".join(_plain(item) for item in value[:MAX_FIELDS])
    else:
        yield prefix or "value", _plain(value)


def _plain(value: object) -> str:
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def object_record(table: str, value: object) -> Record | None:
    """Return one JSON value as a record (a plain value becomes the field ``value``)."""
    return make_record(table, flatten(value))


def _array_of_objects(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(item, dict) for item in value)


def find_tables(data: object, stem: str) -> tuple[list[tuple[str, list]], dict] | None:
    """Return the tables of a JSON document, each (name, array of objects), and the other top-level fields; None
    when it holds no array of objects at its top. Every top-level array of objects is a table named by its key: a
    document of several ("standorte" and "zentrale_dienste" beside the system's name) was one record of
    numbered names ("standorte.4.adresse.ort"), every branch's fields in one answer (eval/holdout9-de st-03)."""
    if _array_of_objects(data):
        return [(stem, data)], {}
    if isinstance(data, dict):
        arrays = [key for key, value in data.items() if _array_of_objects(value)]
        if arrays:
            return [(str(key), data[key]) for key in arrays], {k: v for k, v in data.items() if k not in arrays}
    return None


def json_pages(path: Path, text_page) -> Iterator[Page]:
    """Yield a JSON file's records in batches; ``text_page()`` is the plain-text page of other JSON."""
    if path.suffix.lower() == ".jsonl":
        yield from jsonl_pages(path)
        return
    if path.stat().st_size > MAX_JSON_BYTES:
        yield text_page()
        return
    encoding = detect_encoding(path)
    text = path.read_text(encoding=encoding, errors="replace")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data" and text.lstrip().startswith("{"):
            del text
            yield from jsonl_pages(path)
            return
        raise ExtractionError(MALFORMED, f"{path}: {exc}", params={"line": exc.lineno, "column": exc.colno}) from exc
    del text
    yield from _document_pages(path, data, text_page)


def section_records(stem: str, data: dict) -> list[Record]:
    """Return an object's sections as records: the plain top-level values first, then one per nested object."""
    plain = {key: value for key, value in data.items() if not isinstance(value, dict)}
    records = [object_record(stem, plain) if plain else None]
    records += [object_record(f"{stem}{SECTION_SEPARATOR}{key}", value) for key, value in data.items()
                if isinstance(value, dict)]
    return [record for record in records if record is not None]


def _nested_settings(data: object) -> bool:
    return isinstance(data, dict) and any(isinstance(value, dict) for value in data.values())


def _document_pages(path: Path, data: object, text_page) -> Iterator[Page]:
    found = find_tables(data, path.stem)
    if found is None:
        if _nested_settings(data):
            yield from record_pages(iter(section_records(path.stem, data)))
        else:
            yield text_page()
        return
    tables, rest = found
    if rest:
        yield from record_pages(iter(section_records(path.stem, rest)))
    left = MAX_RECORDS
    for table, items in tables:
        records = [r for r in (object_record(table, item) for item in items[:left]) if r is not None]
        left -= len(records)
        yield from record_pages(iter(records))


def jsonl_pages(path: Path) -> Iterator[Page]:
    """Yield the records of a JSON Lines file, one object a line, streamed."""
    yield from record_pages(_jsonl_records(path))


def _jsonl_records(path: Path) -> Iterator[Record]:
    with path.open(encoding=detect_encoding(path), errors="replace") as handle:
        count = 0
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ExtractionError(MALFORMED_LINE, f"{path}: line {number}: {exc}", params={"line": number}) from exc
            if not isinstance(value, dict):
                raise ExtractionError(MALFORMED_LINE, f"{path}: line {number}: {type(value).__name__}",
                                      params={"line": number})
            record = object_record(path.stem, value)
            if record is not None:
                yield record
                count += 1
                if count >= MAX_RECORDS:
                    return
