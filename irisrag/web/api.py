"""Blueprint ``api``: the JSON API under /api/v1 for programs and agents (see ``openapi.py``).

Every endpoint but the description needs an ``X-API-Key`` (``api_auth``); a session
cookie never authenticates here, so the blueprint is exempt from CSRF. Views parse JSON,
call one ``services.api`` function and serialise the result. Errors are JSON objects
``{"error": {"code": ..., "message": ...}}`` with the stable codes of ``irisrag.errors``.
"""
from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from flask import Blueprint, current_app, jsonify, request, url_for
from werkzeug.exceptions import HTTPException

from irisrag.errors import IrisRagError, NotFound, ValidationError
from irisrag.i18n import N_, english_stored
from irisrag.ids import parse_id, parse_int
from irisrag.models import Area, Document, Source, SyncRun
from irisrag.rag.followup import PreviousTurn
from irisrag.services import api as api_service
from irisrag.services.admin import missing_answers as missing
from irisrag.services.asking import asking
from irisrag.services.asking.answer_json import answer_json
from irisrag.services.sources import source_api, sources
from irisrag.web import openapi, stream
from irisrag.web.api_auth import current_key, key_required

log = logging.getLogger(__name__)
bp = Blueprint("api", __name__, url_prefix="/api/v1")
HTTP_CODES = {400: "bad_request", 404: "not_found", 405: "method_not_allowed", 413: "too_large",
              415: "unsupported_media_type", 429: "rate_limited", 500: "internal"}


MAX_PREVIOUS_TURNS = 20
MAX_PREVIOUS_ANSWER_CHARS = 20_000
MAX_QUESTION_CHARS = asking.MAX_QUESTION_CHARS
BAD_PREVIOUS = N_("previous must be a list of at most %(turns)d objects, each with a question (1 to 4000 "
                  "characters) and an answer (at most %(chars)d characters).")


class InvalidJSON(ValidationError):
    code = "invalid_json"


# --- endpoints ------------------------------------------------------------------

@bp.get("/openapi.json")
def describe():
    return jsonify(openapi.spec(server=request.script_root + bp.url_prefix))


@bp.get("/areas")
@key_required
def list_areas():
    return jsonify(areas=[_area(a) for a in api_service.areas(current_key())])


@bp.post("/retrieve")
@key_required
def retrieve():
    data = _json_body()
    found = api_service.retrieve(current_key(), _text(data, "question"), _areas(data), previous=_previous(data))
    return jsonify(_retrieval(found))


@bp.post("/answer")
@key_required
def answer():
    data = _json_body()
    use_llm, streamed = _flag(data, "use_llm", True), _flag(data, "stream", False)
    question, areas, previous = _text(data, "question"), _areas(data), _previous(data)
    if streamed:  # server-sent events: sources, token..., done | error (see web.stream)
        events = api_service.stream_answer(current_key(), question, areas, use_llm=use_llm, previous=previous)
        return stream.event_response(stream.api_events(events, _answer))
    result = api_service.answer(current_key(), question, areas, use_llm=use_llm, previous=previous)
    return jsonify(_answer(result))


@bp.get("/documents")
@key_required
def list_documents():
    limit, offset = _int_arg("limit", 100), _int_arg("offset", 0)
    docs, total = api_service.list_documents(current_key(), area=_area_ref(request.args.get("area")),
                                             status=request.args.get("status") or None, limit=limit, offset=offset)
    return jsonify(documents=[_document(d) for d in docs], total=total, limit=limit, offset=offset)


@bp.post("/documents")
@key_required
def create_document():
    if request.mimetype == "multipart/form-data":
        upload = request.files.get("file")
        doc = api_service.import_document(
            current_key(), _area_ref(request.form.get("area")), url=request.form.get("url") if upload is None else None,
            filename=upload.filename if upload else None, data=upload.stream if upload else None)
    else:
        data = _json_body()
        doc = api_service.import_document(current_key(), _area_ref(data.get("area")), url=_text(data, "url"))
    response = jsonify(_document(doc))
    response.status_code = 202
    response.headers["Location"] = url_for("api.show_document", document_id=doc.id)
    return response


@bp.get("/documents/<id:document_id>")
@key_required
def show_document(document_id: int):
    return jsonify(_document(api_service.get_document(current_key(), document_id)))


@bp.post("/documents/<id:document_id>/cancel")
@key_required
def cancel_document(document_id: int):
    return jsonify(_document(api_service.cancel_import(current_key(), document_id)))


@bp.get("/sources")
@key_required
def list_sources():
    return jsonify({"sources": [_source(s) for s in source_api.list_for(current_key())]})


@bp.get("/sources/<id:source_id>")
@key_required
def show_source(source_id: int):
    source = source_api.get_for(current_key(), source_id)
    return jsonify({**_source(source), "runs": [_run(r) for r in sources.source_runs(source.id)]})


