"""Fixtures of the service tests: a seeded library of areas, groups and users, and an app context."""
from __future__ import annotations

import pytest

from irisrag import components
from irisrag.extensions import db
from tests.services import seed_library


@pytest.fixture
def library(app):
    return seed_library(app)


@pytest.fixture
def ctx(app):
    """An app context with an open database connection; yields the components (tests may swap the LLM)."""
    with app.app_context(), db.connection_context():
        yield components.get()
