"""CSV and TSV files as records: the first row names the fields, every further row is a record.

The file is streamed row by row (any size up to ``MAX_RECORDS`` rows, flat memory) and
handed on in batches of ``BATCH`` records. The dialect is sniffed from the first 64 KiB:
Python's ``csv.Sniffer`` among ``, ; TAB |``, kept only when no other delimiter gives more rows of
the table's field count (``_fitting_rows``); otherwise the delimiter that gives the most; a ``.tsv``
file falls back to TAB, others to ``,``. The table's name is the file's name. Title lines above
the header (an export's heading) are a text page of their own (``titled``).
"""
from __future__ import annotations

import csv
import itertools
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from irisrag.errors import ExtractionError
from irisrag.i18n import N_
from irisrag.ingest.extract_office import table_row
from irisrag.ingest.pages import Page
from irisrag.ingest.records import Record, format_records, make_record
from irisrag.ingest.text_encoding import detect_encoding

BATCH = 256
MAX_RECORDS = 1_000_000
MAX_FIELD_BYTES = 1 << 20  # csv's own limit per field (its default is 128 KiB)
TITLE_LOOKAHEAD = 8  # non-empty rows read ahead for the header under a title line (``titled``)
_SAMPLE_CHARS = 65536
_DELIMITERS = ",;\t|"
MALFORMED = N_("The CSV file could not be read (line %(line)s): check its quoting and separators.")
BINARY = N_("The file looks like a binary file, not text; check its type")


def record_pages(records: Iterator[Record], number: int | None = None) -> Iterator[Page]:
    """Yield the records as pages of at most ``BATCH`` records, each with their readable text."""
    while batch := tuple(itertools.islice(records, BATCH)):
        yield Page(number, "\n\n".join(format_records(r.table, [r]) for r in batch), records=batch)


def titled(rows: Iterable[Sequence]) -> tuple[list[list], Iterator[list]]:
    """Split off the title lines above a table's header: (the title rows, the header and the rows after it).

    An export often puts a title above the header ("IT-Inventar ... Stand 30.11.2026" in its first
    cell): taken as the header, every field was named "None". Of the first ``TITLE_LOOKAHEAD``
    non-empty rows, the header is the first that fills at least half as many cells as the fullest
    (and two at least); the rows above it are titles. Empty rows are left out.
    """
    rows = iter(rows)
    ahead: list[list] = []
    for row in rows:
        if filled(row):
            ahead.append(list(row))
            if len(ahead) >= TITLE_LOOKAHEAD:
                break
    widest = max(map(filled, ahead), default=0)
    at = next((n for n, row in enumerate(ahead) if filled(row) >= max(2, (widest + 1) // 2)), 0)
    return ahead[:at], itertools.chain(ahead[at:], rows)


def title_text(rows: Sequence[Sequence]) -> str:
    """Return the title rows as one line each, their cells joined by ' | ' (``extract_office.table_row``)."""
    return "\n".join(table_row(row) for row in rows)


def filled(row: Sequence) -> int:
    """The number of a row's non-empty cells."""
    return sum(1 for cell in row if cell not in (None, "") and str(cell).strip())


def rows_to_records(table: str, rows: Iterator[list]) -> Iterator[Record]:
    """Return records from rows whose first non-empty row is the header (at most MAX_RECORDS)."""
    header: list | None = None
    count = 0
    for row in rows:
        if header is None:
            if any(cell not in (None, "") for cell in row):
                header = list(row)
            continue
        names = header + [str(n) for n in range(len(header) + 1, len(row) + 1)]
        record = make_record(table, zip(names, row, strict=False))  # a short row: its missing cells are empty
        if record is not None:
            yield record
            count += 1
            if count >= MAX_RECORDS:
                return


def sniff_dialect(sample: str, suffix: str) -> type[csv.Dialect] | csv.Dialect:
    """Return the sample's dialect (see the module docstring)."""
    sample = sample[: sample.rfind("\n") + 1] or sample  # whole lines only
    scores = {delimiter: _fitting_rows(sample, delimiter) for delimiter in _DELIMITERS}
    best = max(scores, key=lambda d: scores[d])
    try:
        dialect = csv.Sniffer().sniff(sample, delimiters=_DELIMITERS)
        if scores.get(dialect.delimiter, 0) >= max(scores[best], 1):
            return dialect
    except csv.Error:
        pass
    if scores[best] > 0:
        return _Fallback(best)
    return csv.excel_tab if suffix == ".tsv" else csv.excel


def _Fallback(delimiter: str) -> type[csv.Dialect]:  # noqa: N802 - a class factory
    return type("Sniffed", (csv.excel,), {"delimiter": delimiter})


def _fitting_rows(sample: str, delimiter: str) -> int:
    """Return how many rows have the table's field count (the commonest of two or more), 0 unless most do.

    Title lines above the header (one cell, not padded with delimiters as a spreadsheet pads them) do
    not count: with the header taken as the first row, a title made every delimiter score 0.
    """
    try:
        rows = [row for row in csv.reader(sample.splitlines(), delimiter=delimiter) if row]
    except csv.Error:
        return 0
    widths = Counter(len(row) for row in rows if len(row) >= 2)
    if len(rows) < 2 or not widths:
        return 0
    fitting = widths.most_common(1)[0][1] - 1   # the header's row is not counted
    titles = next((n for n, row in enumerate(rows) if len(row) >= 2), 0)
    return fitting if fitting * 2 >= len(rows) - 1 - titles and fitting > 0 else 0


def csv_pages(path: Path) -> Iterator[Page]:
    """Yield a CSV/TSV file's records in batches; a file with a header and no rows is one text page."""
    encoding = detect_encoding(path)
    csv.field_size_limit(MAX_FIELD_BYTES)
    with path.open(encoding=encoding, errors="replace", newline="") as handle:
        dialect = sniff_dialect(handle.read(_SAMPLE_CHARS), path.suffix.lower())
        handle.seek(0)
        reader = csv.reader(handle, dialect, strict=True)
        titles, rows = titled(_checked(reader, path))
        first = next(rows, None)
        if first is None:
            return
        if titles:
            yield Page(None, title_text(titles))
        yielded = False
        for page in record_pages(rows_to_records(path.stem, itertools.chain([first], rows))):
            yielded = True
            yield page
        if not yielded:
            yield Page(None, " | ".join(cell for cell in first if cell))


def _checked(reader, path: Path) -> Iterator[list]:
    """Pass the rows on, turning csv's errors into a translated message with the line number."""
    try:
        yield from reader
    except csv.Error as exc:
        if "NUL" in str(exc):
            raise ExtractionError(BINARY, f"{path}: {exc}") from exc
        raise ExtractionError(MALFORMED, f"{path}: line {reader.line_num}: {exc}",
                              params={"line": reader.line_num}) from exc
