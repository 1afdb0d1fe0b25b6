"""Blueprint ``conversations``: the user's threads (``/c/<id>``), the list, follow-ups (whole or streamed), rename, delete.

Every route takes the conversation id from the URL and asks the service for the current
user's conversation, so another user's id is a 404 like a missing one.
"""
from __future__ import annotations

from flask import Blueprint, redirect, request, url_for
from flask_babel import gettext
from flask_login import current_user

from irisrag.errors import ValidationError
from irisrag.services import access
from irisrag.services.asking import asking, conversations, history
from irisrag.web import composer, stream
from irisrag.web.htmx import client_redirect, is_htmx, render
from irisrag.web.params import int_field
from irisrag.web.security import user_required

bp = Blueprint("conversations", __name__)


@bp.route("/c")
@user_required
def index():
    listing = conversations.listing(current_user.id, request.args.get("q", ""), int_field(request.args, "page", 1, minimum=1))
    fragment = "conversations/_items.html" if listing.page > 1 else "conversations/_list.html"
    return render("conversations/index.html", fragment,
                  **composer.page_context(listing=listing, retention_days=history.retention_days()))


@bp.route("/c/<id:conversation_id>")
@user_required
def show(conversation_id: int):
    thread = conversations.thread(current_user.id, conversation_id)
    return render("conversations/show.html", "conversations/_thread.html",
                  **composer.page_context(thread=thread))


@bp.route("/c/<id:conversation_id>/ask", methods=["POST"])
@user_required
def ask(conversation_id: int):
    previous = conversations.previous_turns(current_user.id, conversation_id)  # 404 for another user's id
    permitted = access.permitted(current_user.id)
    requested, _show = composer.remember_choices(permitted)
    result = asking.ask_from_web(permitted, request.form.get("question", ""), requested, previous=previous,
                                 conversation_id=conversation_id)
    return composer.answered(result, conversation_id)


@bp.route("/c/<id:conversation_id>/ask/stream", methods=["POST"])
@user_required
def ask_stream(conversation_id: int):
    """Answer a follow-up as server-sent events (see ``web.stream``)."""
    previous = conversations.previous_turns(current_user.id, conversation_id)
    permitted = access.permitted(current_user.id)
    requested, show_sources = composer.remember_choices(permitted)
    events = asking.stream_from_web(permitted, request.form.get("question", ""), requested, previous=previous,
                                    conversation_id=conversation_id)
    return stream.event_response(stream.dashboard_events(events, show_sources=show_sources))


@bp.route("/c/<id:conversation_id>/rename", methods=["POST"])
@user_required
def rename(conversation_id: int):
    try:
        row = conversations.rename(current_user.id, conversation_id, request.form.get("title"))
    except ValidationError as exc:
        thread = conversations.thread(current_user.id, conversation_id)
        return render("conversations/show.html", "conversations/_head.html", exc.status,
                      **composer.page_context(thread=thread, title_error=exc.translated(gettext)))
    if not is_htmx():
        return redirect(url_for("conversations.show", conversation_id=row.id), 303)
    return render("conversations/show.html", "conversations/_head.html", hx={"trigger": "conversations-changed"},
                  thread=conversations.thread(current_user.id, row.id), renamed=True)


@bp.route("/c/<id:conversation_id>/delete", methods=["POST"])
@user_required
def delete(conversation_id: int):
    conversations.delete(current_user.id, conversation_id)
    target = url_for("dashboard.index")
    if is_htmx():
        return client_redirect(target, 204)
    return redirect(target, 303)
