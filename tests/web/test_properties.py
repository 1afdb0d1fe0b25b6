"""Property-based tests: no input reaches a 500, on any route, on SQLite and PostgreSQL.

* Every route of ``app.url_map`` (pages, admin actions, the API) with generated path values
  (ids beyond a BIGINT, "²", "٣", text) and generated query or form fields, whose names are
  read from the templates and the views, with values that broke things before: huge numbers,
  "²", NUL bytes, any text (Hypothesis).
* Every operation of the OpenAPI document the app serves (``/api/v1/openapi.json``), called
  with cases Schemathesis generates from it, with a valid admin key; the answers must be
  documented statuses.

Bounded (a few hundred requests per database, no deadline: about 1.5 minutes on 2 loaded cores)
to keep the suite's run time; a failure prints the falsifying example to replay.
"""
from __future__ import annotations

import os
import re
import socket
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from irisrag.extensions import db
from irisrag.services.admin import admin as admin_service
from irisrag.services.admin import api_keys
from tests.conftest import csrf_token, login, make_app
from tests.services import PASSWORD, seed_library

ROOT = Path(__file__).resolve().parents[2]
# IRISRAG_TEST_PROPERTY_SCALE=10 searches ten times longer (a deeper local run than the suite's).
SCALE = float(os.environ.get("IRISRAG_TEST_PROPERTY_SCALE", "1"))
ROUTE_EXAMPLES = int(200 * SCALE)
API_EXAMPLES = int(20 * SCALE)  # per operation (8 operations)
# Ending the sessions under test would only test the login page from then on.
SKIPPED = {"static", "auth.logout", "auth.admin_logout"}
CONVERTER = re.compile(r"<(?:(\w+)(?:\([^)]*\))?:)?(\w+)>")
FIELD_IN_VIEW = re.compile(r"\b(?:get|getlist|int_field|id_field|id_fields)\((?:[\w.]+, )?\"(\w+)\"")
FIELD_IN_TEMPLATE = re.compile(r'name="(\w+)"')
SETTINGS = dict(deadline=None, database=None, suppress_health_check=list(HealthCheck),
                phases=[Phase.explicit, Phase.generate])


def field_names() -> list[str]:
    """Return every form or query field name the templates send and the views read."""
    names = {"page", "chunk", "limit", "offset"}
    for path in (ROOT / "templates").rglob("*.html"):
        names |= set(FIELD_IN_TEMPLATE.findall(path.read_text()))
    for path in (ROOT / "irisrag" / "web").glob("*.py"):
        names |= set(FIELD_IN_VIEW.findall(path.read_text()))
    return sorted(names - {"csrf_token", "viewport"})


NASTY = st.sampled_from(["²", "٣", "0", "-1", "", "\x00", "a\x00b", str(2**63), str(2**64), "9" * 40, "1", "2",
                         "on", "true", "delete", "move", "rebuild", "unlink", "desc", "name", "running"])
NUMBERS = st.integers(min_value=-(2**70), max_value=2**70).map(str)
VALUES = st.one_of(NASTY, NUMBERS, st.text(max_size=30))
PATH_VALUES = st.one_of(st.sampled_from(["²", "٣", "0", str(2**63), str(2**64), "9" * 25, "users", "x"]),
                        st.integers(min_value=2**63, max_value=2**80).map(str),
                        st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="/?#"),
                                min_size=1, max_size=20))


@pytest.fixture
def fuzz_app(tmp_path, any_database_url, redis_url, monkeypatch):
    real = socket.getaddrinfo

    def no_dns(host, *args, **kwargs):  # generated URLs must not reach the network: names do not resolve
        if host in ("127.0.0.1", "::1", "localhost"):  # Redis, PostgreSQL
            return real(host, *args, **kwargs)
        raise socket.gaierror(socket.EAI_NONAME, "no DNS in this test")

    monkeypatch.setattr(socket, "getaddrinfo", no_dns)
    app = make_app(tmp_path, any_database_url, redis_url)
    seed_library(app)
    with app.app_context(), db.connection_context():
        admin_service.create_user("root", "rootpassword", is_admin=True)
        admin_service.link_user("root", "team-a")
        key = api_keys.create_key("root").plain
    yield app, key
    if not db.is_closed():
        db.close()


