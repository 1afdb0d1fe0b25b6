"""WSGI entry point: ``gunicorn wsgi:app``.

Each worker imports this after its fork (the Procfile does not preload) and starts loading
what a question needs in the background (``services.operations.warmup``); ``/readyz`` says
"warming up" until that is done. ``flask --app wsgi rag ...`` imports this module too, inside
a click command: CLI commands start no warm-up.
"""
import click

from irisrag import create_app
from irisrag.services.operations import warmup

app = create_app()
if click.get_current_context(silent=True) is None:
    warmup.start(app)
