"""Documents tab with many documents (issue 19): pages, search, filters, sorting, bulk actions, moving areas."""
from __future__ import annotations

import datetime
import re
from html import unescape
from pathlib import Path

import pytest

from irisrag import components
from irisrag.extensions import db
from irisrag.models import Area, Document
from irisrag.models.base import utcnow
from irisrag.services.admin import admin as admin_service
from tests.conftest import login, post
from tests.services import BETA_SECRET, PASSWORD, QUESTION, seed_library
from tests.web.test_dashboard import ask

HX = {"HX-Request": "true"}


def _body(resp) -> str:
    return resp.get_data(as_text=True)


def _names(html: str) -> list[str]:
    return re.findall(r'<td class="file">([^<]+)', html)


@pytest.fixture
def many(app):
    """Two areas; 120 documents in Handbuch (every tenth failed, the last three running), 5 in Web."""
    with app.app_context(), db.connection_context():
        handbook = admin_service.create_named(Area, "Handbuch")
        web = admin_service.create_named(Area, "Web")
        with db.atomic():
            for i in range(120):
                status = "failed" if i % 10 == 0 else ("embedding" if i >= 117 else "done")
                Document.create(area=handbook, name=f"kapitel-{i:03d}.md", directory="/srv/handbuch", kind="text",
                                status=status, original_path=f"/srv/handbuch/kapitel-{i:03d}.md", updated_at=utcnow())
            for i in range(5):
                Document.create(area=web, name=f"seite-{i}.html", directory="/nowhere", kind="html", status="done",
                                source_url=f"https://wiki.example.org/seite_{i}")
        return handbook.id, web.id


def test_admin_documents_list_pages_of_fifty(admin_client, many):
    first = _body(admin_client.get("/admin/tab/documents", headers=HX))
    assert len(_names(first)) == 50 and "Documents 1–50 of 125" in first
    assert 'href="/admin?tab=documents&amp;page=3"' in first
    last = _body(admin_client.get("/admin/tab/documents?page=3", headers=HX))
    assert len(_names(last)) == 25 and "Documents 101–125 of 125" in last
    beyond = _body(admin_client.get("/admin/tab/documents?page=999", headers=HX))
    assert _names(beyond) == _names(last)
    assert admin_client.get("/admin/tab/documents?page=-4&sort=x", headers=HX).status_code == 200


def test_admin_documents_search_finds_names_addresses_and_paths(admin_client, many):
    def found(text):
        return _names(_body(admin_client.get("/admin/tab/documents", query_string={"q": text}, headers=HX)))

    assert found("kapitel-042") == ["kapitel-042.md"]
    assert found("WIKI.example.org/seite_3") == ["seite-3.html"]  # the address, any case
    assert found("/srv/handbuch/kapitel-11") == [f"kapitel-{i}.md" for i in range(119, 109, -1)]
    assert found("%") == [] and found("seite_") == [f"seite-{i}.html" for i in range(4, -1, -1)]  # no wildcards


def test_admin_documents_filter_by_area_and_status(admin_client, many):
    handbook, web = many
    html = _body(admin_client.get(f"/admin/tab/documents?area={web}", headers=HX))
    assert _names(html) == [f"seite-{i}.html" for i in range(4, -1, -1)]
    failed = _names(_body(admin_client.get(f"/admin/tab/documents?area={handbook}&status=failed", headers=HX)))
    assert failed == [f"kapitel-{i:03d}.md" for i in range(110, -1, -10)]
    running = _names(_body(admin_client.get("/admin/tab/documents?status=running", headers=HX)))
    assert running == ["kapitel-119.md", "kapitel-118.md", "kapitel-117.md"]
    unknown = _body(admin_client.get("/admin/tab/documents?status=drop%20table", headers=HX))
    assert "Documents 1–50 of 125" in unknown  # not on the whitelist: no filter


def test_admin_documents_sort_by_name_date_and_status(admin_client, many):
    by_name = _names(_body(admin_client.get("/admin/tab/documents?sort=name&q=kapitel-00", headers=HX)))
    assert by_name == [f"kapitel-00{i}.md" for i in range(10)]
    desc = _names(_body(admin_client.get("/admin/tab/documents?sort=name&dir=desc&q=kapitel-00", headers=HX)))
    assert desc == by_name[::-1]
    statuses = re.findall(r'data-status="(\w+)"', _body(admin_client.get(
        "/admin/tab/documents?sort=status&q=kapitel-11", headers=HX)))
    assert statuses == sorted(statuses)
    injected = admin_client.get("/admin/tab/documents?sort=name;DROP TABLE document", headers=HX)
    assert injected.status_code == 200 and "Documents 1–50 of 125" in _body(injected)


