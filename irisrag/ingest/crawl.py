"""A website section's crawl, Flask-free: normalised URLs, the section, links, robots.txt, sitemaps, pacing.

The sync (``services/sources/site_sync.py``) drives the crawl: it asks the ``Frontier`` for the
next URL, fetches it through a ``PoliteFetcher`` (every request, redirects included, through
``fetch.fetch_url`` and so through the address guard and allow-list), and feeds the links back.
"""
from __future__ import annotations

import logging
import posixpath
import time
import urllib.robotparser
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit, urlunsplit

import lxml.html
from defusedxml import ElementTree

from irisrag.errors import FetchError
from irisrag.ingest.extract import SUPPORTED
from irisrag.ingest.extract_html import decode_html
from irisrag.ingest.fetch import Fetched, fetch_url

log = logging.getLogger(__name__)
PAGE_SUFFIXES = frozenset({"", ".html", ".htm", ".xhtml", ".php", ".asp", ".aspx", ".jsp", ".cgi"})
FOLLOWED_SUFFIXES = PAGE_SUFFIXES | frozenset(s for s in SUPPORTED if s not in (".png", ".jpg", ".jpeg", ".tif",
                                                                                  ".tiff", ".gif", ".bmp"))
MAX_LINKS_PER_PAGE = 2000
MAX_SITEMAP_URLS = 50_000
SITEMAP_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def normalise(url: str, base: str | None = None) -> str | None:
    """Return the URL as the crawl knows it (scheme and host lower case, default port and fragment dropped,
    dot segments resolved, an empty path as ``/``); None for what is not http(s)."""
    try:
        parts = urlsplit(urljoin(base, url.strip()) if base else url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        return None
    host = parts.hostname.lower()
    host = f"[{host}]" if ":" in host else host
    if port and port != (443 if scheme == "https" else 80):
        host = f"{host}:{port}"
    path = posixpath.normpath(parts.path) if parts.path not in ("", "/") else "/"
    if parts.path.endswith("/") and not path.endswith("/"):
        path += "/"
    path = "/" if path in (".", "//") else path
    return urlunsplit((scheme, host, path, parts.query, ""))


def in_section(url: str, prefix: str) -> bool:
    """Tell whether a normalised URL lies within the section's prefix."""
    return url.startswith(prefix)


def followed_type(url: str) -> bool:
    """Tell whether a link looks like a page or a supported file (images, archives and the like are left)."""
    suffix = posixpath.splitext(urlsplit(url).path)[1].lower()
    return suffix in FOLLOWED_SUFFIXES


@dataclass(frozen=True)
class PageLinks:
    """A page's links (normalised, in order, once each) and its canonical URL, if it names one."""

    links: list[str]
    canonical: str | None


def page_links(fetched: Fetched) -> PageLinks:
    """Read the links and the canonical link of an HTML page."""
    base = fetched.final_url
    try:
        root = lxml.html.document_fromstring(decode_html(fetched.content, fetched.charset))
    except (lxml.etree.ParserError, ValueError):
        return PageLinks([], None)
    base_href = root.xpath("//base/@href")
    base = normalise(base_href[0], base) or base if base_href else base
    canonical = next((normalise(h, base) for h in root.xpath("//link[@rel='canonical']/@href")), None)
    found: dict[str, None] = {}
    for href in root.xpath("//a/@href | //area/@href")[:MAX_LINKS_PER_PAGE]:
        url = normalise(href, base)
        if url is not None:
            found.setdefault(url)
    return PageLinks(list(found), canonical)


def sitemap_urls(content: bytes) -> tuple[list[str], list[str]]:
    """Return a sitemap's page URLs and, for a sitemap index, its sitemaps' URLs."""
    try:
        root = ElementTree.fromstring(content)
    except Exception as exc:  # noqa: BLE001 - defusedxml and expat raise several kinds; a bad sitemap is skipped
        log.info("sitemap_unreadable error=%s", exc)
        return [], []
    locs = [(e.text or "").strip() for e in root.iter(f"{SITEMAP_NS}loc")][:MAX_SITEMAP_URLS]
    if root.tag == f"{SITEMAP_NS}sitemapindex":
        return [], locs
    return locs, []


@dataclass
class Budget:
    """A run's limits: pages, bytes and seconds; ``spent`` names the first one reached."""

    pages: int
    bytes: int
    seconds: float
    started: float = field(default_factory=time.monotonic)
    fetched_pages: int = 0
    fetched_bytes: int = 0
    requests: int = 0

    def spent(self) -> str | None:
        if self.fetched_pages >= self.pages:
            return "pages"
        if self.fetched_bytes >= self.bytes:
            return "bytes"
        if time.monotonic() - self.started >= self.seconds:
            return "time"
        return None


class PoliteFetcher:
    """One request at a time per host, ``delay`` seconds apart; every request counted against the budget."""

    def __init__(self, budget: Budget, delay: float, fetch: Callable[..., Fetched] = fetch_url, **options) -> None:
        self.budget, self.delay, self._fetch, self.options = budget, delay, fetch, options
        self._last: dict[str, float] = {}

    def get(self, url: str, conditional: dict[str, str] | None = None) -> Fetched:
        """Fetch a URL (after the host's pause), counting the request and the bytes."""
        host = urlsplit(url).netloc
        wait = self._last.get(host, -1e9) + self.delay - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        self.budget.requests += 1
        try:
            fetched = self._fetch(url, conditional=conditional, **self.options)
        finally:
            self._last[host] = time.monotonic()
        self.budget.fetched_bytes += len(fetched.content)
        return fetched


class Robots:
    """robots.txt of a site (urllib.robotparser): what may be fetched, and the sitemaps it names."""

    def __init__(self, parser: urllib.robotparser.RobotFileParser | None, unreachable: bool = False) -> None:
        self._parser, self.unreachable = parser, unreachable

    @classmethod
    def load(cls, fetcher: PoliteFetcher, origin: str) -> Robots:
        """Read <origin>/robots.txt: missing (4xx) allows all; unreachable (5xx, network) allows nothing."""
        parser = urllib.robotparser.RobotFileParser()
        try:
            fetched = fetcher.get(urljoin(origin, "/robots.txt"))
        except FetchError as exc:
            if exc.http_status is not None and 400 <= exc.http_status < 500:
                return cls(None)
            parser.disallow_all = True
            return cls(parser, unreachable=True)
        parser.parse(decode_html(fetched.content, fetched.charset).splitlines())
        return cls(parser)

    def allowed(self, url: str, agent: str) -> bool:
        return self._parser is None or self._parser.can_fetch(agent, url)

    def sitemaps(self) -> list[str]:
        return list((self._parser.site_maps() if self._parser else None) or [])

    def crawl_delay(self, agent: str) -> float:
        """The pause robots.txt asks for (``Crawl-delay``), 0 when it asks for none (capped at a minute)."""
        delay = self._parser.crawl_delay(agent) if self._parser else None
        try:
            return min(max(float(delay or 0), 0.0), 60.0)
        except ValueError:
            return 0.0


def sitemap_pages(fetcher: PoliteFetcher, sitemaps: Iterable[str], prefix: str) -> list[str]:
    """Return the section's pages listed by the sitemaps (one level of sitemap index followed)."""
    pages: dict[str, None] = {}
    todo, done = deque(sitemaps), 0
    while todo and done < 10:
        url, done = todo.popleft(), done + 1
        try:
            locs, nested = sitemap_urls(fetcher.get(url).content)
        except FetchError as exc:
            log.info("sitemap_not_read url=%s error=%s", url, exc.detail)
            continue
        todo.extend(nested)
        for loc in locs:
            page = normalise(loc)
            if page and in_section(page, prefix):
                pages.setdefault(page)
    return list(pages)


class Frontier:
    """The URLs still to fetch, breadth first, each once (by its normalised URL) within depth and section."""

    def __init__(self, prefix: str, depth: int) -> None:
        self.prefix, self.depth = prefix, depth
        self._queue: deque[tuple[str, int]] = deque()
        self.seen: set[str] = set()

    def add(self, url: str, depth: int) -> bool:
        """Queue a URL unless it was seen, lies outside the section, too deep, or is not a followed type."""
        if url in self.seen or depth > self.depth or not in_section(url, self.prefix) or not followed_type(url):
            return False
        self.seen.add(url)
        self._queue.append((url, depth))
        return True

    def next(self) -> tuple[str, int] | None:
        return self._queue.popleft() if self._queue else None
