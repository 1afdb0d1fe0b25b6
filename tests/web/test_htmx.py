"""HX-* handling through flask-htmx: full page or fragment, and the response headers htmx acts on."""
from __future__ import annotations

from irisrag.web import htmx as htmx_module


def test_htmx_fragment_only_for_an_htmx_request_that_is_not_a_history_restore(admin_client):
    full = admin_client.get("/admin/tab/groups")
    fragment = admin_client.get("/admin/tab/groups", headers={"HX-Request": "true"})
    restore = admin_client.get("/admin/tab/groups",
                               headers={"HX-Request": "true", "HX-History-Restore-Request": "true"})
    assert "<html" in full.get_data(as_text=True) and "<html" in restore.get_data(as_text=True)
    assert "<html" not in fragment.get_data(as_text=True)
    assert all("HX-Request" in r.headers["Vary"] for r in (full, fragment, restore))


def test_htmx_the_extension_is_the_one_the_app_uses(app):
    assert app.htmx is htmx_module.htmx  # flask-htmx's init_app: the templates see the same object


def test_htmx_client_redirect_of_an_ended_session_keeps_the_location(app):
    with app.test_request_context("/", headers={"HX-Request": "true"}):
        response = htmx_module.client_redirect("/login?expired=1", 401)
        assert response.status_code == 401
        assert response.headers["HX-Redirect"] == response.headers["Location"] == "/login?expired=1"
        plain = htmx_module.client_redirect("/", 204)
        assert plain.headers["HX-Redirect"] == "/" and "Location" not in plain.headers


def test_htmx_respond_passes_flask_htmx_keywords_as_headers(app):
    with app.test_request_context("/"):
        response = htmx_module.respond("x", 200, trigger="conversations-changed", push_url="/c/1")
        assert response.headers["HX-Trigger"] == "conversations-changed"
        assert response.headers["HX-Push-Url"] == "/c/1" and "HX-Request" in response.headers["Vary"]
