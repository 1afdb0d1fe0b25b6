"""RQ task functions: thin; they take ids, open the database and call a pipeline."""
from __future__ import annotations

import os

from flask import current_app

from irisrag.extensions import db


def ping(token: str) -> dict:
    """Prove a worker runs jobs inside the app: echo the token with the worker's view of config and DB."""
    with db.connection_context():
        from irisrag.models import User

        users = User.select().count()
    return {"token": token, "pid": os.getpid(), "queue": current_app.config["QUEUE_NAME"], "users": users}
