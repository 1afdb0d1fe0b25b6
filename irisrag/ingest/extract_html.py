"""HTML to text: trafilatura main content as Markdown, lxml plain text as the fallback."""
from __future__ import annotations

import codecs
import logging
import re
import threading

import lxml.etree
import lxml.html
import trafilatura

from irisrag.errors import ExtractionError
from irisrag.i18n import N_

log = logging.getLogger(__name__)

TOO_DEEP = N_("The page's markup is nested too deeply to be read (more than 256 levels).")
# Documentation pages are tens of kilobytes; anything beyond this is not a page to index.
MAX_HTML_CHARS = 20_000_000

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)
_BLANK_LINES = re.compile(r"\n[ \t]*(?:\n[ \t]*)+")
MAX_TITLE_SCAN = 256 * 1024  # the head and the first heading come early
_SOURCE_BREAKS = re.compile(r"\s*\n\s*")
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")

_DROP_TAGS = ("script", "style", "noscript", "template", "head", "iframe", "object", "svg")
_BLOCK_TAGS = (
    "p", "div", "section", "article", "main", "header", "footer", "nav", "aside", "li", "ul", "ol",
    "dl", "dt", "dd", "table", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "hr",
    "form", "fieldset", "figure", "figcaption", "address",
)
_HAS_CLASS = '//div[contains(concat(" ", normalize-space(@class), " "), " {} ")]'
_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def decode_html(data: bytes, charset: str | None = None) -> str:
    """Decode HTML bytes: BOM, then the given charset, then <meta charset>, then UTF-8, then Latin-1."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data[len(bom):].decode(encoding, errors="replace")
    candidates = [charset] if charset else []
    match = _META_CHARSET.search(data[:4096])
    if match:
        candidates.append(match.group(1).decode("ascii", errors="ignore"))
    candidates.append("utf-8")
    for encoding in candidates:
        try:
            return data.decode(encoding)
        except (LookupError, UnicodeDecodeError):
            continue
    return data.decode("latin-1")


def _trafilatura_markdown(html: str, url: str | None) -> str:
    """Return trafilatura's main content as Markdown, or '' when it finds none."""
    try:
        result = trafilatura.extract(
            html,
            url=url,
            output_format="markdown",
            fast=False,
            favor_recall=True,  # losing content hurts retrieval more than a stray line
            include_comments=False,
            include_tables=True,
            include_links=False,  # link targets add noise to chunks and embeddings
            include_images=False,
            include_formatting=True,
        )
    except Exception as exc:  # trafilatura raises assorted errors on odd markup
        log.warning("trafilatura_failed url=%s error=%s", url, exc)
        return ""
    return result or ""


_SEPARATOR_ROW = re.compile(r"^\|(?:\s*:?-{3,}:?\s*\|)+\s*$")
_CAPTION_ROW = re.compile(r"^\|\s*([^|]*?\S[^|]*?)\s*\|(?:\s*\|)+\s*$")   # one filled cell, the others empty


def captions_above_tables(markdown: str) -> str:
    """Put a table's caption above it as a line of its own.

    trafilatura writes ``<caption>`` as the table's first row, one cell filled, with a separator
    under it and another under the real header row: the table's header was then the caption, and
    its rows ("Saal | 60,00 € | … | 150,00 €") were read without their column names ("Kaution").
    """
    lines = markdown.split("\n")
    for i in range(len(lines) - 3, -1, -1):
        caption = _CAPTION_ROW.match(lines[i])
        if caption and _SEPARATOR_ROW.match(lines[i + 1]) and lines[i + 2].startswith("|") \
                and _SEPARATOR_ROW.match(lines[i + 3]):
            lines[i: i + 2] = [caption.group(1), ""]
    return "\n".join(lines)


_parsers = threading.local()


def _parser() -> lxml.html.HTMLParser:
    """Return this thread's HTML parser (lxml parsers are reusable, not shareable between threads).

    Its ``error_log`` holds the messages of the last parse only, which ``_parse`` reads.
    """
    parser = getattr(_parsers, "parser", None)
    if parser is None:
        parser = _parsers.parser = lxml.html.HTMLParser(huge_tree=False, remove_comments=True, remove_pis=True)
    return parser


def _parse(html: str):
    """Parse HTML with lxml (no huge trees, comments dropped); None when it cannot be parsed."""
    html = _XML_DECL.sub("", html, count=1)
    if not html.strip():
        return None
    parser = _parser()
    try:
        root = lxml.html.document_fromstring(html, parser=parser)
    except (lxml.etree.ParserError, ValueError) as exc:
        log.warning("lxml_parse_failed error=%s", exc)
        return None
    if any(e.type_name == "ERR_RESOURCE_LIMIT" for e in parser.error_log):  # libxml2 stops at 256 levels
        raise ExtractionError(TOO_DEEP, "libxml2: " + "; ".join(e.message for e in parser.error_log)[:500])
    return root


