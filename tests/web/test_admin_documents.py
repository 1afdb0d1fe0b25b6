"""Admin documents tab: imports, live rows, rebuild, delete, coverage, through the test client."""
import re
from datetime import timedelta
from io import BytesIO
from pathlib import Path

import numpy as np
import pytest

from irisrag import components
from irisrag.extensions import db
from irisrag.models import Area, Document
from irisrag.models.base import utcnow
from irisrag.services.admin import admin as admin_service
from irisrag.vectors.store import ChunkIn
from tests.conftest import free_port, login, make_app, post

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
HX = {"HX-Request": "true"}


def _body(resp) -> str:
    return resp.get_data(as_text=True)


def _area(app, name: str = "Handbook") -> Area:
    with app.app_context(), db.connection_context():
        return admin_service.create_named(Area, name)


def _doc(app, area: Area, name: str, **fields) -> Document:
    with app.app_context(), db.connection_context():
        return Document.create(area=area, name=name, directory="/nowhere", kind="text", **fields)


def _reload(app, doc: Document) -> Document | None:
    with app.app_context(), db.connection_context():
        return Document.get_or_none(Document.id == doc.id)


def _admin_for(app):
    with app.app_context(), db.connection_context():
        admin_service.create_user("root", "rootpassword", is_admin=True)
    client = app.test_client()
    assert login(client, "root", "rootpassword", admin=True).status_code == 302
    return client


def _upload(client, area_id, *files: tuple[str, bytes]):
    data = {"area": str(area_id), "files": [(BytesIO(content), name) for name, content in files]}
    return post(client, "/admin/documents/upload", data)


def _store_chunks(app, doc: Document, count: int) -> None:
    with app.app_context():
        store = components.get().store
        chunks = [ChunkIn(i, f"Abschnitt {i}") for i in range(count)]
        store.replace_document(doc.id, doc.area_id, chunks, np.ones((count, store.dim), dtype=np.float32))


# --- access -------------------------------------------------------------------

def test_admin_documents_every_route_refuses_anonymous_and_plain_users(app, make_user):
    area = _area(app)
    doc = _doc(app, area, "a.md")
    make_user("alice", "alicepassword")
    anonymous, user = app.test_client(), app.test_client()
    assert login(user, "alice", "alicepassword").status_code == 302
    gets = [f"/admin/documents/{doc.id}/row", "/admin/documents/coverage", "/admin/tab/documents",
            f"/admin/documents/progress?ids={doc.id}"]

    def posts():  # fresh each time: the test client closes uploaded streams
        return {
            "/admin/documents/upload": {"area": str(area.id), "files": [(BytesIO(b"Text"), "b.md")]},
            "/admin/documents/path": {"area": str(area.id), "path": "x.md"},
            "/admin/documents/urls": {"area": str(area.id), "urls": "https://example.org/x"},
            f"/admin/documents/{doc.id}/rebuild": {}, "/admin/documents/rebuild": {},
            f"/admin/documents/{doc.id}/delete": {},
            "/admin/documents/bulk": {"action": "delete", "ids": [str(doc.id)]},
            f"/admin/areas/{area.id}/delete-with-documents": {"confirm": area.name},
        }

    for client in (anonymous, user):
        for path in gets:
            assert client.get(path).status_code == 302, path
            assert client.get(path, headers=HX).status_code == 401, path
        for path, data in posts().items():
            resp = post(client, path, data, page="/admin/login")
            assert resp.status_code in (302, 401), path
            assert "/admin/login" in resp.headers["Location"]
    with app.app_context(), db.connection_context():
        assert [d.name for d in Document.select()] == ["a.md"]
        assert Document.get_by_id(doc.id).status == "queued"


# --- upload ---------------------------------------------------------------------

def test_admin_documents_upload_reports_a_summary_and_only_the_refused_files(admin_client, app):
    area = _area(app)
    resp = _upload(admin_client, area.id, ("handbook.md", b"# Titel\n\nInhalt"), ("setup.exe", b"MZ\x00"))
    html = _body(resp)
    assert resp.status_code == 200
    assert "1 import queued." in html and "1 item was refused." in html
    outcomes = html[html.index('id="import-outcomes"'):html.index("</ul>", html.index('id="import-outcomes"'))]
    assert "<strong>setup.exe</strong>" in outcomes and "handbook.md" not in outcomes  # queued ones: in the table
    assert "The file type .exe is not supported" in html
    with app.app_context(), db.connection_context():
        assert [(d.name, d.status) for d in Document.select()] == [("handbook.md", "queued")]
    assert 'id="doc-' in html and "every" not in html  # rows do not poll one by one
    assert 'hx-get="/admin/documents/progress?ids=' in html and 'hx-trigger="load delay:3.0s"' in html


