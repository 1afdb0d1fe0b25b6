"""An upload in a real browser, imported by a real worker process, watched live in the documents tab."""
from pathlib import Path

import pytest
from rq import Queue

from irisrag import components
from irisrag.extensions import db
from irisrag.models import Area
from irisrag.services.admin import admin as admin_service
from tests.browser.test_admin_flow import login
from tests.integration.test_worker import start_worker, stop_worker

pytestmark = pytest.mark.browser
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def test_browser_upload_is_imported_live_and_can_be_deleted(page, live_server, app, make_user, tmp_path):
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    make_user("root", "rootpassword", admin=True)
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, "Handbook")
    worker = start_worker(app, tmp_path)
    try:
        login(page, live_server, "/admin/login", "root", "rootpassword")
        page.wait_for_url(live_server + "/admin")
        page.click("#tab-documents")
        page.wait_for_selector("#upload-form")
        assert page.url.endswith("/admin?tab=documents")
        page.wait_for_selector("#coverage-summary")  # the coverage overview loads after the tab

        page.select_option("#upload-area", label="Handbook")
        page.set_input_files("#upload-files", str(FIXTURES / "excerpt-de.md"))
        page.click("#upload-form button[type=submit]")
        page.wait_for_selector("#message:has-text('1 import queued.')")
        assert page.query_selector("#import-outcomes") is None  # queued files: only in the table

        try:
            done = page.wait_for_selector("tr.doc-row[data-status=done]:has-text('excerpt-de.md')", timeout=30000)
        except PlaywrightTimeout:
            rows = page.inner_html("#document-rows")
            raise AssertionError(f"{rows}\n--- worker.log ---\n{(tmp_path / 'worker.log').read_text()}") from None
        assert int(done.query_selector("td.chunks").inner_text()) > 0, (tmp_path / "worker.log").read_text()
        assert done.get_attribute("hx-trigger") is None  # a finished row stops polling
        assert done.query_selector("code").inner_text().strip() not in ("", "–")  # short hash

        done.query_selector("button.danger").click()  # hx-confirm is accepted by the page fixture
        page.wait_for_selector("#message:has-text('deleted with its chunks')")
        assert page.query_selector("tr.doc-row") is None
        assert not [e for e in page.console_errors if "Content Security Policy" in e]
    finally:
        stop_worker(worker)
        with app.app_context():
            Queue(app.config["QUEUE_NAME"], connection=components.get().redis).empty()
