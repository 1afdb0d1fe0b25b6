"""One sync run of a source (issue 40 item 2): the run recorded, the page or folder synced, expired removals deleted.

Called by the RQ task (``jobs/sync.py``, which holds the source's lock) and by the CLI's
``--here``. A run that raises is recorded as failed and the error passed on.
"""
from __future__ import annotations

import logging

from irisrag import components
from irisrag.ingest.crawl import Budget, PoliteFetcher
from irisrag.models import Source, SyncRun
from irisrag.services.sources import documents as sync_docs
from irisrag.services.sources.folder_sync import sync_folder
from irisrag.services.sources.ledger import Ledger, finish_run, start_run
from irisrag.services.sources.site_sync import Crawl, known_pages, sync_pages
from irisrag.services.sources.sources import get_source

log = logging.getLogger(__name__)
MAX_RUN_BYTES = 1024 * 1024 * 1024  # bytes one run downloads at most
MAX_RUN_SECONDS = 1800.0            # seconds one run crawls at most (below JOB_TIMEOUT's default hour)


def run_sync(source_id: int, job_id: str = "") -> SyncRun:
    """Sync a source once and return its finished run (its counts, requests, duration)."""
    source = get_source(source_id)
    run = start_run(source.id, job_id)
    Source.update(last_run_at=run.started_at).where(Source.id == source.id).execute()
    ledger = Ledger(run.id)
    log.info("sync_start source=%s run=%s kind=%s", source.id, run.id, source.kind)
    try:
        limit = sync_folder(source, ledger) if source.kind == "folder" else _sync_web(source, ledger)
        deleted = sync_docs.delete_expired(source.id, components.get().config["SYNC_REMOVED_GRACE"])
        SyncRun.update(deleted=deleted).where(SyncRun.id == run.id).execute()
    except BaseException as exc:
        finish_run(run.id, "failed", getattr(exc, "stored", None) or f"{type(exc).__name__}: {exc}")
        log.warning("sync_failed source=%s run=%s error=%s", source.id, run.id, exc)
        raise
    done = finish_run(run.id, "done", f"limit:{limit}" if limit else "")
    log.info("sync_done source=%s run=%s new=%d changed=%d unchanged=%d removed=%d failed=%d requests=%d ms=%d",
             source.id, run.id, done.new, done.changed, done.unchanged, done.removed, done.failed, done.requests,
             done.duration_ms)
    return done


def _sync_web(source: Source, ledger: Ledger) -> str:
    config = components.get().config
    pages = source.page_limit if source.kind == "site" else 2
    budget = Budget(pages=pages, bytes=MAX_RUN_BYTES, seconds=min(MAX_RUN_SECONDS, config["JOB_TIMEOUT"] * 0.8))
    fetcher = PoliteFetcher(budget, config["CRAWL_DELAY"], allowlist=config["URL_ALLOWLIST"],
                            timeout=config["URL_TIMEOUT"], max_bytes=config["MAX_UPLOAD_BYTES"],
                            total_timeout=config["URL_TOTAL_TIMEOUT"])
    crawl = Crawl(source, ledger, fetcher, known_pages(source.id))
    try:
        return sync_pages(crawl)
    finally:
        ledger.at("", budget.requests, budget.fetched_bytes)
