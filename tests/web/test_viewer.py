"""The document viewer: every route answers 404 to users without the area (also after unlinking)."""
from __future__ import annotations

import shutil
from pathlib import Path

import lxml.html
import pytest

from irisrag import components
from irisrag.extensions import db
from irisrag.models import Document
from irisrag.services.admin import admin as admin_service
from irisrag.services.admin import api_keys
from irisrag.vectors.store import ChunkIn
from tests.services import seed_library
from tests.web.test_dashboard import logged_in

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
TEXTS = ["# Betrieb\n\nOpenTelemetry wird über die Datei otel.yaml konfiguriert. Der Collector läuft lokal.",
         "Der Collector läuft lokal. <script>alert(1)</script> Port 4317 ist offen."]


def staged(app, tmp_path: Path, area: int, name: str, texts: list[str], *, kind: str, source: Path | None = None,
           pages: list[int | None] | None = None, **fields) -> int:
    """Create a document with a staged file and its chunks, as an import would."""
    folder = tmp_path / "staging" / "upload"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    if source is not None:
        shutil.copy(source, path)
    else:
        path.write_text("\n\n".join(texts), encoding="utf-8")
    with app.app_context(), db.connection_context():
        doc = Document.create(area=area, name=name, directory=str(folder), kind=kind, status="done",
                              chunk_count=len(texts), **fields)
        comps = components.get()
        chunks = [ChunkIn(i, t, (pages or [None] * len(texts))[i]) for i, t in enumerate(texts)]
        comps.store.replace_document(doc.id, area, chunks, comps.embedder.embed_documents(texts))
        return doc.id


@pytest.fixture
def docs(app, tmp_path):
    library = seed_library(app)
    md = staged(app, tmp_path, library.alpha, "betrieb.md", TEXTS, kind="md",
                source_url="https://docs.example.org/betrieb")
    pdf = staged(app, tmp_path, library.alpha, 'Bericht "Ä" 2024.pdf', ["Seite eins", "Seite zwei Text"],
                 kind="pdf", source=FIXTURES / "debian-reference-de-3pages.pdf", pages=[1, 2])
    return library, md, pdf


def routes(md: int, pdf: int) -> list[str]:
    return [f"/documents/{md}", f"/documents/{md}?chunk=1", f"/documents/{md}/file",
            f"/documents/{pdf}", f"/documents/{pdf}?chunk=1", f"/documents/{pdf}/file"]


def test_viewer_shows_text_with_the_cited_chunk_highlighted_and_escaped(app, docs, tmp_path):
    library, md, _ = docs
    txt = staged(app, tmp_path, library.alpha, "betrieb.txt", TEXTS, kind="text")  # not Markdown: as it is
    page = logged_in(app).get(f"/documents/{txt}?chunk=1").get_data(as_text=True)
    assert '<mark class="chunk cited" id="chunk-1" tabindex="-1">' in page and 'href="#chunk-1"' in page
    assert "# Betrieb" in page  # plain text stays as it is
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>alert" not in page
    resp = logged_in(app).get(f"/documents/{md}?chunk=1")
    page = resp.get_data(as_text=True)
    assert resp.status_code == 200 and "no-store" in resp.headers["Cache-Control"]
    assert '<div class="chunk cited" id="chunk-1" tabindex="-1">' in page and 'href="#chunk-1"' in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>alert" not in page
    assert page.count("Der Collector läuft lokal.") == 1  # the overlap is shown once
    assert 'href="https://docs.example.org/betrieb"' in page
    assert "script-src 'self'" in resp.headers["Content-Security-Policy"]


def test_viewer_shows_a_table_header_the_chunker_repeated_only_once(app, docs, tmp_path):
    # A chunk that begins inside a table carries the table's header (ingest/chunk.py); the viewer shows the
    # document as it is, the header once and each row once.
    from irisrag.ingest.chunk import chunk_text

    header = "| Ort | Parken |\n|---|---|"
    rows = [f"| Außenstelle {n} | Parkplatz am See, {n},50 € pro Stunde |" for n in range(20)]
    texts = [c.text for c in chunk_text("Kursorte\n\n" + header + "\n" + "\n".join(rows), 200, 60)]
    assert sum(t.startswith(header) for t in texts) > 2
    txt = staged(app, tmp_path, docs[0].alpha, "kursorte.txt", texts, kind="text")
    page = logged_in(app).get(f"/documents/{txt}").get_data(as_text=True)
    assert page.count("| Ort | Parken |") == 1
    assert all(page.count(row) == 1 for row in rows)


def test_viewer_renders_markdown_without_raw_html_or_unsafe_links(app, docs, tmp_path):
    library, _, _ = docs
    texts = ["# Betrieb\n\nDer **Collector** liest `otel.yaml`, siehe [Handbuch](https://docs.example.org/h) "
             "und [Start](/admin).",
             "Gefahr: [klick](javascript:alert(1)) [daten](data:text/html,x) <img src=x onerror=alert(1)> "
             "<script>alert(2)</script> <a href=\"javascript:alert(3)\">a</a> ![bild](http://evil.example/p.png)"]
    md = staged(app, tmp_path, library.alpha, "sicher.md", texts, kind="text")  # as an import records it
    page = logged_in(app).get(f"/documents/{md}?chunk=1").get_data(as_text=True)
    viewer = page.split('id="viewer"', 1)[1]
    assert "<h1>Betrieb</h1>" in viewer and "<strong>Collector</strong>" in viewer and "<code>otel.yaml</code>" in viewer
    assert '<a href="https://docs.example.org/h" rel="noopener noreferrer nofollow">Handbuch</a>' in viewer
    assert '<a href="/admin" rel="noopener noreferrer nofollow">Start</a>' in viewer
    assert "[klick](javascript:alert(1))" in viewer and "[daten](data:text/html,x)" in viewer  # text, not links
    assert "&lt;a href=" in viewer and "&lt;script&gt;alert(2)" in viewer  # raw HTML shown as text
    hrefs = lxml.html.fromstring(page).xpath('//*[@id="viewer"]//@href | //*[@id="viewer"]//@src')
    assert hrefs and all(h.startswith(("https://", "http://", "/", "#")) for h in hrefs), hrefs
    assert "<script>" not in viewer and "<img" not in viewer and "onerror=alert(1)&gt;" in viewer
    assert "evil.example/p.png" not in viewer.replace('href="http://evil.example/p.png"', "")  # never loaded


