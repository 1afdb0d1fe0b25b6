"""Split extracted pages into overlapping character windows, cut at natural boundaries.

A chunk holds at most ``size`` characters. The cut is searched backwards in the last
part of the window: a paragraph break first, then a sentence end, then any whitespace;
only a single word longer than the window is cut mid-word. The next chunk starts about
``overlap`` characters before the cut, moved forward to the start of a word. Pages are
streamed through a small buffer, so the work is linear in the text length and a
2,000-page PDF never sits in memory as one string.

Records (``Page.records``: rows, JSON objects, XML elements) are never cut: each is a chunk of
its own under its table's line (``irisrag.ingest.records``); only a record longer than a chunk
is cut, between fields (``records.split_record``). ``pack_records=True`` packs whole records of
one table into a chunk instead while they fit: fewer chunks, but a question about one record
found it first far less often (``bench/records_bench.py``: hit@1 0.63 vs 1.00 on 30 questions).

Navigation and tables of contents (``ingest.boilerplate.segments``) get chunks of their own,
marked ``boilerplate``: they never share a chunk with body text.
"""
from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from irisrag.errors import ValidationError
from irisrag.i18n import N_
from irisrag.ingest import boilerplate
from irisrag.ingest.pages import Page
from irisrag.ingest.records import TABLE_PREFIX, Record, split_record

PARAGRAPH = "\n\n"
_SENTENCE_ENDS = (". ", "! ", "? ", ".\n", "!\n", "?\n", ":\n", ";\n")
_SPACES = re.compile(r"[^\S\n]+")  # whitespace other than newline (tabs, NBSP, form feed, ...)
_PARAGRAPH_BREAKS = re.compile(r"\n{3,}")
_RULE_LINE = re.compile(r"[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*$")
HEADER_LOOKBACK = 20_000   # characters a chunk looks back for the header of the table it begins in


@dataclass(frozen=True)
class Chunk:
    """One window of document text; ``page`` is the page where the window starts.

    ``boilerplate``: the window is navigation or a table of contents (``ingest.boilerplate``).
    """

    index: int
    text: str
    page: int | None
    boilerplate: bool = False


