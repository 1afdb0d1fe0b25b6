"""Navigation and tables of contents in a page's text, found at chunking (issue 37 item 2).

A *navigation line* is one of

- a table-of-contents line: dot leaders ("Urlaub ....... 4"), or a section number, a short
  title and a page number ("3.2 Urlaub beantragen 14");
- a bar of navigation words ("« Zurück | Nach oben | Weiter »", "Previous Home Next"): at
  least two such words and at least half of its words;
- a breadcrumb ("Start › Personal › Urlaub"): three or more short parts between › » or >;
- a line that is only a link (Markdown ``[text](url)``, optionally a list item).

``segments`` cuts a page's text into body and navigation: a run of at least ``MIN_RUN``
navigation lines (blank lines between them allowed), or a single bar of navigation words, is a
navigation segment. The chunker gives such a segment chunks of its own, marked ``boilerplate``
in the chunk table: the document viewer shows them (marked), retrieval ranks them below body
text, and the extractive answer never quotes them. A lone section heading, a command line
with pipes, or one link inside a paragraph stays body text.
"""
from __future__ import annotations

import re

MIN_RUN = 3
MAX_TITLE_WORDS = 12
NAV_WORDS = frozenset("""zurück weiter vorwärts vor oben startseite home inhalt inhaltsverzeichnis übersicht
    navigation menü hauptmenü next previous prev back up contents index top nach""".split())
_DOT_LEADERS = re.compile(r"(?:\.\s?){4,}\s*\d{0,4}\s*$|…\s?…|(?:_\s?){4,}\s*\d{0,4}\s*$")
_TOC_LINE = re.compile(r"^\s*\d{1,2}(?:\.\d{1,2})*\.?\s+[^\W\d_][^\n]{0,80}?\s\d{1,4}\s*$")
_CRUMB_SEPARATOR = re.compile(r"\s[›»>]\s")
_LINK_LINE = re.compile(r"^\s*(?:[-*+]\s+)?\[[^\]\n]{1,120}\]\([^)\s]{0,500}\)\s*$")
_WORD = re.compile(r"[^\W\d_]+")
_OPTION = re.compile(r"(?:^|\s)--?[A-Za-z]")


def nav_bar(line: str) -> bool:
    """Tell whether a line is a bar of navigation words ("« Zurück | Nach oben | Weiter »"): two different ones at
    least, and no option ("-d, --home HOME_DIR", a manual page's entry, holds "home" twice)."""
    if _OPTION.search(line):
        return False
    words = _WORD.findall(line.lower())
    found = sum(w in NAV_WORDS for w in words)
    return len(NAV_WORDS.intersection(words)) >= 2 and found * 2 >= len(words) and len(words) <= MAX_TITLE_WORDS


def breadcrumb(line: str) -> bool:
    """Tell whether a line is a breadcrumb: three or more short parts between › » or >."""
    parts = _CRUMB_SEPARATOR.split(line.strip())
    return len(parts) >= 3 and all(0 < len(p.split()) <= 5 for p in parts)


def nav_line(line: str) -> bool:
    """Tell whether one line is navigation or a table-of-contents entry (see the module docstring)."""
    if not line.strip():
        return False
    return bool(_DOT_LEADERS.search(line) or _TOC_LINE.match(line) or _LINK_LINE.match(line)
                or nav_bar(line) or breadcrumb(line))


def _kept(lines: list[str], start: int | None, count: int) -> bool:
    return start is not None and (count >= MIN_RUN or (count == 1 and nav_bar(lines[start])))


def _runs(lines: list[str]) -> list[tuple[int, int]]:
    """Return the [start, end) line spans that are navigation segments."""
    spans: list[tuple[int, int]] = []
    start, count, last = None, 0, -1
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        if nav_line(line):
            start, count, last = (i if start is None else start), count + 1, i
            continue
        if _kept(lines, start, count):
            spans.append((start, last + 1))
        start, count = None, 0
    if _kept(lines, start, count):
        spans.append((start, last + 1))
    return spans


def segments(text: str) -> list[tuple[str, bool]]:
    """Cut text into (segment, is_navigation) pieces in order; joined with newlines they give the text back."""
    lines = text.split("\n")
    pieces: list[tuple[str, bool]] = []
    position = 0
    for start, end in _runs(lines):
        if start > position:
            pieces.append(("\n".join(lines[position:start]), False))
        pieces.append(("\n".join(lines[start:end]), True))
        position = end
    if position < len(lines):
        pieces.append(("\n".join(lines[position:]), False))
    return [(piece, nav) for piece, nav in pieces if piece.strip()]
