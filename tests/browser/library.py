"""A user's library for browser tests: one area reached through one group, files imported in the test process,
and a question asked the way a user asks it."""
from __future__ import annotations

from collections.abc import Sequence

from irisrag.extensions import db
from irisrag.jobs.documents import import_document
from irisrag.models import Area, Group
from irisrag.services.admin import admin as admin_service
from irisrag.services.documents import documents
from tests.browser.test_admin_flow import login

USER, PASSWORD = "erika", "erikapassword"


def seed(app, area: str, group: str, files: Sequence[tuple[str, bytes]]) -> None:
    """Create the area, the group and the user ``USER`` in it, and import each (name, content) into the area."""
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, area)
        admin_service.create_named(Group, group)
        admin_service.create_user(USER, PASSWORD)
        admin_service.link_user(USER, group)
        admin_service.link_area(area, group)
        for name, content in files:
            doc = documents.import_upload(area, name, content)
            assert import_document(doc.id)["status"] == "done"


def ask(page, live_server, question: str, status: str = "extractive") -> str:
    """Log in as ``USER`` at 1366 px, ask the question and wait for its answer card; return the card's selector."""
    page.set_viewport_size({"width": 1366, "height": 900})
    login(page, live_server, "/login", USER, PASSWORD)
    page.fill("#question", question)
    page.click("#composer button[type=submit]")
    card = f"#turns .answer-card[data-status={status}]"
    page.wait_for_selector(card)
    return card
