"""The JSON API under /api/v1: keys, areas never beyond the key's user, errors, imports, OpenAPI."""
from __future__ import annotations

import io
import json
import re

import pytest

from irisrag.extensions import db
from irisrag.llm.clients import FakeLLM
from irisrag.models import Document
from irisrag.services.admin import admin as admin_service
from irisrag.services.admin import api_keys
from tests.conftest import free_port, login, make_app
from tests.services import BETA_SECRET, PASSWORD, QUESTION, seed_library


@pytest.fixture
def library(app):
    return seed_library(app)


def make_key(app, user: str, **kwargs) -> str:
    with app.app_context(), db.connection_context():
        return api_keys.create_key(user, **kwargs).plain


def headers(key: str) -> dict[str, str]:
    return {"X-API-Key": key}


def error_code(resp) -> str:
    return resp.get_json()["error"]["code"]


def in_app(app, call):
    with app.app_context(), db.connection_context():
        return call()


def ask_all(client, key: str, areas=None) -> list:
    """Call every endpoint that returns content; return the responses."""
    body = {"question": QUESTION} if areas is None else {"question": QUESTION, "areas": areas}
    return [client.post("/api/v1/retrieve", json=body, headers=headers(key)),
            client.post("/api/v1/answer", json=body, headers=headers(key)),
            client.get("/api/v1/documents", headers=headers(key)),
            client.get("/api/v1/areas", headers=headers(key))]


# --- authentication --------------------------------------------------------------

def test_api_no_wrong_or_revoked_key_is_401(client, app, library):
    key = make_key(app, "alice")
    wrong = key[:-2] + "xx"
    in_app(app, lambda: api_keys.revoke_key(key))
    requests = [("get", "/api/v1/areas"), ("get", "/api/v1/documents"), ("post", "/api/v1/retrieve"),
                ("post", "/api/v1/answer"), ("post", "/api/v1/documents"), ("get", f"/api/v1/documents/{library.alpha_doc}")]
    for method, path in requests:
        for sent in ({}, headers(wrong), headers(key), headers("Bearer nonsense")):
            resp = getattr(client, method)(path, json={"question": QUESTION}, headers=sent)
            assert resp.status_code == 401, (path, sent)
            assert error_code(resp) == "unauthorized"
            assert "WWW-Authenticate" in resp.headers


def test_api_deactivated_users_key_is_401(client, app, library):
    key = make_key(app, "alice")
    assert client.get("/api/v1/areas", headers=headers(key)).status_code == 200
    in_app(app, lambda: admin_service.set_active(library.users["alice"], False))
    resp = client.get("/api/v1/areas", headers=headers(key))
    assert resp.status_code == 401 and error_code(resp) == "unauthorized"


def test_api_session_cookie_alone_is_401_and_keys_need_no_csrf(client, app, library):
    assert login(client, "alice", PASSWORD).status_code == 302
    assert client.get("/dashboard").status_code == 200  # the cookie session works on the web
    for resp in (client.get("/api/v1/areas"), client.post("/api/v1/retrieve", json={"question": QUESTION})):
        assert resp.status_code == 401 and error_code(resp) == "unauthorized"
    key = make_key(app, "alice")
    fresh = app.test_client()  # no cookie, no CSRF token: the key is enough
    resp = fresh.post("/api/v1/retrieve", json={"question": QUESTION}, headers=headers(key))
    assert resp.status_code == 200
    assert "Set-Cookie" not in resp.headers


# --- areas -----------------------------------------------------------------------

def test_api_areas_are_the_keys_effective_areas(client, app, library):
    carol = make_key(app, "carol")
    limited = make_key(app, "carol", areas=["Beta"])
    names = lambda key: [a["name"] for a in client.get("/api/v1/areas", headers=headers(key)).get_json()["areas"]]  # noqa: E731
    assert names(carol) == ["Alpha", "Beta"]
    assert names(limited) == ["Beta"]
    assert names(make_key(app, "dave")) == []


