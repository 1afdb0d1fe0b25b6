"""IrisRAG: grounded answers over permissioned documents."""
from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask

from irisrag import config as config_module

ROOT = Path(__file__).resolve().parent.parent


def create_app(overrides: Mapping[str, Any] | None = None) -> Flask:
    """Build the Flask app: config, extensions, blueprints, CLI."""
    settings = config_module.load(overrides=overrides)
    app = Flask(
        __name__,
        template_folder=str(ROOT / "templates"),
        static_folder=str(ROOT / "static"),
        instance_path=str(ROOT / settings["INSTANCE_PATH"]),
    )
    app.config.update(settings)
    app.config["IRISRAG_ROOT"] = ROOT
    _configure_secret(app)
    _configure_flask(app)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")

    from irisrag import cli, components
    from irisrag.extensions import bind_database
    from irisrag.web import init_web

    bind_database(app.config["DATABASE_URL"], ROOT)
    components.init_app(app)
    init_web(app)
    cli.init_app(app)
    return app


def _configure_secret(app: Flask) -> None:
    secret = app.config.get("SECRET_KEY")
    key_file = Path(app.instance_path) / "secret_key"
    if not secret and key_file.exists():
        secret = key_file.read_text().strip()
    if not secret:
        if app.config.get("TESTING"):
            secret = "testing-only-secret"
        else:
            raise RuntimeError(
                "IRISRAG_SECRET_KEY is not set and instance/secret_key does not exist. "
                "Run `make run` once (it generates a key) or set IRISRAG_SECRET_KEY."
            )
    app.config["SECRET_KEY"] = secret


def _configure_flask(app: Flask) -> None:
    app.config.setdefault("WTF_CSRF_TIME_LIMIT", None)
    app.config["MAX_CONTENT_LENGTH"] = app.config["MAX_UPLOAD_BYTES"] + 1024 * 1024
    app.config["SESSION_COOKIE_HTTPONLY"] = True
    app.config["SESSION_COOKIE_SAMESITE"] = "Lax"
    app.config["REMEMBER_COOKIE_HTTPONLY"] = True
    app.config["REMEMBER_COOKIE_SAMESITE"] = "Lax"
    app.config["REMEMBER_COOKIE_SECURE"] = app.config["SESSION_COOKIE_SECURE"]
    hops = int(app.config["TRUSTED_PROXIES"])
    if hops:  # the client address (login rate limit, logs) and scheme come from the proxies' headers
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops)
