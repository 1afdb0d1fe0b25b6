"""Input that used to reach a 500: ids beyond a BIGINT, "²" as a number, NUL bytes on PostgreSQL.

Each test runs on SQLite and PostgreSQL (``any_database_url``): SQLite raised
``OverflowError`` for integers above 2**63 - 1, PostgreSQL refused NUL in text.
"""
from __future__ import annotations

import re

import pytest

from irisrag.extensions import db
from irisrag.services.admin import api_keys
from tests.conftest import csrf_token, login, make_app
from tests.services import PASSWORD, seed_library

HUGE = [str(2**63), str(2**64 + 7), "9" * 19]
ID_ARG = re.compile(r"<(?:id|int):(\w+)>")


@pytest.fixture
def bounds_app(tmp_path, any_database_url, redis_url):
    app = make_app(tmp_path, any_database_url, redis_url)
    yield app
    if not db.is_closed():
        db.close()


@pytest.fixture
def library(bounds_app):
    return seed_library(bounds_app)


@pytest.fixture
def both_worlds(bounds_app, library):
    """One client logged in as an admin (console) and as alice (the user pages)."""
    from irisrag.services.admin import admin as admin_service

    with bounds_app.app_context(), db.connection_context():
        admin_service.create_user("root", "rootpassword", is_admin=True)
    client = bounds_app.test_client()
    assert login(client, "root", "rootpassword", admin=True).status_code == 302
    assert login(client, "alice", PASSWORD).status_code == 302
    return client


@pytest.fixture
def api_key(bounds_app, library):
    from irisrag.services.admin import admin as admin_service

    with bounds_app.app_context(), db.connection_context():
        admin_service.create_user("robot", "robotpassword", is_admin=True)
        admin_service.link_user("robot", "team-a")
        return api_keys.create_key("robot").plain


def _id_routes(app) -> list[tuple[str, str]]:
    """Return (method, rule) of every route with an id in its path."""
    routes = []
    for rule in app.url_map.iter_rules():
        if ID_ARG.search(rule.rule):
            routes += [(m, rule.rule) for m in sorted(rule.methods - {"HEAD", "OPTIONS"})]
    return routes


def test_every_id_route_answers_404_for_ids_beyond_a_bigint(bounds_app, both_worlds, api_key):
    routes = _id_routes(bounds_app)
    assert len(routes) >= 25  # every id route: web pages, admin actions, the API
    token = csrf_token(both_worlds, "/admin")
    headers = {"X-CSRFToken": token, "HX-Request": "true", "X-API-Key": api_key}
    answers = {}
    for method, rule in routes:
        for value in HUGE:
            path = ID_ARG.sub(value, rule)
            answers[(method, path)] = both_worlds.open(path, method=method, headers=headers).status_code
    assert {k: v for k, v in answers.items() if v != 404} == {}


def test_page_and_offset_beyond_a_bigint_are_not_errors(both_worlds, api_key):
    assert both_worlds.get(f"/c?page={2**64}").status_code == 200
    assert both_worlds.get(f"/c?page={2**62}").status_code == 200
    assert both_worlds.get(f"/admin/?tab=documents&page={2**62}&area={2**64}").status_code == 200
    for arg in (f"offset={2**64}", "limit=²", "offset=²", f"limit={2**64}"):
        response = both_worlds.get(f"/api/v1/documents?{arg}", headers={"X-API-Key": api_key})
        assert response.status_code == 400, arg
        assert response.get_json()["error"]["code"] == "invalid"


def test_api_area_written_as_superscript_or_huge_digits_is_an_area_it_does_not_reach(both_worlds, api_key):
    for area in ("²", str(2**64)):
        response = both_worlds.get(f"/api/v1/documents?area={area}", headers={"X-API-Key": api_key})
        assert response.status_code == 403, area
        response = both_worlds.post("/api/v1/documents", json={"area": area, "url": "https://example.org/"},
                                    headers={"X-API-Key": api_key})
        assert response.status_code == 403, area


@pytest.mark.parametrize("path", ["/ask", "/ask/stream"])
def test_an_area_written_as_superscript_two_is_ignored_when_asking(both_worlds, library, path):
    token = csrf_token(both_worlds, "/")
    for areas in (["²"], [str(2**64)], ["²", str(library.alpha)]):
        response = both_worlds.post(path, data={"question": "Wie wird OpenTelemetry konfiguriert?", "areas": areas},
                                    headers={"X-CSRFToken": token, "HX-Request": "true"})
        assert response.status_code == 200, areas
        response.get_data()  # a stream runs to its end