def test_api_a_key_limited_to_area_a_asking_for_b_is_403(client, app, library):
    key = make_key(app, "carol", areas=["Alpha"])
    for areas in ([library.beta], ["Beta"], [library.alpha, library.beta]):
        for path in ("/api/v1/retrieve", "/api/v1/answer"):
            resp = client.post(path, json={"question": QUESTION, "areas": areas}, headers=headers(key))
            assert resp.status_code == 403 and error_code(resp) == "forbidden"
            assert BETA_SECRET not in resp.get_data(as_text=True)
    resp = client.get(f"/api/v1/documents?area={library.beta}", headers=headers(key))
    assert resp.status_code == 403 and error_code(resp) == "forbidden"
    resp = client.get(f"/api/v1/documents/{library.beta_doc}", headers=headers(key))
    assert resp.status_code == 404 and error_code(resp) == "not_found"
    ok = client.post("/api/v1/retrieve", json={"question": QUESTION, "areas": ["Alpha"]}, headers=headers(key))
    assert ok.status_code == 200 and ok.get_json()["areas"] == [library.alpha]


def test_api_user_in_group_a_never_receives_area_b(client, app, library):
    key = make_key(app, "alice")
    for resp in ask_all(client, key):
        assert resp.status_code == 200
        text = resp.get_data(as_text=True)
        assert BETA_SECRET not in text and "beta-secret.md" not in text and "/srv/beta" not in text
    retrieval = client.post("/api/v1/retrieve", json={"question": QUESTION}, headers=headers(key)).get_json()
    assert {c["area_id"] for c in retrieval["chunks"]} == {library.alpha}
    assert {d["id"] for d in retrieval["documents"]} <= {library.alpha_doc, library.alpha_policy}
    for doc in (library.beta_doc, 987654):  # a foreign document reads exactly like a missing one
        resp = client.get(f"/api/v1/documents/{doc}", headers=headers(key))
        assert resp.status_code == 404 and resp.get_json()["error"]["message"] == f"There is no document with id {doc}."
    listed = client.get("/api/v1/documents", headers=headers(key)).get_json()
    assert {d["id"] for d in listed["documents"]} == {library.alpha_doc, library.alpha_policy}
    assert listed["total"] == 2


def test_api_a_user_who_lost_a_group_loses_its_content_through_the_key(client, app, library):
    key = make_key(app, "carol")
    before = client.post("/api/v1/retrieve", json={"question": QUESTION}, headers=headers(key))
    assert BETA_SECRET in before.get_data(as_text=True)
    in_app(app, lambda: admin_service.unlink_user("carol", "team-b"))
    for resp in ask_all(client, key):
        assert resp.status_code == 200 and BETA_SECRET not in resp.get_data(as_text=True)
        assert "beta-secret.md" not in resp.get_data(as_text=True)
    resp = client.post("/api/v1/answer", json={"question": QUESTION, "areas": ["Beta"]}, headers=headers(key))
    assert resp.status_code == 403


def test_api_a_key_without_reachable_areas_is_403(client, app, library):
    resp = client.post("/api/v1/retrieve", json={"question": QUESTION}, headers=headers(make_key(app, "dave")))
    assert resp.status_code == 403 and error_code(resp) == "forbidden"
    resp = client.post("/api/v1/answer", json={"question": QUESTION, "areas": []},
                       headers=headers(make_key(app, "alice")))
    assert resp.status_code == 400 and resp.get_json()["error"]["field"] == "areas"


# --- retrieve and answer -------------------------------------------------------------

def test_api_retrieve_returns_chunks_scores_documents_and_timings(client, app, library):
    key = make_key(app, "alice")
    body = client.post("/api/v1/retrieve", json={"question": QUESTION, "areas": [library.alpha]},
                       headers=headers(key)).get_json()
    assert body["question"] == QUESTION and body["areas"] == [library.alpha]
    first = body["chunks"][0]
    assert first["position"] == 1 and first["document_id"] == library.alpha_doc and "otel.yaml" in first["text"]
    assert isinstance(first["score"], float) and isinstance(first["lexical_score"], float)
    doc = next(d for d in body["documents"] if d["id"] == library.alpha_doc)
    assert doc["name"] == "otel-guide.md" and doc["area"] == {"id": library.alpha, "name": "Alpha"}
    assert doc["source_url"] == "https://docs.example.org/otel"
    assert body["sources"][0]["document_id"] == library.alpha_doc
    assert {"embed", "search", "context", "total"} <= set(body["timings"])


