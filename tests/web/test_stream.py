"""Streamed answers through the real routes: POST /ask/stream (dashboard) and /api/v1/answer with stream: true."""
from __future__ import annotations

import json
import re
import threading
import time

import pytest
import requests
from werkzeug.serving import make_server

from irisrag import components
from irisrag.extensions import db
from irisrag.llm.clients import FakeLLM
from irisrag.models import QuestionLog
from irisrag.services.admin import api_keys
from tests.conftest import csrf_token, make_app
from tests.services import BETA_SECRET, PASSWORD, QUESTION, seed_library
from tests.support.http_stub import Reply
from tests.test_llm_stream import Counting, ollama_line
from tests.web.test_dashboard import logged_in

ANSWER = "Die Konfiguration steht in **otel.yaml** [1]."


@pytest.fixture
def library(app):
    return seed_library(app)


def use_llm(app, llm):
    with app.app_context():
        components.get().__dict__["llm"] = llm
    return llm


def parse(body: str) -> list[tuple[str, str]]:
    """Return the (event, data) pairs of a text/event-stream body."""
    found = []
    for block in body.split("\n\n"):
        lines = block.split("\n")
        names = [line[len("event: "):] for line in lines if line.startswith("event: ")]
        data = [line[len("data: "):] if line.startswith("data: ") else "" for line in lines
                if line.startswith("data:")]
        if names:
            found.append((names[0], "\n".join(data)))
    return found


def stream_form(client, areas, question=QUESTION, *, show_sources=True, token=True):
    data = {"question": question, "areas": [str(a) for a in areas]}
    if show_sources:
        data["show_sources"] = "on"
    headers = {"X-CSRFToken": csrf_token(client, "/")} if token else {}
    return client.post("/ask/stream", data=data, headers={**headers, "Accept": "text/event-stream"})


def history(app) -> list[QuestionLog]:
    with app.app_context(), db.connection_context():
        return list(QuestionLog.select().order_by(QuestionLog.id))


def ollama_app(tmp_path, database_url, redis_url, stub, **overrides):
    return make_app(tmp_path, database_url, redis_url, LLM="ollama", OLLAMA_URL=stub.url,
                    OLLAMA_CHAT_MODEL="llama-test", **overrides)


# --- dashboard ---------------------------------------------------------------------


def test_stream_dashboard_sends_sources_then_the_growing_answer_then_linked_citations(app, library):
    fake = use_llm(app, FakeLLM(ANSWER, delay=0.06))
    response = stream_form(logged_in(app), [library.alpha])
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-store"
    events = parse(response.get_data(as_text=True))
    names = [name for name, _ in events]
    assert names[0] == "sources" and names[-1] == "done" and set(names[1:-1]) == {"token"}
    sources = events[0][1]
    assert "otel-guide.md" in sources and 'id="answer-body"' in sources
    tokens = [data for name, data in events if name == "token"]
    assert tokens[0].strip() == "<p>Die</p>" and len(tokens) >= 5
    assert all(len(a) <= len(b) for a, b in zip(tokens, tokens[1:], strict=False))  # it grows
    assert "<strong>otel.yaml</strong>" in tokens[-1] and "[1]" in tokens[-1]
    done = events[-1][1]
    assert 'Die Konfiguration steht in <strong>otel.yaml</strong> [<a class="cite" href="#q1-cite-1">1</a>].' in done
    assert 'id="q1-cite-1"' in done and "Written by fake from the passages found." in done
    assert 'class="feedback"' in done and "otel-guide.md" in done  # the cited passage, feedback form
    assert fake.closed == 1
    (row,) = history(app)
    assert row.status == "answered" and row.answer == ANSWER
    assert {"sources", "first_token", "llm_first_token", "llm", "total"} <= set(row.timings)
    assert row.timings["sources"] < row.timings["first_token"] < row.timings["total"]


def test_stream_dashboard_crafted_selection_never_streams_another_areas_content(app, library):
    fake = use_llm(app, FakeLLM(ANSWER))
    client = logged_in(app)  # alice: Alpha only
    body = stream_form(client, [library.alpha, library.beta]).get_data(as_text=True)
    assert BETA_SECRET not in body and "beta-secret.md" not in body
    assert BETA_SECRET not in json.dumps(fake.calls)
    only_beta = parse(stream_form(client, [library.beta]).get_data(as_text=True))
    assert [name for name, _ in only_beta] == ["done"]
    assert "Select at least one area to search." in only_beta[0][1] and BETA_SECRET not in only_beta[0][1]