def test_admin_documents_sort_by_date_follows_the_import_date_shown(admin_client, app, many):
    with app.app_context(), db.connection_context():
        stamp = datetime.datetime(2020, 1, 1)
        for i, name in enumerate(["kapitel-003.md", "kapitel-001.md", "kapitel-002.md"]):  # imported long ago
            Document.update(imported_at=stamp + datetime.timedelta(days=i)).where(Document.name == name).execute()
    oldest = _names(_body(admin_client.get("/admin/tab/documents?sort=date&dir=asc&q=kapitel-00", headers=HX)))
    assert oldest[:3] == ["kapitel-003.md", "kapitel-001.md", "kapitel-002.md"]


def test_admin_documents_bulk_rebuild_queues_the_idle_and_names_the_refused(admin_client, app, many):
    with app.app_context(), db.connection_context():
        picked = [d.id for d in Document.select().where(Document.name.in_(
            ["kapitel-001.md", "kapitel-010.md", "kapitel-118.md"]))]
    html = _body(post(admin_client, "/admin/documents/bulk", {"action": "rebuild", "ids": [str(i) for i in picked]}))
    assert "2 documents queued for a rebuild." in html and "1 document was refused." in html
    refused = html[html.index('id="bulk-outcomes"'):]  # next to the bulk bar
    assert "<strong>kapitel-118.md</strong>" in refused and "is being imported right now" in refused
    with app.app_context(), db.connection_context():
        assert {d.name: d.status for d in Document.select().where(Document.id.in_(picked))} == {
            "kapitel-001.md": "queued", "kapitel-010.md": "queued", "kapitel-118.md": "embedding"}


def test_admin_documents_bulk_delete_and_refusals_of_bad_input(admin_client, app, many):
    with app.app_context(), db.connection_context():
        picked = [d.id for d in Document.select().where(Document.name.startswith("seite-"))]
    html = _body(post(admin_client, "/admin/documents/bulk?area=2", {"action": "delete", "ids": [str(i) for i in picked]}))
    assert "5 documents deleted with their chunks." in html and "No documents match." in html
    nothing = post(admin_client, "/admin/documents/bulk", {"action": "delete"})
    assert nothing.status_code == 400 and "Please select at least one document." in _body(nothing)
    odd = post(admin_client, "/admin/documents/bulk", {"action": "explode", "ids": ["1"]})
    assert odd.status_code == 400 and "Please choose what to do" in _body(odd)
    no_target = post(admin_client, "/admin/documents/bulk", {"action": "move", "ids": ["1"]})
    assert no_target.status_code == 400 and "Please choose the area to move the documents to." in _body(no_target)
    forged = admin_client.post("/admin/documents/bulk", data={"action": "delete", "ids": ["1"]}, headers=HX)
    assert forged.status_code == 400  # no CSRF token
    with app.app_context(), db.connection_context():
        assert Document.select().count() == 120


def _chunk_areas(app, document_id: int) -> set[int]:
    with app.app_context():
        return {h.area_id for h in components.get().store.chunks_of(document_id)}


def test_admin_documents_bulk_move_relabels_chunks_and_access_follows_at_once(app, admin_client):
    library = seed_library(app)
    with app.app_context():
        before = components.get().store.version()
    html = _body(post(admin_client, "/admin/documents/bulk",
                      {"action": "move", "target": str(library.alpha), "ids": [str(library.beta_doc)]}))
    assert "1 document moved." in html
    assert _chunk_areas(app, library.beta_doc) == {library.alpha}
    with app.app_context(), db.connection_context():
        assert Document.get_by_id(library.beta_doc).area_id == library.alpha
        assert components.get().store.version() == before + 1  # one commit for the document's chunks
    bob, alice = app.test_client(), app.test_client()  # bob: area Beta only (the old one); alice: Alpha only
    assert login(bob, "bob", PASSWORD).status_code == 302 and login(alice, "alice", PASSWORD).status_code == 302
    assert BETA_SECRET not in ask(bob, QUESTION, [library.beta])
    assert BETA_SECRET in ask(alice, QUESTION, [library.alpha]) and "beta-secret.md" in ask(alice, QUESTION, [library.alpha])