@bp.post("/sources/<id:source_id>/sync")
@key_required
def sync_source(source_id: int):
    source, job = source_api.sync_for(current_key(), source_id)
    response = jsonify({**_source(source), "job": job})
    response.status_code = 202
    response.headers["Location"] = url_for("api.show_source", source_id=source.id)
    return response


@bp.get("/documents/<id:document_id>/content")
@key_required
def document_content(document_id: int):
    from irisrag.services.documents import viewer
    from irisrag.web.viewer import file_response

    return file_response(viewer.for_key(current_key(), document_id))


@bp.get("/missing-answers")
@key_required
def list_missing_answers():
    return jsonify(_missing(api_service.missing_answers(current_key())))


@bp.route("/", defaults={"rest": ""}, methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
@bp.route("/<path:rest>", methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
def unknown(rest: str):
    allowed = _allowed_methods(request.path)
    if allowed:
        response = _error_response("method_not_allowed", f"Use {', '.join(allowed)} here.", 405)
        response.headers["Allow"] = ", ".join(allowed)
        return response
    raise NotFound(N_("There is no such API endpoint; see /api/v1/openapi.json."))


# --- errors ---------------------------------------------------------------------

def _error_response(code: str, message: str, status: int, field: str | None = None):
    body: dict[str, Any] = {"code": code, "message": message}
    if field:
        body["field"] = field
    response = jsonify(error=body)
    response.status_code = status
    return response


@bp.errorhandler(IrisRagError)
def _domain_error(exc: IrisRagError):
    if exc.status >= 500:
        log.warning("api_error code=%s detail=%s", exc.code, exc.detail)
    return _error_response(exc.code, exc.message, exc.status, getattr(exc, "field", None))


def _http_error(exc: HTTPException):
    status = exc.code or 500
    if status >= 500:
        log.exception("api_internal_error path=%s", request.path)
        return _error_response("internal", "Something went wrong on our side. The error has been logged.", 500)
    return _error_response(HTTP_CODES.get(status, str(status)), exc.description or "", status)


for _code in HTTP_CODES:
    bp.register_error_handler(_code, _http_error)


def _allowed_methods(path: str) -> list[str]:
    """Return the methods another API route accepts at this path (a 405 rather than a 404)."""
    adapter = current_app.url_map.bind_to_environ(request.environ)
    allowed = []
    for method in ("GET", "POST", "PUT", "PATCH", "DELETE"):
        try:
            endpoint, _ = adapter.match(path, method=method)
        except HTTPException:
            continue
        if endpoint != "api.unknown":
            allowed.append(method)
    return allowed


# --- input ----------------------------------------------------------------------

def _json_body() -> dict[str, Any]:
    try:
        data = request.get_json(silent=True)
    except RecursionError:  # json.loads gives up on very deep nesting with RecursionError, not ValueError
        raise InvalidJSON(N_("The JSON body is nested too deeply.")) from None
    if not isinstance(data, dict):
        raise InvalidJSON(N_("Send a JSON object with Content-Type: application/json."))
    return data


def _text(data: dict[str, Any], name: str) -> str | None:
    value = data.get(name)
    if value is not None and not isinstance(value, str):
        raise ValidationError(N_("%(field)s must be a string."), field=name, params={"field": name})
    return value


def _flag(data: dict[str, Any], name: str, default: bool) -> bool:
    value = data.get(name, default)
    if not isinstance(value, bool):
        raise ValidationError(N_("%(field)s must be true or false."), field=name, params={"field": name})
    return value


def _areas(data: dict[str, Any]) -> list[int | str] | None:
    value = data.get("areas")
    if value is None:
        return None
    if not isinstance(value, list) or len(value) > 1000 or not all(
            isinstance(a, (int, str)) and not isinstance(a, bool) for a in value):
        raise ValidationError(N_("areas must be a list of area ids or names."), field="areas")
    return value


def _previous(data: dict[str, Any]) -> list[PreviousTurn]:
    """Return the client's earlier turns (``previous``: objects with question and answer), oldest first."""
    value = data.get("previous", [])
    if not isinstance(value, list) or len(value) > MAX_PREVIOUS_TURNS or not all(map(_is_turn, value)):
        raise ValidationError(BAD_PREVIOUS, field="previous",
                              params={"turns": MAX_PREVIOUS_TURNS, "chars": MAX_PREVIOUS_ANSWER_CHARS})
    return [PreviousTurn(t["question"].strip(), t.get("answer", "").strip()) for t in value]


def _is_turn(value: Any) -> bool:
    return (isinstance(value, dict) and isinstance(value.get("question"), str)
            and isinstance(value.get("answer", ""), str) and 0 < len(value["question"].strip()) <= MAX_QUESTION_CHARS
            and len(value.get("answer", "")) <= MAX_PREVIOUS_ANSWER_CHARS)


def _area_ref(value: Any) -> int | str | None:
    """Return an area id (digits) or name from a query, form or JSON value."""
    if isinstance(value, bool) or (value is not None and not isinstance(value, (int, str))):
        raise ValidationError(N_("area must be an area id or name."), field="area")
    if isinstance(value, str):
        value = value.strip()
        return parse_id(value) or value or None  # digits beyond an id's range are a name nobody has
    return value


def _int_arg(name: str, default: int) -> int:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    value = parse_int(raw)
    if value is None:
        raise ValidationError(N_("%(field)s must be a whole number."), field=name, params={"field": name})
    return value


# --- output ---------------------------------------------------------------------

def _time(value: datetime | None) -> str | None:
    return value.isoformat(timespec="seconds") + "Z" if value else None


def _timings(timings: dict[str, float]) -> dict[str, float]:
    return {stage: round(seconds, 6) for stage, seconds in timings.items()}


def _area(area: Area) -> dict[str, Any]:
    return {"id": area.id, "name": area.name, "description": area.description}


def _document(doc: Document) -> dict[str, Any]:
    body = {
        "id": doc.id, "name": doc.name, "area": {"id": doc.area.id, "name": doc.area.name}, "kind": doc.kind,
        "status": doc.status, "running": doc.is_running,
        "progress": {"done": doc.progress_done, "total": doc.progress_total}, "chunk_count": doc.chunk_count,
        "source_url": doc.source_url, "original_path": doc.original_path, "error": english_stored(doc.error),
        "created_at": _time(doc.created_at), "updated_at": _time(doc.updated_at),
        "imported_at": _time(doc.imported_at),
    }
    if current_key().is_admin:
        body["error_detail"] = doc.error_detail
    return body


def _source(source: Source) -> dict[str, Any]:
    return {"id": source.id, "area": _area(source.area), "kind": source.kind, "start_url": source.start_url or None,
            "url_prefix": source.url_prefix or None, "folder": source.folder_path if source.kind == "folder" else None,
            "interval": source.interval, "last_run_at": _time(source.last_run_at),
            "next_due_at": _time(source.next_due_at)}


def _run(run: SyncRun) -> dict[str, Any]:
    counts = {k: getattr(run, k) for k in ("new", "changed", "unchanged", "removed", "failed", "deleted")}
    return {"id": run.id, "state": run.state, "started_at": _time(run.started_at),
            "finished_at": _time(run.finished_at), "counts": counts, "requests": run.requests,
            "duration_ms": run.duration_ms, "note": english_stored(run.note) if run.note else None}


def _document_ref(doc: Document) -> dict[str, Any]:
    return {"id": doc.id, "name": doc.name, "area": {"id": doc.area.id, "name": doc.area.name},
            "source_url": doc.source_url, "original_path": doc.original_path}


def _retrieval(found: asking.Retrieved) -> dict[str, Any]:
    chunks = [{"position": c.position, "document_id": c.hit.document_id, "area_id": c.hit.area_id,
               "chunk_index": c.hit.chunk_index, "page": c.hit.page, "score": round(float(c.hit.score), 4),
               "rank": c.hit.rank, "lexical_score": round(float(c.match.score), 4), "text": c.hit.text}
              for c in found.context.chunks if c.hit.document_id in found.documents]
    sources = [{"document_id": s.document_id, "score": round(s.score, 4)}
               for s in found.context.sources if s.document_id in found.documents]
    return {"question": found.question, "areas": list(found.areas), "search_query": found.search_query or found.question,
            "chunks": chunks, "sources": sources,
            "documents": [_document_ref(d) for d in found.documents.values()], "timings": _timings(found.timings)}


def _answer(result: asking.AskResult) -> dict[str, Any]:
    return answer_json(result, admin=current_key().is_admin)


def _missing(report: missing.Report) -> dict[str, Any]:
    return {"days": report.days, "questions": report.questions, "truncated": report.truncated,
            "groups": [_missing_group(g) for g in report.groups]}


def _missing_group(group: missing.MissGroup) -> dict[str, Any]:
    return {"count": group.count, "question": group.representative.question,
            "last_asked": _time(group.last_asked), "areas": [{"id": i, "name": n} for i, n in group.areas],
            "no_information": group.reason_count(missing.NO_INFORMATION),
            "thumbs_down": group.reason_count(missing.THUMBS_DOWN),
            "members": [_miss(m) for m in group.members]}


def _miss(miss: missing.Miss) -> dict[str, Any]:
    body = {"question_id": miss.question_id, "question": miss.question, "search_query": miss.searched,
            "asked_at": _time(miss.asked_at), "area_ids": list(miss.area_ids), "reasons": list(miss.reasons),
            "comment": miss.comment}
    if miss.username is not None:  # only where MISSING_ANSWERS_SHOW_USERS allows it
        body["user"] = miss.username
    return body
