"""Checked citations: parse ``[n]`` in an answer, map each number to its context chunk, flag problems.

Forms read as citations: ``[1]``, ``[1, 3]`` (also ``;``), ``[1][2]``, ``[1-3]`` (a short
range). Numbers have one to three digits, so ``[2024]`` stays text; a bracket followed by
``(`` or ``:`` is Markdown (a link text or a reference definition); brackets inside code
spans and fenced code blocks are left alone.

``check`` returns the answer with every number that was not in the context removed (and
listed in ``invalid``), the citations mapped to their chunks with deterministic ids
``"{document_id}:{chunk_index}:{sha256[:12]}"``, and the sentences whose cited chunk shares
no content term (``rag.lexical.terms``) with them (``unsupported``). A sentence without any
content term ("Ja [1].") has nothing to check and is not flagged.

A citation belongs to the sentence it ends ("otel.yaml [1]." and "otel.yaml. [1]" alike);
one that opens a line ("[1] text") belongs to the text after it.
"""
from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from irisrag.rag.lexical import terms

if TYPE_CHECKING:
    from irisrag.rag.retrieve import ContextChunk

MAX_RANGE = 20
_ITEM = r"\d{1,3}(?:\s*[-–]\s*\d{1,3})?"
_GROUP = re.compile(rf"\[\s*({_ITEM}(?:\s*[,;]\s*{_ITEM})*)\s*\](?![(:])")
_CODE = re.compile(r"^ {0,3}(```|~~~).*?(?:^ {0,3}\1[^\n]*$|\Z)|(`+)(?!`).+?(?<!`)\2(?!`)", re.M | re.S)
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'»“”)\]]*\s+|\n\s*")
_PLACEHOLDER = re.compile("\ue000(\\d+)\ue001")
_TAG = re.compile(r"(<[^>]*>)")
_HTML_TAG = re.compile(r"</?[A-Za-z][^>\n]*>")
_MARKUP = re.compile(r"\*\*|__|`+|~~|^\s*(?:[-*+>]|\d+[.)]|#{1,6})\s+")


def chunk_id(document_id: int, chunk_index: int, sha256: str) -> str:
    """Return the deterministic id of a chunk of one version of a document."""
    return f"{int(document_id)}:{int(chunk_index)}:{(sha256 or '')[:12]}"


@dataclass(frozen=True)
class Citation:
    """A context chunk the answer cites, by its number in the prompt."""

    number: int
    document_id: int
    chunk_index: int
    document_sha256: str
    page: int | None

    @property
    def chunk_id(self) -> str:
        return chunk_id(self.document_id, self.chunk_index, self.document_sha256)


@dataclass(frozen=True)
class Unsupported:
    """A sentence citing ``number`` although the cited chunk shares no content term with it."""

    sentence: str
    number: int


@dataclass(frozen=True)
class Marker:
    """One citation group in a text: its span and the numbers it names (in order, no repeats)."""

    start: int
    end: int
    numbers: tuple[int, ...]


@dataclass(frozen=True)
class CheckedAnswer:
    """The answer with invalid citations removed, its citations and the flags."""

    text: str
    citations: tuple[Citation, ...] = ()
    invalid: tuple[int, ...] = ()
    unsupported: tuple[Unsupported, ...] = ()

    @property
    def unsupported_numbers(self) -> frozenset[int]:
        return frozenset(u.number for u in self.unsupported)

    def flagged(self, marker_index: int, number: int) -> bool:
        """Tell whether a citation occurrence (the n-th marker of ``text``) is flagged unsupported."""
        return (marker_index, number) in self._flags

    @property
    def _flags(self) -> frozenset[tuple[int, int]]:
        return _occurrence_flags(self.text, self.unsupported)


# --- parsing --------------------------------------------------------------------

def _expand(item: str) -> list[int] | None:
    parts = re.split(r"\s*[-–]\s*", item.strip())
    if len(parts) == 1:
        return [int(parts[0])]
    first, last = int(parts[0]), int(parts[1])
    if not 0 < last - first <= MAX_RANGE:
        return None
    return list(range(first, last + 1))


def _code_ranges(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _CODE.finditer(text)]


