"""Split a passage into answer units: sentences, list items, table blocks and headings.

Sentence boundaries are ``.``, ``!``, ``?`` and ``…`` before white space, except after
German and English abbreviations (``z. B.``, ``bzw.``, ``e.g.``, ``Dr.``), single-letter
initials (``J. R. R. Tolkien``), one- or two-digit ordinals (``am 7. Februar``, ``im
19. Jahrhundert``) and inside decimal numbers (``3.5``, ``1.000``, which never have white
space after the point). A Markdown list item and a table (consecutive ``|`` lines) are
one unit each; their markers never split anything. A Markdown heading, or a lone short line
without a closing mark between blank lines (a title extracted from a PDF), is a heading. A passage from the middle of a
document (chunk overlap) may begin or end inside a sentence: such units are ``partial``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

UNIT_SENTENCE, UNIT_ITEM, UNIT_TABLE, UNIT_HEADING = "sentence", "item", "table", "heading"

ABBREVIATIONS = frozenset("""
abb abs abt allg anm art aufl bd bspw bzgl bzw ca chr dgl dr ebd etc evtl exkl ff fr ggf gr hr hrsg inkl
jh jhd kap kl max min mio mrd nr o.ä pkt prof rd s sog st std str tel u.a u.ä usw u.s.w v.a vgl vs z.b z.t
zb zzgl d.h i.d.r u.u bzgl
e.g i.e mr mrs ms jr sr inc ltd co corp fig figs no nos approx dept est vol cf al p pp ed eds jan feb mar apr
jun jul aug sep sept oct nov dec mt ft gen gov rev sen rep u.s u.k a.m p.m ph.d
""".split())

_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+")
_BOUNDARY = re.compile(r"[.!?…]+[\"'»“”)\]]*\s+")
_WORD_BEFORE = re.compile(r"([\w.]+)$")
_OPENS = re.compile(r"^[\"'„“»(\[]*[A-ZÄÖÜ0-9]")
_CLOSES = re.compile(r"[.!?…:][\"'»“”)\]]*$")
HEADING_MAX_CHARS = 80
_LONE_LINE = "lone line"


@dataclass(frozen=True)
class Unit:
    """One answer unit of a passage, in reading order; ``partial`` when cut by the passage's edge."""

    text: str
    kind: str
    order: int
    partial: bool = False


def _is_boundary(before: str, after: str) -> bool:
    """Tell whether a terminal mark after ``before`` ends a sentence that ``after`` does not continue."""
    if not after or not _OPENS.match(after):
        return False
    found = _WORD_BEFORE.search(before[:-1] if before.endswith(".") else before)
    if not before.endswith(".") or not found:
        return True
    word = found.group(1).lower().rstrip(".")
    if word in ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
        return False
    if word.isdigit() and len(word) <= 2:  # "am 7. Februar", "im 19. Jahrhundert"
        return False
    return not re.fullmatch(r"(?:\w\.)+\w", word)  # "z.B", "U.S"


def split_sentences(text: str) -> list[str]:
    """Split running text into sentences (abbreviations, initials, ordinals and decimals do not split)."""
    flat = " ".join(text.split())
    sentences, start = [], 0
    for found in _BOUNDARY.finditer(flat):
        end = found.end()
        if _is_boundary(flat[start:found.start() + 1].rstrip("\"'»“”)]"), flat[end:end + 2]):
            sentences.append(flat[start:end].strip())
            start = end
    if flat[start:].strip():
        sentences.append(flat[start:].strip())
    return sentences


def _paragraph_kind(lines: list[str]) -> str:
    """A lone short line without a closing mark ("3.2 Installation", a PDF title) may be a heading."""
    line = lines[0]
    if len(lines) == 1 and len(line) <= HEADING_MAX_CHARS and not _CLOSES.search(line):
        return _LONE_LINE
    return "paragraph"


def _settle_lone_lines(blocks: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """A lone line is a heading when more follows; the passage's last one may be a sentence cut off."""
    last = len(blocks) - 1
    return [((UNIT_HEADING if i < last else "paragraph") if kind == _LONE_LINE else kind, text)
            for i, (kind, text) in enumerate(blocks)]


def _blocks(text: str) -> list[tuple[str, str]]:
    """Group lines into (kind, text) blocks: tables, list items, headings, paragraphs."""
    blocks: list[tuple[str, str]] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            blocks.append((_paragraph_kind(paragraph), " ".join(paragraph)))
            paragraph.clear()

    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("|"):
            flush()
            if blocks and blocks[-1][0] == UNIT_TABLE:
                blocks[-1] = (UNIT_TABLE, blocks[-1][1] + "\n" + stripped)
            else:
                blocks.append((UNIT_TABLE, stripped))
        elif _ITEM.match(line) or _HEADING.match(line):
            flush()
            blocks.append((UNIT_ITEM if _ITEM.match(line) else UNIT_HEADING, stripped))
        elif not stripped:
            flush()
        else:
            paragraph.append(stripped)
    flush()
    return _settle_lone_lines(blocks)


def units(text: str, *, starts_document: bool = True) -> list[Unit]:
    """Return the passage's units in order; the first and last are ``partial`` when cut off."""
    result: list[Unit] = []
    for kind, block in _blocks(text):
        if kind == "paragraph":
            result.extend(Unit(s, UNIT_SENTENCE, 0) for s in split_sentences(block))
        else:
            result.append(Unit(block, kind, 0))
    numbered = [Unit(u.text, u.kind, i, u.partial) for i, u in enumerate(result)]
    if numbered and not starts_document and numbered[0].kind == UNIT_SENTENCE \
            and not _OPENS.match(numbered[0].text):
        numbered[0] = Unit(numbered[0].text, UNIT_SENTENCE, 0, True)
    if numbered and numbered[-1].kind == UNIT_SENTENCE and not _CLOSES.search(numbered[-1].text):
        last = numbered[-1]
        numbered[-1] = Unit(last.text, last.kind, last.order, True)
    return numbered
