"""WSGI entry point: ``gunicorn wsgi:app``."""
from irisrag import create_app

app = create_app()
