"""A user asks over imported documents in a real browser and sees the answer and its sources."""
from pathlib import Path

import pytest

from irisrag.extensions import db
from irisrag.jobs.documents import import_document
from irisrag.models import Area, Group
from irisrag.services.admin import admin as admin_service
from irisrag.services.documents import documents
from tests.browser.test_admin_flow import login
from tests.conftest import make_app
from tests.support.http_stub import HttpStub, Reply

pytestmark = pytest.mark.browser
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ANSWER = "Das Debian-Projekt ist eine **Vereinigung von Einzelpersonen** [1]."


@pytest.fixture
def stub():
    with HttpStub() as server:
        server.add("POST", "/api/chat", Reply(json={"message": {"role": "assistant", "content": ANSWER}, "done": True}))
        yield server


@pytest.fixture
def app(tmp_path, database_url, redis_url, stub):
    app = make_app(tmp_path, database_url, redis_url, LLM="ollama", OLLAMA_URL=stub.url)
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, "Handbuch")
        admin_service.create_named(Area, "Geheim")
        admin_service.create_named(Group, "Leser")
        admin_service.create_user("erika", "erikapassword")
        admin_service.link_user("erika", "Leser")
        admin_service.link_area("Handbuch", "Leser")
        doc = documents.import_upload("Handbuch", "vorwort.md", (FIXTURES / "excerpt-de.md").read_bytes())
        assert import_document(doc.id)["status"] == "done"  # the real pipeline, in-process
        secret = documents.import_upload("Geheim", "geheim.md", b"Das Debian-Projekt ist geheim: GEHEIM-4711.")
        assert import_document(secret.id)["status"] == "done"
    return app


def test_browser_user_asks_and_sees_answer_and_sources(page, live_server, stub):
    login(page, live_server, "/login", "erika", "erikapassword")
    page.wait_for_selector("#question")
    page.fill("#question", "Was ist das Debian-Projekt?")
    page.click("#composer button[type=submit]")
    page.wait_for_selector("#turns strong:has-text('Vereinigung von Einzelpersonen')")
    text = page.inner_text("#turns")
    assert "vorwort.md" in text and "Handbuch" in text
    page.wait_for_selector("#turns .answer-card[data-status=answered] details.chip")  # the cited passage, in its chip
    assert page.locator("#turns details.chip mark").count() > 0  # matched terms highlighted
    assert "GEHEIM-4711" not in page.content() and "geheim.md" not in text
    prompt = stub.last("POST", "/api/chat").json["messages"][-1]["content"]
    assert "Was ist das Debian-Projekt?" in prompt and "[1]" in prompt and "GEHEIM" not in prompt
