"""The dashboard and /ask through the real routes: access, messages, sanitising, the Ollama client."""
from __future__ import annotations

import html
import re

import pytest

from irisrag import components
from irisrag.extensions import db
from irisrag.llm.clients import FakeLLM
from tests.conftest import csrf_token, login, make_app
from tests.services import BETA_SECRET, PASSWORD, QUESTION, add_document, seed_library
from tests.support.http_stub import Reply, closed_port

MODEL = "llama-test:7b"


@pytest.fixture
def library(app):
    return seed_library(app)


def logged_in(app, name: str = "alice", *, admin: bool = False):
    """Return a client logged in as a user (and, with admin, also in the admin world)."""
    client = app.test_client()
    if admin:
        from irisrag.services.admin import admin as admin_service

        with app.app_context(), db.connection_context():
            admin_service.create_user("root", "rootpassword", is_admin=True)
        assert login(client, "root", "rootpassword", admin=True).status_code == 302
    assert login(client, name, PASSWORD).status_code == 302
    return client


def ask(client, question=QUESTION, areas=(), *, show_sources=True, htmx=True):
    data = {"question": question, "areas": [str(a) for a in areas], "csrf_token": csrf_token(client, "/")}
    if show_sources:
        data["show_sources"] = "on"
    headers = {"HX-Request": "true"} if htmx else {}
    response = client.post("/ask", data=data, headers=headers, follow_redirects=not htmx)  # PRG to /c/<id>
    assert response.status_code == 200
    return response.get_data(as_text=True)


def ollama_app(tmp_path, database_url, redis_url, stub, **overrides):
    return make_app(tmp_path, database_url, redis_url, LLM="ollama", OLLAMA_URL=stub.url,
                    OLLAMA_CHAT_MODEL=MODEL, **overrides)


def chat_reply(content: str) -> Reply:
    return Reply(json={"model": MODEL, "message": {"role": "assistant", "content": content}, "done": True})


# --- access -------------------------------------------------------------------------


def test_dashboard_lists_only_permitted_areas(app, library):
    page = logged_in(app).get("/").get_data(as_text=True)
    assert f'value="{library.alpha}"' in page and "Alpha" in page
    assert f'value="{library.beta}"' not in page and "Beta" not in page


def test_dashboard_crafted_post_never_returns_another_areas_content(app, library):
    client = logged_in(app)
    for areas, htmx in [([library.beta], True), ([library.alpha, library.beta], True),
                        ([library.alpha, library.beta], False), ([library.beta, 999], False)]:
        body = ask(client, areas=areas, htmx=htmx)
        assert BETA_SECRET not in body and "beta-secret.md" not in body and "/srv/beta" not in body
        assert ("<html" in body) is (not htmx)
    body = ask(client, areas=[library.alpha, library.beta])
    assert "otel-guide.md" in body and "Alpha" in body
    only_beta = ask(client, areas=[library.beta])
    assert "Select at least one area to search." in only_beta


def test_dashboard_remembers_the_permitted_selection_only(app, library):
    client = logged_in(app, "carol")
    ask(client, areas=[library.beta, 424242])
    page = client.get("/").get_data(as_text=True)
    assert re.search(f'value="{library.beta}" checked', page)
    assert not re.search(f'value="{library.alpha}" checked', page)
    ask(client, areas=[library.alpha], show_sources=False)
    page = client.get("/").get_data(as_text=True)
    assert re.search(f'value="{library.alpha}" checked', page)
    assert 'name="show_sources" checked' not in page


def test_dashboard_answer_is_kept_out_of_caches_and_history(app, library):
    client = logged_in(app)
    token = csrf_token(client, "/")
    response = client.post("/ask", data={"question": QUESTION, "areas": [str(library.alpha)], "csrf_token": token},
                           headers={"HX-Request": "true"})
    assert response.headers["Cache-Control"] == "no-store" and "HX-Request" in response.headers["Vary"]
    for path in ("/", response.headers["HX-Push-Url"]):
        page = client.get(path).get_data(as_text=True)
        assert '<section class="thread" id="thread" hx-history="false"' in page
        assert 'hx-indicator="#ask-spinner"' in page and 'id="ask-spinner"' in page


# --- messages and fallback ---------------------------------------------------------------


