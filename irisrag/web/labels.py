"""Words the pages show for stored codes (a document's status, the inspector's gates and modes).

The codes stay English in the database, the API and the CLI; pages show them through the
Jinja filters ``status_label``, ``gate_label``, ``mode_label`` and ``worker_label`` in the user's language.
"""
from __future__ import annotations

from flask import Flask
from flask_babel import gettext

from irisrag.i18n import N_
from irisrag.web import llm_reason

STATUS = {
    "queued": N_("queued"), "fetching": N_("fetching"), "extracting": N_("extracting"),
    "chunking": N_("chunking"), "embedding": N_("embedding"), "done": N_("done"),
    "unchanged": N_("unchanged"), "failed": N_("failed"), "cancelled": N_("cancelled"),
}
GATE = {
    "area_filter": N_("area not searched"), "candidate_window": N_("outside the candidate window"),
    "evidence": N_("off-topic: too little evidence"), "lexical": N_("too few shared terms"), "document_cap": N_("per-document limit reached"),
    "total_cap": N_("context full"),
}
WORKER = {"idle": N_("idle"), "busy": N_("busy"), "started": N_("starting"), "suspended": N_("suspended")}
DISK = {"staging": N_("staging folder"), "lancedb": N_("vector index (LanceDB)"), "database": N_("database")}
MODE = {"vector": N_("vector search"), "fulltext": N_("full-text search"), "hybrid": N_("hybrid search")}


def _label(words: dict[str, str]):
    def show(code: str | None) -> str:
        return gettext(words[code]) if code in words else (code or "")
    return show


def init_app(app: Flask) -> None:
    """Register the label filters."""
    app.jinja_env.filters["status_label"] = _label(STATUS)
    app.jinja_env.filters["gate_label"] = _label(GATE)
    app.jinja_env.filters["mode_label"] = _label(MODE)
    app.jinja_env.filters["worker_label"] = _label(WORKER)
    app.jinja_env.filters["disk_label"] = _label(DISK)
    app.jinja_env.filters["llm_reason"] = llm_reason.translate
