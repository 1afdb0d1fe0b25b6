"""Attack suite, imports: a same-named import into another area never reaches the first area's document.

Identity of a document includes its area: an upload, a path or a URL imported into area B
with the name (or path, or address) of a document of area A is a new document of B. A's row,
its chunks and its staged file stay where they were, whatever the new file holds; its secret
is never shown to a user of B by the dashboard, the stream, the API or the CLI.
"""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from irisrag import components
from irisrag.extensions import db
from irisrag.models import Area, Document, Group
from irisrag.services.admin import admin as admin_service
from irisrag.services.admin import api_keys
from irisrag.services.documents import documents
from tests.conftest import csrf_token, login, make_app
from tests.integration.test_worker import start_worker, stop_worker
from tests.support.http_stub import HttpStub, Reply
from tests.support.imports import wait_final  # noqa: F401  (imported from here by other tests)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SECRET = "ALPHA-SECRET-4242"
QUESTION = "Wie lautet der Zugangscode für den Reaktor?"
A_TEXT = f"# Reaktor\n\nDer Zugangscode für den Reaktor lautet {SECRET}. Der Reaktor wird monatlich gewartet.\n"
B_TEXT = "# Reaktor\n\nDer Zugangscode für den Reaktor in Bravo steht nicht hier. BRAVO-PUBLIC-17.\n"
PASSWORD = "password123"



def seed(app) -> dict[str, int]:
    """Areas Alpha (group a: alice) and Bravo (group b: bob), and an admin."""
    with app.app_context(), db.connection_context():
        ids = {name: admin_service.create_named(Area, name).id for name in ("Alpha", "Bravo")}
        for group, area, user in (("a", "Alpha", "alice"), ("b", "Bravo", "bob")):
            admin_service.create_named(Group, group)
            admin_service.link_area(area, group)
            admin_service.create_user(user, PASSWORD)
            admin_service.link_user(user, group)
        admin_service.create_user("root", "rootpassword", is_admin=True)
    return ids


def user_views(app, user: str, area_id: int) -> dict[str, str]:
    """Everything a user sees for the question: dashboard (htmx and plain), stream, API, CLI."""
    client = app.test_client()
    assert login(client, user, PASSWORD).status_code == 302
    token = csrf_token(client, "/")
    form = {"question": QUESTION, "areas": [str(area_id)], "show_sources": "on", "csrf_token": token}
    texts = {  # each body read at once: a streamed response holds its request context until read
        "ask htmx": client.post("/ask", data=form, headers={"HX-Request": "true"}).get_data(as_text=True),
        "ask plain": client.post("/ask", data=form).get_data(as_text=True),
        "stream": client.post("/ask/stream", data=form, headers={"Accept": "text/event-stream"}).get_data(as_text=True),
    }
    with app.app_context(), db.connection_context():
        key = api_keys.create_key(user).plain
    api, headers = app.test_client(), {"X-API-Key": key}
    for name, body in (("retrieve", {"question": QUESTION}), ("answer", {"question": QUESTION}),
                       ("answer stream", {"question": QUESTION, "stream": True})):
        texts[f"api {name}"] = api.post(f"/api/v1/{name.split()[0]}", json=body, headers=headers).get_data(as_text=True)
    texts["api documents"] = api.get("/api/v1/documents", headers=headers).get_data(as_text=True)
    texts["cli ask"] = app.test_cli_runner().invoke(args=["rag", "ask", QUESTION, "--user", user, "--json"]).output
    return texts


def assert_a_intact(app, doc_id: int, area_id: int) -> None:
    """A's row, its chunks (with the secret, in A) and its staged file are as they were."""
    with app.app_context(), db.connection_context():
        doc = Document.get_by_id(doc_id)
        rows = components.get().store.chunks_of(doc_id)
    assert doc.area_id == area_id and doc.status == "done", (doc.area_id, doc.status, doc.error)
    assert rows and any(SECRET in r.text for r in rows)
    assert (Path(doc.directory) / doc.name).read_text() == A_TEXT


@pytest.fixture
def setup(tmp_path, database_url, redis_url):
    app = make_app(tmp_path, database_url, redis_url)
    areas = seed(app)
    worker = start_worker(app, tmp_path)
    yield app, areas
    stop_worker(worker)


NEW_FILES = {
    "refused": (FIXTURES / "binary.txt").read_bytes(),  # refused at upload by its content
    "failing": b"   \n\n  ",  # accepted, then fails in the worker (no text)
    "succeeding": B_TEXT.encode(),
}


@pytest.mark.integration
@pytest.mark.parametrize("new_file", list(NEW_FILES))
def test_same_named_upload_into_another_area_is_a_new_document(setup, new_file):
    app, areas = setup
    with app.app_context(), db.connection_context():
        first = documents.import_upload("Alpha", "report.md", A_TEXT.encode())
    first = wait_final(app, first.id)
    assert first.status == "done", first.error_detail
    alice = user_views(app, "alice", areas["Alpha"])
    assert SECRET in alice["ask htmx"] and SECRET in alice["api retrieve"]  # the checks can see the secret

    admin = app.test_client()
    assert login(admin, "root", "rootpassword", admin=True).status_code == 302
    resp = admin.post("/admin/documents/upload", headers={"HX-Request": "true", "X-CSRFToken": csrf_token(admin, "/admin")},
                      data={"area": str(areas["Bravo"]), "files": [(io.BytesIO(NEW_FILES[new_file]), "report.md")]},
                      content_type="multipart/form-data")
    refused = "1 item was refused." in resp.get_data(as_text=True)
    assert refused == (new_file == "refused"), resp.get_data(as_text=True)
    with app.app_context(), db.connection_context():
        second = Document.get_or_none((Document.area == areas["Bravo"]) & (Document.name == "report.md"))
    if new_file == "refused":
        assert second is None
    else:
        second = wait_final(app, second.id)
        assert second.id != first.id
        assert second.status == ("failed" if new_file == "failing" else "done"), second.error_detail

    bob = user_views(app, "bob", areas["Bravo"])
    leaked = sorted(name for name, text in bob.items() if SECRET in text)
    assert not leaked, leaked
    if new_file == "succeeding":
        assert "BRAVO-PUBLIC-17" in bob["ask htmx"] and "BRAVO-PUBLIC-17" in bob["api retrieve"]
    assert_a_intact(app, first.id, areas["Alpha"])
    assert SECRET in user_views(app, "alice", areas["Alpha"])["ask htmx"]