def test_admin_documents_upload_needs_an_area_and_a_file(admin_client, app):
    area = _area(app)
    resp = post(admin_client, "/admin/documents/upload", {"files": [(BytesIO(b"x"), "a.md")]})
    assert resp.status_code == 400 and "Please choose an area." in _body(resp)
    resp = post(admin_client, "/admin/documents/upload", {"area": str(area.id)})
    assert resp.status_code == 400 and "Please choose at least one file." in _body(resp)
    resp = _upload(admin_client, area.id + 99, ("a.md", b"Text"))
    assert resp.status_code == 404 and "There is no area" in _body(resp)


def test_admin_documents_upload_too_large_is_refused(tmp_path, database_url, redis_url):
    app = make_app(tmp_path, database_url, redis_url, MAX_UPLOAD_BYTES=100)
    client = _admin_for(app)
    area = _area(app)
    resp = _upload(client, area.id, ("big.txt", b"x" * 500), ("small.txt", b"klein"))
    html = _body(resp)
    assert resp.status_code == 200 and "larger than the limit of 100 bytes" in html and "1 import queued." in html
    assert not (tmp_path / "staging" / "upload" / "big.txt").exists()
    assert not list((tmp_path / "staging").rglob("big.txt"))  # nor in an area's folder
    # a request over the total limit is refused unread, next to the upload form (the tab stays)
    resp = _upload(client, area.id, ("huge.txt", b"x" * (1024 * 1024 + 200)))
    assert resp.status_code == 413 and "Upload fewer files at once." in _body(resp)
    assert resp.headers["HX-Retarget"] == "#upload-error" and _body(resp).startswith('<div id="upload-error">')
    with app.app_context(), db.connection_context():
        assert [d.name for d in Document.select()] == ["small.txt"]


def test_admin_documents_upload_without_htmx_shows_the_whole_page(admin_client, app):
    area = _area(app)
    data = {"area": str(area.id), "files": [(BytesIO(b"Text"), "plain.md")]}
    resp = post(admin_client, "/admin/documents/upload", data, htmx=False)
    assert resp.status_code == 200 and "<html" in _body(resp) and "plain.md" in _body(resp)


def test_admin_documents_file_name_is_escaped(admin_client, app):
    area = _area(app)
    resp = _upload(admin_client, area.id, ("<img src=x onerror=alert(1)>.txt", b"Text"))
    html = _body(resp)
    assert "&lt;img src=x onerror=alert(1)&gt;.txt" in html and "<img src=x" not in html


# --- path and URL imports --------------------------------------------------------

def test_admin_documents_path_import_refuses_traversal_and_finds_files(tmp_path, database_url, redis_url):
    volume = tmp_path / "volume"
    (volume / "sub").mkdir(parents=True)
    (volume / "sub" / "inside.md").write_text("Inhalt")
    (tmp_path / "secret.txt").write_text("geheim")
    app = make_app(tmp_path, database_url, redis_url, SRC_VOLUME_PATH=str(volume))
    client = _admin_for(app)
    area = _area(app)
    resp = post(client, "/admin/documents/path", {"area": str(area.id), "path": "../secret.txt"})
    assert resp.status_code == 403 and "must not contain &#39;..&#39;" in _body(resp)
    assert 'value="../secret.txt"' in _body(resp)  # what was typed is kept
    resp = post(client, "/admin/documents/path", {"area": str(area.id), "path": "/home/me/secret.txt"})
    assert resp.status_code == 404 and "was not found in the source volume" in _body(resp)
    resp = post(client, "/admin/documents/path", {"area": str(area.id), "path": "sub/inside.md"})
    assert resp.status_code == 200 and "1 import queued." in _body(resp)
    with app.app_context(), db.connection_context():
        assert [d.name for d in Document.select()] == ["inside.md"]


