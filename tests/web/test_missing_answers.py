"""The missing-answers page and API (issue 40 item 4): grouping, the 30-day window, privacy, access."""
from __future__ import annotations

import html
from datetime import timedelta
from urllib.parse import quote_plus

import pytest

from irisrag.extensions import db
from irisrag.models import Feedback, QuestionLog
from irisrag.models.base import utcnow
from irisrag.services.admin import api_keys
from irisrag.services.admin import missing_answers as missing
from tests.conftest import make_app
from tests.services import seed_library
from tests.web.test_dashboard import ask, logged_in
from tests.web.test_history import feedback, question_id

KANTINE = ["Wann öffnet die Kantine?", "Wann öffnet die Kantine morgen?"]
EVIL = "<script>alert('q')</script> Wo ist der Drucker?"


@pytest.fixture
def library(app):
    return seed_library(app)


def logq(app, user_id: int, question: str, *, status: str = "no_context", age=timedelta(0), areas=(),
         rating: int | None = None, comment: str = "") -> int:
    """Store a question as history does, asked ``age`` ago, with an optional rating by its asker."""
    with app.app_context(), db.connection_context():
        row = QuestionLog.create(user=user_id, question=question, search_query=question, status=status,
                                 area_ids=list(areas), created_at=utcnow() - age)
        if rating is not None:
            Feedback.create(question=row.id, user=user_id, rating=rating, comment=comment)
        return row.id


def seed_misses(app, lib) -> dict[str, int]:
    alice, bob = lib.users["alice"], lib.users["bob"]
    return {
        "kantine1": logq(app, alice, KANTINE[0], areas=[lib.alpha], age=timedelta(days=3)),
        "kantine2": logq(app, bob, KANTINE[1], areas=[lib.beta], age=timedelta(hours=2)),
        "down": logq(app, bob, EVIL, status="answered", areas=[lib.beta], rating=-1, comment="Falscher Stock"),
        "up": logq(app, alice, "Wie wird der Collector gestartet?", status="answered", rating=1),
        "answered": logq(app, alice, "Was steht in otel.yaml?", status="answered"),
        "old": logq(app, alice, "Wann öffnet die Kantine heute?", age=timedelta(days=30, hours=1)),
        "edge": logq(app, alice, "Welche Farbe hat das Logo?", age=timedelta(days=29, hours=23)),
    }


def admin_key(app, name: str = "keyadmin", *, admin: bool = True) -> str:
    from irisrag.services.admin import admin as admin_service

    with app.app_context(), db.connection_context():
        admin_service.create_user(name, "password123", is_admin=admin)
        return api_keys.create_key(name).plain


# --- the service -------------------------------------------------------------------------------


def test_missing_answers_groups_the_window_and_leaves_answered_ones_out(app, library):
    ids = seed_misses(app, library)
    with app.app_context(), db.connection_context():
        report = missing.missing_answers()
    assert report.questions == 4 and not report.truncated and not report.show_users
    by_first = {g.members[-1].question_id: g for g in report.groups}
    assert set(by_first) == {ids["kantine1"], ids["down"], ids["edge"]}
    kantine = report.groups[0]  # the largest group first
    assert kantine.count == 2 and [m.question_id for m in kantine.members] == [ids["kantine2"], ids["kantine1"]]
    assert kantine.areas == ((library.alpha, "Alpha"), (library.beta, "Beta"))
    assert kantine.last_asked == kantine.members[0].asked_at and kantine.reason_count(missing.NO_INFORMATION) == 2
    down = by_first[ids["down"]]
    assert down.members[0].reasons == (missing.THUMBS_DOWN,) and down.members[0].comment == "Falscher Stock"
    assert all(m.username is None for g in report.groups for m in g.members)


