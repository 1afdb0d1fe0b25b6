"""The ``flask rag`` command group; each concern lives in its own module."""
from __future__ import annotations

import functools

import click
from flask import Flask
from flask.cli import AppGroup

from irisrag.errors import IrisRagError
from irisrag.extensions import db
from irisrag.ids import MAX_INT

# A database id on the command line (as the web's <id:...> converter): 1..2**63 - 1, else a usage error.
ID = click.IntRange(1, MAX_INT)
rag = AppGroup("rag", help="IrisRAG operations: setup, imports, questions, diagnostics.")


def command(*args, group: click.Group | None = None, **kwargs):
    """Register a ``flask rag`` command (or one of ``group``'s) that opens the database and turns domain errors into ClickExceptions."""

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*a, **kw):
            try:
                with db.connection_context():
                    return fn(*a, **kw)
            except IrisRagError as exc:
                raise click.ClickException(cli_message(exc)) from exc

        return (group or rag).command(*args, **kwargs)(wrapper)

    return decorate


def cli_message(exc: IrisRagError) -> str:
    """The CLI's form of a domain error: English text, the technical detail, and the stable code (as the API's)."""
    detail = f" ({exc.detail})" if exc.detail else ""
    return f"{exc.message}{detail} [{exc.code}]"


def init_app(app: Flask) -> None:
    """Attach the command group."""
    from irisrag.cli import (
        api_keys,  # noqa: F401
        ask,  # noqa: F401
        backup,  # noqa: F401
        eval_answers,  # noqa: F401
        evaluate,  # noqa: F401
        history,  # noqa: F401
        imports,  # noqa: F401
        inspector,  # noqa: F401
        maintain,  # noqa: F401
        setup,  # noqa: F401  (registers commands)
        sources,  # noqa: F401
        users,  # noqa: F401
    )

    app.cli.add_command(rag)
