"""Split a passage into answer units by its layout: sentences, lists, table rows, code and headings.

Sentence boundaries are ``.``, ``!``, ``?`` and ``…`` before white space, except after
German and English abbreviations (``z. B.``, ``bzw.``, ``e.g.``, ``Dr.``), single-letter
initials (``J. R. R. Tolkien``), one- or two-digit ordinals (``am 7. Februar``, ``im
19. Jahrhundert``) and inside decimal numbers (``3.5``, ``1.000``, which never have white
space after the point). A Markdown list item (with the lines it wraps onto) is one unit; a
table (``|`` lines, ASCII grid tables with their ``+---+`` rules, HTML rows ``a | b | c``) gives
one unit per row, with its header (``tables.py``); a fenced code block is one unit shown as
inline code without shell prompts. A lead-in ending in ``:`` ("… konfigurieren mittels:")
and the command or list after it stay one unit (up to ``LEAD_IN_MAX_CHARS``), so an answer
never stops before what it announces; so do a sentence without a closing mark and the command
after it (a manual page's example and its description). A Markdown heading, a line in capitals alone (a manual
page's ``BESCHREIBUNG``, ``SIEHE AUCH``), or a lone short capitalised line without a closing
mark between blank lines (a title extracted from a PDF) is a heading. A word hyphenated at a
line end by a manual page's formatter (``Puf‐ fer``) is joined. A passage from the middle of a
document (chunk overlap) may begin or end inside a sentence: such units are ``partial``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from irisrag.rag import lexical, tables

UNIT_SENTENCE, UNIT_ITEM, UNIT_TABLE, UNIT_HEADING = "sentence", "item", "table", "heading"
UNIT_LIST, UNIT_CODE = "list", "code"

ABBREVIATIONS = frozenset("""
abb abs abt allg anm art aufl bd bspw bzgl bzw ca chr dgl dr ebd etc evtl exkl ff fr ggf gr hr hrsg inkl
jh jhd kap kl max min mio mrd nr o.ä pkt prof rd s sog st std str tel u.a u.ä usw u.s.w v.a vgl vs z.b z.t
zb zzgl d.h i.d.r u.u bzgl
e.g i.e mr mrs ms jr sr inc ltd co corp fig figs no nos approx dept est vol cf al p pp ed eds jan feb mar apr
jun jul aug sep sept oct nov dec mt ft gen gov rev sen rep u.s u.k a.m p.m ph.d
""".split())

_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)]|\(\d{1,2}\)|[a-z]\))\s+")  # "- ", "2.", "(1)", "a)"
_NUMBERED_TITLE = re.compile(r"^\s*\d{1,3}(?:\.\d{1,3})*\.?\s+([A-ZÄÖÜ][^.!?:;]{0,60})$")  # "1. Geltungsbereich"
_MONTHS = ("Januar|Jänner|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember|January|"
           "February|March|May|June|July|October|December|Jan|Feb|Mär|Apr|Jun|Jul|Aug|Sept?|Okt|Oct|Nov|Dez|Dec")
_DATE_LINE = re.compile(rf"^\s*\d{{1,2}}\.\s+(?:{_MONTHS})\b")  # "24. Dezember ...": a date, not item 24
_TITLED = "numbered title"  # a numbered line that may be a section's title: "title\nthe lines under it"
TITLE_MAX_WORDS = 6
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+")
_BOUNDARY = re.compile(r"[.!?…]+[\"'»“”)\]]*\s+")
_WORD_BEFORE = re.compile(r"([\w.]+)$")
_OPENS = re.compile(r"^[\"'„“»(\[]*[A-ZÄÖÜ0-9]")
_CLOSES = re.compile(r"[.!?…:][\"'»“”)\]]*$")
HEADING_MAX_CHARS = 80
REFERENCE_MAX_CHARS = 350  # a sentence that refers back ("Dies wird durch --keep verhindert.") joins the one before up to this
_REFERS_BACK = re.compile(r"^(?:Dies|Diese[rsnm]?|Dadurch|Dabei|Hierbei|Hierzu|Dazu|Dafür|Daher|Deshalb|Deswegen|Es|Er"
                          r"|Ersteres|Letzteres|This|These|That|It|They)\b")
OPTION_HEAD_MAX_CHARS = 80  # an option's head with its arguments ("-L, --listfiles Paketname …")
_OPTION_START = re.compile(r"^-{1,2}[A-Za-z0-9]")
LEAD_IN_MAX_CHARS = 450  # a lead-in ("… die folgenden:") and its list or command stay one unit up to this length
_LONE_LINE = "lone line"
_ALTERNATIVES = frozenset({"bzw.", "oder", "or", "oder:", "bzw.:"})   # between two commands a lead-in announces
_FIELD_LINE = re.compile(r"[A-ZÄÖÜ][\w-]{1,30}(?: [\w-]{1,20})?: \S")   # "Öffnungszeiten: …", "Gültig ab: …"
_SEPARATOR = re.compile(r"([-=_*~])\1{4,}")
_FENCE = re.compile(r"^\s{0,3}(?:```|~~~)")
_QUOTE = re.compile(r"^\s{0,3}>(?:\s|$)")                           # a Markdown or e-mail quote's marker
_EMPHASIS = re.compile(r"(\*\*|__)(?=\S)([^*_\n]+?)(?<=\S)\1")   # "**bold**", "__bold__"
_CAPS_HEADING = re.compile(r"^[A-ZÄÖÜ][A-ZÄÖÜ0-9 -]{2,38}[A-ZÄÖÜ0-9]$")  # a manual page's NAME, BESCHREIBUNG, SIEHE AUCH
_PROMPT = re.compile(r"^[#$]\s+")
_PROMPT_LINE = re.compile(r"^\$\s+\S")  # a shell command as printed in a handbook: "$ sudo chown …"  # a shell prompt before a command in a code block
# a command line of a reference card: an ASCII command, then options, PLACEHOLDERS, paths or lower-case words
_COMMAND = re.compile(r"^[a-z][a-z0-9.+_-]*(?:\s+(?:-{1,2}[\w=.-]+|[A-Z][A-Z0-9_]*(?:\.\w+)?|[/~$.][^\s,]*"
                      r"|[a-z0-9][a-z0-9.+/_=-]*)){1,5}$")
# What a lead-in announces, on a line of its own with no code mark ("… also z.B.:" over "adduser user group", an HTML
# page's <pre> read as text): lower-case words without a closing mark, the first a command's name.
_BARE_COMMAND = re.compile(r"[a-z][a-z0-9.+_-]*(?: +[\w./:=@~*'\"<>$+-]+){0,7}")
_CODE_TOKEN = re.compile(r"^(?:-|[A-Z][A-Z0-9_]+|[/~$.])|[-./=_]")
COMMAND_LIST_MIN_LINES = 4
_BROKEN = re.compile(r"(\w)[\u2010\u00ad]\s+(?=[a-zäöüß])")  # a word hyphenated at a line end ("Puf‐ fer")


@dataclass(frozen=True)
class Unit:
    """One answer unit of a passage, in reading order; ``partial`` when cut by the passage's edge."""

    text: str
    kind: str
    order: int
    partial: bool = False


