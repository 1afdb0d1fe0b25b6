"""Admin console tabs 1-4 through HTMX posts, as the browser sends them."""
from irisrag.extensions import db
from irisrag.models import Area, Document, Group, User, UserGroup
from tests.conftest import post


def _body(resp) -> str:
    return resp.get_data(as_text=True)


def test_admin_console_shows_five_tabs(admin_client):
    html = _body(admin_client.get("/admin"))
    for label in ("Users", "Groups", "Areas", "Links", "RAG documents"):
        assert label in html
    fragment = admin_client.get("/admin/tab/groups", headers={"HX-Request": "true"})
    assert "<html" not in _body(fragment) and "New group" in _body(fragment)
    assert admin_client.get("/admin/tab/nonsense").status_code == 404


def test_admin_create_user_group_area_and_link(admin_client, app):
    assert post(admin_client, "/admin/users", {"username": "alice", "password": "alicepassword"}).status_code == 200
    assert post(admin_client, "/admin/groups", {"name": "Sales"}).status_code == 200
    resp = post(admin_client, "/admin/areas", {"name": "Handbook", "description": "<b>bold</b>"})
    assert "Area created." in _body(resp)
    assert "&lt;b&gt;bold&lt;/b&gt;" in _body(resp)  # escaped output
    with app.app_context(), db.connection_context():
        user, group, area = User.get(username="alice"), Group.get(name="Sales"), Area.get(name="Handbook")
    post(admin_client, "/admin/links/user", {"user": user.id, "group": group.id})
    resp = post(admin_client, "/admin/links/area", {"area": area.id, "group": group.id})
    assert "Handbook → Sales" in _body(resp) and "alice → Sales" in _body(resp)
    resp = post(admin_client, "/admin/links/user", {"user": user.id, "group": group.id, "op": "unlink"})
    assert "alice → Sales" not in _body(resp)
    with app.app_context(), db.connection_context():
        assert UserGroup.select().count() == 0


def test_admin_validation_error_is_shown_next_to_the_field(admin_client):
    resp = post(admin_client, "/admin/users", {"username": "bob", "password": "short"})
    assert resp.status_code == 400
    html = _body(resp)
    assert 'id="new-user-password-error"' in html and "at least 8 characters" in html
    assert 'value="bob"' in html  # nothing typed is lost


def test_admin_duplicate_name_is_a_clear_409_not_a_500(admin_client):
    post(admin_client, "/admin/groups", {"name": "Sales"})
    resp = post(admin_client, "/admin/groups", {"name": "sales"})
    assert resp.status_code == 409
    assert "already exists" in _body(resp) and 'id="new-group-name-error"' in _body(resp)
    resp = post(admin_client, "/admin/users", {"username": "root", "password": "longpassword"})
    assert resp.status_code == 409 and "already exists" in _body(resp)


def test_admin_rename_and_delete(admin_client, app):
    post(admin_client, "/admin/areas", {"name": "Old"})
    with app.app_context(), db.connection_context():
        area = Area.get(name="Old")
    resp = post(admin_client, f"/admin/areas/{area.id}", {"name": "New", "description": "d"})
    assert 'value="New"' in _body(resp)
    resp = post(admin_client, f"/admin/areas/{area.id}/delete")
    assert "Area deleted." in _body(resp)
    with app.app_context(), db.connection_context():
        assert Area.select().count() == 0


def test_admin_delete_area_with_documents_is_refused(admin_client, app):
    post(admin_client, "/admin/areas", {"name": "Docs"})
    with app.app_context(), db.connection_context():
        area = Area.get(name="Docs")
        Document.create(area=area, name="a.pdf", directory="/x")
    resp = post(admin_client, f"/admin/areas/{area.id}/delete")
    assert resp.status_code == 409 and "still has 1 document" in _body(resp)
    with app.app_context(), db.connection_context():
        assert Area.get_or_none(Area.id == area.id) is not None


def test_admin_user_password_activation_and_delete(admin_client, app, make_user, client):
    from tests.conftest import login

    alice = make_user("alice", "alicepassword")
    resp = post(admin_client, f"/admin/users/{alice.id}/password", {"password": "new-password-1"})
    assert "Password changed." in _body(resp)
    assert login(client, "alice", "new-password-1").status_code == 302
    post(admin_client, f"/admin/users/{alice.id}/active", {"active": "0"})
    assert client.get("/").status_code == 302  # deactivation ends the session
    resp = post(admin_client, f"/admin/users/{alice.id}/delete")
    assert "User deleted." in _body(resp)
    with app.app_context(), db.connection_context():
        root = User.get(username="root")
    resp = post(admin_client, f"/admin/users/{root.id}/delete")
    assert resp.status_code == 409 and "cannot delete the account you are logged in with" in _body(resp)


def test_admin_without_htmx_redirects_after_post(admin_client):
    resp = post(admin_client, "/admin/groups", {"name": "Plain"}, htmx=False)
    assert resp.status_code == 302 and resp.headers["Location"] == "/admin?tab=groups"
