"""The admin console's five tabs: what each shows; the tab bar with the other pages is ``admin_pages``.

The five SPEC tabs (users, groups, areas, links, documents) are swapped into the console
by ``admin.show_tab`` and each reads only what it shows (``context``); the other pages
(feedback, missing answers, inspector, evaluations, system) have a view of their own, registered by
``admin_pages`` under a fixed endpoint name. ``templates/admin/_tabnav.html`` renders
``admin_tabs`` (a context processor there), so a new page is one entry in ``admin_pages.pages``.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask import current_app, request, url_for
from flask_babel import lazy_gettext as _l

from irisrag.ingest.extract import SUPPORTED, supported_types_text
from irisrag.ingest.stage import size_text
from irisrag.services.admin import admin as admin_service
from irisrag.services.documents import import_progress
from irisrag.services.documents.document_list import DocumentQuery, list_page
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
    from irisrag.services.documents.document_list import counts_by_area

    return {"data": admin_service.overview("areas"), "area_form": forms.NamedForm(formdata=None),
            "document_counts": counts_by_area()}


def _links() -> dict:
    data = admin_service.overview("users", "groups", "areas", "user_groups", "area_groups")
    user_link, area_link = forms.UserLinkForm(), forms.AreaLinkForm()
    user_link.user.choices = [(u.id, u.username) for u in data["users"]]
    user_link.group.choices = area_link.group.choices = [(g.id, g.name) for g in data["groups"]]
    area_link.area.choices = [(a.id, a.name) for a in data["areas"]]
    return {"data": data, "user_link_form": user_link, "area_link_form": area_link}


def documents_context() -> dict:
    """Return what the documents tab shows."""
    page = list_page(DocumentQuery.from_args(request.args))
    config = current_app.config
    return {
        "listing": page, "documents": page.documents, "area_filter": page.query.area, "keep": page.query.args(),
        "poll": import_progress.poll([d.id for d in page.documents if d.is_running]), "outcomes": [], "entered": {}, "bulk": None, "picked": set(),
        "accept": ",".join(SUPPORTED),
        "supported": supported_types_text(), "max_upload": size_text(config["MAX_UPLOAD_BYTES"]),
        "volume_configured": bool(config["SRC_VOLUME_PATH"]),
    }


def _documents() -> dict:
    return {"data": admin_service.overview("areas"), **documents_context()}


CONSOLE = (
    Tab("users", _l("Users"), context=_users),
    Tab("groups", _l("Groups"), context=_groups),
    Tab("areas", _l("Areas"), context=_areas),
    Tab("links", _l("Links"), context=_links),
    Tab("documents", _l("RAG documents"), context=_documents),
)
BY_KEY = {t.key: t for t in CONSOLE}