def test_admin_documents_path_import_without_volume_says_so(admin_client, app):
    area = _area(app)
    html = _body(admin_client.get("/admin/tab/documents", headers=HX))
    assert "The source volume is not configured" in html
    resp = post(admin_client, "/admin/documents/path", {"area": str(area.id), "path": "a.md"})
    assert resp.status_code == 400 and "The source volume is not configured" in _body(resp)


def test_admin_documents_url_form_registers_one_document_per_line(admin_client, app):
    area = _area(app)
    urls = "https://example.org/a\n\n  https://example.org/b?x=1  \nftp://example.org/c\n"
    resp = post(admin_client, "/admin/documents/urls", {"area": str(area.id), "urls": urls})
    html = _body(resp)
    assert resp.status_code == 200 and "2 imports queued." in html and "1 item was refused." in html
    assert "starting with http:// or https://" in html
    with app.app_context(), db.connection_context():
        sources = sorted(d.source_url for d in Document.select())
    assert sources == ["https://example.org/a", "https://example.org/b?x=1"]
    assert 'href="https://example.org/a" rel="noopener noreferrer"' in html
    box = html.split('id="import-urls"')[1].split("</textarea>")[0]
    assert box.endswith(">ftp://example.org/c") and "https://example.org/a" not in box  # only the refused one stays
    resp = post(admin_client, "/admin/documents/urls", {"area": str(area.id), "urls": " \n "})
    assert resp.status_code == 400 and "at least one web address" in _body(resp)


def test_admin_documents_url_and_error_detail_are_escaped(admin_client, app):
    area = _area(app)
    url = "https://example.org/page?q=<script>alert(1)</script>"
    html = _body(post(admin_client, "/admin/documents/urls", {"area": str(area.id), "urls": url}))
    assert "q=&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>alert" not in html
    doc = _doc(app, area, "bad.md", status="failed", error="Fehler <b>fett</b>",
               error_detail="<script>alert('x')</script>", source_url="javascript:alert(1)")
    row = _body(admin_client.get(f"/admin/documents/{doc.id}/row", headers=HX))
    assert "Fehler &lt;b&gt;fett&lt;/b&gt;" in row and "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in row
    assert "<script>" not in row and 'href="javascript' not in row
    assert "<details>" in row and "Retry" in row


# --- live rows ----------------------------------------------------------------------

def _poll(client, url: str) -> str:
    return _body(client.get(url, headers=HX))


def _next_poll(html: str) -> str | None:
    match = re.search(r'id="import-progress"[^>]*hx-get="([^"]+)"', html)
    return match.group(1).replace("&amp;", "&") if match else None


def test_admin_documents_one_poll_refreshes_every_running_row_backs_off_and_stops(admin_client, app):
    area = _area(app)
    docs = [_doc(app, area, f"live-{i}.md") for i in range(3)]
    tab = _body(admin_client.get("/admin/tab/documents", headers=HX))
    url = _next_poll(tab)
    assert url and "ids=" + ",".join(str(d.id) for d in docs) in url and tab.count("hx-trigger") == 2  # bar, coverage
    first = _poll(admin_client, url)
    assert all(f'<template><tr id="doc-{d.id}" class="doc-row running" data-status="queued" hx-swap-oob="true">'
               in first.replace("\n", "") for d in docs)
    assert "0 of 3 done" in first and 'data-wait="6.0"' in first  # nothing moved since the tab: later
    html, waits = first, []
    for _ in range(3):
        html = _poll(admin_client, _next_poll(html))
        waits.append(float(re.search(r'data-wait="([0-9.]+)"', html).group(1)))
    assert waits == [12.0, 24.0, 24.0]
    with app.app_context(), db.connection_context():
        Document.update(status="embedding", progress_done=3, progress_total=10, updated_at=utcnow()) \
            .where(Document.id == docs[0].id).execute()
    html = _poll(admin_client, _next_poll(html))
    assert '<progress value="3" max="10"' in html and "3/10" in html and 'data-wait="3.0"' in html  # moved: soon again
    with app.app_context(), db.connection_context():
        Document.update(status="done", chunk_count=7, sha256="ab" * 32, imported_at=utcnow(), updated_at=utcnow()).execute()
    html = _poll(admin_client, _next_poll(html))
    assert _next_poll(html) is None and html.count("hx-trigger") == 1  # nothing runs: no further poll,
    assert "All imports have finished." in html and "failed" not in html.split('id="import-progress"')[1][:300]
    assert '<section class="card" id="coverage" hx-swap-oob="true"' in html  # but the coverage is loaded again
    assert '<td class="num chunks">7</td>' in html and "<code>abababab</code>" in html
    full = admin_client.get(_next_poll(tab))
    assert full.status_code == 200 and "<html" in _body(full)


