"""The admin console's pages, in one list: it builds the tab bar and registers each page's route.

The five SPEC tabs (users, groups, areas, links, documents) are swapped into the console
by ``admin.show_tab`` and each reads only what it shows (``context``); the other pages
(feedback, inspector, evaluations, system) have a view of their own, registered here under
a fixed endpoint name. ``templates/admin/_tabnav.html`` renders ``admin_tabs`` (a context
processor), so a new page is one entry in ``PAGES``.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask import Blueprint, url_for
from flask_babel import lazy_gettext as _l

from irisrag.services import admin as admin_service
from irisrag.web import forms


@dataclass(frozen=True)
class Tab:
    """One admin page: its key (``tab`` in templates), label, endpoint and how the tab bar opens it.

    A console tab has a ``context`` (what it shows) and is served by ``admin.index`` /
    ``admin.show_tab``; any other page has a ``path`` and a ``view`` registered under ``endpoint``.
    """

    key: str
    label: Any  # a lazy translation
    endpoint: str = "admin.index"
    context: Callable[[], dict] | None = None
    path: str | None = None
    view: Callable[..., Any] | None = field(default=None, compare=False)
    fragment: bool = True  # opened into #console by htmx (False: a page of its own)

    @property
    def console(self) -> bool:
        return self.context is not None

    def page_url(self) -> str:
        return url_for(self.endpoint, tab=self.key) if self.console else url_for(self.endpoint)

    def fragment_url(self) -> str:
        return url_for("admin.show_tab", tab=self.key) if self.console else url_for(self.endpoint)


def _users() -> dict:
    return {"data": admin_service.overview("users", "areas"), "user_form": forms.UserForm(formdata=None)}


def _groups() -> dict:
    return {"data": admin_service.overview("groups"), "group_form": forms.NamedForm(formdata=None)}


def _areas() -> dict:
    from irisrag.services.document_list import counts_by_area

    return {"data": admin_service.overview("areas"), "area_form": forms.NamedForm(formdata=None),
            "document_counts": counts_by_area()}


def _links() -> dict:
    data = admin_service.overview("users", "groups", "areas", "user_groups", "area_groups")
    user_link, area_link = forms.UserLinkForm(), forms.AreaLinkForm()
    user_link.user.choices = [(u.id, u.username) for u in data["users"]]
    user_link.group.choices = area_link.group.choices = [(g.id, g.name) for g in data["groups"]]
    area_link.area.choices = [(a.id, a.name) for a in data["areas"]]
    return {"data": data, "user_link_form": user_link, "area_link_form": area_link}


def _documents() -> dict:
    from irisrag.web.admin_documents import documents_context

    return {"data": admin_service.overview("areas"), **documents_context()}


CONSOLE = (
    Tab("users", _l("Users"), context=_users),
    Tab("groups", _l("Groups"), context=_groups),
    Tab("areas", _l("Areas"), context=_areas),
    Tab("links", _l("Links"), context=_links),
    Tab("documents", _l("RAG documents"), context=_documents),
)
BY_KEY = {t.key: t for t in CONSOLE}


def pages() -> tuple[Tab, ...]:
    """Return every admin page in tab-bar order: the console tabs, then the pages with views of their own."""
    from irisrag.web import admin_directory, admin_evaluations, admin_feedback, admin_inspector, admin_system

    return CONSOLE + (
        Tab("feedback", _l("Feedback"), "admin.list_feedback", path="/feedback", view=admin_feedback.list_feedback),
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
    from irisrag.web.security import admin_required

    tabs = pages()
    for tab in tabs:
        if tab.view is not None:
            blueprint, endpoint = tab.endpoint.split(".", 1)
            if blueprint != bp.name:
                raise ValueError(f"{tab.endpoint} is not an endpoint of {bp.name}")
            bp.add_url_rule(tab.path, endpoint, admin_required(tab.view))
    bp.context_processor(lambda: {"admin_tabs": tabs})
