"""Faults: the embedding service or the LLM down or slow, against a real local HTTP server.

Already covered: an LLM answering 500, too slowly or not at all on the dashboard, with the
detail for admins only (tests/web/test_dashboard.py); the service-level search failure
(tests/services/test_questions.py); the adapters' own errors (tests/test_embeddings.py,
tests/test_llm.py).

Added here: the embedder failing, slow and back again for every way of asking (dashboard,
API, CLI) with the technical detail for admins only; imports failing while the embedder is
down (also halfway through a document) keeping the old chunks, and retried later without
duplicates; the LLM down through the API.
"""
from __future__ import annotations

import html
from pathlib import Path

import pytest

from irisrag import components
from irisrag.embeddings import FakeEmbedder
from irisrag.errors import EmbeddingError
from irisrag.extensions import db
from irisrag.jobs import documents as document_jobs
from irisrag.models import Document
from irisrag.services.admin import admin as admin_service
from irisrag.services.admin import api_keys
from irisrag.services.documents import documents as document_service
from tests.conftest import csrf_token, login, make_app
from tests.services import PASSWORD, QUESTION, seed_library
from tests.support.http_stub import Reply, closed_port

HX = {"HX-Request": "true"}
DIM = 8
SEARCH_DOWN = "The document search is not available at the moment."


class Embedder:
    """Scripted Ollama /api/embed: ok, down (HTTP 500), slow, or failing from the n-th call on."""

    def __init__(self) -> None:
        self.mode = "ok"
        self.fail_from_call: int | None = None
        self.calls = 0
        self.fake = FakeEmbedder(DIM)

    def __call__(self, request) -> Reply:
        self.calls += 1
        vectors = self.fake.embed_documents(request.json["input"]).tolist()
        if self.mode == "down" or (self.fail_from_call is not None and self.calls >= self.fail_from_call):
            return Reply(status=500, body="model runner has unexpectedly stopped")
        if self.mode == "slow":
            return Reply(json={"embeddings": vectors}, delay=1.5)
        return Reply(json={"embeddings": vectors})


@pytest.fixture
def embedder(http_stub):
    script = Embedder()
    http_stub.add("POST", "/api/embed", script)
    return script


@pytest.fixture
def app(tmp_path, database_url, redis_url, http_stub, embedder):
    return make_app(tmp_path, database_url, redis_url, EMBEDDER="ollama", OLLAMA_URL=http_stub.url,
                    EMBEDDING_DIM=DIM, OLLAMA_TIMEOUT=0.5, EMBEDDING_BATCH_SIZE=2)


def web_client(app, name: str, *, admin: bool = False):
    client = app.test_client()
    if admin:
        with app.app_context(), db.connection_context():
            admin_service.create_user("root", "rootpassword", is_admin=True)
        assert login(client, "root", "rootpassword", admin=True).status_code == 302
    assert login(client, name, PASSWORD).status_code == 302
    return client


def ask(client, library) -> str:
    resp = client.post("/ask", data={"question": QUESTION, "areas": [str(library.alpha)], "show_sources": "on",
                                     "csrf_token": csrf_token(client, "/")}, headers=HX)
    assert resp.status_code == 200
    return resp.get_data(as_text=True)


@pytest.mark.parametrize(("mode", "detail"), [("down", "HTTP 500"), ("slow", "did not answer within 0.5 s")])
def test_embedder_down_or_slow_when_asking_then_back(app, embedder, http_stub, mode, detail):
    library = seed_library(app)
    user, admin = web_client(app, "alice"), web_client(app, "carol", admin=True)
    with app.app_context(), db.connection_context():
        key = api_keys.create_key("alice").plain
    embedder.mode = mode
    body = ask(user, library)
    assert SEARCH_DOWN in body and http_stub.url not in body and "<details" not in body
    admin_body = html.unescape(ask(admin, library))
    assert SEARCH_DOWN in admin_body and f"{http_stub.url}/api/embed" in admin_body and detail in admin_body
    resp = app.test_client().post("/api/v1/answer", json={"question": QUESTION}, headers={"X-API-Key": key})
    assert resp.status_code == 502 and resp.get_json()["error"]["code"] == "embedding_failed"
    assert "Traceback" not in resp.get_data(as_text=True)
    cli = app.test_cli_runner().invoke(args=["rag", "ask", QUESTION, "--user", "alice"])
    assert cli.exit_code == 1 and "embedding service" in cli.output.lower()
    embedder.mode = "ok"  # back: no restart needed
    assert "otel-guide.md" in ask(user, library)