def test_admin_documents_overall_bar_counts_the_batch_and_estimates_the_rest(admin_client, app):
    area = _area(app)
    started = utcnow() - timedelta(minutes=2)
    for i in range(3):
        _doc(app, area, f"done-{i}.md", status="done", updated_at=started + timedelta(minutes=1))
    _doc(app, area, "old.md", status="done", updated_at=started - timedelta(hours=1))  # an earlier batch
    for i in range(6):
        _doc(app, area, f"wait-{i}.md", status="queued", updated_at=started)  # no job in Redis: the rows' time
    html = _body(admin_client.get("/admin/tab/documents", headers=HX))
    assert "3 of 9 done, about 4 min left" in html  # 2 min for 3, so 4 min for 6


def test_admin_documents_row_of_a_deleted_document_disappears(admin_client):
    resp = admin_client.get("/admin/documents/4711/row", headers=HX)
    assert resp.status_code == 200 and _body(resp) == ""


def test_admin_documents_stale_import_is_marked_failed_by_the_sweep_not_by_the_page(admin_client, app):
    from irisrag.jobs.import_checks import fail_stopped_imports

    area = _area(app)
    doc = _doc(app, area, "stale.md", status="embedding", updated_at=utcnow() - timedelta(hours=2))
    polled = _doc(app, area, "polled.md", status="chunking", updated_at=utcnow() - timedelta(hours=2))
    _body(admin_client.get("/admin/tab/documents", headers=HX))
    assert _reload(app, doc).status == "embedding"  # reading a page decides nothing
    with app.app_context(), db.connection_context():
        assert fail_stopped_imports() == 2  # the worker's sweep
    html = _body(admin_client.get("/admin/tab/documents", headers=HX))
    assert "its worker stopped" in html
    assert _reload(app, doc).status == "failed"
    row = _body(admin_client.get(f"/admin/documents/{polled.id}/row", headers=HX))
    assert "its worker stopped" in row and "hx-trigger" not in row and "Retry" in row


# --- rebuild, delete ----------------------------------------------------------------

def test_admin_documents_rebuild_one_retry_and_rebuild_all(admin_client, app):
    area = _area(app)
    done = _doc(app, area, "done.md", status="done", chunk_count=2)
    failed = _doc(app, area, "failed.md", status="failed", error="kaputt")
    resp = post(admin_client, f"/admin/documents/{done.id}/rebuild")
    assert resp.status_code == 200 and "“done.md” is queued for a rebuild." in _body(resp)
    assert _reload(app, done).status == "queued"
    resp = post(admin_client, f"/admin/documents/{failed.id}/rebuild")
    assert _reload(app, failed).status == "queued" and _reload(app, failed).error is None
    with app.app_context(), db.connection_context():
        Document.update(status="done").execute()
    resp = post(admin_client, "/admin/documents/rebuild")
    assert "2 documents queued for a rebuild." in _body(resp)
    resp = post(admin_client, "/admin/documents/4711/rebuild")
    assert resp.status_code == 404 and "no document with id 4711" in _body(resp)


def test_admin_documents_delete_removes_row_chunks_and_staged_file(admin_client, app):
    area = _area(app)
    _upload(admin_client, area.id, ("weg.md", b"Etwas Text"))
    with app.app_context(), db.connection_context():
        doc = Document.get(Document.name == "weg.md")
        Document.update(status="done", chunk_count=3).execute()
    staged = Path(doc.directory) / doc.name
    _store_chunks(app, doc, 3)
    assert staged.is_file()
    resp = post(admin_client, f"/admin/documents/{doc.id}/delete")
    assert resp.status_code == 200 and "“weg.md” deleted with its chunks." in _body(resp)
    assert f'id="doc-{doc.id}"' not in _body(resp)
    assert _reload(app, doc) is None and not staged.exists()
    with app.app_context():
        assert components.get().store.chunks_of(doc.id) == []


def test_admin_documents_delete_asks_for_confirmation(admin_client, app):
    area = _area(app)
    doc = _doc(app, area, "frag.md", status="done")
    html = _body(admin_client.get("/admin/tab/documents", headers=HX))
    assert f'hx-post="/admin/documents/{doc.id}/delete"' in html
    assert 'hx-confirm="Delete frag.md with all its chunks?"' in html


