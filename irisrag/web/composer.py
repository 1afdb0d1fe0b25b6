"""What the dashboard and the conversation pages share: the composer's choices, the page context, an answered turn."""
from __future__ import annotations

from flask import redirect, render_template, request, session, url_for
from flask_login import current_user

from irisrag.rag.answer_types import AskResult
from irisrag.services import access
from irisrag.services.asking import conversations
from irisrag.web.htmx import is_htmx, respond
from irisrag.web.params import id_fields


def selected(permitted: access.Permitted) -> list[int]:
    """Return the remembered selection, limited to areas still permitted."""
    remembered = session.get("areas")
    if remembered is None:
        return permitted.area_ids
    return [a for a in remembered if a in permitted.area_ids]


def remember_choices(permitted: access.Permitted) -> tuple[list[int], bool]:
    """Return the requested areas and the sources switch of the form, remembered for the next visit."""
    requested = id_fields(request.form, "areas")
    show_sources = request.form.get("show_sources") == "on"
    session["areas"] = permitted.select(requested)
    session["show_sources"] = show_sources
    return requested, show_sources


def page_context(thread: conversations.Thread | None = None, **extra) -> dict:
    """Return what a dashboard or conversation page shows: areas, choices, the sidebar, the thread, the composer."""
    permitted = access.permitted(current_user.id)
    cid = thread.id if thread else None
    listing = extra.pop("listing", None) or conversations.listing(current_user.id)
    return {"areas": permitted.areas, "selected": selected(permitted), "show_sources": session.get("show_sources", True),
            "thread": thread, "listing": listing, "current_id": cid, "question": "", "extra_turn": None,
            **urls(cid), **extra}


def urls(conversation_id: int | None) -> dict[str, str]:
    """Return the composer's targets: a follow-up of the conversation, or a new conversation."""
    if conversation_id is None:
        return {"ask_url": url_for("dashboard.ask"), "stream_url": url_for("dashboard.ask_stream")}
    return {"ask_url": url_for("conversations.ask", conversation_id=conversation_id),
            "stream_url": url_for("conversations.ask_stream", conversation_id=conversation_id)}


def turn_html(result: AskResult, *, show_sources: bool, pending: bool = False) -> str:
    """Render an answer as a turn of the thread: pending (streaming) or final, with its conversation's URLs."""
    cid = None if result.question_id is None else conversations.conversation_of(current_user.id, result.question_id)
    turn = result if pending else conversations.shown_turn(current_user.id, result)
    return render_template("conversations/_turn.html", turn=turn, show_sources=show_sources, pending=pending,
                           conversation_id=cid, **urls(cid))


def answered(result: AskResult, conversation_id: int | None):
    """Answer a composer POST: the turn for htmx (a new conversation's URL pushed), PRG to the thread otherwise.

    A result that was not recorded (an invalid question, a failed search) is shown on the page it came from.
    """
    show_sources = session.get("show_sources", True)
    if result.question_id is None and not is_htmx():
        return _page_with(result, conversation_id)
    if not is_htmx():
        cid = conversations.conversation_of(current_user.id, result.question_id)
        return redirect(url_for("conversations.show", conversation_id=cid, _anchor=f"t{result.question_id}"), 303)
    hx = {}
    if result.question_id is not None:
        hx["trigger"] = "conversations-changed"
        if conversation_id is None:
            cid = conversations.conversation_of(current_user.id, result.question_id)
            hx["push_url"] = url_for("conversations.show", conversation_id=cid)
    return respond(turn_html(result, show_sources=show_sources), **hx)


def _page_with(result: AskResult, conversation_id: int | None):
    """Render the page the question came from, with the unrecorded result as its last turn and the question kept."""
    thread = conversations.thread(current_user.id, conversation_id) if conversation_id else None
    page = "conversations/show.html" if thread else "dashboard/index.html"
    return render_template(page, **page_context(thread=thread, extra_turn=result,
                                                question=request.form.get("question", "")))