def _rag(app, *args):
    return app.test_cli_runner().invoke(args=["rag", *map(str, args)])


def test_same_path_into_another_area_leaves_the_first_document_in_its_area(tmp_path, database_url, redis_url):
    volume = tmp_path / "volume"
    volume.mkdir()
    (volume / "report.md").write_text(A_TEXT)
    app = make_app(tmp_path, database_url, redis_url, SRC_VOLUME_PATH=str(volume))
    areas = seed(app)
    assert _rag(app, "import-path", "report.md", "--area", "Alpha", "--sync").exit_code == 0
    with app.app_context(), db.connection_context():
        first = Document.get(Document.name == "report.md")
        # the web's path import into Bravo: a document of its own, Alpha's stays
        second = documents.import_path(areas["Bravo"], "report.md")
        components.get().queue.empty()
    assert second.id != first.id and second.area_id == areas["Bravo"]
    result = _rag(app, "import-path", str(volume / "report.md"), "--area", "Bravo", "--sync")
    assert result.exit_code == 0, result.output
    with app.app_context(), db.connection_context():
        assert Document.select().where(Document.area == areas["Bravo"]).count() == 1
        assert Document.get_by_id(second.id).status == "done"
        assert components.get().store.chunks_of(second.id)[0].area_id == areas["Bravo"]
    assert_a_intact(app, first.id, areas["Alpha"])


def test_same_url_into_another_area_leaves_the_first_document_in_its_area(tmp_path, database_url, redis_url):
    app = make_app(tmp_path, database_url, redis_url, URL_ALLOWLIST=["127.0.0.1"])
    areas = seed(app)
    with HttpStub() as server:
        server.add("GET", "/report", Reply(200, body=A_TEXT.encode(), content_type="text/plain; charset=utf-8"))
        url = f"{server.url}/report"
        assert _rag(app, "import-url", url, "--area", "Alpha", "--sync").exit_code == 0
        with app.app_context(), db.connection_context():
            first = Document.get(Document.source_url == url)
            second = documents.import_url(areas["Bravo"], url)  # the web's URL import
            components.get().queue.empty()
        assert second.id != first.id and second.area_id == areas["Bravo"]
        server.add("GET", "/report", Reply(404, body=b"gone"))  # Bravo's fetch fails
        result = _rag(app, "import-url", url, "--area", "Bravo", "--sync")
    assert result.exit_code == 1
    with app.app_context(), db.connection_context():
        assert Document.select().where(Document.area == areas["Bravo"]).count() == 1
        assert Document.get_by_id(second.id).status == "failed"
        assert components.get().store.chunks_of(second.id) == []
    with app.app_context(), db.connection_context():
        first = Document.get_by_id(first.id)
    assert first.area_id == areas["Alpha"] and first.status == "done"
    assert SECRET in user_views(app, "alice", areas["Alpha"])["ask htmx"]
    bob = user_views(app, "bob", areas["Bravo"])
    assert not [name for name, text in bob.items() if SECRET in text]


def test_upgrade_from_the_flat_identity_lets_two_areas_hold_one_path(app):
    from peewee import IntegrityError

    from irisrag.models.schema import MIGRATIONS, SchemaVersion, upgrade

    with app.app_context(), db.connection_context():  # a database as version 1 left it
        db.execute_sql("DROP INDEX document_area_id_directory_name")
        db.execute_sql("CREATE UNIQUE INDEX document_directory_name ON document (directory, name)")
        SchemaVersion.delete().where(SchemaVersion.version > 1).execute()
        assert upgrade() == (1, MIGRATIONS[-1][0])
        alpha, bravo = (admin_service.create_named(Area, name) for name in ("Alpha", "Bravo"))
        Document.create(area=alpha, directory="/srv/docs", name="report.md")
        Document.create(area=bravo, directory="/srv/docs", name="report.md")
        with pytest.raises(IntegrityError), db.atomic():
            Document.create(area=alpha, directory="/srv/docs", name="report.md")


def test_upload_finds_its_areas_document_staged_flat_by_an_older_version(app):
    with app.app_context(), db.connection_context():
        alpha, _bravo = (admin_service.create_named(Area, name) for name in ("Alpha", "Bravo"))
        flat = documents.upload_root() / "upload"
        flat.mkdir(parents=True)
        (flat / "report.md").write_text(A_TEXT)
        old = Document.create(area=alpha, directory=str(flat), name="report.md", status="done")
        other = documents.import_upload("Bravo", "report.md", B_TEXT.encode())
        again = documents.import_upload("Alpha", "report.md", b"# Neu\n\nNeuer Text.")
        components.get().queue.empty()
        assert other.id != old.id and other.area_id == _bravo.id
        assert again.id == old.id and again.area_id == alpha.id
        assert Path(again.directory) == flat / str(alpha.id) and not (flat / "report.md").exists()
        assert (Path(other.directory) / "report.md").read_text() == B_TEXT
        assert (Path(again.directory) / "report.md").read_text() == "# Neu\n\nNeuer Text."