# --- filter, coverage ----------------------------------------------------------------

def test_admin_documents_filter_by_area(admin_client, app):
    first, second = _area(app, "Handbook"), _area(app, "Policies")
    _doc(app, first, "handbook.md")
    _doc(app, second, "policy.md")
    html = _body(admin_client.get("/admin/tab/documents", headers=HX))
    assert "handbook.md" in html and "policy.md" in html
    html = _body(admin_client.get(f"/admin?tab=documents&area={second.id}", headers=HX))
    assert "policy.md" in html and "handbook.md" not in html
    assert f'<option value="{second.id}" selected>Policies</option>' in html
    page = _body(admin_client.get(f"/admin?tab=documents&area={first.id}"))
    assert "<html" in page and "handbook.md" in page and "policy.md" not in page


def test_admin_documents_coverage_highlights_documents_without_chunks(admin_client, app):
    area = _area(app)
    full = _doc(app, area, "full.md", status="done", chunk_count=4)
    empty = _doc(app, area, "empty.md", status="done", chunk_count=0)
    _store_chunks(app, full, 4)
    html = _body(admin_client.get("/admin/tab/documents", headers=HX))
    assert 'hx-get="/admin/documents/coverage" hx-trigger="load"' in html
    html = _body(admin_client.get("/admin/documents/coverage", headers=HX))
    assert "2 documents, 4 chunks in the index, 1 without chunks." in html
    assert f'<tr id="coverage-{empty.id}" class="zero">' in html and "no chunks" in html
    assert f'<tr id="coverage-{full.id}" class="">' in html
    assert html.index(f"coverage-{empty.id}") < html.index(f"coverage-{full.id}")  # empty ones first


# --- queue down ----------------------------------------------------------------------

@pytest.mark.integration
def test_admin_documents_redis_down_shows_the_queue_message(tmp_path, database_url, redis_url):
    app = make_app(tmp_path, database_url, redis_url, REDIS_URL=f"redis://127.0.0.1:{free_port()}/0")
    client = _admin_for(app)
    area = _area(app)
    resp = _upload(client, area.id, ("a.md", b"Inhalt"))
    assert resp.status_code == 200  # 5xx would not be swapped by htmx
    assert "job queue (Redis) is not reachable" in _body(resp)
    with app.app_context(), db.connection_context():
        doc = Document.get(Document.name == "a.md")
    assert doc.status == "failed"
    row = _body(client.get(f"/admin/documents/{doc.id}/row", headers=HX))
    assert "not reachable" in row and "Retry" in row


def test_admin_documents_polls_are_not_logged_at_info(admin_client, app, caplog):
    import logging

    area = _area(app)
    doc = _doc(app, area, "live.md")
    caplog.set_level(logging.DEBUG, logger="irisrag.request")
    admin_client.get(f"/admin/documents/progress?ids={doc.id}", headers=HX)
    admin_client.get("/admin/tab/documents", headers=HX)
    lines = [(r.levelno, r.getMessage().split(" path=")[1].split()[0]) for r in caplog.records
             if r.name == "irisrag.request"]
    assert lines == [(logging.DEBUG, "/admin/documents/progress"), (logging.INFO, "/admin/tab/documents")]


def test_admin_documents_coverage_reloads_as_each_import_ends_not_only_after_the_last(admin_client, app):
    area = _area(app)
    docs = [_doc(app, area, f"live-{i}.md") for i in range(2)]
    url = _next_poll(_body(admin_client.get("/admin/tab/documents", headers=HX)))
    html = _poll(admin_client, url)
    assert 'id="coverage" hx-swap-oob="true"' not in html  # nothing ended yet: the overview stays
    with app.app_context(), db.connection_context():
        Document.update(status="done", chunk_count=4, updated_at=utcnow()).where(Document.id == docs[0].id).execute()
    html = _poll(admin_client, _next_poll(html))
    assert _next_poll(html) is not None  # the other import still runs, so the poll goes on
    assert '<section class="card" id="coverage" hx-swap-oob="true"' in html  # and the coverage is loaded again now
    html = _poll(admin_client, _next_poll(html))
    assert 'id="coverage" hx-swap-oob="true"' not in html  # once per ending, not on every poll
