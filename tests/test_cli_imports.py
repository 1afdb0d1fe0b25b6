"""`flask rag` import commands: folders, files, URLs, volume paths, staging, rebuilds, coverage."""
import json
import re
import shutil
from pathlib import Path

import pytest
from rq import Queue

from irisrag import components
from irisrag.extensions import db
from irisrag.models import Document
from tests.conftest import free_port, make_app
from tests.integration.test_worker import start_worker, stop_worker
from tests.support.http_stub import HttpStub, Reply

FIXTURES = Path(__file__).resolve().parent / "fixtures"
GOOD = ["excerpt-de.md", "excerpt-de.txt", "debian-reference-de-3pages.pdf", "sample.html"]


def rag(app, *args, input=None):
    return app.test_cli_runner().invoke(args=["rag", *map(str, args)], input=input)


def out(result) -> dict:
    """Parse the JSON on stdout (progress bars and errors go to stderr with --json)."""
    return json.loads(result.stdout)


def rows(app) -> dict[str, Document]:
    with app.app_context(), db.connection_context():
        return {d.name: d for d in Document.select()}


def copy(names, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy(FIXTURES / name, folder / name)
    return folder


@pytest.fixture
def area_app(app):
    assert rag(app, "create-area", "Handbook").exit_code == 0
    return app


@pytest.fixture
def folder(tmp_path):
    """Good files (one in a subfolder), two that fail extraction, an unsupported and a hidden one."""
    root = copy(GOOD[:3] + ["binary.txt", "empty.txt"], tmp_path / "docs")
    copy(["sample.html", "sample.csv"], root / "sub")
    (root / "report.rtf").write_bytes(b"PK\x03\x04 not really a docx")
    (root / ".hidden.md").write_text("# hidden\n\nnot imported")
    return root


def test_import_folder_sync_counts_new_unchanged_updated_and_failed(area_app, folder):
    app = area_app
    first = rag(app, "import-folder", folder, "--area", "Handbook", "--sync", "--json")
    assert first.exit_code == 1, first.output
    report = out(first)
    assert report["summary"] == {"new": 5, "updated": 0, "unchanged": 0, "failed": 2}
    assert report["skipped"] == [str(folder / "report.rtf")]
    by_name = {d["name"]: d for d in report["documents"]}
    assert set(by_name) == {*GOOD, "sample.csv", "binary.txt", "empty.txt"} and len(report["documents"]) == 7
    assert by_name["empty.txt"]["status"] == "failed" and "no extractable text" in by_name["empty.txt"]["error"]
    assert by_name["binary.txt"]["status"] == "failed" and by_name["binary.txt"]["error"]
    pdf = by_name["debian-reference-de-3pages.pdf"]
    assert pdf["status"] == "done" and pdf["chunks"] > 0 and pdf["error"] is None and pdf["area"] == "Handbook"
    assert "2 of 7 imports failed" in first.stderr
    with app.app_context():
        stored = components.get().store.count_by_document()
    assert {i: n for i, n in stored.items()} == {d["id"]: d["chunks"] for d in report["documents"] if d["chunks"]}
    assert ".hidden.md" not in rows(app)

    again = out(rag(app, "import-folder", folder, "--area", "Handbook", "--sync", "--json"))
    assert again["summary"] == {"new": 0, "updated": 0, "unchanged": 5, "failed": 2}
    assert [d["id"] for d in again["documents"]] == [d["id"] for d in report["documents"]]

    (folder / "excerpt-de.md").write_text("# Neu\n\nGanz anderer Inhalt über Paketverwaltung.\n", encoding="utf-8")
    (folder / "binary.txt").unlink()
    (folder / "empty.txt").unlink()
    third = rag(app, "import-folder", folder, "--area", "Handbook", "--sync", "--json")
    assert third.exit_code == 0, third.output
    assert out(third)["summary"] == {"new": 0, "updated": 1, "unchanged": 4, "failed": 0}
    changed = rows(app)["excerpt-de.md"]
    assert changed.status == "done" and changed.chunk_count == 1


def test_import_folder_refusal_of_one_file_fails_it_alone(area_app, folder):
    app = area_app
    assert rag(app, "import-folder", folder, "--area", "Handbook", "--sync").exit_code == 1
    with app.app_context(), db.connection_context():
        Document.update(status="embedding").where(Document.name == "sample.csv").execute()  # a running import
    result = rag(app, "import-folder", folder, "--area", "Handbook", "--sync")
    assert result.exit_code == 1
    assert re.search(r"failed .*sample\.csv .*being imported right now", result.stdout)
    assert "0 new, 0 updated, 4 unchanged, 3 failed, 1 skipped" in result.stdout
    assert re.search(r"skipped .*report\.rtf", result.stdout)


def test_import_errors_exit_1_with_a_clear_message(area_app, tmp_path):
    app = area_app
    folder = copy(["excerpt-de.md"], tmp_path / "d")
    (folder / "letter.rtf").write_bytes(b"PK")
    result = rag(app, "import-folder", folder, "--area", "Nowhere")
    assert result.exit_code == 1 and "There is no area “Nowhere”" in result.stderr
    result = rag(app, "import-folder", tmp_path / "missing", "--area", "Handbook")
    assert result.exit_code == 1 and "There is no folder" in result.stderr
    result = rag(app, "import-file", tmp_path / "missing.md", "--area", "Handbook", "--sync")
    assert result.exit_code == 1 and "There is no file" in result.stdout
    result = rag(app, "import-file", folder / "letter.rtf", "--area", "Handbook", "--sync", "--json")
    assert result.exit_code == 1 and "type .rtf is not supported" in out(result)["documents"][0]["error"]
    assert rag(app, "import-file", folder / "excerpt-de.md", "--area", "Handbook", "--sync", "--wait").exit_code == 2
    assert rows(app) == {}


def test_import_file_sync_and_documents_listing(area_app, tmp_path):
    app = area_app
    assert rag(app, "create-area", "Other").exit_code == 0
    folder = copy(["excerpt-de.md", "sample.json"], tmp_path / "d")
    result = rag(app, "import-file", folder / "excerpt-de.md", "--area", "Handbook", "--sync")
    assert result.exit_code == 0, result.output
    assert re.search(r"new +#\d+ +excerpt-de\.md +\[Handbook\] +done, \d+ chunks", result.stdout)
    assert "1 new, 0 updated, 0 unchanged, 0 failed" in result.stdout
    assert rag(app, "import-file", folder / "sample.json", "--area", "Other", "--sync").exit_code == 0

    listed = out(rag(app, "documents", "--json"))["documents"]
    assert [d["name"] for d in listed] == ["sample.json", "excerpt-de.md"]  # newest first
    md = listed[1]
    assert md["area"] == "Handbook" and md["status"] == "done" and md["chunks"] > 1
    assert md["source"] == str(folder / "excerpt-de.md")
    only = out(rag(app, "documents", "--area", "Other", "--json"))["documents"]
    assert [d["name"] for d in only] == ["sample.json"]
    assert "2 documents" in rag(app, "documents").stdout


def test_import_queues_by_default_and_counts_by_existing_rows(area_app, tmp_path):
    app = area_app
    path = copy(["excerpt-de.md"], tmp_path / "d") / "excerpt-de.md"
    try:
        first = rag(app, "import-file", path, "--area", "Handbook", "--json")
        assert first.exit_code == 0, first.output
        doc = out(first)["documents"][0]
        assert doc["status"] == "queued" and out(first)["summary"]["new"] == 1
        with app.app_context():
            assert len(components.get().queue) == 1
        second = out(rag(app, "import-file", path, "--area", "Handbook", "--json"))
        assert second["summary"] == {"new": 0, "updated": 1, "unchanged": 0, "failed": 0}
        with app.app_context():
            assert len(components.get().queue) == 1  # the pending job is not queued twice
    finally:
        with app.app_context():
            Queue(app.config["QUEUE_NAME"], connection=components.get().redis).empty()


def test_sync_needs_no_redis_and_the_queue_says_why_it_cannot(tmp_path, database_url, redis_url):
    app = make_app(tmp_path, database_url, redis_url, REDIS_URL=f"redis://127.0.0.1:{free_port()}/0")
    assert rag(app, "create-area", "Handbook").exit_code == 0
    path = copy(["excerpt-de.md"], tmp_path / "d") / "excerpt-de.md"
    queued = rag(app, "import-file", path, "--area", "Handbook")
    assert queued.exit_code == 1 and "not reachable" in queued.stderr and "--sync" in queued.stderr
    assert rows(app) == {}  # refused before anything was registered
    synced = rag(app, "import-file", path, "--area", "Handbook", "--sync", "--json")
    assert synced.exit_code == 0, synced.output
    assert out(synced)["documents"][0]["status"] == "done"


@pytest.fixture
def volume_app(tmp_path, database_url, redis_url):
    volume = tmp_path / "volume"
    copy(["excerpt-de.md"], volume / "team")
    app = make_app(tmp_path, database_url, redis_url, SRC_VOLUME_PATH=str(volume))
    assert rag(app, "create-area", "Handbook").exit_code == 0
    return app


def test_import_path_relative_absolute_and_traversal(volume_app, tmp_path):
    app = volume_app
    result = rag(app, "import-path", "team/excerpt-de.md", "--area", "Handbook", "--sync", "--json")
    assert result.exit_code == 0, result.output
    assert out(result)["documents"][0]["status"] == "done"
    (tmp_path / "secret.md").write_text("# secret\n\nnot for the index")
    result = rag(app, "import-path", "../secret.md", "--area", "Handbook", "--sync")
    assert result.exit_code == 1 and "must not contain '..'" in result.stdout
    result = rag(app, "import-path", str(tmp_path / "secret.md"), "--area", "Handbook", "--sync")
    assert result.exit_code == 1 and "not found in the source volume" in result.stdout

    staged = rag(app, "stage", tmp_path / "secret.md")
    assert staged.exit_code == 0, staged.output
    original = staged.stdout.strip()
    assert original == str(tmp_path / "secret.md") and "Copied to" in staged.stderr
    assert (tmp_path / "volume" / "secret.md").read_text() == (tmp_path / "secret.md").read_text()
    result = rag(app, "import-path", original, "--area", "Handbook", "--sync", "--json")
    assert result.exit_code == 0, result.output
    doc = rows(app)["secret.md"]
    assert doc.status == "done" and doc.original_path == original
    assert doc.directory == str((tmp_path / "volume").resolve())
    listed = {d["name"]: d["source"] for d in out(rag(app, "documents", "--json"))["documents"]}
    assert listed["secret.md"] == original


def test_stage_without_a_volume_fails_clearly(area_app, tmp_path):
    path = copy(["excerpt-de.md"], tmp_path / "d") / "excerpt-de.md"
    result = rag(area_app, "stage", path)
    assert result.exit_code == 1 and "source volume is not configured" in result.stderr


def test_import_url_sync_stages_markdown_and_reads_a_list_file(tmp_path, database_url, redis_url):
    app = make_app(tmp_path, database_url, redis_url, URL_ALLOWLIST=["127.0.0.1"])
    assert rag(app, "create-area", "Web").exit_code == 0
    html = (FIXTURES / "sample.html").read_bytes()
    with HttpStub() as server:
        server.add("GET", "/doc/Page.html", Reply(200, body=html, content_type="text/html; charset=utf-8"))
        server.add("GET", "/notes.txt", Reply(200, body="Paketverwaltung mit apt.\n" * 20,
                                              content_type="text/plain; charset=utf-8"))
        url = f"{server.url}/doc/Page.html?KEY=1"
        result = rag(app, "import-url", url, "--area", "Web", "--sync", "--json")
        assert result.exit_code == 0, result.output
        doc = out(result)["documents"][0]
        assert doc["status"] == "done" and re.fullmatch(r"Page_[0-9a-f]{8}\.md", doc["name"])
        area_id = rows(app)[doc["name"]].area_id
        staged = Path(app.config["UPLOAD_ROOT"]) / "url" / str(area_id) / doc["name"]  # the area's folder
        assert "Debian" in staged.read_text() and "<html" not in staged.read_text()
        assert rows(app)[doc["name"]].source_url == url

        listing = tmp_path / "urls.txt"
        listing.write_text(f"# pages\n{url}\n\n{server.url}/notes.txt\n{server.url}/gone.html\n")
        result = rag(app, "import-url", "--from-file", listing, "--area", "Web", "--sync", "--json")
    assert result.exit_code == 1
    report = out(result)
    assert report["summary"] == {"new": 1, "updated": 0, "unchanged": 1, "failed": 1}  # 404: a new row, failed
    failed = [d for d in report["documents"] if d["status"] == "failed"]
    assert len(failed) == 1 and "404" in (failed[0]["error"] + rows(app)[failed[0]["name"]].error_detail)
    assert rag(app, "import-url", "--area", "Web").exit_code == 2


def test_import_url_of_a_pdf_twice_finds_the_same_document(tmp_path, database_url, redis_url):
    app = make_app(tmp_path, database_url, redis_url, URL_ALLOWLIST=["127.0.0.1"])
    assert rag(app, "create-area", "Web").exit_code == 0
    pdf = (FIXTURES / "debian-reference-de-3pages.pdf").read_bytes()
    with HttpStub() as server:
        server.add("GET", "/a/ref.pdf", Reply(200, body=pdf, content_type="application/pdf"))
        first = out(rag(app, "import-url", f"{server.url}/a/ref.pdf", "--area", "Web", "--sync", "--json"))
        again = rag(app, "import-url", f"{server.url}/a/ref.pdf", "--area", "Web", "--sync", "--json")
    assert again.exit_code == 0, again.output
    assert re.fullmatch(r"ref_[0-9a-f]{8}\.pdf", first["documents"][0]["name"])
    assert out(again)["documents"][0]["id"] == first["documents"][0]["id"]
    assert out(again)["summary"] == {"new": 0, "updated": 0, "unchanged": 1, "failed": 0}


def test_rebuild_all_sync_reembeds_and_coverage_reports_chunks(area_app, tmp_path):
    app = area_app
    folder = copy(["excerpt-de.md", "sample.csv", "empty.txt"], tmp_path / "d")
    assert rag(app, "import-folder", folder, "--area", "Handbook", "--sync").exit_code == 1
    before = rows(app)

    result = rag(app, "rebuild", "--all", "--sync", "--json")
    assert result.exit_code == 1  # empty.txt still has no text
    report = out(result)
    assert report["summary"] == {"new": 0, "updated": 2, "unchanged": 0, "failed": 1}
    after = rows(app)
    assert after["excerpt-de.md"].status == "done" and after["excerpt-de.md"].imported_at > before[
        "excerpt-de.md"].imported_at

    one = rag(app, "rebuild", before["sample.csv"].id, "--sync", "--json")
    assert one.exit_code == 0 and out(one)["documents"][0]["status"] == "done"
    assert rag(app, "rebuild").exit_code == 2
    assert rag(app, "rebuild", "1", "--all").exit_code == 2
    missing = rag(app, "rebuild", "999", "--sync")
    assert missing.exit_code == 1 and "no document with id 999" in missing.stderr

    cov = out(rag(app, "coverage", "--json"))
    chunks = {d["name"]: d for d in cov["documents"]}
    assert chunks["excerpt-de.md"]["chunks"] == after["excerpt-de.md"].chunk_count > 1
    assert chunks["excerpt-de.md"]["chunks"] == chunks["excerpt-de.md"]["expected"]
    assert cov["zero_chunks"] == [before["empty.txt"].id]
    assert cov["total_chunks"] == sum(d.chunk_count for d in after.values())
    text = rag(app, "coverage").stdout
    assert re.search(r"empty\.txt .*NO CHUNKS", text) and "1 without chunks" in text

    deleted = rag(app, "delete-document", before["excerpt-de.md"].id)
    assert deleted.exit_code == 0 and "excerpt-de.md" in deleted.stdout
    assert before["excerpt-de.md"].id not in {d["id"] for d in out(rag(app, "coverage", "--json"))["documents"]}


@pytest.mark.integration
def test_import_wait_follows_queued_jobs_through_a_worker(area_app, tmp_path):
    app = area_app
    folder = copy(["excerpt-de.md", "empty.txt"], tmp_path / "d")
    worker = start_worker(app, tmp_path)
    try:
        result = rag(app, "import-folder", folder, "--area", "Handbook", "--wait", "--timeout", "120", "--json")
    finally:
        stop_worker(worker)
    assert result.exit_code == 1, result.output + (tmp_path / "worker.log").read_text()
    report = out(result)
    assert report["summary"] == {"new": 1, "updated": 0, "unchanged": 0, "failed": 1}
    by_name = {d["name"]: d for d in report["documents"]}
    assert by_name["excerpt-de.md"]["status"] == "done" and by_name["excerpt-de.md"]["chunks"] > 1
    assert by_name["empty.txt"]["status"] == "failed"


def test_wait_timeout_reports_jobs_still_queued(area_app, tmp_path):
    app = area_app
    path = copy(["excerpt-de.md"], tmp_path / "d") / "excerpt-de.md"
    try:
        result = rag(app, "import-file", path, "--area", "Handbook", "--wait", "--timeout", "0.2", "--json")
    finally:
        with app.app_context():
            Queue(app.config["QUEUE_NAME"], connection=components.get().redis).empty()
    assert result.exit_code == 1
    doc = out(result)["documents"][0]
    assert doc["status"] == "queued" and "Still queued after 0.2 s" in doc["error"]
    assert "no worker listens" in result.stderr
