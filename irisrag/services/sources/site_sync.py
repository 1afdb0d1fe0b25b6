"""Sync of a web page or a website section: crawl, fetch conditionally, import what is new or changed.

Every request goes through ``fetch.fetch_url`` (address guard and allow-list on every hop,
redirects included), one at a time per host with CRAWL_DELAY between them; robots.txt is
honoured and sitemaps are read; each normalised URL is fetched once (a redirect's target and a
canonical link count as the page). A page answering 404 or 410 is gone; a network error or a
5xx is a failure and never removes anything. Pages are stored under their final URL.
"""
from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass, field
from urllib.parse import urljoin

from irisrag.errors import IrisRagError
from irisrag.ingest.crawl import (
    Budget,
    Frontier,
    PoliteFetcher,
    Robots,
    in_section,
    normalise,
    page_links,
    sitemap_pages,
)
from irisrag.ingest.fetch import USER_AGENT, Fetched
from irisrag.ingest.stage import stage_bytes
from irisrag.models import Document, Source
from irisrag.models.base import utcnow
from irisrag.services.documents import registration
from irisrag.services.sources import documents as sync_docs
from irisrag.services.sources.ledger import Ledger

log = logging.getLogger(__name__)
GONE = (404, 410)


@dataclass
class Crawl:
    """One run's state: the source, its ledger, the known pages by URL, the fetcher, what was visited."""

    source: Source
    ledger: Ledger
    fetcher: PoliteFetcher
    known: dict[str, Document]
    visited: set[str] = field(default_factory=set)

    @property
    def budget(self) -> Budget:
        return self.fetcher.budget


def known_pages(source_id: int) -> dict[str, Document]:
    return {d.source_url: d for d in Document.select().where(Document.source == source_id) if d.source_url}


def sync_pages(crawl: Crawl) -> str:
    """Run the crawl of a page or section; return the limit that stopped it early ('' when none did)."""
    source = crawl.source
    site = source.kind == "site"
    prefix = source.url_prefix if site else source.start_url
    frontier = Frontier(prefix, source.depth if site else 0)
    robots = Robots.load(crawl.fetcher, source.start_url) if site else Robots(None)
    if robots.unreachable:  # a server that cannot say what it allows is not crawled (nothing is removed)
        crawl.ledger.count("failed", urljoin(source.start_url, "/robots.txt"))
        return "robots"
    crawl.fetcher.delay = max(crawl.fetcher.delay, robots.crawl_delay(USER_AGENT))  # the site's wish, if slower
    frontier.add(source.start_url, 0)
    if site:
        for page in sitemap_pages(crawl.fetcher, robots.sitemaps() or [urljoin(source.start_url, "/sitemap.xml")],
                                  prefix):
            frontier.add(page, 1)
    limit = _crawl(crawl, frontier, robots)
    if not limit:  # a page no longer linked may still be there: asked once, gone only on 404/410
        limit = _recheck_unvisited(crawl, robots)
    return limit


def _crawl(crawl: Crawl, frontier: Frontier, robots: Robots) -> str:
    while (item := frontier.next()) is not None:
        if limit := crawl.budget.spent():
            return limit
        url, depth = item
        if url in crawl.visited:  # reached before as a redirect's target or a canonical link
            continue
        if not robots.allowed(url, USER_AGENT):
            log.info("sync_robots_disallowed url=%s", url)
            continue
        for link in visit(crawl, url, frontier):
            frontier.add(link, depth + 1)
    return ""


def _recheck_unvisited(crawl: Crawl, robots: Robots) -> str:
    for url in sorted(set(crawl.known) - crawl.visited):
        if limit := crawl.budget.spent():
            return limit
        if robots.allowed(url, USER_AGENT):
            visit(crawl, url, None)
    return ""


