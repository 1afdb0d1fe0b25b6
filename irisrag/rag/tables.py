"""Tables in passage text, read as rows: each row an answer unit, with the table's header when it has one.

Three layouts reach the answer as lines of ``|``-separated cells:

- Markdown tables: ``| a | b |`` lines, a ``|---|---|`` rule under the header;
- ASCII grid tables of plain-text documents: ``+-----+`` borders, ``|----+----|`` rules between
  rows, a row's cells wrapped over several lines (``|Prüfen, ob "$unit" aktiv |"systemctl |``
  then ``| |is-active $unit" |``): the lines between two rules are one row, each column's
  pieces joined; a grid without rules between its rows (only under the header and at the
  bottom) has a row a line, a line with an empty or deeper-indented first cell continuing the
  row above;
- rows extracted from HTML tables: ``Datei | Berechtigung | Benutzer`` without outer bars.

``rows`` returns the rows as lists of cell texts and the header (or None). A header is the
first row when a rule follows it directly (in a grid table, when it also sits under the top
``+---+`` border: a grid cut by the chunk's edge starts with the end of a row) or, without any rule, when all its cells are short
labels (at most three words, no digit, no path). The answer shows a row with a header as a
small two-row table and a row without one as its cells joined by " – " (``row_text``), never
the raw bars and rules.
"""
from __future__ import annotations

import re

_RULE = re.compile(r"^[|+]?[-=+|: ]*-{3,}[-=+|: ]*$")
_LABEL = re.compile(r"^[^\W\d_][^\d|]{0,40}$")
_PATH = re.compile(r"[/~][\w.-]*/")  # "/etc/passwd", "~/.ssh": a value, while "Netzmaske /Bits" is a label
ROW_JOIN = " – "


def is_rule(line: str) -> bool:
    """Tell whether a line is a border or a rule of a table (``+-----+``, ``|---+---|``, ``|---|---|``)."""
    return bool(_RULE.match(line.strip()))


def is_row_line(line: str) -> bool:
    """Tell whether a line belongs to a table: it starts with a bar, is a rule, or has two or more `` | ``."""
    stripped = line.strip()
    return stripped.startswith("|") or (stripped.startswith("+-") and is_rule(stripped)) or stripped.count(" | ") >= 2


def _columns(lines: list[str]) -> int:
    """Return the number of columns the rules show (``+`` or inner bars), else the widest line's."""
    for line in lines:
        if is_rule(line):
            inner = line.strip().strip("|+")
            marks = inner.count("+") or inner.count("|")
            if marks:
                return marks + 1
    return max(len(_split(line)) for line in lines if not is_rule(line))


def _split(line: str, columns: int = 0) -> list[str]:
    """Return a line's cells; a bar inside a cell (``$unit|$job``) has no space before it, a column's bar has."""
    text = line.strip()
    text = text[1:] if text.startswith("|") else text
    text = text[:-1] if text.endswith("|") and not text.endswith("\\|") else text
    spaced = re.split(r"\s\|", text)
    if columns and len(spaced) != columns and len(text.split("|")) == columns:
        spaced = text.split("|")
    return [cell.strip() for cell in spaced]


def _groups(lines: list[str]) -> tuple[list[list[str]], bool]:
    """Return the data lines grouped into rows, and whether a rule follows the first row directly."""
    rules = sum(map(is_rule, lines))
    data = [i for i, line in enumerate(lines) if not is_rule(line)]
    ruled_header = bool(data) and data[0] + 1 < len(lines) and is_rule(lines[data[0] + 1])
    if rules < 2:  # Markdown (one rule under the header) or HTML rows (none): a row a line
        return [[lines[i]] for i in data], ruled_header
    ruled_header = ruled_header and lines[0].strip().startswith("+")  # a grid's header sits under its top border
    groups: list[list[str]] = [[]]
    for line in lines:
        if is_rule(line):
            groups.append([])
        else:
            groups[-1].append(line)
    groups = [g for g in groups if g]
    body = groups[1:] if ruled_header else groups
    if len(body) == 1 and len(body[0]) > 1:   # no rules between the rows: a row a line, wrapped lines joined
        groups = groups[:len(groups) - 1] + _unruled_rows(body[0])
    return groups, ruled_header


def _unruled_rows(lines: list[str]) -> list[list[str]]:
    """Split a grid's body without rules between its rows: a line starts a row unless its first cell is empty or
    indented deeper than the first line's (``|   oder Stiefel, nach Wahl) |    |``: the row above, wrapped)."""
    depth = _indent(lines[0])
    found: list[list[str]] = []
    for line in lines:
        first = _split(line)[0]
        if found and (not first or _indent(line) > depth):
            found[-1].append(line)
        else:
            found.append([line])
    return found


def _indent(line: str) -> int:
    """The spaces before a grid line's first cell text."""
    text = line.strip()[1:] if line.strip().startswith("|") else line.strip()
    return len(text) - len(text.lstrip(" "))


def _merge(group: list[str], columns: int) -> list[str]:
    """Join a row's wrapped lines column by column."""
    cells = [""] * columns
    for line in group:
        for n, piece in enumerate(_split(line, columns)[:columns]):
            if piece:
                cells[n] = f"{cells[n]} {piece}".strip() if not cells[n].endswith("/") else cells[n] + piece
    return cells


def _label(cell: str) -> bool:
    return bool(_LABEL.match(cell)) and not _PATH.search(cell) and len(cell.split()) <= 3


def rows(text: str) -> tuple[list[list[str]], list[str] | None]:
    """Return a table block's rows (cells) and its header (None when it has none)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines or all(map(is_rule, lines)):
        return [], None
    columns = _columns(lines)
    groups, ruled_header = _groups(lines)
    found = [cells for cells in (_merge(g, columns) for g in groups) if any(cells)]
    if found and (ruled_header or (not any(map(is_rule, lines)) and len(found) > 1
                                   and all(_label(c) for c in found[0]))):
        return found[1:], found[0]
    return found, None


def row_text(cells: list[str], header: list[str] | None) -> str:
    """Return one row as Markdown: a two-row table with the header, else its cells joined by " – "."""
    if header is None or len(header) != len(cells):
        return ROW_JOIN.join(c for c in cells if c)
    escape = lambda cell: cell.replace("|", "\\|")  # noqa: E731 - a cell's own bars are text
    return "\n".join(["| " + " | ".join(map(escape, header)) + " |", "|" + "---|" * len(header),
                      "| " + " | ".join(map(escape, cells)) + " |"])