def test_stream_dashboard_needs_login_and_csrf(app, library):
    client = logged_in(app)
    assert stream_form(client, [library.alpha], token=False).status_code == 400
    anonymous = app.test_client()
    response = anonymous.post("/ask/stream", data={"question": QUESTION}, headers={"HX-Request": "true"})
    assert response.status_code in (400, 401)  # no session: no CSRF token and no login
    assert "text/event-stream" not in response.headers.get("Content-Type", "")


def test_stream_dashboard_invalid_question_is_a_single_done_event(app, library):
    events = parse(stream_form(logged_in(app), [library.alpha], question="   ").get_data(as_text=True))
    assert [name for name, _ in events] == ["done"] and "Please enter a question." in events[0][1]
    assert history(app) == []


def test_stream_dashboard_partial_markdown_is_sanitised_every_time(app, library):
    use_llm(app, FakeLLM('Siehe [1] <img src=x onerror="alert(1)"> <script>x()</script> **fett** `<b>`', delay=0.06))
    events = parse(stream_form(logged_in(app), [library.alpha]).get_data(as_text=True))
    answers = [data for name, data in events if name in ("token", "done")]
    assert len(answers) > 5
    for html in answers:
        assert "<script" not in html and "onerror" not in html and "<img" not in html
    assert "<strong>fett</strong>" in answers[-2] and "<code>&lt;b&gt;</code>" in answers[-2]


def test_stream_dashboard_stop_closes_the_model_stream_and_keeps_the_partial_answer(app, library):
    fake = use_llm(app, FakeLLM(" ".join(["Wort"] * 200) + " [1].", delay=0.06))
    client = logged_in(app)
    token = csrf_token(client, "/")
    response = client.post("/ask/stream", data={"question": QUESTION, "areas": [str(library.alpha)]},
                           headers={"X-CSRFToken": token}, buffered=False)
    received = ""
    for chunk in response.response:
        received += chunk.decode() if isinstance(chunk, bytes) else chunk
        if received.count("event: token") >= 3:
            break
    response.close()  # what the WSGI server does when the browser aborts
    assert fake.closed == 1
    (row,) = history(app)
    assert row.status == "incomplete" and row.answer.startswith("Wort Wort") and row.answer.count("Wort") < 100


def test_stream_dashboard_upstream_error_mid_stream_keeps_the_partial_answer_marked_incomplete(
        tmp_path, database_url, redis_url, http_stub):
    lines = [ollama_line("Die "), ollama_line("Konfiguration "), ollama_line("steht "),
             {"error": "model runner has unexpectedly stopped"}]
    http_stub.add("POST", "/api/chat", Reply(lines=lines, line_delay=0.06))
    app = ollama_app(tmp_path, database_url, redis_url, http_stub)
    library = seed_library(app)
    events = parse(stream_form(logged_in(app), [library.alpha]).get_data(as_text=True))
    names = [name for name, _ in events]
    assert names[0] == "sources" and "token" in names and names[-1] == "error"
    error = events[-1][1]
    assert 'data-status="incomplete"' in error and "Die Konfiguration steht" in error
    assert "The language model stopped before the answer was complete." in error
    assert "This answer is incomplete." in error
    assert http_stub.url not in error and "unexpectedly stopped" not in error  # details are for admins
    (row,) = history(app)
    assert row.status == "incomplete" and row.answer == "Die Konfiguration steht"
    assert http_stub.last("POST", "/api/chat").json["stream"] is True


def test_stream_dashboard_model_failing_before_any_text_gives_the_extractive_answer(
        tmp_path, database_url, redis_url, http_stub):
    http_stub.add("POST", "/api/chat", Reply(status=500, body="model crashed"))
    app = ollama_app(tmp_path, database_url, redis_url, http_stub)
    library = seed_library(app)
    events = parse(stream_form(logged_in(app), [library.alpha]).get_data(as_text=True))
    assert [name for name, _ in events] == ["sources", "done"]
    assert "The language model reported an error." in events[1][1]
    assert "otel-guide.md" in events[0][1]  # the sources, before the model was asked
    assert 'data-status="extractive"' in events[1][1] and "otel.yaml" in events[1][1]


