"""Redis key names of a document's job pointer and lock (one Redis may serve several installations)."""
from __future__ import annotations

import re

from flask import current_app


def prefix() -> str:
    """Return the queue name made safe for keys and job ids (test runs and installations share a Redis)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", current_app.config["QUEUE_NAME"])


def pointer_key(document_id: int) -> str:
    """Return the Redis key that holds the id of the document's latest job."""
    return f"irisrag:{prefix()}:doc-job:{document_id}"


def lock_key(document_id: int) -> str:
    """Return the Redis key of the document's import lock."""
    return f"irisrag:{prefix()}:lock:doc:{document_id}"
