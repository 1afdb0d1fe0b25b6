"""Blueprint ``dashboard``: area selection, question, answer with found sources (whole or streamed), history, feedback."""
from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, session, url_for
from flask_babel import gettext as _
from flask_login import current_user

from irisrag.errors import ValidationError
from irisrag.services import access, asking, history
from irisrag.web import stream
from irisrag.web.htmx import is_htmx, render
from irisrag.web.security import user_required

bp = Blueprint("dashboard", __name__)


def _selected(permitted: access.Permitted) -> list[int]:
    """Return the remembered selection, limited to areas still permitted."""
    remembered = session.get("areas")
    if remembered is None:
        return permitted.area_ids
    return [a for a in remembered if a in permitted.area_ids]


@bp.route("/dashboard")
@bp.route("/")
@user_required
def index():
    permitted = access.permitted(current_user.id)
    return render(
        "dashboard/index.html", "dashboard/_form.html",
        areas=permitted.areas, selected=_selected(permitted), show_sources=session.get("show_sources", True),
        question="", result=None,
    )


def _remember_choices(permitted: access.Permitted) -> tuple[list[int], bool]:
    """Return the requested areas and the sources switch of the form, remembered for the next visit."""
    requested = [int(a) for a in request.form.getlist("areas") if a.isdigit()]
    show_sources = request.form.get("show_sources") == "on"
    session["areas"] = permitted.select(requested)
    session["show_sources"] = show_sources
    return requested, show_sources


@bp.route("/ask", methods=["POST"])
@user_required
def ask():
    permitted = access.permitted(current_user.id)  # once per request: the form, the selection, the search
    requested, show_sources = _remember_choices(permitted)
    result = asking.ask_from_web(permitted, request.form.get("question", ""), requested)
    return render(
        "dashboard/index.html", "dashboard/_answer.html",
        areas=permitted.areas, selected=_selected(permitted), show_sources=show_sources,
        question=request.form.get("question", ""), result=result,
    )


@bp.route("/ask/stream", methods=["POST"])
@user_required
def ask_stream():
    """Answer as server-sent events: sources first, then the growing answer (see ``web.stream``)."""
    permitted = access.permitted(current_user.id)
    requested, show_sources = _remember_choices(permitted)
    events = asking.stream_from_web(permitted, request.form.get("question", ""), requested)
    return stream.event_response(stream.dashboard_events(events, show_sources=show_sources))


@bp.route("/history")
@user_required
def show_history():
    return render("dashboard/history.html", "dashboard/_history.html",
                  entries=history.history_for(current_user.id), retention_days=history.retention_days())


@bp.route("/feedback/<int:question_id>", methods=["POST"])
@user_required
def give_feedback(question_id: int):
    rating, comment = request.form.get("rating"), request.form.get("comment", "")
    try:
        saved = history.give_feedback(current_user.id, question_id, rating, comment)
    except ValidationError as exc:
        return render_template("dashboard/_feedback.html", question_id=question_id, rating=None, comment=comment,
                               feedback_error=exc.translated(_)), exc.status
    if not is_htmx():
        return redirect(url_for("dashboard.show_history", _anchor=f"q{question_id}"))
    return render_template("dashboard/_feedback.html", question_id=question_id, rating=saved.rating,
                           comment=saved.comment, feedback_saved=True)
