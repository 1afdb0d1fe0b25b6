"""Rendering an answer's Markdown: sanitised HTML for the browser, plain text for the terminal.

``to_html`` keeps only allowlisted tags and http(s) links to the context passages' URLs;
``to_terminal`` strips markup, escapes and control characters; ``passage_text`` is a
passage as the model reads it.
"""
from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from html import unescape

import nh3
from markdown_it import MarkdownIt
from markdown_it.token import Token as Token_

_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def passage_text(text: str) -> str:
    """Return a passage as clean text for the model: Markdown escapes (``SLAPD\\_CONF``) removed."""
    return _ESCAPE.sub(r"\1", text).strip()


_MARKDOWN = MarkdownIt("commonmark", {"html": True, "linkify": False}).enable("table")
_TAGS = {
    "p", "br", "hr", "ul", "ol", "li", "strong", "em", "code", "pre", "blockquote",
    "h1", "h2", "h3", "h4", "h5", "h6", "a", "table", "thead", "tbody", "tr", "th", "td",
}


def to_html(markdown_text: str, links: Collection[str] = ()) -> str:
    """Render model Markdown to sanitised HTML (allowlisted tags, http(s) links only).

    A link stays a link only when its URL is in ``links`` (the URLs of the context passages):
    a URL the model made up is shown as text, never as something to click.
    """
    allowed = frozenset(links)
    tokens = _MARKDOWN.parse(markdown_text or "")
    for token in tokens:
        if token.type == "inline" and token.children:
            token.children = _unlinked(token.children, allowed)
    html = _MARKDOWN.renderer.render(tokens, _MARKDOWN.options, {})
    return nh3.clean(
        html, tags=_TAGS, attributes={"a": {"href"}}, url_schemes={"http", "https"},
        link_rel="noopener noreferrer", strip_comments=True,
        attribute_filter=lambda tag, name, value: None if name == "href" and not _allowed(value, allowed) else value,
    )


def _allowed(href: str, allowed: frozenset[str]) -> bool:
    return href.startswith("#") or unescape(href) in allowed


def _unlinked(children: list[Token_], allowed: frozenset[str]) -> list[Token_]:
    """Replace the links to URLs not in ``allowed`` by their text, followed by the URL as text."""
    out: list[Token_] = []
    stack: list[tuple[bool, str, int]] = []
    for child in children:
        if child.type == "link_open":
            href = str(child.attrGet("href") or "")
            keep = _allowed(href, allowed)
            stack.append((keep, href, len(out)))
            if keep:
                out.append(child)
        elif child.type == "link_close" and stack:
            keep, href, began = stack.pop()
            label = "".join(c.content for c in out[began:] if c.type in ("text", "code_inline"))
            if keep:
                out.append(child)
            elif label.strip() != href and href:
                out.append(_text(f" ({href})"))
        else:
            out.append(child)
    return out


def _text(content: str) -> Token_:
    token = Token_("text", "", 0)
    token.content = content
    return token


def urls_in(texts: Iterable[str]) -> frozenset[str]:
    """Return the http(s) URLs that occur in the texts (links to these may stay links in an answer)."""
    found = set()
    for text in texts:
        for url in _URL.findall(text or ""):
            found.update({url, url.rstrip(".,;:!?)]}'\""), passage_text(url)})
    return frozenset(found)


_URL = re.compile(r"https?://[^\s<>\"'`]+")


_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_INLINE = [
    (re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*"), r"\1"),
    (re.compile(r"__(?=\S)(.+?)(?<=\S)__"), r"\1"),
    (re.compile(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])"), r"\1"),
    (re.compile(r"(?<!\w)_(?=\S)(.+?)(?<=\S)_(?!\w)"), r"\1"),
    (re.compile(r"~~(?=\S)(.+?)(?<=\S)~~"), r"\1"),
    (re.compile(r"`([^`\n]+)`"), r"\1"),
    (re.compile(r"!?\[([^\]\n]+)\]\((\S+?)\)"), r"\1 (\2)"),
]
_LINE = [
    (re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$"), r"\1"),
    (re.compile(r"^(\s*)[*+]\s+"), r"\1- "),
    (re.compile(r"^\s{0,3}>\s?"), ""),
]


def _terminal_line(line: str) -> str | None:
    if line.strip().startswith(("```", "~~~")):
        return None
    for pattern, repl in _LINE:
        line = pattern.sub(repl, line)
    for pattern, repl in _INLINE:
        line = pattern.sub(repl, line)
    return line.rstrip()


_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_RULE = re.compile(r"^\s*\|(?:\s*:?-{3,}:?\s*\|)+\s*$")
_CELL_BAR = re.compile(r"(?<!\\)\|")


def _cells(row: str) -> list[str]:
    return [cell.strip().replace("\\|", "|") for cell in _CELL_BAR.split(row.strip())[1:-1]]


def table_lines(rows: Sequence[str]) -> list[str]:
    """A Markdown table as plain lines: a record (its header names only the table) as its name and
    ``field: value`` lines, any other table a line per row of ``header: value`` pairs."""
    header, body = _cells(rows[0]), [_cells(row) for row in rows[2:]]
    if not any(header[1:]):
        return [header[0], *(_field_line(row) for row in body if row)]
    return [" · ".join(f"{name}: {value}" if name else value for name, value in zip(header, row, strict=False) if value)
            for row in body]


def _field_line(row: list[str]) -> str:
    """A record's row as ``field: value``; a row without a value (the ``…`` of fields left out) as its name."""
    value = " ".join(row[1:]).strip()
    return f"{row[0]}: {value}" if value else row[0]


def _untabled(lines: list[str]) -> list[str]:
    """Replace each Markdown table (a row, the rule, rows) by ``table_lines``."""
    out: list[str] = []
    n = 0
    while n < len(lines):
        end = n
        while end < len(lines) and _TABLE_ROW.match(lines[end]):
            end += 1
        if end - n >= 2 and _TABLE_RULE.match(lines[n + 1]):
            out += table_lines(lines[n:end])
            n = end
        else:
            out.append(lines[n])
            n += 1
    return out


def to_terminal(markdown_text: str) -> str:
    """Render model Markdown as plain terminal text without markup, escapes or control characters;
    a table becomes lines (``table_lines``: a record's ``field: value`` lines)."""
    text = _ANSI.sub("", (markdown_text or "").replace("\r\n", "\n").replace("\r", "\n"))
    text = _CONTROL.sub("", text.replace("\t", "    "))
    lines = [line for line in map(_terminal_line, _untabled(text.split("\n"))) if line is not None]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