def markers(text: str) -> list[Marker]:
    """Return the citation groups of a text in order (none inside code)."""
    code = _code_ranges(text)
    found = []
    for m in _GROUP.finditer(text):
        if any(start <= m.start() < end for start, end in code):
            continue
        numbers: list[int] = []
        for item in re.split(r"\s*[,;]\s*", m.group(1)):
            expanded = _expand(item)
            if expanded is None:
                break
            numbers.extend(n for n in expanded if n not in numbers)
        else:
            found.append(Marker(m.start(), m.end(), tuple(numbers)))
    return found


def numbers(text: str) -> list[int]:
    """Return the cited numbers of a text in order of first appearance."""
    seen: list[int] = []
    for marker in markers(text):
        seen.extend(n for n in marker.numbers if n not in seen)
    return seen


# --- checking -------------------------------------------------------------------

def _without_invalid(text: str, valid: set[int]) -> tuple[str, list[int]]:
    """Return the text with numbers outside ``valid`` removed from its citation groups."""
    invalid: list[int] = []
    out, last = [], 0
    for marker in markers(text):
        bad = [n for n in marker.numbers if n not in valid]
        if not bad:
            continue
        invalid.extend(n for n in bad if n not in invalid)
        kept = [n for n in marker.numbers if n in valid]
        start, end = marker.start, marker.end
        if kept:
            out.append(text[last:start] + "[" + ", ".join(map(str, kept)) + "]")
        else:
            before = text[last:start]
            stripped = before.rstrip(" \t")
            following = text[end:end + 1]
            if not stripped or stripped.endswith("\n"):  # it opened a line: drop the space after it
                end += len(text[end:]) - len(text[end:].lstrip(" \t"))
            elif following != "[" and not following.isalnum():  # "elf [9]." -> "elf."
                before = stripped
            out.append(before)
        last = end
    out.append(text[last:])
    return "".join(out), sorted(invalid)


def _sentences(text: str, found: Sequence[Marker]) -> list[tuple[int, int]]:
    """Return sentence spans of the text (citation groups masked so their brackets split nothing)."""
    masked = list(text)
    for marker in found:
        masked[marker.start:marker.end] = " " * (marker.end - marker.start)
    plain = "".join(masked)
    spans, start = [], 0
    for m in _SENTENCE_END.finditer(plain):
        if m.start() > start:
            spans.append((start, m.start()))
        start = m.end()
    if start < len(plain):
        spans.append((start, len(plain)))
    return spans or [(0, len(text))]


def _owner(marker: Marker, spans: list[tuple[int, int]], text: str) -> int:
    """Return the index of the sentence a citation group belongs to."""
    for i, (start, end) in enumerate(spans):
        if start <= marker.start < end:
            return i
    # Between sentences: it ends the one before, unless it opens a line of text ("[1] text").
    before = [i for i, (_, end) in enumerate(spans) if end <= marker.start]
    after = [i for i, (start, _) in enumerate(spans) if start >= marker.end]
    if not before:
        return after[0] if after else 0
    previous = before[-1]
    if after and "\n" in text[spans[previous][1]:marker.start] and "\n" not in text[marker.end:spans[after[0]][0]]:
        return after[0]
    return previous


def _strip_markers(segment: str, offset: int, found: Sequence[Marker]) -> str:
    chars = list(segment)
    for marker in found:
        for i in range(max(marker.start, offset), min(marker.end, offset + len(segment))):
            chars[i - offset] = " "
    return "".join(chars)


def _sentence_citations(text: str) -> list[tuple[str, list[tuple[int, int]]]]:
    """Return (sentence text without citations, [(marker index, number)]) for each citing sentence."""
    found = markers(text)
    spans = _sentences(text, found)
    cited: dict[int, list[tuple[int, int]]] = {}
    for i, marker in enumerate(found):
        owner = _owner(marker, spans, text)
        cited.setdefault(owner, []).extend((i, n) for n in marker.numbers)
    result = []
    for index in sorted(cited):
        start, end = spans[index]
        sentence = _plain(_strip_markers(text[start:end], start, found))
        result.append((sentence, cited[index]))
    return result