def test_dashboard_without_llm_answers_with_passages_and_sources(app, library):
    body = ask(logged_in(app), areas=[library.alpha])
    assert "This answer was assembled from the documents without a language model." in body
    assert 'class="error"' not in body and "tell an administrator" not in body  # no model is no error
    assert 'class="answer"' in body and "otel.yaml" in body
    assert f'<a class="source-name" href="/documents/{library.alpha_doc}">otel-guide.md</a>' in body
    assert '<a href="https://docs.example.org/otel" rel="noopener noreferrer" target="_blank" class="origin">' in body
    assert body.count("wird über die Datei otel.yaml") == 2  # the answer and its chip, not the sources
    assert "<mark>OpenTelemetry</mark>" in body and "<mark>konfiguriert</mark>" in body
    assert "IRISRAG_LLM=none" not in body  # admin detail only


def test_dashboard_show_sources_off_hides_the_sources(app, library):
    body = ask(logged_in(app), areas=[library.alpha], show_sources=False)
    assert 'id="sources"' not in body
    assert "otel.yaml" in body  # the extractive answer itself stays


def test_dashboard_original_path_is_shown_when_there_is_no_url(app, library):
    with app.app_context(), db.connection_context():
        add_document(library.alpha, "setup.md", ["OpenTelemetry wird mit setup konfiguriert."],
                     original_path="/srv/docs/setup.md")
    body = ask(logged_in(app), areas=[library.alpha])
    assert "<code>/srv/docs/setup.md</code>" in body


def test_dashboard_question_validation_messages(app, library):
    client = logged_in(app)
    assert "Please enter a question." in ask(client, "   ", [library.alpha])
    too_long = ask(client, "Wie " * 1001, [library.alpha])
    assert "The question is too long: please use at most 4000 characters." in too_long
    assert 'id="sources"' not in too_long


def test_dashboard_nothing_found_says_so_with_the_area_hint(app, library):
    body = ask(logged_in(app), "Wann fährt der Zug nach Hamburg?", [library.alpha])
    assert "No information was found in the context. Check the areas you selected." in body
    assert "No sources were found." in body
    assert "passed the lexical filter" not in body  # retrieval detail is for admins
    admin_body = ask(logged_in(app, admin=True), "Wann fährt der Zug nach Hamburg?", [library.alpha])
    assert "<details" in admin_body and "passed the lexical filter" in admin_body


def test_dashboard_user_without_areas_gets_a_clear_message(app, library):
    client = logged_in(app, "dave")
    assert "You do not have access to any area yet." in client.get("/").get_data(as_text=True)
    assert "You do not have access to any area yet." in ask(client, areas=[library.alpha])


# --- sanitising --------------------------------------------------------------------------


def test_dashboard_document_script_and_llm_img_render_inert(app, library):
    with app.app_context(), db.connection_context():
        add_document(library.alpha, "<script>alert('name')</script>.md",
                     ["OpenTelemetry wird konfiguriert <script>alert('doc')</script> und konfiguriert."])
    client = logged_in(app)
    extractive = ask(client, areas=[library.alpha])
    assert "<script>" not in extractive
    assert "alert(&#39;doc&#39;)" not in extractive.replace("&lt;script&gt;alert(&#39;doc&#39;)", "")  # inert
    assert "&lt;script&gt;alert(&#39;name&#39;)&lt;/script&gt;.md" in extractive  # file name, escaped
    with app.app_context():
        components.get().__dict__["llm"] = FakeLLM('Siehe [1] <img src=x onerror="alert(1)"> <script>x()</script>')
    answered = ask(client, areas=[library.alpha])
    assert "onerror" not in answered and "<img" not in answered and "<script>" not in answered
    assert re.search(r'Siehe \[<a class="cite unsupported" href="#q\d+-cite-1"', answered)  # citations are links


# --- the real Ollama client against a local HTTP server ------------------------------------


def test_dashboard_ollama_prompt_has_numbered_context_question_and_model(tmp_path, database_url, redis_url,
                                                                         http_stub):
    http_stub.add("POST", "/api/chat", chat_reply("Die Konfiguration steht in **otel.yaml** [1]."))
    app = ollama_app(tmp_path, database_url, redis_url, http_stub)
    library = seed_library(app)
    body = ask(logged_in(app), areas=[library.alpha])
    assert 'Die Konfiguration steht in <strong>otel.yaml</strong> [<a class="cite" href="#q1-cite-1">1</a>].' in body
    assert f"Written by ollama:{MODEL} from the passages found." in body
    request = http_stub.last("POST", "/api/chat")
    assert request.json["model"] == MODEL and request.json["stream"] is False
    system, user = request.json["messages"]
    assert system["role"] == "system" and "numbered context" in system["content"]
    assert "[1]\nOpenTelemetry wird über die Datei otel.yaml" in user["content"] and "(document" not in user["content"]
    assert user["content"].rstrip().endswith(f"Question: {QUESTION}")
    assert BETA_SECRET not in user["content"]


