"""Blueprint ``dashboard``: area selection, question, answer with found sources (whole or streamed), history, feedback."""
from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, session, url_for
from flask_login import current_user

from irisrag.errors import ValidationError
from irisrag.services import access, history
from irisrag.web import stream
from irisrag.web.htmx import is_htmx, render
from irisrag.web.security import user_required

bp = Blueprint("dashboard", __name__)


def _selected(areas) -> list[int]:
    """Return the remembered selection, limited to areas still permitted."""
    permitted = {a.id for a in areas}
    remembered = session.get("areas")
    if remembered is None:
        return sorted(permitted)
    return [a for a in remembered if a in permitted]


@bp.route("/dashboard")
@bp.route("/")
@user_required
def index():
    areas = access.permitted_areas(current_user.id)
    return render(
        "dashboard/index.html", "dashboard/_form.html",
        areas=areas, selected=_selected(areas), show_sources=session.get("show_sources", True),
        question="", result=None,
    )


def _remember_choices() -> tuple[list[int], bool]:
    """Return the requested areas and the sources switch of the form, remembered for the next visit."""
    requested = [int(a) for a in request.form.getlist("areas") if a.isdigit()]
    show_sources = request.form.get("show_sources") == "on"
    session["areas"] = access.select_areas(current_user.id, requested)
    session["show_sources"] = show_sources
    return requested, show_sources


@bp.route("/ask", methods=["POST"])
@user_required
def ask():
    from irisrag.services import questions

    requested, show_sources = _remember_choices()
    result = questions.ask_from_web(current_user.id, request.form.get("question", ""), requested)
    areas = access.permitted_areas(current_user.id)
    return render(
        "dashboard/index.html", "dashboard/_answer.html",
        areas=areas, selected=_selected(areas), show_sources=show_sources,
        question=request.form.get("question", ""), result=result,
    )


@bp.route("/ask/stream", methods=["POST"])
@user_required
def ask_stream():
    """Answer as server-sent events: sources first, then the growing answer (see ``web.stream``)."""
    from irisrag.services import streaming

    requested, show_sources = _remember_choices()
    events = streaming.stream_from_web(current_user.id, request.form.get("question", ""), requested)
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
                               feedback_error=exc.message), exc.status
    if not is_htmx():
        return redirect(url_for("dashboard.show_history", _anchor=f"q{question_id}"))
    return render_template("dashboard/_feedback.html", question_id=question_id, rating=saved.rating,
                           comment=saved.comment, feedback_saved=True)
