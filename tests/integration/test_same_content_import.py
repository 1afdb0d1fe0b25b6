"""Importing content an area already holds names the document that holds it: by upload, URL and path (issue 37 item 8).

Through a real Redis and a real RQ worker, an HTTP server on 127.0.0.1 and the source volume.
"""
from __future__ import annotations

import pytest
from flask_babel import force_locale, gettext

from irisrag import components
from irisrag.extensions import db
from irisrag.i18n import english_stored, render_stored
from irisrag.models import Area, Document
from irisrag.services.admin import admin as admin_service
from irisrag.services.documents import documents
from tests.conftest import make_app
from tests.integration.test_worker import start_worker, stop_worker
from tests.support.http_stub import HttpStub, Reply
from tests.support.imports import wait_final

pytestmark = pytest.mark.integration
TEXT = "# Urlaub\n\nJede Mitarbeiterin hat 30 Tage Urlaub im Jahr. Anträge gehen an die Personalabteilung.\n"


def test_the_same_content_by_upload_url_and_path_names_the_document_holding_it(tmp_path, database_url, redis_url):
    volume = tmp_path / "volume"
    volume.mkdir()
    (volume / "urlaub-kopie.md").write_text(TEXT)
    app = make_app(tmp_path, database_url, redis_url, URL_ALLOWLIST=["127.0.0.1"], SRC_VOLUME_PATH=str(volume))
    with HttpStub() as server, app.app_context(), db.connection_context():
        server.add("GET", "/urlaub.md", Reply(200, body=TEXT.encode(), content_type="text/markdown; charset=utf-8"))
        admin_service.create_named(Area, "Handbuch")
        admin_service.create_named(Area, "Archiv")
        worker = start_worker(app, tmp_path)
        try:
            first = wait_final(app, documents.import_upload("Handbuch", "urlaub.md", TEXT.encode()).id)
            again = {"upload": documents.import_upload("Handbuch", "urlaub-neu.md", TEXT.encode()),
                     "url": documents.import_url("Handbuch", f"{server.url}/urlaub.md"),
                     "path": documents.import_path("Handbuch", "urlaub-kopie.md")}
            elsewhere = documents.import_upload("Archiv", "urlaub.md", TEXT.encode())
            done = {how: wait_final(app, doc.id, 120) for how, doc in again.items()}
            other_area = wait_final(app, elsewhere.id, 120)
        finally:
            stop_worker(worker)
        assert first.status == "done" and other_area.status == "done"  # another area may hold its own copy
        for how, doc in done.items():
            assert doc.status == "failed", (how, doc.status, doc.error_detail)
            assert english_stored(doc.error) == ("This content is already in this area as “urlaub.md”; "
                                                 "it was not imported again."), how
            assert components.get().store.chunks_of(doc.id) == [], how  # nothing stored twice
        with app.test_request_context("/"), force_locale("de"):
            german = render_stored(done["url"].error, gettext)
        assert "„urlaub.md“" in german and "bereits" in german
        assert Document.get_by_id(first.id).status == "done" and components.get().store.chunks_of(first.id)