@pytest.mark.parametrize(("reply", "message", "cause"), [
    (Reply(status=500, body="model crashed"), "The language model reported an error.", "reported an error"),
    (Reply(delay=3.0, json={}), "The language model did not answer in time.", "did not answer in time"),
])
def test_dashboard_ollama_failures_give_clear_messages_and_admin_detail(tmp_path, database_url, redis_url,
                                                                        http_stub, reply, message, cause):
    http_stub.add("POST", "/api/chat", reply)
    app = ollama_app(tmp_path, database_url, redis_url, http_stub, LLM_TIMEOUT=0.5)
    library = seed_library(app)
    user_body = ask(logged_in(app), areas=[library.alpha])
    assert message in user_body
    assert f"The language model {cause}, so this answer was assembled from the documents." in user_body
    assert "otel.yaml" in user_body and "<mark>OpenTelemetry</mark>" in user_body
    assert http_stub.url not in user_body and "127.0.0.1" not in user_body and 'class="detail"' not in user_body
    assert "tell an administrator" in user_body
    admin_body = ask(logged_in(app, "carol", admin=True), areas=[library.alpha])
    assert message in admin_body
    detail = html.unescape(admin_body.split("<details", 1)[1].split("</details>", 1)[0])
    assert f"{http_stub.url}/api/chat" in detail and f"model={MODEL}" in detail


def test_dashboard_unreachable_llm_hides_the_url_from_users(tmp_path, database_url, redis_url):
    url = f"http://127.0.0.1:{closed_port()}"
    app = make_app(tmp_path, database_url, redis_url, LLM="ollama", OLLAMA_URL=url, LLM_TIMEOUT=2.0)
    library = seed_library(app)
    body = ask(logged_in(app), areas=[library.alpha])
    assert "The language model could not be reached." in body and url not in body
    assert url in html.unescape(ask(logged_in(app, "carol", admin=True), areas=[library.alpha]))


def test_dashboard_nothing_found_lists_the_closest_documents_of_the_asked_areas_only(app, library):
    client = logged_in(app, "carol")                        # may read both areas, asks one
    body = ask(client, "Wann fährt der Zug nach Hamburg?", [library.alpha])
    assert "No information was found in the context." in body and "Closest documents" in body
    nearest = body.split("Closest documents", 1)[1]
    linked = set(re.findall(r'href="/documents/(\d+)\?chunk=0"', nearest))   # opened at the best chunk
    assert linked == {str(library.alpha_doc), str(library.alpha_policy)}
    assert "beta-secret.md" not in body and f"/documents/{library.beta_doc}\"" not in nearest
    again = ask(client, "Wann fährt der Zug nach Hamburg?", [library.alpha], htmx=False)   # the stored turn
    assert set(re.findall(r'href="/documents/(\d+)\?chunk=0"', again.split("Closest documents", 1)[1])) == linked
    assert "Closest documents" not in ask(client, areas=[library.alpha])   # answered: its sources instead
    conversation = re.search(r'data-conversation="(/c/\d+)"', body).group(1)
    from irisrag.services.admin import admin as admin_service
    with app.app_context(), db.connection_context():
        admin_service.unlink_user("carol", "team-a")                        # carol loses the area Alpha
    shown = client.get(conversation).get_data(as_text=True)
    assert "Closest documents" not in shown and "otel-guide.md" not in shown and "policy.txt" not in shown


def test_dashboard_nearest_documents_zero_lists_none(tmp_path, database_url, redis_url):
    original = make_app(tmp_path / "original", database_url, redis_url, NEAREST_DOCUMENTS="0")
    seeded = seed_library(original)
    body = ask(logged_in(original), "Wann fährt der Zug nach Hamburg?", [seeded.alpha])
    assert "No information was found in the context." in body and "Closest documents" not in body