def _is_boundary(before: str, after: str) -> bool:
    """Tell whether a terminal mark after ``before`` ends a sentence that ``after`` does not continue."""
    if not after or not _OPENS.match(after) or _option_with_ellipsis(before):
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


def _option_with_ellipsis(before: str) -> bool:
    """Tell whether the text is an option's head ending in an ellipsis for repeated arguments, which the German
    manual pages write "…": "-L, --listfiles Paketname …" and its description are one unit, not two sentences."""
    return len(before) <= OPTION_HEAD_MAX_CHARS and before.endswith(("…", "...")) and bool(_OPTION_START.match(before))


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


def with_references(sentences: list[str]) -> list[str]:
    """Join a sentence that refers back to the one before it ("Dies", "Es", "Dadurch", "This") to that one.

    Alone it does not say what it is about: "Sobald die Zieldatei erfolgreich geschlossen wurde, wird die
    Ursprungs-Datei entfernt. Dies wird durch die Option --keep verhindert." answers "Wie behalte ich die
    Originaldatei?" only together (eval/holdout2-de xz-02), as "clean bereinigt das lokale Depot … Es
    entfernt alles außer der Sperrdatei aus /var/cache/apt/archives/" does "Was macht apt-get clean?".
    Up to ``REFERENCE_MAX_CHARS`` together; the one before may itself have been joined.
    """
    joined: list[str] = []
    for sentence in sentences:
        if joined and _REFERS_BACK.match(sentence) and len(joined[-1]) + len(sentence) < REFERENCE_MAX_CHARS:
            joined[-1] = f"{joined[-1]} {sentence}"
        else:
            joined.append(sentence)
    return joined


