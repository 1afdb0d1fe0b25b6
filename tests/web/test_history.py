"""History and feedback through the real routes: logging, own history only, feedback, admin list, retention."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest

from irisrag import components
from irisrag.extensions import db
from irisrag.llm.clients import FakeLLM
from irisrag.models import Conversation, Document, Feedback, QuestionLog
from irisrag.models.base import utcnow
from irisrag.services.asking import history
from tests.conftest import csrf_token
from tests.services import QUESTION, seed_library
from tests.web.test_dashboard import ask, logged_in

SHA_V1 = "1a2b3c4d5e6f" + "0" * 52
SHA_V2 = "9" * 64
ANSWER = "Die Konfiguration steht in **otel.yaml** [1]. Die Kantine öffnet um elf [1]. Siehe auch [7]."


@pytest.fixture
def library(app):
    lib = seed_library(app)
    with app.app_context(), db.connection_context():
        Document.update(sha256=SHA_V1).where(Document.id == lib.alpha_doc).execute()
    return lib


def use_llm(app, reply: str = ANSWER) -> None:
    with app.app_context():
        components.get().__dict__["llm"] = FakeLLM(reply)


def rows(app, **where) -> list[QuestionLog]:
    with app.app_context(), db.connection_context():
        query = QuestionLog.select().order_by(QuestionLog.id)
        for key, value in where.items():
            query = query.where(getattr(QuestionLog, key) == value)
        return list(query)


def feedback(client, question_id: int, rating: str | None, comment: str = "", *, token: bool = True, htmx=True):
    data = {"comment": comment}
    if rating is not None:
        data["rating"] = rating
    if token:
        data["csrf_token"] = csrf_token(client, "/")
    headers = {"HX-Request": "true"} if htmx else {}
    return client.post(f"/feedback/{question_id}", data=data, headers=headers)


def cited_passage(page: str, number: int = 1) -> str:
    match = re.search(rf'<details class="chip[^"]*" data-chunk-id="[^"]*" data-number="{number}".*?</details>', page, re.S)
    assert match, f"no cited passage {number}"
    return match.group(0)


def thread_url(body: str) -> str:
    """Return the conversation URL a turn (the answer of an htmx ask) belongs to."""
    match = re.search(r'data-conversation="(/c/\d+)"', body)
    assert match, "the answer is not a turn of a conversation"
    return match.group(1)


def question_id(body: str) -> int:
    match = re.search(r'id="feedback-(\d+)"', body)
    assert match, "no feedback form in the answer"
    return int(match.group(1))


# --- recording ---------------------------------------------------------------------------


def test_history_asking_stores_a_log_row_with_chunks_scores_timings_and_answer(app, library):
    use_llm(app)
    body = ask(logged_in(app), areas=[library.alpha])
    [row] = rows(app)
    assert question_id(body) == row.id
    assert row.user_id == library.users["alice"] and row.question == QUESTION
    assert row.area_ids == [library.alpha] and row.status == "answered" and row.llm == "fake"
    assert row.answer == "Die Konfiguration steht in **otel.yaml** [1]. Die Kantine öffnet um elf [1]. Siehe auch."
    [chunk] = row.chunks
    assert chunk["id"] == f"{library.alpha_doc}:0:{SHA_V1[:12]}" and chunk["sha256"] == SHA_V1
    assert (chunk["document_id"], chunk["chunk_index"], chunk["position"]) == (library.alpha_doc, 0, 1)
    assert 0 < chunk["score"] <= 1 and chunk["lexical_score"] > 0
    assert {"embed", "search", "llm", "documents", "total"} <= set(row.timings)
    assert row.timings["total"] > 0
    [cited] = row.citations
    assert cited["id"] == chunk["id"] and cited["number"] == 1 and "otel.yaml" in cited["text"]
    assert row.flags["invalid"] == [7]
    assert row.flags["unsupported"] == [{"sentence": "Die Kantine öffnet um elf.", "number": 1}]


def test_history_invalid_and_nothing_found_questions(app, library):
    client = logged_in(app)
    ask(client, "   ", [library.alpha])
    assert rows(app) == []  # an invalid question is not a searched one
    ask(client, "Wann fährt der Zug nach Hamburg?", [library.alpha])
    [row] = rows(app)
    assert row.status == "no_context" and row.chunks == [] and row.answer == ""


def test_history_cli_and_api_questions_are_recorded_benchmarks_can_opt_out(app, library):
    from irisrag.services.asking import asking

    with app.app_context(), db.connection_context():
        asking.ask(library.users["alice"], QUESTION, None)
        asking.ask(library.users["alice"], QUESTION, None, record=False)
    assert len(rows(app)) == 1


# --- the dashboard answer ------------------------------------------------------------------


def test_history_answer_shows_citation_links_passages_and_flags(app, library):
    use_llm(app)
    client = logged_in(app)
    body = ask(client, areas=[library.alpha])
    for shown in (body, client.get(thread_url(body)).get_data(as_text=True)):  # the answer, and the thread again
        q = f"q{question_id(body)}-"
        assert f'<a class="cite" href="#{q}cite-1">1</a>' in shown
        assert f'<a class="cite unsupported" href="#{q}cite-1" aria-describedby="{q}unsupported-note">1</a>' in shown
        passage = cited_passage(shown)
        assert "otel-guide.md" in passage and "otel.yaml" in passage and SHA_V1[:12] in passage
        assert "changed since" not in passage
        assert f'id="{q}invalid-citations"' in shown and "[7]" in shown.split(f'id="{q}invalid-citations"', 1)[1]
        assert f'id="{q}unsupported-note"' in shown and "Die Kantine öffnet um elf." in shown
        assert "Siehe auch." in shown and "[7]" not in shown.split('class="answer', 1)[1].split("</div>", 1)[0]


# --- the user's own history ---------------------------------------------------------------


def test_history_shows_only_the_users_own_questions(app, library):
    use_llm(app)
    alice, carol = logged_in(app), logged_in(app, "carol")
    alices = thread_url(ask(alice, "Wie wird OpenTelemetry bei Alice konfiguriert?", [library.alpha]))
    carols = thread_url(ask(carol, "Wie wird OpenTelemetry bei Carol konfiguriert?", [library.alpha]))
    page = alice.get("/history", follow_redirects=True).get_data(as_text=True)  # the history is the list now
    assert "bei Alice" in page and "bei Carol" not in page and "<html" in page
    fragment = carol.get(carols, headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "bei Carol" in fragment and "bei Alice" not in fragment and "<html" not in fragment
    assert 'id="q' in fragment and 'href="#q' in fragment  # answer links point into this turn
    assert "otel-guide.md" in fragment and "Alpha" in fragment
    assert carol.get(alices).status_code == 404 and alice.get(carols, headers={"HX-Request": "true"}).status_code == 404
    empty = logged_in(app, "bob").get("/c").get_data(as_text=True)
    assert "no-conversations" in empty and "bei Alice" not in empty and "bei Carol" not in empty


def test_history_needs_a_login(app, library):
    for path in ("/history", "/c", "/c/1"):
        response = app.test_client().get(path)
        assert response.status_code == 302 and "/login" in response.headers["Location"]


def test_history_marks_a_source_that_changed_since(app, library):
    use_llm(app)
    client = logged_in(app)
    url = thread_url(ask(client, areas=[library.alpha]))
    assert "changed since" not in client.get(url).get_data(as_text=True)
    with app.app_context(), db.connection_context():
        Document.update(sha256=SHA_V2).where(Document.id == library.alpha_doc).execute()
    page = client.get(url).get_data(as_text=True)
    passage = cited_passage(page)
    assert "changed since" in passage and SHA_V1[:12] in passage and "otel.yaml" in passage


def test_history_hides_passages_of_areas_no_longer_permitted(app, library):
    from irisrag.services.admin import admin as admin_service

    use_llm(app)
    client = logged_in(app)
    url = thread_url(ask(client, areas=[library.alpha]))
    with app.app_context(), db.connection_context():
        admin_service.unlink_user("alice", "team-a")
    page = client.get(url).get_data(as_text=True)
    passage = cited_passage(page)
    assert "area you can no longer search" in passage and "Der Collector" not in passage


def test_history_escapes_a_question_with_a_script(app, library):
    use_llm(app)
    client = logged_in(app)
    body = ask(client, "<script>alert('q')</script> OpenTelemetry konfiguriert?", [library.alpha])
    qid = question_id(body)
    assert feedback(client, qid, "down", "<script>alert('c')</script>").status_code == 200
    page = client.get(thread_url(body)).get_data(as_text=True)
    assert "&lt;script&gt;alert(&#39;q&#39;)&lt;/script&gt;" in client.get("/c").get_data(as_text=True)
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert(&#39;q&#39;)&lt;/script&gt;" in page
    assert "&lt;script&gt;alert(&#39;c&#39;)&lt;/script&gt;" in page
    admin = logged_in(app, "carol", admin=True)
    listing = admin.get("/admin/feedback").get_data(as_text=True)
    assert "<script>alert" not in listing
    assert "&lt;script&gt;alert(&#39;q&#39;)&lt;/script&gt;" in listing


# --- feedback ---------------------------------------------------------------------------------


def test_history_feedback_by_the_owner_is_stored_and_a_second_vote_updates_it(app, library):
    client = logged_in(app)
    body = ask(client, areas=[library.alpha])
    qid = question_id(body)
    response = feedback(client, qid, "up")
    text = response.get_data(as_text=True)
    assert response.status_code == 200 and "Thank you for your feedback." in text
    assert 'value="up" aria-pressed="true"' in text and "<html" not in text
    response = feedback(client, qid, "down", "Die Antwort nennt die falsche Datei.")
    assert response.status_code == 200 and 'value="down" aria-pressed="true"' in response.get_data(as_text=True)
    with app.app_context(), db.connection_context():
        [vote] = list(Feedback.select())
    assert (vote.question_id, vote.user_id, vote.rating) == (qid, library.users["alice"], -1)
    assert vote.comment == "Die Antwort nennt die falsche Datei."
    page = client.get(thread_url(body)).get_data(as_text=True)
    assert 'value="down" aria-pressed="true"' in page and "Die Antwort nennt die falsche Datei." in page
    assert 'value="up" aria-pressed="false"' in page and "Your rating: not helpful." in page  # said in words too


def test_history_feedback_without_htmx_redirects_to_the_turn(app, library):
    client = logged_in(app)
    body = ask(client, areas=[library.alpha])
    qid = question_id(body)
    response = feedback(client, qid, "up", htmx=False)
    assert response.status_code == 302 and response.headers["Location"].endswith(f"{thread_url(body)}#t{qid}")


def test_history_feedback_on_another_users_question_is_not_found(app, library):
    qid = question_id(ask(logged_in(app), areas=[library.alpha]))
    carol = logged_in(app, "carol")
    for rating in ("down", "up", None):
        assert feedback(carol, qid, rating, "fremd").status_code == 404
    assert feedback(carol, 424242, "down").status_code == 404
    with app.app_context(), db.connection_context():
        assert Feedback.select().count() == 0


def test_history_feedback_validation(app, library):
    client = logged_in(app)
    qid = question_id(ask(client, areas=[library.alpha]))
    response = feedback(client, qid, "sideways")
    assert response.status_code == 400 and "thumbs up or thumbs down" in response.get_data(as_text=True)
    response = feedback(client, qid, "down", "x" * 2001)
    assert response.status_code == 400 and "at most 2000 characters" in response.get_data(as_text=True)
    assert feedback(client, qid, "down", "x" * 2000).status_code == 200
    with app.app_context(), db.connection_context():
        assert len(Feedback.get().comment) == 2000


def test_history_feedback_needs_the_csrf_token(app, library):
    client = logged_in(app)
    qid = question_id(ask(client, areas=[library.alpha]))
    response = feedback(client, qid, "down", token=False)
    assert response.status_code == 400
    with app.app_context(), db.connection_context():
        assert Feedback.select().count() == 0


def test_history_feedback_needs_a_login(app, library):
    qid = question_id(ask(logged_in(app), areas=[library.alpha]))
    anonymous = app.test_client()
    token = csrf_token(anonymous, "/login")
    response = anonymous.post(f"/feedback/{qid}", data={"rating": "down", "csrf_token": token})
    assert response.status_code == 302 and "/login?expired=1" in response.headers["Location"]


# --- admin -----------------------------------------------------------------------------------------


def test_history_admin_feedback_lists_negative_ones_only(app, library):
    use_llm(app)
    alice, carol = logged_in(app), logged_in(app, "carol")
    bad = question_id(ask(alice, "Wo steht die OpenTelemetry Datei?", [library.alpha]))
    good = question_id(ask(carol, "Wie wird OpenTelemetry konfiguriert, bitte?", [library.alpha]))
    feedback(alice, bad, "down", "Falsche Datei genannt")
    feedback(carol, good, "up", "Super")
    admin = logged_in(app, "bob", admin=True)
    page = admin.get("/admin/feedback").get_data(as_text=True)
    assert "<html" in page and 'id="tab-feedback"' in page
    assert "Wo steht die OpenTelemetry Datei?" in page and "Falsche Datei genannt" in page and "alice" in page
    assert "konfiguriert, bitte?" not in page and "Super" not in page
    assert f"{library.alpha_doc}:0:{SHA_V1[:12]}" in page  # the cited chunk id
    fragment = admin.get("/admin/feedback", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "<html" not in fragment and "Falsche Datei genannt" in fragment
    feedback(alice, bad, "up")
    assert "Falsche Datei genannt" not in admin.get("/admin/feedback").get_data(as_text=True)


def test_history_admin_feedback_needs_an_admin(app, library):
    user = logged_in(app)
    response = user.get("/admin/feedback")
    assert response.status_code == 302 and "/admin/login" in response.headers["Location"]
    assert "/admin/feedback" in logged_in(app, "carol", admin=True).get("/admin").get_data(as_text=True)


# --- retention -------------------------------------------------------------------------------------


def age(app, qid: int, days: int) -> None:
    with app.app_context(), db.connection_context():
        QuestionLog.update(created_at=utcnow() - timedelta(days=days)).where(QuestionLog.id == qid).execute()


def test_history_retention_prunes_old_questions_and_their_feedback(app, library):
    client = logged_in(app)
    old_body = ask(client, areas=[library.alpha])
    old = question_id(old_body)
    recent = question_id(ask(client, areas=[library.alpha]))
    feedback(client, old, "down")
    age(app, old, 91)
    age(app, recent, 89)
    with app.app_context(), db.connection_context():
        assert history.prune(0) == 0  # 0 keeps everything
        assert history.prune() == 1   # the default: 90 days
        assert [r.id for r in QuestionLog.select()] == [recent]
        assert Feedback.select().count() == 0
    # the conversation left without questions is gone with them; the recent one stays
    assert client.get(thread_url(old_body)).status_code == 404
    with app.app_context(), db.connection_context():
        assert [c.id for c in Conversation.select()] == [QuestionLog.get_by_id(recent).conversation_id]


def test_history_prune_cli_uses_the_setting_or_days(app, library):
    client = logged_in(app)
    first = question_id(ask(client, areas=[library.alpha]))
    second = question_id(ask(client, areas=[library.alpha]))
    age(app, first, 200)
    age(app, second, 20)
    runner = app.test_cli_runner()
    result = runner.invoke(args=["rag", "prune-history"])
    assert result.exit_code == 0 and "Deleted 1 question(s) older than 90 day(s)." in result.output
    result = runner.invoke(args=["rag", "prune-history", "--days", "0"])
    assert result.exit_code == 0 and "nothing deleted" in result.output
    assert [r.id for r in rows(app)] == [second]
    result = runner.invoke(args=["rag", "prune-history", "--days", "10"])
    assert result.exit_code == 0 and "Deleted 1" in result.output and rows(app) == []


def test_history_retention_zero_keeps_everything(app, library):
    app.config["HISTORY_RETENTION_DAYS"] = 0
    client = logged_in(app)
    qid = question_id(ask(client, areas=[library.alpha]))
    age(app, qid, 5000)
    result = app.test_cli_runner().invoke(args=["rag", "prune-history"])
    assert result.exit_code == 0 and "keep forever" in result.output
    assert [r.id for r in rows(app)] == [qid]


def test_history_is_pruned_by_the_workers_sweep_at_most_hourly_not_by_asking(app, library):
    from irisrag.jobs.sweep import sweep

    client = logged_in(app)
    old = question_id(ask(client, areas=[library.alpha]))
    age(app, old, 100)
    ask(client, areas=[library.alpha])
    assert old in [r.id for r in rows(app)]  # asking leaves pruning to the worker
    with app.app_context():
        assert sweep()["pruned_questions"] == 1
    assert old not in [r.id for r in rows(app)]
    another = question_id(ask(client, areas=[library.alpha]))
    age(app, another, 100)
    with app.app_context():
        assert sweep()["pruned_questions"] == 0  # pruned at most once an interval, whichever worker sweeps
    assert another in [r.id for r in rows(app)]


def test_history_user_deletion_removes_their_history(app, library):
    from irisrag.services.admin import admin as admin_service

    client = logged_in(app)
    qid = question_id(ask(client, areas=[library.alpha]))
    feedback(client, qid, "down")
    with app.app_context(), db.connection_context():
        root = admin_service.create_user("root2", "rootpassword", is_admin=True)
        admin_service.delete_user(library.users["alice"], acting_user_id=root.id)
        assert QuestionLog.select().count() == 0 and Feedback.select().count() == 0

