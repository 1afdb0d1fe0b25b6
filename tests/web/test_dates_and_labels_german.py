"""German throughout (issue 39): dates in the instance's time zone, translated statuses, reasons and error pages."""
from __future__ import annotations

import datetime

import pytest
from werkzeug.exceptions import ServiceUnavailable

from irisrag import config as settings
from irisrag.extensions import db
from irisrag.models import Area, Document
from irisrag.services.admin import admin as admin_service
from irisrag.web import llm_reason
from tests.conftest import login, make_app

DE = {"Accept-Language": "de"}
SUMMER_NIGHT = datetime.datetime(2026, 7, 1, 22, 30)  # UTC: already 2 July in Berlin


def _imported_row_text(app) -> str:
    with app.app_context(), db.connection_context():
        area = admin_service.create_named(Area, "Betrieb")
        Document.create(area=area, name="nacht.md", directory="", kind="text", status="done", imported_at=SUMMER_NIGHT)
        admin_service.create_user("root", "rootpassword", is_admin=True)
    client = app.test_client()
    assert login(client, "root", "rootpassword", admin=True).status_code == 302
    return client.get("/admin?tab=documents", headers=DE).get_data(as_text=True)


def test_dates_are_shown_in_the_instance_time_zone_and_the_users_language(app):
    html = _imported_row_text(app)  # the default zone: Europe/Berlin
    assert "02.07.2026, 00:30" in html and "2026-07-01 22:30" not in html
    assert 'datetime="2026-07-01T22:30:00Z"' in html or 'datetime="2026-07-01T22:30:00' in html  # machines: UTC


def test_dates_follow_the_timezone_setting(tmp_path, database_url, redis_url):
    app = make_app(tmp_path, database_url, redis_url, TIMEZONE="UTC")
    assert "01.07.2026, 22:30" in _imported_row_text(app)


def test_an_unknown_time_zone_stops_the_start_naming_the_setting(tmp_path, database_url, redis_url):
    with pytest.raises(ValueError, match="IRISRAG_TIMEZONE"):
        settings.load({"IRISRAG_TIMEZONE": "Mars/Olympus_Mons"})
    with pytest.raises(ValueError, match="IRISRAG_TIMEZONE"):
        make_app(tmp_path, database_url, redis_url, TIMEZONE="Europe/Atlantis")
    assert settings.load({"IRISRAG_TIMEZONE": "UTC"})["TIMEZONE"] == "UTC"


def test_system_page_shows_statuses_and_the_model_reason_in_german(admin_client, app):
    with app.app_context(), db.connection_context():
        area = admin_service.create_named(Area, "Betrieb")
        Document.create(area=area, name="a.md", directory="", kind="text", status="done")
    html = admin_client.get("/admin/system", headers=DE).get_data(as_text=True)
    states = html.split('id="document-states"')[1].split("</p>")[0]
    assert "fertig 1" in states and "done" not in states
    assert '<tr id="disk-staging"><td>Staging-Ordner</td>' in html and '<td>Vektorindex (LanceDB)</td>' in html
    reason = html.split('id="llm-reason"')[1].split("</td>")[0]
    assert "Antworten werden aus den Dokumenten zusammengestellt" in reason and "answers are" not in reason


@pytest.mark.parametrize("english, german", [
    ("Ollama at http://127.0.0.1:11434 did not answer GET /api/tags: connection refused; "
     "IRISRAG_OPENAI_BASE_URL is not set: answers are extractive",
     "Ollama unter http://127.0.0.1:11434 antwortete nicht auf GET /api/tags: connection refused; "
     "IRISRAG_OPENAI_BASE_URL ist nicht gesetzt: Antworten werden aus den Dokumenten zusammengestellt"),
    ("Ollama at http://o:11434 answers but does not have the model 'qwen3' (ollama pull qwen3); "
     "IRISRAG_OPENAI_BASE_URL is set: http://llm:8000/v1",
     "Ollama unter http://o:11434 antwortet, hat aber das Modell 'qwen3' nicht (ollama pull qwen3); "
     "IRISRAG_OPENAI_BASE_URL ist gesetzt: http://llm:8000/v1"),
    ("Ollama at http://o:11434 answers and has the model 'qwen3'", "Ollama unter http://o:11434 antwortet und hat das Modell 'qwen3'"),
    ("something new", "something new"),  # an unknown reason is shown as it is
])
def test_the_model_reason_is_translated_part_by_part(app, english, german):
    with app.test_request_context(headers=DE):
        assert llm_reason.translate(english) == german


def test_the_reasons_of_llm_auto_are_the_ones_translated():
    from irisrag.llm import auto as llm_auto
    _, why = llm_auto.probe_ollama("http://127.0.0.1:9", "qwen3", timeout=0.5)
    assert llm_reason.known(why)


def test_error_pages_name_the_reason_in_german(tmp_path, database_url, redis_url):
    app = make_app(tmp_path, database_url, redis_url)

    @app.get("/test-unavailable")
    def unavailable():
        raise ServiceUnavailable()

    client = app.test_client()
    missing = client.get("/gibt-es-nicht", headers=DE).get_data(as_text=True)
    assert "<h1>404 · Nicht gefunden</h1>" in missing and "Not Found" not in missing
    down = client.get("/test-unavailable", headers=DE)
    assert down.status_code == 503 and "<h1>503 · Dienst nicht verfügbar</h1>" in down.get_data(as_text=True)
    assert "Service Unavailable" not in down.get_data(as_text=True)
    assert client.get("/test-unavailable").get_data(as_text=True).count("Service unavailable") >= 1  # English too
