"""Source syncs (issue 40): crawl speed on the local website with the politeness delay at 0 and at its default,
and the sync of an unchanged section with conditional requests against the same sync without them.

    .venv/bin/python -m bench.sync_bench [--quick] [--pages 500]

Runs in this process against tests/support/website.py on 127.0.0.1 (a scratch SQLite database,
LanceDB and staging folder in a temporary directory, the fake embedder so the crawl is
measured, not the embedding), with the Redis of IRISRAG_TEST_REDIS_URL (default db 3).
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from bench.common import log, machine, table, write_report

DEFAULT_DELAY = 1.0  # CRAWL_DELAY's default (irisrag/config.py)


def _app(root: Path, delay: float):
    from irisrag import create_app
    from irisrag.extensions import db
    from irisrag.models import Area
    from irisrag.models.schema import upgrade

    app = create_app({"TESTING": True, "SECRET_KEY": "bench", "DATABASE_URL": f"sqlite:///{root}/bench.db",
                      "REDIS_URL": os.environ.get("IRISRAG_TEST_REDIS_URL", "redis://127.0.0.1:6379/3"),
                      "QUEUE_NAME": f"bench-sync-{os.getpid()}", "LANCEDB_URI": str(root / "lancedb"),
                      "UPLOAD_ROOT": str(root / "staging"), "EMBEDDER": "fake", "LLM": "none",
                      "URL_ALLOWLIST": ["127.0.0.1"], "CRAWL_DELAY": delay, "LANCEDB_READ_CONSISTENCY_SECONDS": 0.0})
    with app.app_context(), db.connection_context():
        upgrade()
        Area.get_or_create(name="Bench")
    return app


def _sync(app, site, page_limit: int) -> dict:
    from irisrag.extensions import db
    from irisrag.models import Source
    from irisrag.services.sources import sources
    from irisrag.services.sources.sources import SourceInput
    from irisrag.services.sources.sync import run_sync

    with app.app_context(), db.connection_context():
        source = Source.get_or_none(Source.start_url == site.url("/docs/")) or sources.create_source(
            "Bench", SourceInput("site", site.url("/docs/"), depth=3, page_limit=page_limit))
        before, began = len(site.requests), time.perf_counter()
        run = run_sync(source.id)
        seconds = time.perf_counter() - began
    statuses = [s for _p, s in site.requests[before:]]
    return {"seconds": seconds, "pages": run.total, "requests": len(statuses), "not_modified": statuses.count(304),
            "bytes": run.fetched_bytes, "new": run.new, "unchanged": run.unchanged, "failed": run.failed}


def crawl_speed(pages: int) -> tuple[str, dict]:
    """First sync and an unchanged re-sync of the same section, delay 0 and the default delay."""
    from tests.support.website import Website

    rows, raw = [], {}
    for delay in (0.0, DEFAULT_DELAY):
        with tempfile.TemporaryDirectory() as tmp, Website(pages=pages) as site:
            app = _app(Path(tmp), delay)
            log(f"crawl: {site.expected_pages} pages, delay {delay:g} s")
            first, again = _sync(app, site, 10 * pages), _sync(app, site, 10 * pages)
        raw[str(delay)] = {"first": first, "again": again}
    base = raw["0.0"]
    for delay, runs in raw.items():
        for label in ("first", "again"):
            r = runs[label]
            per_min = r["pages"] / r["seconds"] * 60
            rows.append((f"{float(delay):g} s", "first sync (all new)" if label == "first" else "re-sync (unchanged)",
                         r["pages"], r["requests"], f"{r['seconds']:.1f}", f"{per_min:.0f}",
                         f"{per_min / (base[label]['pages'] / base[label]['seconds'] * 60):.2f}"))
    headers = ("CRAWL_DELAY", "run", "pages", "requests", "seconds", "pages/min", "vs delay 0")
    return table(headers, rows), raw


def unchanged_section(pages: int) -> tuple[str, dict]:
    """Sync of an unchanged section: conditional requests (304) against full downloads and SHA-256 compare."""
    from tests.support.website import Website

    raw = {}
    with tempfile.TemporaryDirectory() as tmp, Website(pages=pages) as site:
        app = _app(Path(tmp), 0.0)
        log(f"unchanged: first sync of {site.expected_pages} pages")
        raw["first"] = _sync(app, site, 10 * pages)
        for conditional in (False, True, False, True):  # interleaved, the load changes by the minute
            site.conditional = conditional
            key = "conditional" if conditional else "full"
            log(f"unchanged: re-sync, {key}")
            raw.setdefault(key, []).append(_sync(app, site, 10 * pages))
    rows = []
    base = min(r["seconds"] for r in raw["full"])
    for key, label in (("full", "without conditional requests (baseline)"), ("conditional", "ETag / 304")):
        best = min(raw[key], key=lambda r: r["seconds"])
        rows.append((label, best["pages"], best["requests"], best["not_modified"], f"{best['bytes'] / 1024:.0f}",
                     f"{best['seconds']:.2f}", f"{best['seconds'] / base:.2f}", best["unchanged"]))
    headers = ("re-sync of an unchanged section", "pages", "requests", "304 answers", "KiB downloaded", "seconds (best of 2)",
               "vs baseline", "unchanged")
    return table(headers, rows), raw


def run(quick: bool, pages: int | None = None) -> str:
    crawl_pages = 40 if quick else 100
    section_pages = pages or (200 if quick else 500)
    crawl_table, crawl_raw = crawl_speed(crawl_pages)
    unchanged_table, unchanged_raw = unchanged_section(section_pages)
    sections = [machine(),
                f"## Crawl speed ({crawl_pages + 3} pages, fake embedder)\n\n{crawl_table}",
                f"## Unchanged section ({section_pages + 3} pages, delay 0)\n\n{unchanged_table}"]
    path = write_report("sync", "Source sync", sections, {"crawl": crawl_raw, "unchanged": unchanged_raw})
    log(f"written {path}")
    return "\n\n".join(sections[1:])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--pages", type=int, default=None, help="pages of the unchanged section (default 500)")
    args = parser.parse_args(argv)
    print(run(args.quick, args.pages))


if __name__ == "__main__":
    main()
