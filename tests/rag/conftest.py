"""Fixtures for the rag tests."""
from __future__ import annotations

import pytest

from .fakes import AxisEmbedder, FakeStore


@pytest.fixture
def store() -> FakeStore:
    return FakeStore()


@pytest.fixture
def embedder() -> AxisEmbedder:
    return AxisEmbedder()