def test_viewer_shows_an_html_document_as_extracted_without_its_navigation(app, docs, tmp_path):
    from irisrag.jobs.documents import import_document
    from irisrag.services.documents import documents as document_service
    html = ("<html><body><nav><ul><li><a href='/'>Startseite</a></li><li>Kontaktformular</li></ul></nav>"
            "<main><h1>Betrieb</h1><p>Der Collector für OpenTelemetry wird über die Datei otel.yaml konfiguriert. "
            "Der Empfänger lauscht auf Port 4317 und nimmt Daten an.</p><p>Nach jeder Änderung wird der "
            "Collector neu gestartet und die <b>Konfiguration</b> geprüft.</p></main>"
            "<footer>Impressum Datenschutz</footer></body></html>").encode()
    with app.app_context(), db.connection_context():
        doc = document_service.import_upload("Alpha", "betrieb.html", html)
        assert import_document(doc.id)["status"] == "done"
    page = logged_in(app).get(f"/documents/{doc.id}?chunk=0").get_data(as_text=True)
    viewer = page.split('id="viewer"', 1)[1]
    assert "<h1>Betrieb</h1>" in viewer and "<strong>Konfiguration</strong>" in viewer
    assert "Kontaktformular" not in viewer and "Impressum" not in viewer


def test_viewer_names_the_page_of_a_cited_pdf_passage(app, docs, tmp_path):
    library, _, _ = docs
    doc = staged(app, tmp_path, library.alpha, "seiten.txt", ["Seite eins Text", "Seite zwei Text"], kind="text",
                 pages=[1, 2])
    page = logged_in(app).get(f"/documents/{doc}?chunk=1").get_data(as_text=True)
    assert 'id="cited-label"' in page and "page 2" in page


def test_viewer_opens_a_pdf_inline_at_the_cited_page(app, docs):
    _, _, pdf = docs
    client = logged_in(app)
    resp = client.get(f"/documents/{pdf}?chunk=1")
    assert resp.status_code == 302 and resp.headers["Location"].endswith(f"/documents/{pdf}/file#page=2")
    resp = client.get(f"/documents/{pdf}/file")
    assert resp.status_code == 200 and resp.mimetype == "application/pdf" and resp.data.startswith(b"%PDF")
    assert resp.headers["Content-Disposition"] == 'inline; filename="Bericht _A_ 2024.pdf"'
    assert resp.headers["X-Content-Type-Options"] == "nosniff"


def test_viewer_serves_other_files_as_attachments(app, docs):
    _, md, _ = docs
    resp = logged_in(app).get(f"/documents/{md}/file")
    assert resp.status_code == 200 and resp.mimetype == "application/octet-stream"
    assert resp.headers["Content-Disposition"] == "attachment; filename=betrieb.md"


@pytest.mark.parametrize("user", ["bob", "dave"])
def test_viewer_is_404_for_users_without_the_area(app, docs, user):
    _, md, pdf = docs
    client = logged_in(app, user)
    for route in [*routes(md, pdf), "/documents/999999", "/documents/999999/file"]:
        resp = client.get(route)
        assert resp.status_code == 404, route
        assert b"otel.yaml" not in resp.data and b"%PDF" not in resp.data


def test_viewer_is_404_after_the_area_is_unlinked(app, docs):
    library, md, pdf = docs
    client = logged_in(app)
    assert client.get(f"/documents/{md}").status_code == 200
    with app.app_context(), db.connection_context():
        admin_service.unlink_area("Alpha", "team-a")
    for route in routes(md, pdf):
        assert client.get(route).status_code == 404, route


def test_viewer_needs_a_login(app, docs):
    _, md, pdf = docs
    client = app.test_client()
    for route in routes(md, pdf):
        assert client.get(route).status_code in (302, 401), route


def test_api_document_content_honours_the_keys_scope(app, docs):
    library, md, pdf = docs
    with app.app_context(), db.connection_context():
        alice = api_keys.create_key("alice").plain
        carol_beta = api_keys.create_key("carol", areas=["Beta"]).plain
        bob = api_keys.create_key("bob").plain
    client = app.test_client()
    resp = client.get(f"/api/v1/documents/{pdf}/content", headers={"X-API-Key": alice})
    assert resp.status_code == 200 and resp.data.startswith(b"%PDF")
    for key in (carol_beta, bob):
        resp = client.get(f"/api/v1/documents/{md}/content", headers={"X-API-Key": key})
        assert resp.status_code == 404 and resp.json["error"]["code"] == "not_found"
    assert client.get(f"/api/v1/documents/{md}/content").status_code == 401
