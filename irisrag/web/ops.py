"""Blueprint ``ops``: liveness and readiness for load balancers (no login, no content)."""
from __future__ import annotations

from dataclasses import asdict

from flask import Blueprint, jsonify, request

from irisrag.services.operations import health
from irisrag.web.logging import quiet

bp = Blueprint("ops", __name__)


@bp.route("/healthz")
@quiet  # probed every few seconds (load balancers, make run's welcome): logged at DEBUG
def healthz():
    return jsonify(status="ok")


@bp.route("/readyz")
def readyz():
    checks = health.readiness(deep=request.args.get("deep") == "1")
    ready = health.ready(checks)
    # Details name only dependency kinds and errors, never document content.
    body = {"status": health.status(checks), "checks": [asdict(c) for c in checks]}
    return jsonify(body), 200 if ready else 503
