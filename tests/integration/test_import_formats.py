"""Every new document type imports through a real Redis and a real RQ worker: upload, path and URL."""
from __future__ import annotations

import pytest

from irisrag.extensions import db
from irisrag.models import Area
from irisrag.services.admin import admin as admin_service
from irisrag.services.asking import asking
from irisrag.services.documents import documents
from tests.conftest import make_app
from tests.ingest.office_samples import WRITERS
from tests.ingest.scans import write_scan_pdf, write_scan_png
from tests.integration.test_import_jobs import store_rows, wait_final
from tests.integration.test_worker import start_worker, stop_worker
from tests.support.http_stub import HttpStub, Reply

pytestmark = pytest.mark.integration
SCANNED = ("Die Zeitzone des Systems wird mit timedatectl eingestellt.\n"
           "Der Dienst systemd-timesyncd gleicht die Uhr ab.")
EXPECTED = {
    "docx": "# Paketverwaltung", "pptx": "dpkg und apt arbeiten zusammen", "xlsx": "# Pakete\nNr: 1\nName: ",
    "odt": "# Systemverwaltung", "ods": "# Pakete\nNr: 1\nName: ", "odp": "Folie zwei über Drucker",
    "epub": "Dann kam der Kernel.",
}
DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def test_every_new_type_imports_through_the_worker(tmp_path, database_url, redis_url, tesseract):
    app = make_app(tmp_path, database_url, redis_url, URL_ALLOWLIST=["127.0.0.1"])
    files = tmp_path / "files"
    files.mkdir()
    samples = {kind: write(files / f"probe.{kind}") for kind, write in WRITERS.items()}
    samples["png"] = write_scan_png(files / "scan.png", SCANNED)
    samples["scan-pdf"] = write_scan_pdf(files / "scan.pdf", [SCANNED])
    with HttpStub() as server, app.app_context(), db.connection_context():
        area = admin_service.create_named(Area, "Handbook")
        admin_service.create_named(Area, "Archive")  # the same docx by URL: an area holds one copy of a content
        server.add("GET", "/files/bericht", Reply(200, body=samples["docx"].read_bytes(), content_type=DOCX_TYPE))
        docs = {kind: documents.import_upload("Handbook", path.name, path.read_bytes()) for kind, path in samples.items()}
        docs["url-docx"] = documents.import_url("Archive", f"{server.url}/files/bericht")
        worker = start_worker(app, tmp_path)
        try:
            done = {kind: wait_final(app, doc.id, 240) for kind, doc in docs.items()}
        finally:
            stop_worker(worker)
        for kind, doc in done.items():
            assert doc.status == "done", (kind, doc.error, doc.error_detail)
        for kind, needle in EXPECTED.items():
            assert any(needle in row.text for row in store_rows(app, done[kind].id)), kind
        slides = store_rows(app, done["pptx"].id)
        assert slides[0].page == 1 and "Sprechernotiz zwei" in slides[-1].text  # slide numbers as pages
        sheet = store_rows(app, done["xlsx"].id)
        assert all(row.text.startswith("# Pakete\nNr: ") for row in sheet if row.page == 1)  # rows as records
        url_doc = done["url-docx"]
        assert url_doc.kind == "docx" and url_doc.name.startswith("bericht_") and url_doc.name.endswith(".docx")
        assert any("# Paketverwaltung" in row.text for row in store_rows(app, url_doc.id))
        scanned = [row for row in store_rows(app, done["scan-pdf"].id)]
        assert scanned and scanned[0].page == 1 and "timedatectl" in scanned[0].text
        context = asking.context_for("Wie wird die Zeitzone mit timedatectl eingestellt?", [area.id])
        found = {chunk.hit.document_id for chunk in context.chunks}
        assert done["scan-pdf"].id in found and done["png"].id in found  # the scanned pages answer the question


def test_folder_import_takes_office_files_and_skips_unknown_ones(tmp_path):
    from irisrag.services.documents.imports import folder_files

    folder = tmp_path / "akten"
    folder.mkdir()
    WRITERS["odt"](folder / "notiz.odt")
    WRITERS["xlsx"](folder / "liste.xlsx")
    write_scan_png(folder / "scan.PNG")
    (folder / "alt.doc").write_bytes(b"\xd0\xcf\x11\xe0")
    found, skipped = folder_files(folder)
    assert sorted(p.name for p in found) == ["liste.xlsx", "notiz.odt", "scan.PNG"]
    assert [p.name for p in skipped] == ["alt.doc"]


def test_url_import_shows_the_page_title_and_keeps_the_staged_name(tmp_path, database_url, redis_url):
    app = make_app(tmp_path, database_url, redis_url, URL_ALLOWLIST=["127.0.0.1"])
    page = ("<html><head><title>Debian &lt;Referenz&gt; – Paketverwaltung</title></head><body><h1>Kapitel</h1>"
            + "<p>APT löst Abhängigkeiten auf und holt Pakete aus dem Archiv. </p>" * 20 + "</body></html>")
    with HttpStub() as server, app.app_context(), db.connection_context():
        server.add("GET", "/doc/Page.html", Reply(200, body=page.encode(), content_type="text/html; charset=utf-8"))
        admin_service.create_named(Area, "Web")
        admin_service.create_user("root", "rootpassword", is_admin=True)
        doc = documents.import_url("Web", f"{server.url}/doc/Page.html")
        worker = start_worker(app, tmp_path)
        try:
            doc = wait_final(app, doc.id)
        finally:
            stop_worker(worker)
    assert doc.status == "done", doc.error_detail
    assert doc.title == "Debian <Referenz> – Paketverwaltung" and doc.display_name == doc.title
    assert doc.name.startswith("Page_") and doc.name.endswith(".md")  # the staged file keeps its naming rule
    from tests.conftest import login

    client = app.test_client()
    assert login(client, "root", "rootpassword", admin=True).status_code == 302
    row = client.get(f"/admin/documents/{doc.id}/row", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "Debian &lt;Referenz&gt; – Paketverwaltung" in row and doc.name in row  # escaped, with the file name