def _plain(sentence: str) -> str:
    """Return a sentence as plain words: no HTML tags, no Markdown emphasis or list markers, one space."""
    text = _HTML_TAG.sub(" ", sentence)
    text = _MARKUP.sub(" ", text)
    return re.sub(r"\s+(?=[.,;:!?])", "", " ".join(text.split()))


def _occurrence_flags(text: str, unsupported: Sequence[Unsupported]) -> frozenset[tuple[int, int]]:
    wanted = {(u.sentence, u.number) for u in unsupported}
    return frozenset((i, n) for sentence, pairs in _sentence_citations(text) for i, n in pairs
                     if (sentence, n) in wanted)


def check(text: str, chunks: Sequence[ContextChunk], hashes: Mapping[int, str] | None = None) -> CheckedAnswer:
    """Map the answer's citations to the context chunks; remove invalid numbers; flag unsupported sentences.

    ``hashes`` maps document ids to the SHA-256 of the document version the chunks come from.
    """
    hashes = hashes or {}
    by_number = {c.position: c for c in chunks}
    cleaned, invalid = _without_invalid(text or "", set(by_number))
    cited = sorted(set(numbers(cleaned)))
    citations = tuple(
        Citation(n, by_number[n].hit.document_id, by_number[n].hit.chunk_index,
                 hashes.get(by_number[n].hit.document_id, ""), by_number[n].hit.page)
        for n in cited
    )
    chunk_terms: dict[int, frozenset[str]] = {}
    unsupported: list[Unsupported] = []
    for sentence, pairs in _sentence_citations(cleaned):
        sentence_terms = terms(sentence)
        if not sentence_terms:
            continue
        for _, n in pairs:
            if n not in chunk_terms:
                chunk_terms[n] = terms(by_number[n].hit.text)
            flag = Unsupported(sentence, n)
            if not sentence_terms & chunk_terms[n] and flag not in unsupported:
                unsupported.append(flag)
    return CheckedAnswer(cleaned, citations, tuple(invalid), tuple(unsupported))


# --- HTML -----------------------------------------------------------------------

def _anchor(number: int, flagged: bool, href: Callable[[int], str], note_id: str) -> str:
    url = html.escape(href(number), quote=True)
    if flagged:
        note = html.escape(note_id, quote=True)
        return (f'<a class="cite unsupported" href="{url}" aria-describedby="{note}">{number}</a>'
                '<sup class="cite-flag" aria-hidden="true">?</sup>')
    return f'<a class="cite" href="{url}">{number}</a>'


def linked_html(checked: CheckedAnswer, render: Callable[[str], str],
                href: Callable[[int], str] = lambda n: f"#cite-{n}", note_id: str = "unsupported-note") -> str:
    """Render the checked answer with ``render`` (Markdown to safe HTML), each citation a link to its passage.

    A flagged citation is marked ``unsupported`` with a visible "?" and described by the
    element ``note_id`` (the page's explanation of the flag).

    Citation groups become placeholders before rendering, so the links are added to the
    sanitised output and never pass through the sanitiser; a group inside a link stays text.
    """
    text = checked.text
    found = markers(text)
    parts, last = [], 0
    for i, marker in enumerate(found):
        parts.append(text[last:marker.start] + f"\ue000{i}\ue001")
        last = marker.end
    parts.append(text[last:])
    rendered = render("".join(parts))
    flags = checked._flags

    def group(i: int, inside_link: bool) -> str:
        nums = found[i].numbers
        if inside_link:
            return "[" + ", ".join(map(str, nums)) + "]"
        return "[" + ", ".join(_anchor(n, (i, n) in flags, href, note_id) for n in nums) + "]"

    out, depth = [], 0
    for piece in _TAG.split(rendered):
        if piece.startswith("<"):
            name = piece[1:].lstrip("/").split(None, 1)[0].rstrip(">").lower() if len(piece) > 2 else ""
            if name == "a":
                depth += -1 if piece.startswith("</") else 1
            out.append(_PLACEHOLDER.sub("", piece))
        else:
            inside = depth > 0
            out.append(_PLACEHOLDER.sub(lambda m, inside=inside: group(int(m.group(1)), inside), piece))
    return "".join(out)
