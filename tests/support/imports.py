"""Waiting for an import that a real worker process runs."""
from __future__ import annotations

import time

from irisrag.extensions import db
from irisrag.models import Document

FINAL = ("done", "unchanged", "failed")


def wait_status(app, document_id: int, wanted: tuple[str, ...] | str, seconds: float = 120) -> Document:
    """Poll the document until its status is one of ``wanted``; a loaded 2-core machine can keep a job queued for a minute."""
    wanted = (wanted,) if isinstance(wanted, str) else wanted
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with app.app_context(), db.connection_context():
            doc = Document.get_by_id(document_id)
        if doc.status in wanted:
            return doc
        time.sleep(0.05)
    raise AssertionError(f"document {document_id} is {doc.status}, not {wanted}")


def wait_final(app, document_id: int, seconds: float = 120) -> Document:
    """Poll the document until its import has ended (done, unchanged or failed)."""
    return wait_status(app, document_id, FINAL, seconds)