def test_api_answer_returns_answer_citations_sources_and_timings(client, app, library):
    key = make_key(app, "alice")
    with app.app_context():
        from irisrag import components

        components.get().__dict__["llm"] = FakeLLM("Über **otel.yaml** [1].")
    body = client.post("/api/v1/answer", json={"question": QUESTION}, headers=headers(key)).get_json()
    assert body["status"] == "answered" and body["answer"] == "Über **otel.yaml** [1]."
    assert body["extractive"] is False and body["llm"] != "none"
    assert isinstance(body["citations"], list)
    assert body["context"][0]["position"] == 1 and body["context"][0]["document_id"] == library.alpha_doc
    source = body["sources"][0]
    assert source["document_id"] == library.alpha_doc and source["area"]["name"] == "Alpha"
    assert source["passages"] and "otel.yaml" in source["passages"][0]["text"]
    assert {"llm", "context", "total"} <= set(body["timings"])
    assert body["error_detail"] is None  # details are for admin keys


def test_api_answer_without_llm_is_extractive(client, app, library):
    key = make_key(app, "alice")
    body = client.post("/api/v1/answer", json={"question": QUESTION, "use_llm": False},
                       headers=headers(key)).get_json()
    assert body["status"] == "extractive" and body["extractive"] is True and "otel.yaml" in body["answer"]
    assert body["nearest"] == []                                   # answered: no closest documents


def test_api_no_information_lists_the_closest_documents_of_the_keys_areas_only(client, app, library):
    key = make_key(app, "carol", areas=["Alpha"])        # carol may read Beta too, her key may not
    body = client.post("/api/v1/answer", json={"question": "Wann fährt der Zug nach Hamburg?", "use_llm": False},
                       headers=headers(key)).get_json()
    assert body["status"] == "no_context" and body["sources"] == []
    assert {n["document_id"] for n in body["nearest"]} == {library.alpha_doc, library.alpha_policy}
    assert {n["area"]["id"] for n in body["nearest"]} == {library.alpha}
    assert {n["chunk_index"] for n in body["nearest"]} == {0}           # each document's best-ranked chunk


FOLLOW_UP = "Und wo steht das?"


def test_api_previous_turns_make_a_follow_up_that_finds_what_it_refers_to(client, app, library):
    key = headers(make_key(app, "alice"))
    alone = client.post("/api/v1/retrieve", json={"question": FOLLOW_UP}, headers=key).get_json()
    assert alone["search_query"] == FOLLOW_UP
    assert library.alpha_doc not in {c["document_id"] for c in alone["chunks"]}
    previous = [{"question": QUESTION, "answer": "Über otel.yaml [1]."}]
    body = client.post("/api/v1/retrieve", json={"question": FOLLOW_UP, "previous": previous}, headers=key).get_json()
    assert body["question"] == FOLLOW_UP and "OpenTelemetry" in body["search_query"]
    assert body["chunks"][0]["document_id"] == library.alpha_doc
    answered = client.post("/api/v1/answer", json={"question": FOLLOW_UP, "previous": previous, "use_llm": False},
                           headers=key).get_json()
    assert answered["status"] == "extractive" and "otel.yaml" in answered["answer"]
    assert "OpenTelemetry" in answered["search_query"]


def test_api_previous_turns_never_widen_the_keys_areas(client, app, library):
    key = headers(make_key(app, "alice"))
    previous = [{"question": f"Was ist {BETA_SECRET} in beta.yaml?", "answer": BETA_SECRET}]
    for path in ("/api/v1/retrieve", "/api/v1/answer"):
        resp = client.post(path, json={"question": "Und dort?", "previous": previous, "use_llm": False}
                           if path.endswith("answer") else {"question": "Und dort?", "previous": previous}, headers=key)
        assert resp.status_code == 200
        assert library.beta_doc not in {c["document_id"] for c in resp.get_json().get("chunks", resp.get_json().get("context"))}
        assert "beta.yaml" not in json.dumps(resp.get_json()["sources"])


@pytest.mark.parametrize("previous", ["a", [{"answer": "x"}], [{"question": ""}], [{"question": 5}],
                                      [{"question": "q", "answer": 5}], [{"question": "q"}] * 21,
                                      [{"question": "x" * 4001}], [{"question": "q", "answer": "x" * 20_001}], ["q"]])
def test_api_bad_previous_turns_are_400_on_previous(client, app, library, previous):
    key = headers(make_key(app, "alice"))
    for path in ("/api/v1/retrieve", "/api/v1/answer"):
        resp = client.post(path, json={"question": "q", "previous": previous}, headers=key)
        assert resp.status_code == 400 and error_code(resp) == "invalid"
        assert resp.get_json()["error"]["field"] == "previous"


