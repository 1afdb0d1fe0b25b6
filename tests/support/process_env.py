"""The environment of a process a test starts (worker.py, gunicorn, the CLI).

Only operator settings are read from ``IRISRAG_*`` variables; a constant or a retrieval profile
field a test changes travels in ``IRISRAG_TEST_OVERRIDES`` (JSON), parsed as its table says.
"""
from __future__ import annotations

import json
from collections.abc import Mapping

from irisrag import config

_NOT_OPERATOR = {s.key: s for s in (*config.INTERNAL, *config.TEST_ONLY, *config.PROFILE_FIELDS)}


def process_env(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` with its IRISRAG_* constants and profile fields moved into IRISRAG_TEST_OVERRIDES."""
    result: dict[str, str] = {}
    overrides = json.loads(env.get(config.TEST_OVERRIDES) or "{}")
    for name, value in env.items():
        setting = _NOT_OPERATOR.get(name.removeprefix("IRISRAG_")) if name.startswith("IRISRAG_") else None
        if setting is None:
            result[name] = value
        else:
            overrides[setting.key] = setting.parse(value)
    if overrides:
        result[config.TEST_OVERRIDES] = json.dumps(overrides)
    return result