def visit(crawl: Crawl, url: str, frontier: Frontier | None) -> list[str]:
    """Fetch one page and settle its document; return its links within the section."""
    crawl.budget.fetched_pages += 1
    crawl.visited.add(url)
    crawl.ledger.at(url, crawl.budget.requests, crawl.budget.fetched_bytes)
    doc = crawl.known.get(url)
    try:
        fetched = crawl.fetcher.get(url, _conditional(doc))
    except IrisRagError as exc:
        _not_fetched(crawl, url, doc, exc)
        return []
    final = _final_url(crawl, url, fetched, frontier)
    if final is None:
        return []
    return _settle(crawl, final, fetched)


def _conditional(doc: Document | None) -> dict[str, str] | None:
    if doc is None or doc.status not in sync_docs.IMPORTED:
        return None
    headers = {"If-None-Match": doc.etag} if doc.etag else {}
    if doc.last_modified:
        headers["If-Modified-Since"] = doc.last_modified
    return headers or None


def _not_fetched(crawl: Crawl, url: str, doc: Document | None, exc: IrisRagError) -> None:
    """A 404/410 of a known page marks it removed; anything else is a failure (nothing removed)."""
    status = getattr(exc, "http_status", None)
    if status in GONE:
        if doc is not None and sync_docs.mark_removed(doc):
            crawl.ledger.count("removed", url)
        return
    log.info("sync_fetch_failed url=%s code=%s detail=%s", url, exc.code, exc.detail)
    crawl.ledger.count("failed", url)


def _final_url(crawl: Crawl, url: str, fetched: Fetched, frontier: Frontier | None) -> str | None:
    """The URL the page is stored under: where a redirect led (None: outside the section, or fetched already)."""
    final = normalise(fetched.final_url) or url
    if final == url:
        return url
    prefix = crawl.source.url_prefix if crawl.source.kind == "site" else crawl.source.start_url
    if final in crawl.visited or not in_section(final, prefix):
        return None
    crawl.visited.add(final)
    if frontier is not None:
        frontier.seen.add(final)
    return final


def _settle(crawl: Crawl, url: str, fetched: Fetched) -> list[str]:
    doc = crawl.known.get(url)
    if fetched.not_modified and doc is not None:
        sync_docs.keep(doc.id)
        crawl.ledger.count("unchanged", url)
        return json.loads(doc.links or "[]")
    links: list[str] = []
    if fetched.kind == "html":
        found = page_links(fetched)
        links = [link for link in found.links if in_section(link, _prefix(crawl.source))]
        canonical = found.canonical
        if canonical and canonical != url and in_section(canonical, _prefix(crawl.source)):
            if canonical in crawl.visited:
                return links  # the same page under another address: fetched once
            crawl.visited.add(canonical)  # not fetched again when a link leads there
            url, doc = canonical, crawl.known.get(canonical)
    try:
        crawl.ledger.count(_take(crawl, url, doc, fetched, links), url)
    except IrisRagError as exc:
        log.info("sync_import_failed url=%s code=%s detail=%s", url, exc.code, exc.detail)
        crawl.ledger.count("failed", url)
    return links


def _prefix(source: Source) -> str:
    return source.url_prefix if source.kind == "site" else source.start_url


def _take(crawl: Crawl, url: str, doc: Document | None, fetched: Fetched, links: list[str]) -> str:
    """Import a new or changed page, or keep an unchanged one; return the outcome."""
    from irisrag.jobs.fetching import staged_form

    staged = staged_form(fetched, url)
    validators = {"etag": fetched.etag or None, "last_modified": fetched.last_modified or None,
                  "links": json.dumps(links)}
    if sync_docs.is_current(doc, hashlib.sha256(staged.content).hexdigest()):
        sync_docs.keep(doc.id, **validators)
        return "unchanged"
    new = doc is None or not doc.sha256
    doc, _created = registration.url(crawl.source.area, url)
    path = stage_bytes(registration.upload_root(), "url", staged.name, staged.content, area_id=doc.area_id)
    Document.update(name=path.name, directory=str(path.parent), kind=staged.kind, title=staged.title,
                    source=crawl.source.id, updated_at=utcnow()).where(Document.id == doc.id).execute()
    sync_docs.import_now(doc.id)
    sync_docs.keep(doc.id, **validators)
    crawl.known[url] = Document.get_by_id(doc.id)
    return "new" if new else "changed"
