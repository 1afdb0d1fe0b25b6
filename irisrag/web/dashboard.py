"""Blueprint ``dashboard``: the start page, where a question (whole or streamed) starts a conversation; feedback."""
from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user

from irisrag.errors import ValidationError
from irisrag.services import access
from irisrag.services.asking import asking, history
from irisrag.web import composer, stream
from irisrag.web.htmx import is_htmx, render
from irisrag.web.security import user_required

bp = Blueprint("dashboard", __name__)


@bp.route("/dashboard")
@bp.route("/")
@user_required
def index():
    return render("dashboard/index.html", "conversations/_thread.html", **composer.page_context())


@bp.route("/ask", methods=["POST"])
@user_required
def ask():
    """Start a conversation: PRG to ``/c/<id>``, or the turn for htmx (the new URL pushed)."""
    permitted = access.permitted(current_user.id)  # once per request: the form, the selection, the search
    requested, _show = composer.remember_choices(permitted)
    result = asking.ask_from_web(permitted, request.form.get("question", ""), requested)
    return composer.answered(result, None)


@bp.route("/ask/stream", methods=["POST"])
@user_required
def ask_stream():
    """Start a conversation as server-sent events: sources first, then the growing answer (see ``web.stream``)."""
    permitted = access.permitted(current_user.id)
    requested, show_sources = composer.remember_choices(permitted)
    events = asking.stream_from_web(permitted, request.form.get("question", ""), requested)
    return stream.event_response(stream.dashboard_events(events, show_sources=show_sources))


@bp.route("/history")
@user_required
def show_history():
    """The history became the conversation list."""
    return redirect(url_for("conversations.index"), 301)


@bp.route("/feedback/<id:question_id>", methods=["POST"])
@user_required
def give_feedback(question_id: int):
    rating, comment = request.form.get("rating"), request.form.get("comment", "")
    try:
        saved = history.give_feedback(current_user.id, question_id, rating, comment)
    except ValidationError as exc:
        return render_template("dashboard/_feedback.html", question_id=question_id, rating=None, comment=comment,
                               feedback_error=exc.translated(_)), exc.status
    if not is_htmx():
        return redirect(url_for("conversations.show", conversation_id=saved.question.conversation_id,
                                _anchor=f"t{question_id}"))
    return render_template("dashboard/_feedback.html", question_id=question_id, rating=saved.rating,
                           comment=saved.comment, feedback_saved=True)
