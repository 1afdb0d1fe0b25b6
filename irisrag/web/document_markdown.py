"""A stored document's Markdown (MD files, HTML as extracted) rendered safely for the viewer.

Raw HTML in the text is never passed through (markdown-it's ``html`` is off, so ``<script>``
shows as text), images are not loaded (their alt text stays), and a link keeps its target only
when it is http(s) or relative; nh3 then cleans the result against an allowlist as a second wall.
"""
from __future__ import annotations

from urllib.parse import urlsplit

import nh3
from markdown_it import MarkdownIt

MARKDOWN_SUFFIXES = (".md", ".markdown")  # imported as kind "text"; web pages are staged as .md
_TAGS = {
    "p", "br", "hr", "ul", "ol", "li", "strong", "em", "code", "pre", "blockquote", "del",
    "h1", "h2", "h3", "h4", "h5", "h6", "a", "table", "thead", "tbody", "tr", "th", "td",
}
_MARKDOWN = (MarkdownIt("commonmark", {"html": False, "linkify": False})
             .enable(["table", "strikethrough"]).disable("image"))


def is_markdown(kind: str, name: str) -> bool:
    """Say whether a document's indexed text is Markdown: a .md file, or HTML as extracted (trafilatura)."""
    return kind == "html" or (name or "").lower().endswith(MARKDOWN_SUFFIXES)


def safe_link(url: str) -> bool:
    """Say whether a link target may stay clickable: http(s), or relative without a scheme."""
    scheme = urlsplit(url.strip()).scheme.lower()
    return scheme in ("", "http", "https") and not url.strip().startswith("//")


_MARKDOWN.validateLink = safe_link


def _keep_href(tag: str, name: str, value: str) -> str | None:
    return None if name == "href" and not safe_link(value) else value


def render(text: str) -> str:
    """Return the Markdown text as cleaned HTML (the viewer template shows it as markup, and nothing else)."""
    html = _MARKDOWN.render(text or "")
    return nh3.clean(html, tags=_TAGS, attributes={"a": {"href"}}, url_schemes={"http", "https"},
                     link_rel="noopener noreferrer nofollow", strip_comments=True, attribute_filter=_keep_href)
