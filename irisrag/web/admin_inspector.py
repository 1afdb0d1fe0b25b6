"""Admin retrieval inspector: why a document did (not) come up, and what a user's question reaches."""
from __future__ import annotations

from flask import request
from flask_babel import gettext as _

from irisrag.errors import IrisRagError
from irisrag.models import Area, Document, User
from irisrag.services.asking import inspector
from irisrag.web.htmx import render
from irisrag.web.params import id_field, id_fields


def _choices() -> dict:
    return {
        "users": list(User.select().order_by(User.username)),
        "areas": list(Area.select().order_by(Area.name)),
        "documents": list(Document.select().order_by(Document.name).limit(2000)),
    }


def inspect_retrieval():
    args = request.args
    form = {"question": args.get("question", ""), "previous": args.get("previous", ""), "user": args.get("user", ""),
            "document": id_field(args, "document"), "areas": id_fields(args, "areas")}
    user, trace, reach, error, search = id_field(args, "user"), None, None, None, None
    try:
        search = inspector.search(form["question"], form["previous"]) if form["question"].strip() and form["previous"].strip() else None
        question = search.text if search else form["question"]
        if form["question"] and form["document"]:
            trace = inspector.trace(question, form["document"], user_ident=user, area_idents=form["areas"])
        if form["question"] and user is not None:
            reach = inspector.reach(question, user)
    except IrisRagError as exc:
        error = exc.translated(_)
    return render("admin/inspector.html", "admin/_inspector.html", status=400 if error else 200,
                  form=form, trace=trace, reach=reach, search=search, error=error, **_choices())