def html_plain_text(html: str) -> str:
    """Return the visible body text of an HTML document or fragment, scripts and styles removed."""
    root = _parse(html)
    return "" if root is None else _visible_text(root)


def _visible_text(root) -> str:
    """Return the visible text of a parsed document, blocks separated by blank lines."""
    for element in list(root.iter(*_DROP_TAGS)):
        element.drop_tree()
    for element in root.iter(*_BLOCK_TAGS):
        element.tail = "\n\n" + (element.tail or "")
    for row in root.iter("tr"):  # a table row becomes one line, its cells apart
        cells = [" ".join(cell.text_content().split()) for cell in row.iter("td", "th")]
        cells = [cell for cell in cells if cell]
        for child in list(row):
            row.remove(child)
        row.text = " | ".join(cells)
    for element in root.iter("br"):
        element.tail = "\n" + (element.tail or "")
    body = root.find("body")
    text = (body if body is not None else root).text_content()
    text = _SPACES.sub(" ", text)
    text = _BLANK_LINES.sub("\n\n", text)
    return "\n".join(line.strip() for line in text.split("\n")).strip()


def docbook_text(html: str) -> str | None:
    """Return a DocBook page (one with ``div.titlepage``) as text with '#' headings, else None.

    trafilatura drops DocBook's headings: the ``div.titlepage`` around each as boilerplate,
    and every heading of a page whose lists nest. DocBook output is clean documentation
    with its navigation in known divs, so it is converted here without trafilatura: the
    navigation and table of contents are left out, headings become Markdown headings and list
    items Markdown items (``- ``): without the mark a short item ("MSS = "MTU - 40" bei IPv4")
    read as a title and never became answer text, nor stayed with its lead-in.
    """
    if "titlepage" not in html:
        return None
    root = _parse(html)
    if root is None or not root.xpath(_HAS_CLASS.format("titlepage")):
        return None
    for name in ("navheader", "navfooter", "toc", "list-of-tables", "list-of-figures"):
        for element in root.xpath(_HAS_CLASS.format(name)):
            element.drop_tree()
    for item in root.iter("li"):  # a list item stays one: "- " as in Markdown, not a lone line read as a title
        item.text = "- " + (item.text or "").lstrip()
    for heading in root.iter("h1", "h2", "h3", "h4", "h5", "h6"):
        title = " ".join(heading.text_content().split())
        for child in list(heading):
            heading.remove(child)
        heading.text = f"{'#' * int(heading.tag[1])} {title}" if title else ""
    _collapse_source_newlines(root)
    return _visible_text(root)


def _collapse_source_newlines(root) -> None:
    """Turn the line breaks of the HTML source into spaces, outside <pre> (iteratively: pages nest deep)."""
    stack = [(root, False)]
    while stack:
        element, in_pre = stack.pop()
        if not isinstance(element.tag, str):
            continue
        inside = in_pre or element.tag == "pre"
        if element.text and not inside:
            element.text = _SOURCE_BREAKS.sub(" ", element.text)
        if element.tail and not in_pre:
            element.tail = _SOURCE_BREAKS.sub(" ", element.tail)
        stack.extend((child, inside) for child in element)


def extract_html_text(html: str, url: str | None = None) -> str:
    """Return the main content of an HTML page as Markdown, falling back to plain text."""
    if len(html) > MAX_HTML_CHARS:
        raise ExtractionError(
            N_("The HTML page is too large to extract"), f"{len(html)} characters, limit {MAX_HTML_CHARS}"
        )
    docbook = docbook_text(html)
    if docbook:
        return docbook
    markdown = _trafilatura_markdown(html, url).strip()
    if markdown:
        return captions_above_tables(markdown)
    log.info("html_fallback_lxml url=%s", url)
    return html_plain_text(html)


def html_title(data: bytes, charset: str | None = None) -> str:
    """Return a page's <title> (else its first <h1>), whitespace collapsed, at most 255 characters."""
    root = _parse(decode_html(data[:MAX_TITLE_SCAN], charset))
    if root is None:
        return ""
    for path in ("//head/title", "//title", "//h1"):
        found = root.xpath(path)
        if found:
            title = " ".join(found[0].text_content().split())
            if title:
                return title[:255]
    return ""


def extract_html_bytes(data: bytes, url: str | None = None, charset: str | None = None) -> str:
    """Return the main content of fetched or stored HTML bytes as Markdown (or plain text)."""
    if len(data) > MAX_HTML_CHARS:
        raise ExtractionError(
            N_("The HTML page is too large to extract"), f"{len(data)} bytes, limit {MAX_HTML_CHARS}"
        )
    return extract_html_text(decode_html(data, charset), url)
