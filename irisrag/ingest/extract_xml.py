"""XML files of repeated elements as records: one record per element, attributes and children as fields.

The records are the root's children when one element name repeats there
(``<katalog><artikel …/><artikel …/></katalog>``), or the children of the root's only child
(``<export><artikel>…</artikel>…</export>``); the table's name is the repeated element's
name; a sibling of another name (a header block) is a record of its own. An element's attributes are fields by their name, a child element's text by its name,
nested ones by dotted names (``preis.waehrung``), a child's attributes as ``kind.attribut``.
Other XML stays plain text, as before. The file is read twice with ``iterparse`` (first to
find the repeated element, then for the records), each element dropped once read, so memory
stays flat. The parser is hardened as for EPUBs: no entity expansion, no DTD loading, no
network, lxml's default depth and size limits; a file beyond them (nested deeper than 256
levels, an entity bomb) stays plain text as before, its entities never expanded. A file that
is not well-formed fails with the line of the error.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import lxml.etree

from irisrag.errors import ExtractionError
from irisrag.i18n import N_
from irisrag.ingest.extract_csv import MAX_RECORDS, record_pages
from irisrag.ingest.pages import Page
from irisrag.ingest.records import Record, make_record

MAX_DEPTH = 8
MALFORMED = N_("The XML file is not well-formed (line %(line)s).")
_RESOURCE_LIMIT = 114  # libxml2's XML_ERR_RESOURCE_LIMIT: too deep, entity amplification
_SAFE = {"resolve_entities": False, "no_network": True, "huge_tree": False, "load_dtd": False,
         "remove_comments": True, "remove_pis": True}


def _name(element) -> str:
    return lxml.etree.QName(element).localname


class OverLimits(Exception):
    """The XML is beyond the parser's limits (nesting, entity amplification): it is read as text, as before."""


def _events(path: Path, events: tuple[str, ...]):
    try:
        yield from lxml.etree.iterparse(str(path), events=events, **_SAFE)
    except lxml.etree.XMLSyntaxError as exc:
        if exc.code == _RESOURCE_LIMIT:
            raise OverLimits(str(exc)) from exc
        line = exc.position[0] if exc.position else 0
        raise ExtractionError(MALFORMED, f"{path}: {exc}", params={"line": line}) from exc


def _drop(element) -> None:
    """Free an element that has been read, and the siblings before it."""
    element.clear()
    parent = element.getparent()
    while parent is not None and element.getprevious() is not None:
        del parent[0]


def record_depth(path: Path) -> tuple[int, str, Record | None] | None:
    """Return (depth, element name) of the repeated elements (root = 0) and a record of the root's
    attributes (None without), or None for other XML."""
    first, second, root = _shape(path)
    for level, counts in ((1, first), (2, second)):
        if level == 2 and sum(first.values()) != 1:
            break
        if counts and counts.most_common(1)[0][1] >= 2:
            return level, counts.most_common(1)[0][0], root
    return None


def _shape(path: Path) -> tuple[Counter, Counter, Record | None]:
    """Count the names of the root's children and, while it has one, its grandchildren; read the root's attributes."""
    first, second = Counter(), Counter()
    depth, root = 0, None
    for event, element in _events(path, ("start", "end")):
        if event == "end":
            depth -= 1
            _drop(element)  # counted at its start
            continue
        depth += 1
        if depth == 1:
            root = make_record(_name(element), element_fields_of_attributes(element))
        elif depth == 2:
            first[_name(element)] += 1
        elif depth == 3 and sum(first.values()) == 1:
            second[_name(element)] += 1
    return first, second, root


def element_fields_of_attributes(element) -> list[tuple[str, str]]:
    """Return an element's attributes as (local name, value) pairs."""
    return [(lxml.etree.QName(key).localname, value) for key, value in element.attrib.items()]


def element_fields(element, prefix: str = "", depth: int = 0) -> Iterator[tuple[str, str]]:
    """Yield an element's attributes, own text and children as ``(dotted name, text)`` pairs."""
    for key, value in element_fields_of_attributes(element):
        yield (f"{prefix}.{key}" if prefix else key), value
    children = [child for child in element if isinstance(child.tag, str)]
    own = (element.text or "").strip()
    if depth >= MAX_DEPTH and children:
        yield prefix or _name(element), " ".join(" ".join(element.itertext()).split())
        return
    if own:
        yield prefix or _name(element), own
    for child in children:
        name = f"{prefix}.{_name(child)}" if prefix else _name(child)
        yield from element_fields(child, name, depth + 1)


def xml_records(path: Path, level: int, tag: str) -> Iterator[Record]:
    """Yield a record for each element at depth ``level``: the repeated ``tag`` and its siblings (a ``<kopf>``
    block with the export's publisher and terms beside the ``<pruefung>`` elements was left out of the text)."""
    depth, count = 0, 0
    for event, element in _events(path, ("start", "end")):
        if event == "start":
            depth += 1
            continue
        depth -= 1
        if depth == level:
            record = make_record(_name(element), element_fields(element))
            if record is not None:
                yield record
                count += 1
                if count >= MAX_RECORDS:
                    return
        if depth <= level:
            _drop(element)


def xml_pages(path: Path, text_page) -> Iterator[Page]:
    """Yield an XML file's records in batches, or ``text_page()`` for XML without repeated elements
    (or beyond the parser's limits: its text is indexed as it is, entities never expanded)."""
    try:
        found = record_depth(path)
    except OverLimits:
        found = None
    if found is None:
        yield text_page()
        return
    level, tag, root = found
    if root is not None:  # the root's attributes (a title, a date) are the context of all records
        yield from record_pages(iter([root]))
    yield from record_pages(xml_records(path, level, tag))
