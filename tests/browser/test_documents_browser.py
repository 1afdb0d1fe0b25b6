"""150 imports in a German browser (issue 19): drop zone, one backing-off poll, overall bar, pages, bulk move.

Polling requests are counted in Chromium while a real worker imports the 150 dropped files;
the rate is printed (``-s``) and must stay at or under 30 a minute for the tab. Screenshots go
to $IRISRAG_SHOTS when set.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from rq import Queue

from irisrag import components
from irisrag.extensions import db
from irisrag.models import Area, Document
from irisrag.services.admin import admin as admin_service
from tests.browser.test_admin_flow import login
from tests.integration.test_worker import start_worker, stop_worker

pytestmark = pytest.mark.browser
COUNT = 150
DROP = """([count]) => {
  const dt = new DataTransfer();
  for (let i = 0; i < count; i++) {
    const n = String(i).padStart(3, "0");
    dt.items.add(new File([`# Kapitel ${n}\\n\\nDieses Kapitel beschreibt Thema ${n} der Anleitung.\\n`],
                          `kapitel-${n}.md`, {type: "text/markdown"}));
  }
  return dt;
}"""


def _shot(page, name: str) -> None:
    folder = os.environ.get("IRISRAG_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


@pytest.fixture
def german(browser):
    context = browser.new_context(locale="de-DE", viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(20000)
    page.on("dialog", lambda dialog: dialog.accept())
    yield page
    context.close()


def _polls(page) -> list[tuple[float, str]]:
    seen: list[tuple[float, str]] = []
    page.on("request", lambda r: seen.append((time.monotonic(), r.url))
            if "/admin/documents/progress" in r.url or r.url.endswith("/row") else None)
    return seen


def test_browser_150_imports_poll_once_per_tab_and_move_in_bulk(german, live_server, app, make_user, tmp_path):
    page = german
    make_user("root", "rootpassword", admin=True)
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, "Handbuch")
        archive = admin_service.create_named(Area, "Archiv")
    login(page, live_server, "/admin/login", "root", "rootpassword")
    page.wait_for_url(live_server + "/admin")
    page.goto(live_server + "/admin?tab=documents")
    page.select_option("#upload-area", label="Handbuch")
    page.dispatch_event("#upload-drop", "drop", {"dataTransfer": page.evaluate_handle(DROP, [COUNT])})
    assert page.inner_text("#upload-drop .drop-count") == f"{COUNT} Dateien ausgewählt"
    polls = _polls(page)
    page.click("#upload-form button[type=submit]")
    page.wait_for_selector(f"#message:has-text('{COUNT} Importe')")
    assert page.query_selector("#import-outcomes") is None  # nothing refused, nothing listed per file
    assert page.locator("tr.doc-row").count() == 50 and page.get_attribute("#import-progress progress", "max") == "150"
    _shot(page, "01-150-queued")

    worker = start_worker(app, tmp_path)
    started = time.monotonic()
    try:
        page.wait_for_selector("#import-progress:not([hx-get])", state="attached", timeout=240000)
        minutes = (time.monotonic() - started) / 60
    finally:
        stop_worker(worker)
        with app.app_context():
            Queue(app.config["QUEUE_NAME"], connection=components.get().redis).empty()
    during = [url for at, url in polls if at >= started]
    rate = len(during) / minutes
    print(f"\npolling: {len(during)} requests in {minutes * 60:.0f} s for {COUNT} imports = {rate:.1f}/min (one tab)")
    assert not [url for _, url in polls if url.endswith("/row")]  # no per-row polls
    assert rate <= 30, during
    with app.app_context(), db.connection_context():
        assert Document.select().where(Document.status == "done").count() == COUNT, \
            (tmp_path / "worker.log").read_text()[-3000:]
    assert page.locator("tr.doc-row[data-status=done]").count() == 50  # the page's rows, refreshed by the poll
    _shot(page, "02-150-done")

    page.click("#pick-all")
    page.select_option("#bulk-action", "move")
    page.select_option("#bulk-target", str(archive.id))
    page.click("#bulk-form button[type=submit]")
    page.wait_for_selector("#bulk-message:has-text('50 Dokumente verschoben.')")  # next to the bulk bar
    with app.app_context(), db.connection_context():
        assert Document.select().where(Document.area == archive.id).count() == 50
    page.fill("#filter-q", "kapitel-12")
    page.click("#doc-filter button[type=submit]")
    page.wait_for_selector("#doc-count:has-text('von 10')")
    _shot(page, "03-moved-and-searched")
    page.goto(live_server + "/admin?tab=documents&page=2")
    page.wait_for_selector("nav.pager span[aria-current=page]:has-text('2')")
    _shot(page, "04-page-2")

    page.click("#tab-areas")
    page.click(f"#area-{archive.id} details.delete-with-documents summary")
    page.fill(f"#purge-{archive.id}", "archiv")  # not the name: refused next to the row
    page.click(f"#area-{archive.id} details.delete-with-documents button")
    page.wait_for_selector(f"#area-{archive.id} .field-error:has-text('Archiv')")
    _shot(page, "05-area-delete-typed-name")
    page.click(f"#area-{archive.id} details.delete-with-documents summary")
    page.fill(f"#purge-{archive.id}", "Archiv")
    page.click(f"#area-{archive.id} details.delete-with-documents button")
    page.wait_for_selector("#message:has-text('Bereich mit seinen Dokumenten gelöscht.')")
    with app.app_context(), db.connection_context():
        assert Document.select().count() == COUNT - 50 and Area.get_or_none(Area.id == archive.id) is None
