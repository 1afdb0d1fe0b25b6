"""Conversations through the real routes: start, follow up, reload, the list, rename, delete, owner only, expiry."""
from __future__ import annotations

import re

import pytest

from irisrag import components
from irisrag.extensions import db
from irisrag.llm.clients import FakeLLM
from irisrag.models import Conversation, Feedback, QuestionLog
from irisrag.rag.answer_types import AskResult
from irisrag.services.asking import conversations, history
from tests.conftest import csrf_token, login
from tests.services import BETA_SECRET, PASSWORD, QUESTION, seed_library
from tests.web.test_dashboard import logged_in

HX = {"HX-Request": "true"}
FOLLOW_UP = "Und wo steht die Datei otel.yaml?"


@pytest.fixture
def library(app):
    lib = seed_library(app)
    with app.app_context():
        components.get().__dict__["llm"] = FakeLLM("Die Konfiguration steht in otel.yaml [1].")
    return lib


def post_question(client, path: str, question: str, areas, *, htmx: bool = True):
    data = {"question": question, "areas": [str(a) for a in areas], "show_sources": "on",
            "csrf_token": csrf_token(client, "/")}
    return client.post(path, data=data, headers=HX if htmx else {})


def start(client, areas, question: str = QUESTION) -> tuple[str, str]:
    """Ask on the dashboard with htmx; return the conversation URL (pushed) and the turn."""
    response = post_question(client, "/ask", question, areas)
    assert response.status_code == 200 and response.headers["HX-Trigger"] == "conversations-changed"
    return response.headers["HX-Push-Url"], response.get_data(as_text=True)


def turns(page: str) -> list[str]:
    return re.findall(r'<h2 class="question">(.*?)</h2>', page, re.S)


def test_conversations_question_starts_one_and_a_follow_up_continues_it(app, client, library):
    client = logged_in(app)
    url, turn = start(client, [library.alpha])
    assert re.fullmatch(r"/c/\d+", url) and f'data-conversation="{url}"' in turn and "<html" not in turn
    assert f'data-ask="{url}/ask"' in turn and f'data-stream="{url}/ask/stream"' in turn
    response = post_question(client, f"{url}/ask", FOLLOW_UP, [library.alpha])
    assert response.status_code == 200 and "HX-Push-Url" not in response.headers  # the URL stays
    assert turns(response.get_data(as_text=True)) == [FOLLOW_UP]
    page = client.get(url).get_data(as_text=True)  # a reload shows the same thread
    assert turns(page) == [QUESTION, FOLLOW_UP] and f'action="{url}/ask"' in page
    assert 'aria-current="page"' in page and "Follow-up question" in page
    with app.app_context(), db.connection_context():
        [conversation] = list(Conversation.select())
        assert [r.conversation_id for r in QuestionLog.select()] == [conversation.id] * 2
        assert conversation.title == QUESTION
        previous = conversations.previous_turns(conversation.user_id, conversation.id)
        assert [p.question for p in previous] == [QUESTION, FOLLOW_UP] and "otel.yaml" in previous[0].answer


def test_conversations_without_javascript_post_redirect_get(app, library):
    client = logged_in(app)
    response = post_question(client, "/ask", QUESTION, [library.alpha], htmx=False)
    assert response.status_code == 303
    url, anchor = response.headers["Location"].split("#")
    assert re.fullmatch(r"/c/\d+", url) and re.fullmatch(r"t\d+", anchor)
    response = post_question(client, f"{url}/ask", FOLLOW_UP, [library.alpha], htmx=False)
    assert response.status_code == 303 and response.headers["Location"].startswith(f"{url}#t")
    invalid = post_question(client, f"{url}/ask", "   ", [library.alpha], htmx=False)
    page = invalid.get_data(as_text=True)
    assert invalid.status_code == 200 and "Please enter a question." in page and turns(page)[:2] == [QUESTION, FOLLOW_UP]
    empty = post_question(client, "/ask", "Ganz ohne Bereich?", [], htmx=False)
    assert empty.status_code == 200 and "Ganz ohne Bereich?" in empty.get_data(as_text=True)  # kept in the box
    with app.app_context(), db.connection_context():
        assert QuestionLog.select().count() == 2 and Conversation.select().count() == 1


