"""WSGI entry point: ``gunicorn wsgi:app``.

Each worker imports this after its fork (the Procfile does not preload) and starts loading
what a question needs in the background (``services.operations.warmup``); ``/readyz`` says
"warming up" until that is done.
"""
from irisrag import create_app
from irisrag.services.operations import warmup

app = create_app()
warmup.start(app)