def test_missing_answers_window_is_thirty_days_back_from_now(app, library):
    qid = logq(app, library.users["alice"], "Welche Farbe hat das Logo?", age=timedelta(days=10))
    with app.app_context(), db.connection_context():
        assert [g.count for g in missing.missing_answers().groups] == [1]
        assert missing.missing_answers(now=utcnow() + timedelta(days=21)).groups == []
        assert missing.missing_answers(now=utcnow() + timedelta(days=19)).groups[0].representative.question_id == qid


def test_missing_answers_keeps_only_the_newest_questions(app, library, monkeypatch):
    monkeypatch.setattr(missing, "MAX_QUESTIONS", 3)
    ids = [logq(app, library.users["alice"], f"Frage Nummer {n}", age=timedelta(hours=10 - n)) for n in range(5)]
    with app.app_context(), db.connection_context():
        report = missing.missing_answers()
    kept = {m.question_id for g in report.groups for m in g.members}
    assert report.truncated and report.questions == 3 and kept == set(ids[2:])


def test_missing_answers_on_both_databases(tmp_path, any_database_url, redis_url):
    app = make_app(tmp_path, any_database_url, redis_url)
    lib = seed_library(app)
    ids = seed_misses(app, lib)
    app.config["MISSING_ANSWERS_SHOW_USERS"] = True
    with app.app_context(), db.connection_context():
        report = missing.missing_answers()
    assert [g.count for g in report.groups] == [2, 1, 1]
    users = {m.question_id: m.username for g in report.groups for m in g.members}
    assert users == {ids["kantine1"]: "alice", ids["kantine2"]: "bob", ids["down"]: "bob", ids["edge"]: "alice"}


# --- the page ----------------------------------------------------------------------------------