def test_conversations_are_visible_to_their_owner_only(app, library):
    alice, carol = logged_in(app), logged_in(app, "carol")
    url, turn = start(alice, [library.alpha])
    qid = int(re.search(r'id="t(\d+)"', turn).group(1))
    with app.app_context(), db.connection_context():
        top = max(c.id for c in Conversation.select())
    token = csrf_token(carol, "/")
    form = {"csrf_token": token, "question": "Und?", "areas": [str(library.alpha)], "title": "Meins", "rating": "down"}
    for cid in range(1, top + 3):  # carol enumerates ids: every route answers like a missing one
        for method, path, headers in (("GET", f"/c/{cid}", {}), ("GET", f"/c/{cid}", HX),
                                      ("POST", f"/c/{cid}/ask", HX), ("POST", f"/c/{cid}/ask", {}),
                                      ("POST", f"/c/{cid}/ask/stream", {}), ("POST", f"/c/{cid}/rename", HX),
                                      ("POST", f"/c/{cid}/delete", {}), ("POST", f"/feedback/{qid}", HX)):
            response = carol.open(path, method=method, data=form if method == "POST" else None, headers=headers)
            assert response.status_code == 404, (method, path, headers, response.status_code)
            assert QUESTION not in response.get_data(as_text=True)
    assert QUESTION not in carol.get("/c").get_data(as_text=True)
    assert QUESTION not in carol.get("/c", query_string={"q": "OpenTelemetry"}).get_data(as_text=True)
    with app.app_context(), db.connection_context():
        assert Conversation.get().title == QUESTION and QuestionLog.select().count() == 1
        assert Feedback.select().count() == 0
    assert alice.get(url).status_code == 200


def test_conversations_list_is_newest_first_searches_questions_and_pages_at_50(app, library):
    with app.app_context(), db.connection_context():
        alice = library.users["alice"]
        for n in range(55):
            history.record(alice, AskResult(f"Frage Nummer {n:02d}", (library.alpha,), "no_context"), "")
        history.record(alice, AskResult("Wo ist die Kantine?", (library.alpha,), "no_context"), "",
                       conversation_id=Conversation.get(Conversation.title == "Frage Nummer 03").id)
    client = logged_in(app)
    page = client.get("/c").get_data(as_text=True)
    listed = re.findall(r'<a href="/c/\d+"[^>]*>(Frage Nummer \d+)</a>', page)
    assert listed[0] == "Frage Nummer 03" and listed[1] == "Frage Nummer 54"  # the follow-up moved it up
    assert len(re.findall(r'<ul class="conversation-list full">(.*?)</ul>', page, re.S)[0].split("<li>")) - 1 == 50
    more = client.get("/c", query_string={"page": 2}, headers=HX).get_data(as_text=True)
    assert "<ul" not in more and len(re.findall(r'<a href="/c/\d+"', more)) == 5 and "Older" not in more
    found = client.get("/c", query_string={"q": "kantine"}, headers=HX).get_data(as_text=True)
    assert re.findall(r'<a href="/c/\d+"[^>]*>([^<]+)</a>', found) == ["Frage Nummer 03"]  # a question of the thread
    none = client.get("/c", query_string={"q": "Zug nach Hamburg"}, headers=HX).get_data(as_text=True)
    assert "No conversation found." in none


def test_conversations_rename_and_delete(app, library):
    client = logged_in(app)
    url, turn = start(client, [library.alpha])
    qid = int(re.search(r'id="t(\d+)"', turn).group(1))
    token = csrf_token(client, url)
    client.post(f"/feedback/{qid}", data={"rating": "down", "csrf_token": token}, headers=HX)
    for title, message in (("   ", "Please enter a title."), ("x" * 201, "at most 200 characters")):
        response = client.post(f"{url}/rename", data={"title": title, "csrf_token": token}, headers=HX)
        assert response.status_code == 400 and message in response.get_data(as_text=True)
    response = client.post(f"{url}/rename", data={"title": "  <b>Telemetrie</b>  ", "csrf_token": token}, headers=HX)
    assert response.status_code == 200 and response.headers["HX-Trigger"] == "conversations-changed"
    assert "&lt;b&gt;Telemetrie&lt;/b&gt;" in response.get_data(as_text=True)
    plain = client.post(f"{url}/rename", data={"title": "Telemetrie", "csrf_token": token})
    assert plain.status_code == 303 and plain.headers["Location"] == url
    assert "<title>Telemetrie – IrisRAG</title>" in client.get(url).get_data(as_text=True)
    assert client.post(f"{url}/delete", data={}).status_code == 400  # the CSRF token is needed
    response = client.post(f"{url}/delete", data={"csrf_token": token})
    assert response.status_code == 303 and response.headers["Location"] == "/"
    assert client.get(url).status_code == 404
    with app.app_context(), db.connection_context():
        assert (Conversation.select().count(), QuestionLog.select().count(), Feedback.select().count()) == (0, 0, 0)