def _chunks(app, document_id: int) -> list[tuple[int, str]]:
    with app.app_context():
        return [(h.chunk_index, h.text) for h in components.get().store.chunks_of(document_id)]


def test_embedder_down_during_imports_keeps_old_chunks_and_a_retry_adds_no_duplicates(app, embedder, tmp_path):
    seed_library(app)
    old = "\n\n".join(f"Alter Abschnitt {i} über OpenTelemetry und die Konfiguration. " * 12 for i in range(4))
    new = "\n\n".join(f"Neuer Abschnitt {i} über OpenTelemetry und die Konfiguration. " * 12 for i in range(6))
    with app.app_context(), db.connection_context():
        doc = document_service.import_upload("Alpha", "handbuch.md", old.encode())
        document_jobs.import_document(doc.id)
        staged = Path(Document.get_by_id(doc.id).directory) / "handbuch.md"
    before = _chunks(app, doc.id)
    assert len(before) >= 3 and all("Alter" in t for _, t in before)
    staged.write_text(new)
    for failure in ("down", "halfway"):
        embedder.calls = 0
        embedder.mode, embedder.fail_from_call = ("down", None) if failure == "down" else ("ok", 2)
        with app.app_context(), db.connection_context():
            document_service.rebuild(doc.id)
            with pytest.raises(EmbeddingError):
                document_jobs.import_document(doc.id, True)
            row = Document.get_by_id(doc.id)
        assert row.status == "failed" and "embedding service" in row.error.lower(), failure
        assert "stage: embedding" in row.error_detail and "/api/embed" in row.error_detail
        assert _chunks(app, doc.id) == before, failure  # never half-replaced
    embedder.mode, embedder.fail_from_call = "ok", None
    with app.app_context(), db.connection_context():
        for _ in range(2):  # the retry, and a second one for good measure
            document_service.rebuild(doc.id)
            document_jobs.import_document(doc.id, True)
        row = Document.get_by_id(doc.id)
        total = components.get().store.count()
        recorded = sum(d.chunk_count for d in Document.select())
    after = _chunks(app, doc.id)
    assert row.status == "done" and row.chunk_count == len(after) > len(before)
    assert len({i for i, _ in after}) == len(after) and all("Neuer" in t for _, t in after)
    assert total == recorded  # no duplicate or orphaned chunk anywhere


def test_llm_down_through_the_api_gives_an_extractive_answer_and_detail_to_admin_keys(tmp_path, database_url,
                                                                                     redis_url):
    url = f"http://127.0.0.1:{closed_port()}"
    app = make_app(tmp_path, database_url, redis_url, LLM="ollama", OLLAMA_URL=url, LLM_TIMEOUT=1.0)
    library = seed_library(app)
    with app.app_context(), db.connection_context():
        admin_service.create_user("root", "rootpassword", is_admin=True)
        admin_service.link_user("root", "team-a")
        keys = {"user": api_keys.create_key("alice").plain, "admin": api_keys.create_key("root").plain}
    for who, key in keys.items():
        resp = app.test_client().post("/api/v1/answer", json={"question": QUESTION, "areas": [library.alpha]},
                                      headers={"X-API-Key": key})
        body = resp.get_json()
        assert resp.status_code == 200 and body["status"] == "extractive" and "otel.yaml" in body["answer"], who
        assert body["error"] == "The language model could not be reached.", who
        if who == "admin":
            assert url in body["error_detail"]
        else:
            assert body["error_detail"] is None and url not in resp.get_data(as_text=True)