def test_stream_dashboard_dropped_connection_stops_the_upstream_read(tmp_path, database_url, redis_url, http_stub):
    counting = Counting(lambda i: ollama_line(f"Wort{i} "))
    http_stub.add("POST", "/api/chat", counting)
    app = ollama_app(tmp_path, database_url, redis_url, http_stub)
    library = seed_library(app)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    try:
        browser = requests.Session()
        token = re.search(r'name="csrf_token" value="([^"]+)"', browser.get(f"{base}/login").text).group(1)
        browser.post(f"{base}/login", data={"username": "alice", "password": PASSWORD, "csrf_token": token})
        token = re.search(r'"X-CSRFToken": "([^"]+)"', browser.get(f"{base}/").text).group(1)
        response = browser.post(f"{base}/ask/stream", data={"question": QUESTION, "areas": [library.alpha]},
                                headers={"X-CSRFToken": token}, stream=True, timeout=10)
        assert response.headers["Content-Type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line == b"event: token":
                break
        response.close()  # the browser tab is closed
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            before = counting.produced
            time.sleep(0.3)
            if counting.produced == before:
                break
        assert counting.produced < 1000, "the model kept writing after the client was gone"
        rows = history(app)
        assert rows and rows[-1].status == "incomplete"
    finally:
        server.shutdown()


# --- API ---------------------------------------------------------------------------


def api_key(app, user: str = "alice") -> dict[str, str]:
    with app.app_context(), db.connection_context():
        return {"X-API-Key": api_keys.create_key(user).plain}


def test_stream_api_answer_as_server_sent_events(client, app, library):
    use_llm(app, FakeLLM(ANSWER, delay=0.02))
    response = client.post("/api/v1/answer", json={"question": QUESTION, "stream": True}, headers=api_key(app))
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    events = [(name, json.loads(data)) for name, data in parse(response.get_data(as_text=True))]
    names = [name for name, _ in events]
    assert names[0] == "sources" and names[-1] == "done" and set(names[1:-1]) == {"token"}
    sources = events[0][1]
    assert sources["status"] == "searching" and sources["sources"][0]["document_id"] == library.alpha_doc
    assert sources["answer"] == "" and "sources" in sources["timings"]
    assert "".join(data["text"] for name, data in events if name == "token") == ANSWER
    done = events[-1][1]
    assert done["status"] == "answered" and done["answer"] == ANSWER
    assert [c["number"] for c in done["citations"]] == [1] and done["citations"][0]["document_id"] == library.alpha_doc
    assert {"sources", "first_token", "llm_first_token", "llm", "total"} <= set(done["timings"])
    assert BETA_SECRET not in response.get_data(as_text=True)
    assert history(app)[-1].status == "answered"


def test_stream_api_upstream_error_mid_stream_is_an_error_event_with_the_partial_answer(
        tmp_path, database_url, redis_url, http_stub):
    lines = [ollama_line("Die "), ollama_line("Konfiguration"), {"error": "out of memory"}]
    http_stub.add("POST", "/api/chat", Reply(lines=lines))
    app = ollama_app(tmp_path, database_url, redis_url, http_stub)
    seed_library(app)
    response = app.test_client().post("/api/v1/answer", json={"question": QUESTION, "stream": True},
                                      headers=api_key(app))
    events = [(name, json.loads(data)) for name, data in parse(response.get_data(as_text=True))]
    assert [name for name, _ in events] == ["sources", "token", "token", "error"]
    error = events[-1][1]
    assert error["incomplete"] is True and error["partial"] == "Die Konfiguration"
    assert error["status"] == "incomplete" and error["answer"] == "Die Konfiguration"
    assert error["message"] == "The language model stopped before the answer was complete."
    assert error["code"] == "llm_unavailable" and error["error_detail"] is None  # details: admin keys only


def test_stream_api_problems_before_the_stream_are_json_errors(client, app, library):
    key = api_key(app)
    for body, status, field in (({"question": QUESTION, "stream": "yes"}, 400, "stream"),
                                ({"question": " ", "stream": True}, 400, "question")):
        response = client.post("/api/v1/answer", json=body, headers=key)
        assert response.status_code == status and response.get_json()["error"]["field"] == field
    forbidden = client.post("/api/v1/answer", json={"question": QUESTION, "areas": ["Beta"], "stream": True},
                            headers=key)
    assert forbidden.status_code == 403 and forbidden.get_json()["error"]["code"] == "forbidden"
    unauthorized = client.post("/api/v1/answer", json={"question": QUESTION, "stream": True})
    assert unauthorized.status_code == 401


def test_stream_api_without_llm_streams_sources_and_the_extractive_answer(client, app, library):
    response = client.post("/api/v1/answer", json={"question": QUESTION, "stream": True, "use_llm": False},
                           headers=api_key(app))
    events = [(name, json.loads(data)) for name, data in parse(response.get_data(as_text=True))]
    assert [name for name, _ in events] == ["sources", "done"]
    assert events[1][1]["status"] == "extractive" and "otel.yaml" in events[1][1]["answer"]


def test_stream_api_openapi_documents_the_stream_option(client):
    spec = client.get("/api/v1/openapi.json").get_json()
    assert spec["components"]["schemas"]["AnswerRequest"]["allOf"][1]["properties"]["stream"]["type"] == "boolean"
    assert "text/event-stream" in spec["paths"]["/answer"]["post"]["responses"]["200"]["content"]