def _paragraph_kind(lines: list[str]) -> str:
    """A lone short line without a closing mark ("3.2 Installation", a PDF title) may be a heading."""
    line = lines[0]
    if len(lines) == 1 and len(line) <= HEADING_MAX_CHARS and not _CLOSES.search(line) and not line[:1].islower() \
            and not _FIELD_LINE.match(line):
        return _LONE_LINE
    return "paragraph"


def _settle_lone_lines(blocks: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """A lone line is a heading when more follows; the passage's last one may be a sentence cut off."""
    last = len(blocks) - 1
    return [((UNIT_HEADING if i < last else "paragraph") if kind == _LONE_LINE else kind, text)
            for i, (kind, text) in enumerate(blocks)]


def is_caps_heading(line: str) -> bool:
    """Tell whether a line is a heading in capitals alone on its line (a manual page's ``BESCHREIBUNG``)."""
    return bool(_CAPS_HEADING.match(line)) and sum(c.isalpha() for c in line) >= 3


def _code(lines: list[str]) -> str:
    """Return a code block's lines as inline code, without shell prompts (``# dpkg-reconfigure locales``)."""
    kept = [_PROMPT.sub("", line.strip()).replace("`", "'") for line in lines if line.strip()]
    return " ".join(f"`{line}`" for line in kept)


def is_command_line(line: str) -> bool:
    """Tell whether a line is a command: ``_COMMAND``'s shape, no stop word, and a code-like token or two words."""
    if not _COMMAND.match(line):
        return False
    words = line.split()
    if any(lexical.normal_form(w) is None and not _CODE_TOKEN.search(w) and len(w) > 1 for w in words):
        return False
    return len(words) <= 2 or any(_CODE_TOKEN.search(w) for w in words[1:])


def command_entries(lines: list[str]) -> list[tuple[str, str]] | None:
    """Read a block of short lines where commands alternate with their meaning (a reference card) as entries.

    Each command line (``_COMMAND``: ``dpkg -S /pfad/datei``) starts an entry; the next line is
    its meaning, and lines after that starting in lower case continue it. Another line is a
    heading ("Suchen und Auskunft"), or a sentence when it starts in lower case (the end of an
    entry cut off by the chunk). An entry is shown as the command in code, a dash and its meaning.
    None when the block is not such a list (fewer than two commands or ``COMMAND_LIST_MIN_LINES`` lines).
    """
    commands = [is_command_line(line) for line in lines]
    if sum(commands) < 2 or len(lines) < COMMAND_LIST_MIN_LINES or any(len(line) > HEADING_MAX_CHARS for line in lines):
        return None
    blocks: list[tuple[str, str]] = []
    entry: list[str] = []
    for line, command in zip(lines, commands, strict=True):
        if not command and entry and (len(entry) == 1 or line[:1].islower()):
            entry.append(line)
            continue
        if entry:
            blocks.append(("paragraph", f"`{entry[0]}` – " + " ".join(entry[1:]) if len(entry) > 1 else f"`{entry[0]}`"))
        entry = [line] if command else []
        if not command:
            blocks.append(("paragraph" if line[:1].islower() else UNIT_HEADING, line))
    if entry:
        blocks.append(("paragraph", f"`{entry[0]}` – " + " ".join(entry[1:]) if len(entry) > 1 else f"`{entry[0]}`"))
    return blocks


def unmarked(line: str) -> str:
    """The line without Markdown's quote marker and emphasis ("> **Notiz:** Bitte …" -> "Notiz: Bitte …")."""
    return _EMPHASIS.sub(r"\2", _QUOTE.sub("", line))


class _Blocks:
    """Group a passage's lines into (kind, text) blocks: tables, code, list items, headings, paragraphs."""

    def __init__(self) -> None:
        self.blocks: list[tuple[str, str]] = []
        self.paragraph: list[str] = []
        self.fence: list[str] | None = None
        self.blank = self.was_blank = True  # this line, the line before blank (a list item continues on the next)
        self.field, self.indent = False, 0    # the paragraph's last line: a field line ("Telefon: -255"), its indentation

    def flush(self) -> None:
        entries = command_entries(self.paragraph)
        if entries is not None:
            self.blocks.extend(entries)
            self.paragraph.clear()
        if self.paragraph:
            text = _BROKEN.sub(r"\1", " ".join(self.paragraph))
            self.blocks.append((_paragraph_kind(self.paragraph), text))
            self.paragraph.clear()

    def add(self, kind: str, text: str) -> None:
        self.flush()
        self.blocks.append((kind, text))

    def line(self, line: str) -> None:
        line = line if self.fence is not None else unmarked(line)
        stripped = line.strip()
        self.was_blank, self.blank = self.blank, not stripped
        if self.fence is not None:
            self._in_fence(line)
        elif self._continues_item(line):
            kind, text = self.blocks[-1]
            self.blocks[-1] = (kind, f"{text}\n{line.rstrip()}" if kind == _TITLED else f"{text} {stripped}")
        elif _FENCE.match(line):
            self.flush()
            self.fence = []
        elif _PROMPT_LINE.match(stripped):
            self._command(stripped)
        elif stripped and tables.is_row_line(line):
            self._table_line(stripped)
        elif _SEPARATOR.fullmatch(stripped):   # "--------" under a letterhead: it ends a block and is no text
            self.flush()
        elif self._wrapped_date(stripped):
            self.paragraph.append(stripped)
        elif _ITEM.match(line) or _HEADING.match(line):
            self.add(UNIT_HEADING if _HEADING.match(line) else _TITLED if numbered_title(stripped) else UNIT_ITEM,
                     stripped)
        elif is_caps_heading(stripped):
            self.add(UNIT_HEADING, stripped)
        elif not stripped:
            self.flush()
        else:
            self._text_line(line, stripped)

    def _text_line(self, line: str, stripped: str) -> None:
        """A field line ("Öffnungszeiten: Mo und Do …") is a unit of its own when it follows another or changes the
        indentation, and so is the line that leaves a field line's indentation."""
        field, indent = bool(_FIELD_LINE.match(stripped)), len(line) - len(line.lstrip())
        if self.paragraph and ((field and (self.field or indent != self.indent)) or (self.field and indent != self.indent)):
            self.flush()
        self.paragraph.append(stripped)
        self.field, self.indent = field, indent

    def _in_fence(self, line: str) -> None:
        if _FENCE.match(line):
            if any(part.strip() for part in self.fence or []):
                self.add(UNIT_CODE, _code(self.fence or []))
            self.fence = None
        else:
            self.fence.append(line)  # type: ignore[union-attr]

    def _continues_item(self, line: str) -> bool:
        """A line right under a list item (no blank line between) that starts nothing new continues the item."""
        return (bool(line.strip()) and not self.was_blank and not self.paragraph and bool(self.blocks)
                and self.blocks[-1][0] in (UNIT_ITEM, _TITLED) and not (_ITEM.match(line) or _HEADING.match(line)
                                                              or _FENCE.match(line) or tables.is_row_line(line)))

    def _wrapped_date(self, stripped: str) -> bool:
        """A date at a line's start ("24. Dezember") under an unfinished line ("… Der") goes on with its sentence.

        PDF text breaks lines where the page did: "ebenfalls 30 Tage. Der\n24. Dezember und der 31. Dezember
        sind …" read as a list item "24." cut the sentence from its subject.
        """
        return bool(self.paragraph) and not _CLOSES.search(self.paragraph[-1]) and bool(_DATE_LINE.match(stripped))

    def _command(self, stripped: str) -> None:
        """A prompt line is code; prompt lines that follow each other are one block."""
        if not self.paragraph and self.blocks and self.blocks[-1][0] == UNIT_CODE and not self.was_blank:
            self.blocks[-1] = (UNIT_CODE, f"{self.blocks[-1][1]} {_code([stripped])}")
        else:
            self.add(UNIT_CODE, _code([stripped]))

    def _table_line(self, stripped: str) -> None:
        """A table continues over blank lines (rows of an HTML table come one per paragraph)."""
        if not self.paragraph and self.blocks and self.blocks[-1][0] == UNIT_TABLE:
            self.blocks[-1] = (UNIT_TABLE, self.blocks[-1][1] + "\n" + stripped)
        else:
            self.add(UNIT_TABLE, stripped)

    def done(self) -> list[tuple[str, str]]:
        if self.fence:
            self.add(UNIT_CODE, _code(self.fence))
        self.flush()
        return _settle_lone_lines(self.blocks)


def _blocks(text: str) -> list[tuple[str, str]]:
    """Group lines into (kind, text) blocks: tables, code, list items, headings, paragraphs."""
    grouping = _Blocks()
    lines = text.splitlines()
    if starts_inside_fence(lines):
        grouping.fence = []
    for line in lines:
        grouping.line(line)
    return grouping.done()


def starts_inside_fence(lines: list[str]) -> bool:
    """Tell whether a passage begins inside a fenced code block that a chunk's start cut into.

    Then its first fence line closes the block: an odd number of fence lines, the first a bare
    "```" (an opening one usually names its language), and above it lines that read as code,
    none ending a sentence. Read the other way round, the block's end and the quote under it
    were shown as code ("`> **Notiz:** …`").
    """
    fences = [i for i, line in enumerate(lines) if _FENCE.match(line)]
    if len(fences) % 2 == 0 or lines[fences[0]].strip() not in ("```", "~~~"):
        return False
    above = [line.strip() for line in lines[: fences[0]] if line.strip()]
    return bool(above) and not any(_CLOSES.search(line) and not line.endswith(":") for line in above)


def numbered_title(line: str) -> bool:
    """Tell whether a numbered line reads as a section's title ("1. Geltungsbereich"): short, capitalised, unclosed."""
    found = _NUMBERED_TITLE.match(line)
    return bool(found) and len(found.group(1).split()) <= TITLE_MAX_WORDS


def _titled_units(block: str) -> list[Unit]:
    """A numbered title with sentences under it is a section's heading and its text, not one list item.

    In a PDF's text the title ("8. Arbeitssicherheit und Notfälle") is followed by its paragraph
    with no blank line between, which read as one long list item: the whole section became one
    unit, cut off before the sentence that answers (eval/holdout-de it-06, real-de hb-html-07).
    A numbered item whose text continues in lower case, or with one sentence, stays an item.
    """
    title, _, rest = block.partition("\n")
    flat = " ".join(rest.split())
    if len(split_sentences(flat)) < 2 or not flat[:1].isupper():
        return [Unit(f"{title} {flat}".strip(), UNIT_ITEM, 0)]
    return [Unit(title, UNIT_HEADING, 0),   # the text's lines grouped anew: a field line stays a unit of its own
            *(Unit(s, UNIT_SENTENCE, 0) for _, text in _blocks(rest) for s in split_sentences(text))]


def _table_units(block: str) -> list[Unit]:
    """Return a table block's rows as units: with a header, a small table each; without, its cells joined."""
    found, header = tables.rows(block)
    kind = UNIT_TABLE if header is not None else UNIT_SENTENCE
    return [Unit(tables.row_text(cells, header), kind, 0) for cells in found]


def _with_lead_ins(found: list[Unit]) -> list[Unit]:
    """Keep a lead-in ("… konfigurieren mittels:") with the command or list that follows it, as one unit."""
    result: list[Unit] = []
    for unit in found:
        last = result[-1] if result else None
        lead_in = last is not None and last.kind == UNIT_SENTENCE and last.text.rstrip().endswith(":")
        fits = last is not None and len(last.text) + len(unit.text) < LEAD_IN_MAX_CHARS
        joined = _next_command(last, unit) if fits else None
        if joined is not None:   # "… ausführen: `service Paketname start`" + "bzw." + "service Paketname stop"
            result[-1] = joined
            continue
        if unit.kind == UNIT_SENTENCE and _bare_command(unit.text) and (lead_in or _describes(last)):
            unit = Unit(f"`{unit.text}`", UNIT_CODE, 0)
        if (lead_in or _describes(last)) and fits and unit.kind == UNIT_CODE:
            result[-1] = Unit(f"{last.text}{'' if lead_in else ':'} {unit.text}", UNIT_SENTENCE, 0)
        elif (lead_in or (last is not None and last.kind == UNIT_LIST)) and fits and unit.kind == UNIT_ITEM:
            result[-1] = Unit(f"{last.text}{chr(10) * 2 if lead_in else chr(10)}{unit.text}", UNIT_LIST, 0)
        else:
            result.append(unit)
    return [Unit(u.text, u.kind, u.order, True) if u.kind == UNIT_SENTENCE and u.text.endswith(":") else u
            for u in result]  # a lead-in left without what it announces reads as cut off


def _next_command(last: Unit | None, unit: Unit) -> Unit | None:
    """A lead-in joined with its command, continued by an alternative word ("bzw.") or, after one, by the next bare
    command; None when ``unit`` continues nothing."""
    if last is None or last.kind != UNIT_SENTENCE or "`" not in last.text or unit.kind != UNIT_SENTENCE:
        return None
    if last.text.endswith("`") and unit.text in _ALTERNATIVES:
        return Unit(f"{last.text} {unit.text}", UNIT_SENTENCE, 0)
    ends_in_alternative = last.text.rsplit(" ", 1)[-1] in _ALTERNATIVES
    if ends_in_alternative and _bare_command(unit.text) and unit.text not in _ALTERNATIVES:
        return Unit(f"{last.text} `{unit.text}`", UNIT_SENTENCE, 0)
    return None


def _bare_command(text: str) -> bool:
    """Tell whether a line is a command without code marks (``_BARE_COMMAND``, and no stop word: "keine weiteren")."""
    return text not in _ALTERNATIVES and bool(_BARE_COMMAND.fullmatch(text)) and all(lexical.normal_form(w) or _CODE_TOKEN.search(w)
                                                       for w in text.split() if len(w) > 1)


def _describes(unit: Unit | None) -> bool:
    """Tell whether a sentence without a closing mark describes the command after it (a manual page's example:
    "Wandelt die Sekunden seit Beginn der Unix-Epoche in ein Datum um" over ``$ date --date='@2147483647'``)."""
    return (unit is not None and unit.kind == UNIT_SENTENCE and not _CLOSES.search(unit.text) and not unit.partial
            and "`" not in unit.text)


def units(text: str, *, starts_document: bool = True) -> list[Unit]:
    """Return the passage's units in order; the first and last are ``partial`` when cut off."""
    result: list[Unit] = []
    for kind, block in _blocks(text):
        if kind == "paragraph":
            result.extend(Unit(s, UNIT_SENTENCE, 0) for s in with_references(split_sentences(block)))
        elif kind == UNIT_TABLE:
            result.extend(_table_units(block))
        elif kind == _TITLED:
            result.extend(_titled_units(block))
        else:
            result.append(Unit(block, kind, 0))
    result = _with_lead_ins(result)
    numbered = [Unit(u.text, u.kind, i, u.partial) for i, u in enumerate(result)]
    if numbered and not starts_document and numbered[0].kind == UNIT_SENTENCE \
            and not _OPENS.match(numbered[0].text):
        numbered[0] = Unit(numbered[0].text, UNIT_SENTENCE, 0, True)
    if numbered and numbered[-1].kind == UNIT_SENTENCE and not _CLOSES.search(numbered[-1].text):
        last = numbered[-1]
        numbered[-1] = Unit(last.text, last.kind, last.order, True)
    return numbered