def test_api_invalid_input_is_400_with_stable_codes(client, app, library):
    key = headers(make_key(app, "alice"))
    resp = client.post("/api/v1/retrieve", data="{not json", headers={**key, "Content-Type": "application/json"})
    assert resp.status_code == 400 and error_code(resp) == "invalid_json"
    resp = client.post("/api/v1/retrieve", data="question=x", headers=key)
    assert resp.status_code == 400 and error_code(resp) == "invalid_json"
    resp = client.post("/api/v1/retrieve", json=["a list"], headers=key)
    assert resp.status_code == 400 and error_code(resp) == "invalid_json"
    for body, field in (({}, "question"), ({"question": "  "}, "question"), ({"question": 5}, "question"),
                        ({"question": "x" * 4001}, "question"), ({"question": "q", "areas": "Alpha"}, "areas"),
                        ({"question": "q", "areas": [True]}, "areas"), ({"question": "q", "use_llm": "no"}, "use_llm")):
        path = "/api/v1/answer" if "use_llm" in body else "/api/v1/retrieve"
        resp = client.post(path, json=body, headers=key)
        assert resp.status_code == 400, body
        assert error_code(resp) == "invalid" and resp.get_json()["error"]["field"] == field
    resp = client.get("/api/v1/documents?limit=abc", headers=key)
    assert resp.status_code == 400 and resp.get_json()["error"]["field"] == "limit"
    resp = client.get("/api/v1/documents?limit=5000", headers=key)
    assert resp.status_code == 400


def test_api_unknown_paths_and_methods_are_json(client, app, library):
    key = headers(make_key(app, "alice"))
    resp = client.get("/api/v1/nothing-here", headers=key)
    assert resp.status_code == 404 and error_code(resp) == "not_found"
    resp = client.get("/api/v1/", headers=key)
    assert resp.status_code == 404 and "openapi.json" in resp.get_json()["error"]["message"]
    resp = client.get("/api/v1/documents/abc", headers=key)
    assert resp.status_code == 404 and error_code(resp) == "not_found"
    resp = client.delete("/api/v1/areas", headers=key)
    assert resp.status_code == 405 and error_code(resp) == "method_not_allowed"
    assert resp.headers["Allow"] == "GET"
    resp = client.post("/api/v1/areas", json={}, headers=key)
    assert resp.status_code == 405 and error_code(resp) == "method_not_allowed"


# --- documents ---------------------------------------------------------------------

def _admin_key(app, library, **kwargs) -> str:
    with app.app_context(), db.connection_context():
        admin_service.create_user("root", "rootpassword", is_admin=True)
        admin_service.link_user("root", "team-a")
    return make_key(app, "root", **kwargs)


def test_api_import_by_url_needs_an_admin_key(client, app, library):
    body = {"area": library.alpha, "url": "https://example.org/handbook"}
    resp = client.post("/api/v1/documents", json=body, headers=headers(make_key(app, "alice")))
    assert resp.status_code == 403 and error_code(resp) == "forbidden"
    assert in_app(app, lambda: Document.select().count()) == 3
    admin = _admin_key(app, library)
    resp = client.post("/api/v1/documents", json=body, headers=headers(admin))
    assert resp.status_code == 202, resp.get_json()
    created = resp.get_json()
    assert created["status"] == "queued" and created["area"] == {"id": library.alpha, "name": "Alpha"}
    assert resp.headers["Location"].endswith(f"/api/v1/documents/{created['id']}")
    doc = in_app(app, lambda: Document.get_by_id(created["id"]))
    assert doc.status == "queued" and doc.source_url == "https://example.org/handbook"
    # An admin key still reaches only the areas of its account (and of its limit).
    resp = client.post("/api/v1/documents", json={"area": "Beta", "url": "https://example.org/x"},
                       headers=headers(admin))
    assert resp.status_code == 403
    for bad in ({"area": library.alpha, "url": "ftp://example.org/x"}, {"area": library.alpha},
                {"url": "https://example.org/x"}):
        resp = client.post("/api/v1/documents", json=bad, headers=headers(admin))
        assert resp.status_code == 400, bad


