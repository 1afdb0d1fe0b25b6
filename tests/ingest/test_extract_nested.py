"""A page of deeply nested markup is reported as such, not as "a scanned PDF or an empty file?"."""
from __future__ import annotations

import pytest

from irisrag.errors import ExtractionError
from irisrag.extensions import db
from irisrag.ingest.extract import EMPTY_MESSAGE
from irisrag.ingest.extract_html import TOO_DEEP, extract_html_bytes
from irisrag.models import Area, Document
from irisrag.services.admin import admin as admin_service
from irisrag.services.documents import registration

DEEP = ("<html><body>" + "<div>" * 5000 + "Tief verschachtelter Text über Zeitstempel." + "</div>" * 5000
        + "</body></html>")


def test_deeply_nested_html_bytes_are_reported_as_too_deep():
    with pytest.raises(ExtractionError) as info:
        extract_html_bytes(DEEP.encode())
    assert info.value.message == TOO_DEEP and "256" in info.value.detail


def test_deeply_nested_page_import_fails_naming_the_nesting(app, tmp_path):
    page = tmp_path / "tief.html"
    page.write_text(DEEP)
    from irisrag.jobs.documents import import_document

    with app.app_context(), db.connection_context():
        area = admin_service.create_named(Area, "Handbook")
        doc, _ = registration.register(area, tmp_path, "tief.html", "html")
        with pytest.raises(ExtractionError):
            import_document(doc.id, use_lock=False)
        row = Document.get_by_id(doc.id)
    assert row.status == "failed" and row.error == TOO_DEEP and row.error != EMPTY_MESSAGE


def test_ordinary_nesting_still_extracts():
    html = "<html><body>" + "<div>" * 100 + "Normaler Text über Zeitstempel." + "</div>" * 100 + "</body></html>"
    assert "Normaler Text" in extract_html_bytes(html.encode())
