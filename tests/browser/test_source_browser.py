"""A website section added, synced twice and followed live on its source page in a real browser, by a real worker."""
import pytest
from rq import Queue

from irisrag import components
from irisrag.extensions import db
from irisrag.models import Area
from irisrag.services.admin import admin as admin_service
from tests.browser.test_admin_flow import login
from tests.conftest import make_app
from tests.integration.test_worker import start_worker, stop_worker
from tests.support.website import Website

pytestmark = pytest.mark.browser


@pytest.fixture
def app(tmp_path, database_url, redis_url):
    """The live server's app: it may reach the local website on 127.0.0.1."""
    return make_app(tmp_path, database_url, redis_url, URL_ALLOWLIST=["127.0.0.1"], CRAWL_DELAY=0.0)


def cell(page, run: int, name: str) -> int:
    return int(page.inner_text(f"#run-{run} td.{name}"))


def test_an_admin_adds_a_section_and_watches_two_syncs_on_its_page(page, live_server, app, tmp_path):
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, "Handbuch")
        admin_service.create_user("root", "rootpassword", is_admin=True)
    with Website(pages=40) as site:
        worker = start_worker(app, tmp_path, IRISRAG_CRAWL_DELAY="0")
        try:
            login(page, live_server, "/admin/login", "root", "rootpassword")
            page.wait_for_url(live_server + "/admin")
            page.click("#tab-sources")
            page.wait_for_selector("#source-form")
            page.select_option("#source-form select[name=kind]", "site")
            page.fill("#source-form input[name=start_url]", site.url("/docs/"))
            page.click("#source-form button[type=submit]")
            page.wait_for_selector("#message:has-text('Source saved.')")
            assert page.query_selector("#no-runs") is not None

            page.click("#sync-now")
            page.wait_for_selector("#message:has-text('Sync queued.')")
            page.wait_for_selector("#run-1[data-state=done]", timeout=120000)  # the runs follow the sync live
            assert cell(page, 1, "new") == site.expected_pages and cell(page, 1, "failed") == 1
            page.reload()  # the documents list is the page's, read again
            assert len(page.query_selector_all("#source-documents tbody tr")) == site.expected_pages

            site.change("page-5", "Abschnitt 5 wurde überarbeitet.")
            site.remove("page-7")
            page.click("#sync-now")
            page.wait_for_selector("#run-2[data-state=done]", timeout=120000)
            assert (cell(page, 2, "new"), cell(page, 2, "changed"), cell(page, 2, "removed")) == (0, 1, 1)
            assert cell(page, 2, "unchanged") == site.expected_pages - 2
            page.reload()
            removed = page.query_selector_all("#source-documents .badge.removed")
            assert len(removed) == 1 and "page-7" in removed[0].evaluate("e => e.closest('tr').innerText")
            assert not [e for e in page.console_errors if "Content Security Policy" in e]
        finally:
            stop_worker(worker)
            with app.app_context():
                Queue(app.config["QUEUE_NAME"], connection=components.get().redis).empty()