def normalize_whitespace(text: str) -> str:
    """Collapse runs of spaces, trim lines, and keep paragraph breaks as one blank line."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _SPACES.sub(" ", text)
    text = "\n".join(line.strip() for line in text.split("\n"))
    return _PARAGRAPH_BREAKS.sub(PARAGRAPH, text).strip()


def validate_chunking(size: int, overlap: int) -> None:
    """Refuse a chunk size or overlap that cannot produce progress."""
    if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
        raise ValidationError(N_("The chunk size must be a positive number of characters"), f"size={size!r}", "size")
    if not isinstance(overlap, int) or isinstance(overlap, bool) or not 0 <= overlap < size:
        raise ValidationError(
            N_("The chunk overlap must be at least 0 and smaller than the chunk size"),
            f"size={size!r} overlap={overlap!r}",
            "overlap",
        )


def find_cut(text: str, start: int, size: int, lowest: int) -> int:
    """Return the end of the window starting at ``start``: the best boundary at or after ``lowest``."""
    limit = start + size
    cut = text.rfind(PARAGRAPH, lowest, limit + len(PARAGRAPH))
    if cut > start:
        return cut
    best = -1
    for mark in _SENTENCE_ENDS:
        found = text.rfind(mark, lowest, limit + len(mark) - 1)  # the punctuation must fit the window
        if found != -1:
            best = max(best, found + 1)
    if best > start:
        return outside_row(text, best, lowest, limit)
    space = max(text.rfind(" ", lowest, limit + 1), text.rfind("\n", lowest, limit + 1))
    if space > start:
        return outside_row(text, space, lowest, limit)
    return limit


def outside_row(text: str, cut: int, lowest: int, limit: int) -> int:
    """Move a cut inside a table row line ("| … | Tiefgarage (2 Std. frei mit Ausweis) |") to the last line end
    of the window: a sentence mark in a cell is no boundary, and a row cut there lost its last cells in one chunk
    and its first ones in the next (eval/holdout8-de ak-01). A row longer than half the window keeps the cut."""
    line_start = text.rfind("\n", 0, cut) + 1
    if not text.startswith("|", line_start):
        return cut
    line_end = text.rfind("\n", lowest, limit + 1)
    return line_end if line_end != -1 else cut


def _row_start(text: str, position: int, floor: int) -> int:
    """The start of the table row line ``position`` lies inside (the next line's when that row starts before
    ``floor``), so that the next chunk begins with whole rows; any other position as it is."""
    line_start = text.rfind("\n", 0, position) + 1
    if position == line_start or not text.startswith("|", line_start):
        return position
    if line_start >= floor:
        return line_start
    line_end = text.find("\n", position)
    return position if line_end == -1 else line_end + 1


def next_start(text: str, cut: int, overlap: int, floor: int) -> int:
    """Return where the next window starts: ``overlap`` before the cut, at a word start (a table row's start)."""
    target = max(cut - overlap, floor)
    if target < cut and target > 0 and not text[target - 1].isspace():
        gap = min((i for i in (text.find(" ", target, cut), text.find("\n", target, cut)) if i != -1), default=-1)
        target = cut if gap == -1 else gap
    return skip_space(text, _row_start(text, target, floor))


def table_header_before(text: str, position: int) -> str:
    """The header and rule lines, with a line end, of the Markdown table a chunk starting at ``position`` begins
    inside of ("" when it begins elsewhere, or the header lies more than HEADER_LOOKBACK characters back): the
    chunk then carries the table's column names as ``table_chunks`` gives every chunk of a sheet its header. A row
    without them was a row of bare values ("`VHS-Gast` | Teilnehmende | … | 6 Stunden"), neither shown nor scored
    as the table row it is (eval/holdout8-de wk-01)."""
    if not text.startswith("|", position) or (position and text[position - 1] != "\n"):
        return ""
    block = text.rfind("\n\n", max(0, position - HEADER_LOOKBACK), position)
    if block == -1 and position > HEADER_LOOKBACK:
        return ""
    block = block + 2 if block != -1 else 0
    header_end = text.find("\n", block, position)
    rule_end = text.find("\n", header_end + 1, position) if header_end != -1 else -1
    if rule_end == -1 or not text.startswith("|", block) or not _RULE_LINE.match(text, header_end + 1, rule_end):
        return ""
    return text[block:rule_end + 1] if rule_end < position else ""


def leading_table_header(text: str) -> str:
    """The header and rule lines (with the line end) a chunk's text begins with, "" when it begins otherwise."""
    header_end = text.find("\n")
    rule_end = text.find("\n", header_end + 1) if header_end != -1 else -1
    if rule_end == -1 or not text.startswith("|") or not _RULE_LINE.match(text, header_end + 1, rule_end):
        return ""
    return text[:rule_end + 1]


def skip_space(text: str, position: int) -> int:
    """Return the first non-whitespace position at or after ``position``."""
    end = len(text)
    while position < end and text[position].isspace():
        position += 1
    return position


class _Buffer:
    """The unconsumed tail of the document text, with the page each part came from."""

    def __init__(self) -> None:
        self.text = ""
        self.offsets: list[int] = []  # start of each page's text within self.text
        self.numbers: list[int | None] = []

    def append(self, page: Page) -> None:
        """Add one page's normalised text, separated from the previous page by a blank line."""
        text = normalize_whitespace(page.text)
        if not text:
            return
        if self.text:
            self.text += PARAGRAPH
        self.offsets.append(len(self.text))
        self.numbers.append(page.number)
        self.text += text

    def page_at(self, position: int) -> int | None:
        """Return the page number of the text at ``position``."""
        index = bisect.bisect_right(self.offsets, position) - 1
        return self.numbers[max(index, 0)]

    def drop_before(self, position: int) -> int:
        """Discard text before ``position``; return the new position (0)."""
        keep = bisect.bisect_right(self.offsets, position) - 1
        keep = max(keep, 0)
        self.offsets = [max(offset - position, 0) for offset in self.offsets[keep:]]
        self.numbers = self.numbers[keep:]
        self.text = self.text[position:]
        return 0


class RecordPacker:
    """Pack whole records of one table into chunk texts of at most ``size`` characters.

    ``pack=False`` gives every record a chunk of its own.
    """

    def __init__(self, size: int, pack: bool = False) -> None:
        self.size, self.pack = size, pack
        self.table, self.page, self.bodies, self.used = "", None, [], 0

    def add(self, record: Record, page: int | None) -> Iterator[tuple[str, int | None]]:
        """Take one record; yield the chunks (text, page) it completes."""
        body = "\n".join(record.lines)
        head = len(TABLE_PREFIX) + len(record.table) + 1
        fits = self.pack and record.table == self.table and head + self.used + 2 + len(body) <= self.size
        if self.bodies and not fits:
            yield from self.flush()
        if head + len(body) > self.size:
            yield from ((text, page) for text in split_record(record, self.size))
            return
        if not self.bodies:
            self.table, self.page, self.used = record.table, page, len(body)
        else:
            self.used += 2 + len(body)
        self.bodies.append(body)

    def flush(self) -> Iterator[tuple[str, int | None]]:
        """Yield the chunk being packed, if any."""
        if self.bodies:
            yield TABLE_PREFIX + self.table + "\n" + "\n\n".join(self.bodies), self.page
            self.bodies, self.used = [], 0


def chunk_pages(pages: Iterable[Page], size: int = 700, overlap: int = 150,
                pack_records: bool = False) -> Iterator[Chunk]:
    """Return an iterator of overlapping chunks of at most ``size`` characters, indexed from 0."""
    validate_chunking(size, overlap)  # here, not inside the generator, so bad settings fail at once
    return _generate_chunks(pages, size, overlap, RecordPacker(size, pack_records))


def _generate_chunks(pages: Iterable[Page], size: int, overlap: int,
                     packer: RecordPacker | None = None, navigation: bool = True) -> Iterator[Chunk]:
    """Yield the chunks of the pages; see the module docstring for the rules (``navigation``: look for it)."""
    return _Chunker(size, overlap, packer or RecordPacker(size), navigation).run(pages)


class _Chunker:
    """The state of one document's chunking: the text buffer, where the next window starts, the next index."""

    def __init__(self, size: int, overlap: int, packer: RecordPacker, navigation: bool = True) -> None:
        self.size, self.overlap, self.packer, self.navigation = size, overlap, packer, navigation
        # Cut no earlier than half a window, and late enough that the next start moves forward.
        self.lowest_share = max(size // 2, overlap + 1)
        self.buffer, self.start, self.index = _Buffer(), 0, 0

    def run(self, pages: Iterable[Page]) -> Iterator[Chunk]:
        for page in pages:
            yield from self._page(page)
        yield from self._numbered(self.packer.flush())
        yield from self._cut(final=True)

    def _page(self, page: Page) -> Iterator[Chunk]:
        if page.records:  # whole records, never sharing a chunk with other text
            yield from self._restart()
            for record in page.records:
                yield from self._numbered(self.packer.add(record, page.number))
            return
        yield from self._numbered(self.packer.flush())
        if page.header is not None:  # a table: its rows never share a chunk with other text
            yield from self._restart()
            for chunk in table_chunks(page, self.size, self.overlap, self.index):
                yield chunk
                self.index = chunk.index + 1
            return
        if not self.navigation:
            yield from self._text(page)
            return
        for text, navigation in boilerplate.segments(page.text):
            part = replace(page, text=text)
            yield from self._navigation(part) if navigation else self._text(part)

    def _navigation(self, page: Page) -> Iterator[Chunk]:
        """Give navigation or a table of contents chunks of its own, marked ``boilerplate``."""
        yield from self._restart()
        for chunk in _generate_chunks([page], self.size, self.overlap, navigation=False):
            yield Chunk(self.index, chunk.text, chunk.page, boilerplate=True)
            self.index += 1

    def _text(self, page: Page) -> Iterator[Chunk]:
        self.buffer.append(page)
        self.start = skip_space(self.buffer.text, self.start)
        yield from self._cut(final=False)
        if self.start:  # what is left after a page is at most one window (and a table's header), so this copy is cheap
            header = table_header_before(self.buffer.text, self.start)
            keep = self.buffer.text.rfind(header, 0, self.start) if header else self.start
            self.start = self.buffer.drop_before(keep) + self.start - keep

    def _restart(self) -> Iterator[Chunk]:
        """Cut all buffered text, then start an empty buffer (a table or records follow)."""
        yield from self._cut(final=True)
        self.buffer, self.start = _Buffer(), 0

    def _numbered(self, pieces: Iterable[tuple[str, int | None]]) -> Iterator[Chunk]:
        for text, number in pieces:
            yield Chunk(self.index, text, number)
            self.index += 1

    def _cut(self, final: bool) -> Iterator[Chunk]:
        """Yield every chunk the buffered text already decides (all of them when ``final``)."""
        text, size = self.buffer.text, self.size
        # A cut needs to see one window plus a boundary mark past it, unless the input has ended.
        while self.start < len(text) and (final or len(text) - self.start > size + 2):
            end = len(text) if len(text) - self.start <= size else find_cut(text, self.start, size,
                                                                             self.start + self.lowest_share)
            piece = text[self.start:end].strip()
            if piece:
                yield Chunk(self.index, table_header_before(text, self.start) + piece, self.buffer.page_at(self.start))
                self.index += 1
            if end >= len(text):
                self.start = end
                break
            self.start = next_start(text, end, self.overlap, self.start + 1)


def table_chunks(page: Page, size: int, overlap: int, first: int) -> Iterator[Chunk]:
    """Yield chunks of whole rows, each starting with the table's header line, indexed from ``first``.

    A row longer than the room left by the header is cut like text, with the header before each piece.
    """
    header = normalize_whitespace(page.header or "")
    room = max(size - len(header) - 1, size // 2)
    overlap = min(overlap, room // 2)
    index, rows, used = first, [], 0
    for row in page.text.split("\n"):
        row = _SPACES.sub(" ", row).strip()
        if not row:
            continue
        if rows and used + 1 + len(row) > room:
            yield Chunk(index, _with_header(header, rows), page.number)
            index, rows, used = index + 1, [], 0
        if len(row) > room:
            for piece in _generate_chunks([Page(None, row)], room, overlap):
                yield Chunk(index, _with_header(header, [piece.text]), page.number)
                index += 1
            continue
        rows.append(row)
        used += len(row) + (1 if used else 0)
    if rows:
        yield Chunk(index, _with_header(header, rows), page.number)


def _with_header(header: str, rows: list[str]) -> str:
    return "\n".join([header, *rows]) if header else "\n".join(rows)


def chunk_text(text: str, size: int = 700, overlap: int = 150) -> list[Chunk]:
    """Return the chunks of a single text (no page numbers)."""
    return list(chunk_pages([Page(None, text)], size, overlap))
