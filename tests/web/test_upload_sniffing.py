"""Content sniffing at the door: a wrong or empty upload is refused in the upload's own response."""
from __future__ import annotations

from io import BytesIO

import pytest

from irisrag.errors import ValidationError
from irisrag.extensions import db
from irisrag.ingest import sniff
from irisrag.models import Area, Document
from irisrag.services.admin import admin as admin_service
from tests.conftest import make_app, post

ELF = b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 200
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


@pytest.mark.parametrize(("name", "kind", "head", "message", "looks"), [
    ("bericht.pdf", "pdf", ELF, sniff.MISMATCH, "Linux program"),
    ("bericht.pdf", "pdf", b"MZ\x90\x00" + b"\x00" * 60, sniff.MISMATCH, "Windows program"),
    ("leer.pdf", "pdf", b"", sniff.EMPTY, "0 bytes"),
    ("leer.md", "text", b"", sniff.EMPTY, "0 bytes"),
    ("brief.docx", "docx", b"%PDF-1.7\n", sniff.MISMATCH, "a PDF"),
    ("geheim.docx", "docx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100, sniff.ENCRYPTED_OFFICE, "OLE2"),
    ("notiz.txt", "text", ELF, sniff.BINARY_TEXT, "Linux program"),
    ("bild.png", "image", b"GIF89a", sniff.MISMATCH, "GIF image"),
])
def test_sniffing_refuses_content_that_does_not_fit(name, kind, head, message, looks):
    with pytest.raises(ValidationError) as caught:
        sniff.check_content(name, kind, head)
    assert caught.value.message == message and looks in caught.value.detail


@pytest.mark.parametrize(("name", "kind", "head"), [
    ("a.pdf", "pdf", b"\n\n%PDF-1.4\n"), ("a.docx", "docx", b"PK\x03\x04rest"), ("a.png", "image", PNG),
    ("a.jpg", "image", b"\xff\xd8\xff\xe0"), ("a.tif", "image", b"II*\x00"),
    ("a.md", "text", "# Überschrift\n".encode()), ("a.txt", "text", "Wort".encode("utf-16")),
    ("a.csv", "csv", b"a;b\n1;2\n"),
])
def test_sniffing_lets_matching_content_through(name, kind, head):
    sniff.check_content(name, kind, head)


def _admin(app):
    from tests.conftest import login

    with app.app_context(), db.connection_context():
        area = admin_service.create_named(Area, "Handbook")
        admin_service.create_user("root", "rootpassword", is_admin=True)
    client = app.test_client()
    assert login(client, "root", "rootpassword", admin=True).status_code == 302
    return client, area


def test_upload_of_an_executable_named_pdf_and_an_empty_file_is_refused_at_once(tmp_path, database_url, redis_url):
    app = make_app(tmp_path, database_url, redis_url, LANGUAGE="de")
    client, area = _admin(app)
    files = [(BytesIO(ELF), "bericht.pdf"), (BytesIO(b""), "leer.md"), (BytesIO(b"%PDF-1.4\n%%EOF"), "echt.pdf")]
    resp = post(client, "/admin/documents/upload", {"area": str(area.id), "files": files})
    html = resp.get_data(as_text=True)
    assert resp.status_code == 200 and "2 Einträge wurden abgelehnt." in html
    assert "Der Inhalt der Datei passt nicht zu ihrer Endung." in html and "Linux program" in html
    assert "Die Datei ist leer." in html
    with app.app_context(), db.connection_context():
        assert [d.name for d in Document.select()] == ["echt.pdf"]  # nothing registered or queued for the two
    staged = app.config["IRISRAG_ROOT"] / app.config["UPLOAD_ROOT"] / "upload"
    assert sorted(p.name for p in staged.rglob("*") if p.is_file()) == ["echt.pdf"]  # and nothing staged


def test_api_upload_of_wrong_content_is_400_with_the_reason(app):
    from tests.services import seed_library
    from tests.web.test_api import _admin_key, headers

    library = seed_library(app)
    data = {"area": "Alpha", "file": (BytesIO(ELF), "bericht.pdf")}
    resp = app.test_client().post("/api/v1/documents", data=data, headers=headers(_admin_key(app, library)),
                                  content_type="multipart/form-data")
    assert resp.status_code == 400
    assert resp.get_json()["error"]["message"] == sniff.MISMATCH
