"""Waiting for an import that a real worker process runs."""
from __future__ import annotations

import time

from irisrag.extensions import db
from irisrag.models import Document

FINAL = ("done", "unchanged", "failed")


def wait_final(app, document_id: int, seconds: float = 120) -> Document:
    """Poll the document until its import ends; a loaded 2-core machine can keep a job queued for a minute."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with app.app_context(), db.connection_context():
            doc = Document.get_by_id(document_id)
        if doc.status in FINAL:
            return doc
        time.sleep(0.1)
    raise AssertionError(f"document {document_id} still {doc.status}")
