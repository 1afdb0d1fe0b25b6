"""Admin safety: nobody locks themself out, the last active admin stays, the System page drops dead failed jobs."""
from __future__ import annotations

from pathlib import Path

import pytest
from rq import SimpleWorker

from irisrag import components
from irisrag.extensions import db
from irisrag.jobs import queue as job_queue
from irisrag.models import Area, Document, User
from irisrag.services.admin import admin as admin_service
from irisrag.services.documents import documents
from irisrag.services.operations import system
from tests.conftest import csrf_token, login, post


def user(app, name: str) -> User:
    with app.app_context(), db.connection_context():
        return User.get(User.username == name)


@pytest.fixture
def root(app, make_user):
    make_user("root", "rootpassword", admin=True)
    make_user("second", "secondpassword", admin=True)
    client = app.test_client()
    assert login(client, "root", "rootpassword", admin=True).status_code == 302
    return client


def test_admin_cannot_deactivate_demote_or_delete_their_own_account(app, root):
    me = user(app, "root").id
    resp = post(root, f"/admin/users/{me}/active", {"active": "0"})
    assert "You cannot deactivate your own account." in resp.get_data(as_text=True)
    resp = post(root, f"/admin/users/{me}", {"username": "root"})  # admin box unticked
    assert "You cannot take the admin rights from your own account." in resp.get_data(as_text=True)
    resp = post(root, f"/admin/users/{me}/delete")
    assert "You cannot delete the account you are logged in with." in resp.get_data(as_text=True)
    row = user(app, "root")
    assert row.is_active and row.is_admin
    assert root.get("/admin").status_code == 200  # still logged in
    root.post("/language/de", data={"csrf_token": csrf_token(root, "/admin")})
    resp = post(root, f"/admin/users/{me}/active", {"active": "0"})
    assert "Sie können Ihr eigenes Konto nicht deaktivieren." in resp.get_data(as_text=True)
    second = user(app, "second").id  # another admin's account is still the admin's to change
    assert post(root, f"/admin/users/{second}/active", {"active": "0"}).status_code == 200
    assert not user(app, "second").is_active


def test_the_last_active_admin_cannot_be_removed_from_the_cli(app, root):
    runner = app.test_cli_runner()
    assert runner.invoke(args=["rag", "set-active", "second", "--inactive"]).exit_code == 0
    for args in (["set-active", "root", "--inactive"], ["set-admin", "root", "--no-admin"],
                 ["delete-user", "root", "--yes"]):
        result = runner.invoke(args=["rag", *args])
        assert result.exit_code == 1 and "“root” is the last active admin" in result.output, (args, result.output)
    row = user(app, "root")
    assert row.is_active and row.is_admin
    assert runner.invoke(args=["rag", "set-active", "second"]).exit_code == 0  # another active admin again ...
    result = runner.invoke(args=["rag", "set-admin", "root", "--no-admin"])
    assert result.exit_code == 0 and not user(app, "root").is_admin  # ... so root may be demoted


def failed_imports(app, names: list[str]) -> dict[str, tuple[int, str]]:
    """Upload files without text, run their jobs in this process; return name -> (document id, failed job id)."""
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, "Handbook")
        ids = {name: documents.import_upload("Handbook", name, b"   ").id for name in names}
        queue = components.get().queue
        SimpleWorker([queue], connection=queue.connection).work(burst=True)
        jobs = {system._document_id(job_queue.fetch(j)): j for j in queue.failed_job_registry.get_job_ids()}
    return {name: (doc_id, jobs[doc_id]) for name, doc_id in ids.items()}


def test_failed_jobs_of_deleted_or_since_imported_documents_leave_the_system_page(app, root):
    failed = failed_imports(app, ["gone.md", "fixed.md", "still.md"])
    html = root.get("/admin/system").get_data(as_text=True)
    assert all(name in html for name in failed)
    with app.app_context(), db.connection_context():
        documents.delete_document(failed["gone.md"][0])
        doc = Document.get_by_id(failed["fixed.md"][0])
        (Path(doc.directory) / doc.name).write_text("Jetzt mit Text über OpenTelemetry.")
        from irisrag.jobs.documents import import_document

        assert Document.mark_queued(doc.id)  # as a Retry marks it
        import_document(doc.id, use_lock=False)
        assert Document.get_by_id(doc.id).status == "done"
    html = root.get("/admin/system").get_data(as_text=True)
    assert "still.md" in html and "gone.md" not in html and "fixed.md" not in html
    with app.app_context():
        registry = components.get().queue.failed_job_registry
        assert registry.get_job_ids() == [failed["still.md"][1]]  # cleared from Redis, not only hidden


def test_requeueing_the_failed_job_of_a_deleted_document_says_it_cannot_run(app, root):
    failed = failed_imports(app, ["gone.md"])
    doc_id, job_id = failed["gone.md"]
    with app.app_context(), db.connection_context():
        documents.delete_document(doc_id)
    # The admin's System page was open from before the delete (the token comes from another page here,
    # because showing the System page clears such jobs by itself).
    resp = post(root, f"/admin/system/failed/{job_id}/requeue", page="/admin")
    html = resp.get_data(as_text=True)
    assert resp.status_code == 404 and "its document (id" in html and "was deleted" in html
    assert "Requeued" not in html
    with app.app_context():
        queue = components.get().queue
        assert queue.count == 0 and queue.failed_job_registry.count == 0