def test_admin_forms_take_ids_beyond_a_bigint_as_not_chosen(both_worlds):
    token = {"X-CSRFToken": csrf_token(both_worlds, "/admin"), "HX-Request": "true"}
    big = str(2**64)
    cases = [
        ("/admin/documents/urls", {"area": big, "urls": "https://example.org/"}, "Please choose an area."),
        ("/admin/documents/path", {"area": "²", "path": "a.txt"}, "Please choose an area."),
        ("/admin/links/user", {"user": big, "group": "1"}, "Please choose both sides of the link."),
        ("/admin/api-keys", {"user": big}, "Please choose a user."),
        ("/admin/documents/bulk", {"ids": ["²", big, "0"], "action": "delete"}, "Please select at least one document."),
    ]
    for path, data, message in cases:
        response = both_worlds.post(path, data=data, headers=token)
        assert response.status_code == 400, path
        assert message in response.get_data(as_text=True), path
    response = both_worlds.post("/admin/documents/bulk", data={"ids": ["1"], "action": "move", "target": big},
                                headers=token)
    assert response.status_code < 500
    for query in (f"ids={big},²,1", f"area={big}"):
        assert both_worlds.get(f"/admin/documents/progress?{query}", headers=token).status_code == 200
    assert both_worlds.get(f"/admin/documents/coverage?area={big}", headers=token).status_code == 200
    assert both_worlds.get(f"/admin/inspector?question=x&user={big}&document={big}&areas=²").status_code < 500


def test_a_viewer_chunk_beyond_a_bigint_is_no_chunk(both_worlds, library):
    response = both_worlds.get(f"/documents/{library.alpha_policy}?chunk={2**64}")
    assert response.status_code == 200


NUL_MESSAGE = "The input contains a NUL character, which is not allowed."


def test_nul_in_a_login_name_is_refused_as_input(bounds_app):
    client = bounds_app.test_client()
    for path in ("/login", "/admin/login"):
        response = client.post(path, data={"username": "ali\x00ce", "password": "x" * 10,
                                           "csrf_token": csrf_token(client, path)})
        assert response.status_code == 400, path
        assert NUL_MESSAGE in response.get_data(as_text=True)


def test_nul_in_a_question_or_a_search_is_refused_as_input(both_worlds, api_key):
    token = {"X-CSRFToken": csrf_token(both_worlds, "/"), "HX-Request": "true"}
    for path in ("/ask", "/ask/stream"):
        response = both_worlds.post(path, data={"question": "Wie\x00 geht das?"}, headers=token)
        assert response.status_code == 400, path
        assert NUL_MESSAGE in response.get_data(as_text=True)
    assert both_worlds.get("/c?q=a%00b").status_code == 400
    assert both_worlds.get("/admin/?tab=documents&q=a%00b").status_code == 400
    for path, body in (("/api/v1/retrieve", {"question": "Wie\x00?"}), ("/api/v1/answer", {"question": "x\x00"}),
                       ("/api/v1/documents", {"area": "Alpha", "url": "https://exa\x00mple.org/"})):
        response = both_worlds.post(path, json=body, headers={"X-API-Key": api_key})
        assert response.status_code == 400, path
        assert response.get_json()["error"] == {"code": "invalid", "message": NUL_MESSAGE, "field": "json"}
    response = both_worlds.get("/api/v1/documents?status=do%00ne", headers={"X-API-Key": api_key})
    assert response.status_code == 400


def test_nul_in_the_api_is_checked_only_after_the_key(both_worlds):
    response = both_worlds.post("/api/v1/retrieve", json={"question": "x\x00"})
    assert response.status_code == 401


def test_a_multipart_part_without_a_name_is_no_error(both_worlds, api_key):
    """Werkzeug gives such a part the name None (Schemathesis found it in the NUL check)."""
    body = (b'--b\r\nContent-Disposition: form-data\r\n\r\nx\x00y\r\n'
            b'--b\r\nContent-Disposition: form-data; name="area"\r\n\r\nAlpha\r\n--b--\r\n')
    response = both_worlds.post("/api/v1/documents", data=body, content_type="multipart/form-data; boundary=b",
                                headers={"X-API-Key": api_key})
    assert response.status_code == 400 and response.get_json()["error"]["code"] == "invalid"
    response = both_worlds.post("/admin/documents/urls", data=body, content_type="multipart/form-data; boundary=b",
                                headers={"X-CSRFToken": csrf_token(both_worlds, "/admin")})
    assert response.status_code == 400


@pytest.mark.parametrize("args", [["rag", "cancel", str(2**64)], ["rag", "delete-document", str(2**63)],
                                  ["rag", "rebuild", "99999999999999999999"], ["rag", "cancel", "0"]])
def test_cli_ids_beyond_a_bigint_are_usage_errors(bounds_app, args):
    result = bounds_app.test_cli_runner().invoke(args=args)
    assert result.exit_code == 2 and "is not in the range" in result.output, result.output
    assert not isinstance(result.exception, OverflowError)


def test_a_job_id_rq_would_refuse_is_404(both_worlds):
    """RQ raised ValueError for "²" (found by the property test): the route takes RQ's job id characters only."""
    token = {"X-CSRFToken": csrf_token(both_worlds, "/admin"), "HX-Request": "true"}
    for job_id in ("²", "a%20b", "x.y", "ä"):
        assert both_worlds.post(f"/admin/system/failed/{job_id}/requeue", headers=token).status_code == 404, job_id
    assert both_worlds.post("/admin/system/failed/import-doc-1/requeue", headers=token).status_code == 404