def test_admin_documents_move_is_refused_while_importing_and_for_a_taken_name(app, admin_client):
    library = seed_library(app)
    with app.app_context(), db.connection_context():
        Document.update(status="chunking").where(Document.id == library.beta_doc).execute()
        twin = Document.create(area=library.beta, name="otel-guide.md", directory=f"area-{library.alpha}",
                               kind="text", status="done")
    html = _body(post(admin_client, "/admin/documents/bulk", {"action": "move", "target": str(library.alpha),
                                                             "ids": [str(library.beta_doc), str(twin.id)]}))
    assert "2 documents were refused." in html
    assert "is being imported right now" in html and "already has a document “otel-guide.md”" in html
    assert _chunk_areas(app, library.beta_doc) == {library.beta}
    with app.app_context(), db.connection_context():
        assert Document.get_by_id(twin.id).area_id == library.beta


def test_admin_areas_delete_with_documents_needs_the_typed_name(app, admin_client):
    library = seed_library(app)
    tab = _body(admin_client.get("/admin/tab/areas", headers=HX))
    assert "Delete with its 1 document…" in tab and f"/admin/areas/{library.beta}/delete-with-documents" in tab
    refused = post(admin_client, f"/admin/areas/{library.beta}/delete", {})
    assert refused.status_code == 409 and "still has 1 document" in _body(refused)
    wrong = post(admin_client, f"/admin/areas/{library.beta}/delete-with-documents", {"confirm": "beta"})
    assert wrong.status_code == 400 and "Type the area's name “Beta”" in unescape(_body(wrong))
    with app.app_context(), db.connection_context():
        assert Document.get_or_none(Document.id == library.beta_doc) is not None
    done = post(admin_client, f"/admin/areas/{library.beta}/delete-with-documents", {"confirm": "Beta"})
    assert done.status_code == 200 and "Area deleted with its documents." in _body(done)
    with app.app_context(), db.connection_context():
        assert Area.get_or_none(Area.id == library.beta) is None
        assert Document.get_or_none(Document.id == library.beta_doc) is None
    assert _chunk_areas(app, library.beta_doc) == set()
    assert _chunk_areas(app, library.alpha_doc) == {library.alpha}


def test_admin_documents_move_takes_the_staged_upload_along(app, admin_client):
    from io import BytesIO

    with app.app_context(), db.connection_context():
        old = admin_service.create_named(Area, "Alt")
        new = admin_service.create_named(Area, "Neu")
    post(admin_client, "/admin/documents/upload", {"area": str(old.id), "files": [(BytesIO(b"# Titel\n\nText"), "a.md")]})
    with app.app_context(), db.connection_context():
        doc = Document.get(Document.name == "a.md")
        Document.mark_cancelled(doc.id)
        staged = Path(doc.directory) / "a.md"
    assert staged.is_file() and staged.parent.name == str(old.id)
    html = _body(post(admin_client, "/admin/documents/bulk", {"action": "move", "target": str(new.id), "ids": [str(doc.id)]}))
    assert "1 document moved." in html
    with app.app_context(), db.connection_context():
        moved = Document.get_by_id(doc.id)
    assert Path(moved.directory).name == str(new.id) and (Path(moved.directory) / "a.md").is_file()
    assert not staged.exists()


def test_admin_documents_bulk_result_is_next_to_the_bar_and_the_selection_stays(admin_client, app, many):
    with app.app_context(), db.connection_context():
        picked = [d.id for d in Document.select().where(Document.name.in_(["kapitel-001.md", "kapitel-002.md"]))]
    html = _body(post(admin_client, "/admin/documents/bulk?q=kapitel-00", {"action": "rebuild",
                                                                          "ids": [str(i) for i in picked]}))
    bar_end = html.index("</form>", html.index('id="bulk-form"'))
    result = html.index('id="bulk-result"')
    assert bar_end < result < html.index('id="doc-count"')  # between the bar and the list
    assert html.index("2 documents queued for a rebuild.") > result and 'id="message"' not in html
    for ident in picked:
        assert f'id="pick-{ident}" checked' in html
    nothing = _body(post(admin_client, "/admin/documents/bulk", {"action": "delete"}))
    assert nothing.index('id="bulk-result"') < nothing.index("Please select at least one document.")
