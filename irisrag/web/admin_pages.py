"""The admin tab bar: the console tabs, then the pages with views of their own, registered on ``admin``.

Importing this module registers those views and the tab bar's context processor on the
``admin`` blueprint (``admin_console.bp``); the app factory imports it before registering
the blueprint (``irisrag.web._register_blueprints``).
"""
from __future__ import annotations

from flask import Blueprint
from flask_babel import lazy_gettext as _l

from irisrag.web import (
    admin_directory,
    admin_evaluations,
    admin_feedback,
    admin_inspector,
    admin_missing,
    admin_sources,
    admin_system,
)
from irisrag.web.admin_console import bp
from irisrag.web.admin_tabs import CONSOLE, Tab
from irisrag.web.security import admin_required


def pages() -> tuple[Tab, ...]:
    """Return every admin page in tab-bar order: the console tabs, then the pages with views of their own."""
    return CONSOLE + (
        Tab("sources", _l("Sources"), "admin.list_sources", path="/sources", view=admin_sources.list_sources),
        Tab("feedback", _l("Feedback"), "admin.list_feedback", path="/feedback", view=admin_feedback.list_feedback),
        Tab("missing", _l("Missing answers"), "admin.list_missing", path="/missing",
            view=admin_missing.list_missing),
        Tab("directory", _l("Directory groups"), "admin.list_directory_groups", path="/directory-groups",
            view=admin_directory.list_directory_groups),
        Tab("inspector", _l("Retrieval inspector"), "admin.inspect_retrieval", path="/inspector",
            view=admin_inspector.inspect_retrieval, fragment=False),
        Tab("evaluations", _l("Evaluations"), "admin.list_evaluations", path="/evaluations",
            view=admin_evaluations.list_evaluations),
        Tab("system", _l("System"), "admin.show_system", path="/system", view=admin_system.show_system),
    )


def register(bp: Blueprint) -> None:
    """Register the views of the pages that have their own, and give the templates the tab bar."""
    tabs = pages()
    for tab in tabs:
        if tab.view is not None:
            blueprint, endpoint = tab.endpoint.split(".", 1)
            if blueprint != bp.name:
                raise ValueError(f"{tab.endpoint} is not an endpoint of {bp.name}")
            bp.add_url_rule(tab.path, endpoint, admin_required(tab.view))
    bp.context_processor(lambda: {"admin_tabs": tabs})


register(bp)