def test_missing_page_shows_groups_with_inspector_links(app, library):
    ids = seed_misses(app, library)
    admin = logged_in(app, "carol", admin=True)
    page = admin.get("/admin/missing").get_data(as_text=True)
    assert "<html" in page and 'id="tab-missing"' in page and 'aria-current="page"' in page
    group = page.split(f'id="missing-g{ids["kantine1"]}"')[1].split("</tr>")[0]
    assert '<td class="num count">2</td>' in group and "Alpha, Beta" in group and "2 × no information" in group
    assert f'id="missing-q{ids["kantine2"]}"' in group and html.escape(KANTINE[1]) in group
    link = f'/admin/inspector?question={quote_plus(KANTINE[0], safe="?")}&amp;areas={library.alpha}&amp;areas={library.beta}'
    assert link in group
    assert "<script>alert" not in page and "&lt;script&gt;alert(&#39;q&#39;)&lt;/script&gt;" in page
    assert "Falscher Stock" in page and "1 × thumbs down" in page
    assert "Wann öffnet die Kantine heute?" not in page and "Was steht in otel.yaml?" not in page
    assert "Wie wird der Collector gestartet?" not in page
    fragment = admin.get("/admin/missing", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "<html" not in fragment and f'id="missing-g{ids["kantine1"]}"' in fragment


def test_missing_page_without_misses_says_so(app, library):
    page = logged_in(app, "carol", admin=True).get("/admin/missing").get_data(as_text=True)
    assert 'id="no-missing"' in page and "<table" not in page.split('id="missing"')[1]


def test_missing_page_picks_up_real_no_information_answers_and_thumbs_down(app, library):
    client = logged_in(app, "carol", admin=True)
    body = ask(client, "Wie hoch ist das Budget für Dienstwagen?", areas=[library.alpha])
    assert "No information was found" in body
    answered = ask(client, areas=[library.alpha])
    assert feedback(client, question_id(answered), "down", "Nicht hilfreich").status_code == 200
    page = client.get("/admin/missing").get_data(as_text=True)
    assert "Wie hoch ist das Budget für Dienstwagen?" in page and "Nicht hilfreich" in page


def test_missing_page_shows_names_only_where_the_setting_allows(app, library):
    seed_misses(app, library)
    admin = logged_in(app, "carol", admin=True)
    page = admin.get("/admin/missing").get_data(as_text=True).split('id="missing"')[1]
    assert 'class="asker"' not in page and ">alice<" not in page and ">bob<" not in page
    app.config["MISSING_ANSWERS_SHOW_USERS"] = True
    page = admin.get("/admin/missing").get_data(as_text=True).split('id="missing"')[1]
    assert '<span class="asker">alice</span>' in page and '<span class="asker">bob</span>' in page


# --- access ------------------------------------------------------------------------------------


def test_missing_page_and_fragment_refuse_users_and_anonymous(app, library, make_user):
    seed_misses(app, library)
    make_user("boss", "bosspassword", admin=True)
    for client in (app.test_client(), logged_in(app, "alice")):
        page = client.get("/admin/missing")
        assert page.status_code == 302 and "/admin/login" in page.headers["Location"]
        fragment = client.get("/admin/missing", headers={"HX-Request": "true"})
        assert fragment.status_code in (200, 401) and "HX-Redirect" in fragment.headers
        for response in (page, fragment):
            assert "Kantine" not in response.get_data(as_text=True)
    # an admin account logged in to the user world only is no admin here
    from tests.conftest import login

    user_world = app.test_client()
    assert login(user_world, "boss", "bosspassword").status_code == 302
    response = user_world.get("/admin/missing")
    assert response.status_code == 302 and "Kantine" not in response.get_data(as_text=True)


# --- the API -----------------------------------------------------------------------------------


def test_missing_answers_api_for_admin_keys(app, library):
    ids = seed_misses(app, library)
    client = app.test_client()
    resp = client.get("/api/v1/missing-answers", headers={"X-API-Key": admin_key(app)})
    assert resp.status_code == 200
    data = resp.get_json()
    assert data["days"] == 30 and data["questions"] == 4 and data["truncated"] is False
    first = data["groups"][0]
    assert first["count"] == 2 and first["no_information"] == 2 and first["thumbs_down"] == 0
    assert first["areas"] == [{"id": library.alpha, "name": "Alpha"}, {"id": library.beta, "name": "Beta"}]
    assert [m["question_id"] for m in first["members"]] == [ids["kantine2"], ids["kantine1"]]
    assert first["last_asked"].endswith("Z") and first["question"] in KANTINE
    assert all("user" not in m for g in data["groups"] for m in g["members"])
    app.config["MISSING_ANSWERS_SHOW_USERS"] = True
    data = client.get("/api/v1/missing-answers", headers={"X-API-Key": admin_key(app, "keyadmin2")}).get_json()
    assert {m["user"] for m in data["groups"][0]["members"]} == {"alice", "bob"}


def test_missing_answers_api_refuses_user_keys_and_no_key(app, library):
    seed_misses(app, library)
    client = app.test_client()
    with app.app_context(), db.connection_context():
        carol_key = api_keys.create_key("carol").plain
    resp = client.get("/api/v1/missing-answers", headers={"X-API-Key": carol_key})
    assert resp.status_code == 403 and resp.get_json()["error"]["code"] == "forbidden"
    assert "Kantine" not in resp.get_data(as_text=True)
    resp = client.get("/api/v1/missing-answers")
    assert resp.status_code == 401 and "Kantine" not in resp.get_data(as_text=True)
    assert client.post("/api/v1/missing-answers", headers={"X-API-Key": carol_key}).status_code == 405


# --- the privacy setting -------------------------------------------------------------------------


def test_missing_answers_show_users_setting_is_off_by_default_and_refuses_typos():
    from irisrag.config import ConfigError, load

    assert load({})["MISSING_ANSWERS_SHOW_USERS"] is False
    assert load({"IRISRAG_MISSING_ANSWERS_SHOW_USERS": "yes"})["MISSING_ANSWERS_SHOW_USERS"] is True
    with pytest.raises(ConfigError, match="IRISRAG_MISSING_ANSWERS_SHOW_USERS"):
        load({"IRISRAG_MISSING_ANSWERS_SHOW_USERS": "maybe"})
