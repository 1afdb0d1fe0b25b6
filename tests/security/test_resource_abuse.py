"""Attack suite, resource abuse: each oversized input is bounded, explained, and crashes nothing.

Already covered elsewhere: uploads over the per-file and the total limit through the admin
form (tests/web/test_admin_documents.py) and the API (tests/web/test_api.py), fetched bodies
over the limit and gzip bombs (tests/ingest/test_fetch.py), deeply nested HTML in the
extractor (tests/ingest/test_extract.py), questions of 4001 characters on the dashboard, the
API and the CLI (tests/web/test_dashboard.py, tests/web/test_api.py, tests/test_cli_ask.py).

Added here: a PDF decompression bomb (a 1 MB file whose page stream inflates to 1 GiB), deeply
nested HTML and XML and an entity-expansion XML, run by a real worker process that must stay
alive and import the next document; megabyte questions; tens of thousands of selected areas;
more files in one upload than the form parser accepts; very long paths and URL lists.
"""
from __future__ import annotations

import io
import resource
import time
import zlib

import pytest
from pypdf import PdfWriter
from pypdf.generic import DictionaryObject, NameObject, StreamObject

from irisrag.errors import ExtractionError
from irisrag.extensions import db
from irisrag.ingest.extract import extract
from irisrag.ingest.extract_pdf import BOMB_MESSAGE
from irisrag.models import Area, Document
from irisrag.services.admin import admin as admin_service
from irisrag.services.admin import api_keys
from tests.conftest import csrf_token, login, post
from tests.integration.test_worker import start_worker, stop_worker
from tests.services import BETA_SECRET, PASSWORD, QUESTION, seed_library

HX = {"HX-Request": "true"}
GIB = 1024  # MiB


def flate_bomb(mib: int) -> bytes:
    """A valid zlib stream of ``mib`` MiB of spaces, built from one repeated full-flush block (about 1 KB/MiB)."""
    piece = b" " * (1 << 20)
    packer = zlib.compressobj(9)
    first = packer.compress(piece) + packer.flush(zlib.Z_FULL_FLUSH)
    again = packer.compress(piece) + packer.flush(zlib.Z_FULL_FLUSH)  # identical for every further MiB
    adler = 1
    for _ in range(mib):
        adler = zlib.adler32(piece, adler)
    return first + again * (mib - 1) + zlib.compressobj(9, wbits=-15).flush() + adler.to_bytes(4, "big")


def pdf_bomb(mib: int = GIB) -> bytes:
    """A one-page PDF whose content stream inflates to ``mib`` MiB."""
    writer = PdfWriter()
    page = writer.add_blank_page(200, 200)
    font = DictionaryObject({NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
                             NameObject("/BaseFont"): NameObject("/Helvetica")})
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(font)})})
    stream = StreamObject()
    stream._data = flate_bomb(mib)
    stream[NameObject("/Filter")] = NameObject("/FlateDecode")
    page[NameObject("/Contents")] = writer._add_object(stream)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def nested(tag: str, depth: int, inner: str) -> str:
    return f"<{tag}>" * depth + inner + f"</{tag}>" * depth


LAUGHS = ('<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
          + "".join(f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10 if i > 1 else "&lol;" * 10}">'
                    for i in range(1, 10))
          + ']>\n<lolz>&lol9; OpenTelemetry wird konfiguriert</lolz>\n')


def test_abuse_the_bomb_really_inflates_to_a_gibibyte():
    data = flate_bomb(8)
    assert zlib.decompress(data) == b" " * (8 << 20)  # a valid stream, the same construction at 1 GiB
    assert len(pdf_bomb()) < 1_200_000


def test_abuse_pdf_bomb_is_refused_quickly_with_a_clear_message(tmp_path):
    path = tmp_path / "bombe.pdf"
    path.write_bytes(pdf_bomb())
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.monotonic()
    with pytest.raises(ExtractionError) as caught:
        extract(path)
    assert caught.value.message == BOMB_MESSAGE and "page 1" in caught.value.detail
    assert time.monotonic() - started < 10
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mib < 400  # pypdf stops inflating at its cap, far below the gibibyte


@pytest.mark.integration
def test_abuse_hostile_files_fail_alone_and_the_worker_goes_on(app, tmp_path):
    files = {
        "bombe.pdf": pdf_bomb(),
        "tief.html": ("<html><body>" + nested("div", 100_000, "<p>tief</p>") + "</body></html>").encode(),
        "tief.xml": ('<?xml version="1.0"?>' + nested("a", 100_000, "OpenTelemetry wird konfiguriert")).encode(),
        "lachen.xml": LAUGHS.encode(),
        "gut.md": b"OpenTelemetry wird ueber otel.yaml konfiguriert.",
    }
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, "Handbook")
        admin_service.create_user("root", "rootpassword", is_admin=True)
    client = app.test_client()
    assert login(client, "root", "rootpassword", admin=True).status_code == 302
    resp = post(client, "/admin/documents/upload", {"area": "1", "files": [(io.BytesIO(d), n) for n, d in files.items()]})
    assert resp.status_code == 200 and "5 imports queued." in resp.get_data(as_text=True)
    worker = start_worker(app, tmp_path)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with app.app_context(), db.connection_context():
                rows = {d.name: d for d in Document.select()}
            if all(not d.is_running for d in rows.values()):
                break
            time.sleep(0.2)
        assert worker.poll() is None  # the worker process survived all of it
    finally:
        stop_worker(worker)
    status = {name: (d.status, d.error) for name, d in rows.items()}
    assert status["bombe.pdf"] == ("failed", BOMB_MESSAGE)
    assert status["tief.html"][0] == "failed" and "nested too deeply" in status["tief.html"][1]
    assert status["tief.xml"][0] == "done" and status["gut.md"][0] == "done"  # XML is imported as text
    assert status["lachen.xml"][0] == "done" and rows["lachen.xml"].chunk_count < 5  # entities never expanded
    row = client.get(f"/admin/documents/{rows['bombe.pdf'].id}/row", headers=HX).get_data(as_text=True)
    assert "far more data than a document page holds" in row and "Retry" in row