def test_conversations_turns_of_a_lost_area_are_withheld_and_not_reused(app, library):
    from irisrag.services.admin import admin as admin_service

    with app.app_context():
        components.get().__dict__["llm"] = FakeLLM(f"Der Schlüssel ist {BETA_SECRET} [1].")
    carol = logged_in(app, "carol")
    url, _turn = start(carol, [library.beta])
    with app.app_context(), db.connection_context():
        admin_service.unlink_user("carol", "team-b")
        cid = int(url.rsplit("/", 1)[1])
        assert conversations.previous_turns(library.users["carol"], cid) == []  # never handed to a follow-up
    page = carol.get(url).get_data(as_text=True)
    assert BETA_SECRET not in page and "area you can no longer search" in page and QUESTION in page
    assert "beta-secret.md" not in page  # the stored sources of the lost area are left out too


def test_conversations_show_what_was_searched_for_when_it_differs(app, library):
    with app.app_context(), db.connection_context():
        alice = library.users["alice"]
        history.record(alice, AskResult("und für Debian 12?", (library.alpha,), "no_context",
                                        search_query="OpenTelemetry Debian 12"), "")
        history.record(alice, AskResult("Wo ist die Kantine?", (library.alpha,), "no_context",
                                        search_query="Wo ist die Kantine?"), "")
        first, second = (c.id for c in Conversation.select().order_by(Conversation.id))
    client = logged_in(app)
    assert "Searched for: OpenTelemetry Debian 12" in client.get(f"/c/{first}").get_data(as_text=True)
    assert "Searched for" not in client.get(f"/c/{second}").get_data(as_text=True)


def test_conversations_expired_session_asks_to_log_in_again_instead_of_a_csrf_error(app, library):
    client = logged_in(app)
    url, _turn = start(client, [library.alpha])
    token = csrf_token(client, url)
    expired = app.test_client()  # the browser lost its session cookie (expired, or a restart)
    data = {"question": FOLLOW_UP, "csrf_token": token}
    response = expired.post(f"{url}/ask", data=data, headers={"Referer": f"http://localhost{url}"})
    assert response.status_code == 302
    assert response.headers["Location"] == f"/login?expired=1&next={url}"
    response = expired.post(f"{url}/ask/stream", data=data, headers={**HX, "HX-Current-URL": f"http://localhost{url}"})
    assert response.status_code == 401 and response.headers["HX-Redirect"].startswith("/login?expired=1&next=")
    foreign = expired.post("/ask", data=data, headers={**HX, "HX-Current-URL": "http://evil.example/c/1"})
    assert foreign.headers["HX-Redirect"] == "/login?expired=1"  # only a page of this site is returned to
    page = expired.get("/login?expired=1", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "Ihre Sitzung ist abgelaufen" in page and 'id="session-expired"' in page
    assert login(expired, "alice", PASSWORD).status_code == 302
    logged_out_elsewhere = app.test_client()
    assert login(logged_out_elsewhere, "alice", PASSWORD).status_code == 302
    with app.app_context(), db.connection_context():
        from irisrag.models import User
        from irisrag.services.signin import auth as auth_service
        auth_service.end_sessions(User.get_by_id(library.users["alice"]), world="user")
    response = logged_out_elsewhere.post(f"{url}/ask", data={"question": FOLLOW_UP,
                                                             "csrf_token": csrf_token(logged_out_elsewhere, "/login")})
    assert response.status_code == 302 and response.headers["Location"].startswith("/login?expired=1")
