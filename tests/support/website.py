"""A generated website on 127.0.0.1 for source syncs (issue 40): pages with links, a sitemap, robots.txt,
a redirect, a canonical link, links out of the section and to private addresses, ETag and Last-Modified.

    with Website(pages=40) as site:
        site.url("/docs/")             # the section's start page
        site.change("page-5", "...")   # a page that changes between two syncs
        site.remove("page-7")          # one that disappears (404)
        site.requests                  # every request: (path with query, status)

Every page answers conditional requests (If-None-Match, If-Modified-Since) with 304 when it
is unchanged. ``delay`` slows every answer (a sync to kill mid-way).
"""
from __future__ import annotations

import hashlib
import threading
import time
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

PRIVATE_LINKS = ("http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/admin")
# What a first sync of /docs/ finds: the index, the numbered pages, the redirect's target, the sitemap's orphan.
EXTRA_PAGES = ("new", "orphan")


class Website:
    """The site's pages (name -> body text) under /docs/, served by a threaded http.server."""

    def __init__(self, pages: int = 40, delay: float = 0.0) -> None:
        self.count, self.delay = pages, delay
        self.texts = {f"page-{i}": _text(i) for i in range(1, pages + 1)}
        self.texts.update({"new": "Die neue Seite ersetzt die alte Adresse.",
                           "orphan": "Diese Seite steht nur in der Sitemap und wird nirgends verlinkt."})
        self.modified = {name: time.time() - 86400 for name in self.texts}
        self.requests: list[tuple[str, int]] = []
        self.spans: list[tuple[float, float]] = []  # each request's (arrival, answer sent), monotonic
        self.broken: set[str] = set()  # pages answering 500 (a server error is no removal)
        self.conditional = True  # False: ignore If-None-Match (a server without conditional requests)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> Website:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return self.origin + path

    @property
    def expected_pages(self) -> int:
        """Documents a first sync of /docs/ makes: the index, the numbered pages, the redirect's target, the orphan."""
        return 1 + self.count + len(EXTRA_PAGES)

    def change(self, name: str, text: str) -> None:
        with self._lock:
            self.texts[name], self.modified[name] = text, time.time()

    def remove(self, name: str) -> None:
        with self._lock:
            self.texts.pop(name, None)

    def paths(self, status: int | None = None) -> list[str]:
        with self._lock:
            return [p for p, s in self.requests if status is None or s == status]

    # --- the pages ------------------------------------------------------------------

    def index(self) -> str:
        links = [f'<a href="page-{i}.html">Seite {i}</a>' for i in range(1, self.count + 1)]
        links += ['<a href="old.html">Alte Adresse</a>', '<a href="go-internal.html">Intern</a>',
                  '<a href="private/secret.html">Geheim</a>', '<a href="../outside/page.html">Draußen</a>',
                  '<a href="page-3.html?ref=nav">Seite 3 nochmal</a>', '<a href="page-1.html#top">Oben</a>',
                  '<a href="bild.png">Bild</a>', '<a href="mailto:web@example.org">Post</a>']
        links += [f'<a href="{u}">privat</a>' for u in PRIVATE_LINKS]
        return _page("Handbuch", "Das Handbuch der Abteilung, Übersicht aller Seiten.", links, "/docs/")

    def page(self, name: str) -> str | None:
        with self._lock:
            text = self.texts.get(name)
        if text is None:
            return None
        links = ['<a href="./">Übersicht</a>']
        if name.startswith("page-"):
            number = int(name.split("-")[1])
            links += [f'<a href="page-{n}.html">Seite {n}</a>' for n in (number - 1, number + 1)
                      if 1 <= n <= self.count]
        return _page(name, text, links, f"/docs/{name}.html")

    def sitemap(self) -> str:
        locs = [self.url("/docs/"), self.url("/docs/orphan.html"), self.url("/docs/page-2.html"),
                self.url("/outside/page.html")]
        body = "".join(f"<url><loc>{u}</loc></url>" for u in locs)
        return f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{body}</urlset>'

    def robots(self) -> str:
        return f"User-agent: *\nDisallow: /docs/private/\n\nSitemap: {self.url('/sitemap.xml')}\n"

    def _handler(self):
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                began = time.monotonic()
                if site.delay:
                    time.sleep(site.delay)
                status = site._answer(self)
                with site._lock:
                    site.requests.append((self.path, status))
                    site.spans.append((began, time.monotonic()))

            def log_message(self, *args) -> None:
                pass

        return Handler

    def _answer(self, handler: BaseHTTPRequestHandler) -> int:
        path = urlsplit(handler.path).path
        if path == "/robots.txt":
            return _send(handler, 200, self.robots(), "text/plain")
        if path == "/sitemap.xml":
            return _send(handler, 200, self.sitemap(), "application/xml")
        if path == "/docs/old.html":
            return _redirect(handler, 301, "/docs/new.html")
        if path == "/docs/go-internal.html":
            return _redirect(handler, 302, "http://10.0.0.1/admin")
        if path in ("/docs/", "/docs/index.html"):
            return _conditional(handler, self.index(), None, self.conditional)
        if path.startswith("/docs/") and path.endswith(".html"):
            name = path[len("/docs/"):-len(".html")]
            if name in self.broken:
                return _send(handler, 500, "<h1>Fehler</h1>", "text/html")
            body = self.page(name)
            if body is not None:
                return _conditional(handler, body, self.modified.get(name), self.conditional)
        return _send(handler, 404, "<h1>Nicht gefunden</h1>", "text/html")


def _text(number: int) -> str:
    return (f"Abschnitt {number} des Handbuchs beschreibt Vorgang {number}: wer ihn beantragt, wer ihn prüft "
            f"und wie lange die Bearbeitung dauert. Kennziffer HB-{number:03d}.")


def _page(title: str, text: str, links: list[str], canonical: str) -> str:
    return (f'<!doctype html><html lang="de"><head><meta charset="utf-8"><title>{title}</title>'
            f'<link rel="canonical" href="{canonical}"></head><body><main><h1>{title}</h1><p>{text}</p>'
            f'<nav>{" ".join(links)}</nav></main></body></html>')


def _conditional(handler: BaseHTTPRequestHandler, body: str, modified: float | None, honoured: bool = True) -> int:
    data = body.encode()
    etag = '"' + hashlib.sha256(data).hexdigest()[:16] + '"'
    if honoured and handler.headers.get("If-None-Match") == etag:
        handler.send_response(304)
        handler.send_header("ETag", etag)
        handler.end_headers()
        return 304
    headers = {"ETag": etag}
    if modified is not None:
        headers["Last-Modified"] = formatdate(modified, usegmt=True)
    return _send(handler, 200, body, "text/html; charset=utf-8", headers)


def _send(handler: BaseHTTPRequestHandler, status: int, body: str, content_type: str,
          headers: dict[str, str] | None = None) -> int:
    data = body.encode()
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(data)))
    for key, value in (headers or {}).items():
        handler.send_header(key, value)
    handler.end_headers()
    handler.wfile.write(data)
    return status


def _redirect(handler: BaseHTTPRequestHandler, status: int, location: str) -> int:
    handler.send_response(status)
    handler.send_header("Location", location)
    handler.send_header("Content-Length", "0")
    handler.end_headers()
    return status