def test_abuse_megabyte_questions_are_refused_without_echoing_them(app):
    library = seed_library(app)
    client = app.test_client()
    assert login(client, "alice", PASSWORD).status_code == 302
    token = csrf_token(client, "/")
    huge = "Wie " * 1_250_000  # 5 MB
    for headers in (HX, {}):
        resp = client.post("/ask", data={"question": huge, "areas": [str(library.alpha)], "csrf_token": token},
                           headers=headers)
        body = resp.get_data(as_text=True)
        assert resp.status_code == 200 and "at most 4000 characters" in body
        # The fragment does not carry the 5 MB back; the full page refills the form with what was typed
        # (escaped, never more than the request itself: MAX_CONTENT_LENGTH bounds it).
        assert len(body) < (200_000 if headers else len(huge) + 200_000), len(body)
    with app.app_context(), db.connection_context():
        key = api_keys.create_key("alice").plain
    resp = app.test_client().post("/api/v1/answer", json={"question": huge}, headers={"X-API-Key": key})
    assert resp.status_code == 400 and resp.get_json()["error"]["field"] == "question"
    assert len(resp.get_data()) < 10_000


def test_abuse_tens_of_thousands_of_selected_areas(app):
    library = seed_library(app)
    client = app.test_client()
    assert login(client, "alice", PASSWORD).status_code == 302
    token = csrf_token(client, "/")
    areas = [str(i) for i in range(1, 50_001)]  # includes Beta, which alice may not query
    started = time.monotonic()
    resp = client.post("/ask", data={"question": QUESTION, "areas": areas, "csrf_token": token}, headers=HX)
    body = resp.get_data(as_text=True)
    assert resp.status_code == 200 and "otel-guide.md" in body and BETA_SECRET not in body
    assert time.monotonic() - started < 10
    assert len(client.get_cookie("session").value) < 4000  # only the permitted selection is remembered
    with app.app_context(), db.connection_context():
        key = api_keys.create_key("alice").plain
    api = app.test_client()
    resp = api.post("/api/v1/retrieve", json={"question": QUESTION, "areas": list(range(1, 1002))},
                    headers={"X-API-Key": key})
    assert resp.status_code == 400 and resp.get_json()["error"]["field"] == "areas"
    resp = api.post("/api/v1/retrieve", json={"question": QUESTION, "areas": list(range(1000, 2000))},
                    headers={"X-API-Key": key})
    assert resp.status_code == 403 and BETA_SECRET not in resp.get_data(as_text=True)
    assert library.beta not in range(1000, 2000)


def test_abuse_too_many_files_in_one_upload_gets_a_clear_message(admin_client, app):
    with app.app_context(), db.connection_context():
        area = admin_service.create_named(Area, "Handbook")
    files = [(io.BytesIO(b"x"), f"f{i}.txt") for i in range(1001)]
    resp = post(admin_client, "/admin/documents/upload", {"area": str(area.id), "files": files})
    body = resp.get_data(as_text=True)
    assert resp.status_code == 413 and "Too many files at once" in body and "larger than" not in body
    with app.app_context(), db.connection_context():
        assert Document.select().count() == 0
    assert admin_client.get("/admin/tab/documents", headers=HX).status_code == 200  # the web process is fine


def test_abuse_long_paths_and_url_lists_are_refused_cleanly(tmp_path, database_url, redis_url):
    from tests.conftest import make_app

    volume = tmp_path / "volume"
    volume.mkdir()
    app = make_app(tmp_path, database_url, redis_url, SRC_VOLUME_PATH=str(volume))
    with app.app_context(), db.connection_context():
        area = admin_service.create_named(Area, "Handbook")
        admin_service.create_user("root", "rootpassword", is_admin=True)
    client = app.test_client()
    assert login(client, "root", "rootpassword", admin=True).status_code == 302
    for path in ("a" * 100_000 + ".md", "/" + "x/" * 20_000 + "y.md", ("d/" * 3000) + "z.md"):
        resp = post(client, "/admin/documents/path", {"area": str(area.id), "path": path})
        assert resp.status_code in (400, 403, 404), resp.status_code
        assert "1 item was refused." in resp.get_data(as_text=True)
    urls = "\n".join(f"https://example.org/{i}" for i in range(101))
    resp = post(client, "/admin/documents/urls", {"area": str(area.id), "urls": urls})
    assert resp.status_code == 400 and "at most 100 web addresses" in resp.get_data(as_text=True)
    resp = post(client, "/admin/documents/urls", {"area": str(area.id), "urls": "https://example.org/" + "a" * 3000})
    assert "starting with http:// or https://" in resp.get_data(as_text=True)
    with app.app_context(), db.connection_context():
        assert Document.select().count() == 0

