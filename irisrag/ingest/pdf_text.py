"""Clean PDF page text: join words hyphenated at line ends, leave out running headers and footers.

PDFium replaces a hyphen it finds at a line end with U+0002 or U+FFFE and drops the line
break. Followed by a lower-case letter it was a hyphenation and the word is joined
("Konfigu-ration" -> "Konfiguration"); followed by anything else it was a compound's
hyphen and is put back ("Hardware-Konfiguration"). A plain "-" at a line end followed by a
lower-case letter is joined the same way. A running
header or footer is a first or last line that, with its numbers taken out, repeats on
most pages ("Debian-Referenz 73 / 248"): such lines are learnt from a sample of pages
before the pages stream, and a line that is nothing but a page number is left out too.

Slides repeat their footer the same way, as a text box of its own ("Stadtwerke Ellerbrück GmbH ·
Netze · intern · Folie 5"), not always at a page's edge (speaker notes follow it):
``drop_running_blocks`` leaves out a slide's text block that, with its numbers taken out,
repeats on most slides.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

_MARKED_BREAK = re.compile(r"[\u0002\ufffe\u00ad]\s*(?=[a-zß-öø-ÿ])")
_MARKED_HYPHEN = re.compile(r"[\u0002\ufffe]\s*")
_LINE_HYPHEN = re.compile(r"(?<=[^\W\d_])-\n(?=[a-zß-öø-ÿ])")
_ROMAN = r"(?=[ivxlcdm])m{0,3}(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})"
_NUMBERS = re.compile(rf"\b(?:\d+|{_ROMAN}|seite|page)\b|[/|·–—-]", re.IGNORECASE)
_NON_WORD = re.compile(r"\W+")
EDGE_LINES = 2
# A line counts as running header/footer when it repeats on this share of sampled pages.
REPEAT_SHARE = 0.5
MIN_SAMPLE = 4


def join_hyphenation(text: str) -> str:
    """Return page text with line-end hyphenation joined and line ends normalised."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _MARKED_HYPHEN.sub("-", _MARKED_BREAK.sub("", text)).replace("\u00ad", "")
    return _LINE_HYPHEN.sub("", text)


def line_key(line: str) -> str:
    """Return a line's identity with page numbers, roman numerals and separators taken out."""
    return _NON_WORD.sub(" ", _NUMBERS.sub(" ", line.casefold())).strip()


def _edges(lines: list[str]) -> list[str]:
    """Return the first and last few non-empty lines of a page; none when the page is that short."""
    lines = [line for line in lines if line.strip()]
    if len(lines) <= 2 * EDGE_LINES:  # a short page's lines are its content, not a frame around it
        return []
    return lines[:EDGE_LINES] + lines[-EDGE_LINES:]


def learn_running_lines(sample: Iterable[str]) -> frozenset[str]:
    """Return the keys of edge lines repeating on most of the sampled pages' texts."""
    counts: Counter[str] = Counter()
    pages = 0
    for text in sample:
        edges = _edges(text.split("\n"))
        pages += bool(edges)
        counts.update({line_key(line) for line in edges} - {""})
    if pages < MIN_SAMPLE:
        return frozenset()
    return frozenset(key for key, count in counts.items() if count >= REPEAT_SHARE * pages)


def drop_running_lines(text: str, running: frozenset[str]) -> str:
    """Return page text without its running header/footer lines and bare page-number lines."""
    lines = text.split("\n")
    filled = [i for i, line in enumerate(lines) if line.strip()]
    if len(filled) <= 1:
        return text
    edge = set(filled[:EDGE_LINES] + filled[-EDGE_LINES:])
    kept = [line for i, line in enumerate(lines) if i not in edge or not _is_running(line, running)]
    return "\n".join(kept)


def _is_running(line: str, running: frozenset[str]) -> bool:
    key = line_key(line)
    return key in running or (not key and len(line.strip()) <= 12)


def clean_page(text: str, running: frozenset[str]) -> str:
    """Return cleaned page text: hyphenation joined, running lines left out."""
    return drop_running_lines(join_hyphenation(text), running)


def drop_running_blocks(slides: list[list[str]]) -> list[list[str]]:
    """Return each slide's text blocks without those repeating on most slides (footers, a running title) and
    bare slide numbers."""
    counts = Counter(key for blocks in slides for key in {line_key(b) for b in blocks} - {""})
    if len(slides) < MIN_SAMPLE:
        return slides
    running = {key for key, count in counts.items() if count >= REPEAT_SHARE * len(slides)}
    return [[b for b in blocks if not _is_running(b, frozenset(running))] for blocks in slides]