def test_api_import_upload_and_progress(client, app, library):
    admin = headers(_admin_key(app, library))
    data = {"area": "Alpha", "file": (io.BytesIO(b"# Handbuch\n\nInhalt."), "handbuch.md")}
    resp = client.post("/api/v1/documents", data=data, headers=admin, content_type="multipart/form-data")
    assert resp.status_code == 202, resp.get_json()
    doc_id = resp.get_json()["id"]
    status = client.get(f"/api/v1/documents/{doc_id}", headers=admin).get_json()
    assert status["status"] == "queued" and status["running"] is True and status["name"] == "handbuch.md"
    in_app(app, lambda: Document.update(status="embedding", progress_done=3, progress_total=8)
           .where(Document.id == doc_id).execute())
    status = client.get(f"/api/v1/documents/{doc_id}", headers=admin).get_json()
    assert status["status"] == "embedding" and status["progress"] == {"done": 3, "total": 8}
    in_app(app, lambda: Document.update(status="failed", error="It broke.", error_detail="trace")
           .where(Document.id == doc_id).execute())
    status = client.get(f"/api/v1/documents/{doc_id}", headers=admin).get_json()
    assert status["running"] is False and status["error"] == "It broke." and status["error_detail"] == "trace"
    alice = client.get(f"/api/v1/documents/{doc_id}", headers=headers(make_key(app, "alice"))).get_json()
    assert alice["error"] == "It broke." and "error_detail" not in alice
    listed = client.get("/api/v1/documents?status=failed", headers=admin).get_json()
    assert [d["id"] for d in listed["documents"]] == [doc_id]
    resp = client.post("/api/v1/documents", data={"area": "Alpha"}, headers=admin, content_type="multipart/form-data")
    assert resp.status_code == 400 and resp.get_json()["error"]["field"] == "file"


def test_api_upload_too_large_is_413(tmp_path, database_url, redis_url):
    app = make_app(tmp_path, database_url, redis_url, MAX_UPLOAD_BYTES=100)
    library = seed_library(app)
    client, admin = app.test_client(), headers(_admin_key(app, library))
    data = {"area": "Alpha", "file": (io.BytesIO(b"x" * 500), "big.txt")}
    resp = client.post("/api/v1/documents", data=data, headers=admin, content_type="multipart/form-data")
    assert resp.status_code == 413 and error_code(resp) == "too_large"
    data = {"area": "Alpha", "file": (io.BytesIO(b"x" * (2 * 1024 * 1024)), "huge.txt")}
    resp = client.post("/api/v1/documents", data=data, headers=admin, content_type="multipart/form-data")
    assert resp.status_code == 413 and error_code(resp) == "too_large"


@pytest.mark.integration
def test_api_queue_unavailable_is_503(tmp_path, database_url, redis_url):
    app = make_app(tmp_path, database_url, redis_url, REDIS_URL=f"redis://127.0.0.1:{free_port()}/0")
    library = seed_library(app)
    resp = app.test_client().post("/api/v1/documents", json={"area": "Alpha", "url": "https://example.org/a"},
                                  headers=headers(_admin_key(app, library)))
    assert resp.status_code == 503 and error_code(resp) == "queue_unavailable"


# --- description -------------------------------------------------------------------

def test_api_openapi_describes_every_route(client, app):
    spec = client.get("/api/v1/openapi.json").get_json()
    assert spec["openapi"].startswith("3.") and spec["servers"] == [{"url": "/api/v1"}]
    assert spec["components"]["securitySchemes"]["ApiKey"] == {"type": "apiKey", "in": "header", "name": "X-API-Key"}
    routes = [r for r in app.url_map.iter_rules() if r.endpoint.startswith("api.") and r.endpoint != "api.unknown"]
    assert len(routes) >= 6
    for rule in routes:
        path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule.removeprefix("/api/v1"))
        assert path in spec["paths"], path
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            operation = spec["paths"][path][method.lower()]
            assert operation["responses"] and operation["operationId"]
    refs = re.findall(r"#/components/(\w+)/(\w+)", json.dumps(spec))
    assert refs
    for section, name in refs:
        assert name in spec["components"][section], name


def test_api_deeply_nested_json_is_400_not_500(app):
    from irisrag.extensions import db
    from irisrag.services.admin import admin as admin_service
    from irisrag.services.admin import api_keys

    with app.app_context(), db.connection_context():
        admin_service.create_user("deep", "deeppassword")
        key = api_keys.create_key("deep").plain
    body = '{"question": ' + "[" * 100_000 + "]" * 100_000 + "}"
    for path in ("/api/v1/retrieve", "/api/v1/answer"):
        resp = app.test_client().post(path, data=body, headers={"X-API-Key": key, "Content-Type": "application/json"})
        assert resp.status_code == 400, (path, resp.status_code)
        assert resp.get_json()["error"]["code"] == "invalid_json"