def _signed_in(app):
    client = app.test_client()
    assert login(client, "root", "rootpassword", admin=True).status_code == 302
    assert login(client, "alice", PASSWORD).status_code == 302
    return client


def _routes(app) -> list[tuple[str, object]]:
    return sorted(((method, rule) for rule in app.url_map.iter_rules() if rule.endpoint not in SKIPPED
                   for method in rule.methods - {"HEAD", "OPTIONS"}), key=lambda r: (r[1].rule, r[0]))


def test_properties_no_route_answers_500_to_any_path_query_or_form(fuzz_app):
    app, key = fuzz_app
    client, routes, names = _signed_in(app), _routes(app), field_names()
    assert len(routes) >= 60 and {"page", "areas", "ids", "question", "username"} <= set(names)
    headers = {"X-CSRFToken": csrf_token(client, "/admin"), "X-API-Key": key}

    @settings(max_examples=ROUTE_EXAMPLES, **SETTINGS)
    @given(route=st.sampled_from(routes), data=st.data(),
           fields=st.dictionaries(st.sampled_from(names), st.lists(VALUES, min_size=1, max_size=3), max_size=5),
           htmx=st.booleans())
    def check(route, data, fields, htmx):
        method, rule = route
        path = CONVERTER.sub(lambda m: data.draw(PATH_VALUES) if m.group(1) in ("int", "id") else
                             data.draw(st.sampled_from(["x", "users", "documents", "²", "0"])), rule.rule)
        sent = {"query_string": fields} if method == "GET" else {"data": fields}
        response = client.open(path, method=method, headers={**headers, **({"HX-Request": "true"} if htmx else {})},
                               **sent)
        response.get_data()  # a stream runs to its end
        assert response.status_code < 500, (method, path, fields, response.status_code)

    check()


def test_properties_nul_in_every_field_of_every_route_is_bad_input(fuzz_app):
    """A sweep rather than a search: a NUL in one field of a few hundred is rarely drawn at random."""
    app, key = fuzz_app
    client, names = _signed_in(app), field_names()
    headers = {"X-CSRFToken": csrf_token(client, "/admin"), "X-API-Key": key}
    answers = {}
    for method, rule in _routes(app):
        path = CONVERTER.sub("1", rule.rule)
        for value in ("a\x00b", "\x00"):
            fields = dict.fromkeys(names, value)
            sent = {"query_string": fields} if method == "GET" else {"data": fields}
            response = client.open(path, method=method, headers=headers, **sent)
            response.get_data()
            answers[(method, path, repr(value))] = response.status_code
            if response.status_code == 400 and not rule.endpoint.startswith(("api.", "ops.")):
                assert "NUL" in response.get_data(as_text=True), (method, path)
        json = app.test_client().open(path, method=method, headers=headers,
                                      json={"question": "a\x00b", "url": "http://x\x00", "area": "\x00"})
        answers[(method, path, "json")] = json.status_code
    assert {k: v for k, v in answers.items() if v >= 500} == {}


def test_properties_every_api_operation_keeps_to_its_openapi_document(fuzz_app):
    from schemathesis.checks import not_a_server_error
    from schemathesis.specs.openapi.checks import status_code_conformance

    app, key = fuzz_app
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 8

    for operation in operations:
        @settings(max_examples=API_EXAMPLES, **SETTINGS)
        @given(case=operation.as_strategy())
        def check(case):
            response = case.call(headers={"X-API-Key": key})
            case.validate_response(response, checks=(not_a_server_error, status_code_conformance))

        check()
