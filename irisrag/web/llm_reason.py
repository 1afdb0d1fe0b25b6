"""The language model's reason (system page) in the user's language.

``llm_auto`` writes its reason in English, for the log as much as for the page: parts joined
by "; ". Each part of a known shape is translated with its values; any other part is shown as
it is (a test checks that llm_auto's own sentences are known, so a reworded one is noticed).
"""
from __future__ import annotations

import re

from flask_babel import gettext

from irisrag.i18n import N_

_SHAPES = (
    (re.compile(r"Ollama at (?P<url>\S+) did not answer GET /api/tags: (?P<error>.*)"),
     N_("Ollama at %(url)s did not answer GET /api/tags: %(error)s")),
    (re.compile(r"Ollama at (?P<url>\S+) answers but does not have the model (?P<model>.+) \(ollama pull (?P<pull>.+)\)"),
     N_("Ollama at %(url)s answers but does not have the model %(model)s (ollama pull %(pull)s)")),
    (re.compile(r"Ollama at (?P<url>\S+) answers and has the model (?P<model>.+)"),
     N_("Ollama at %(url)s answers and has the model %(model)s")),
    (re.compile(r"IRISRAG_OPENAI_BASE_URL is not set: answers are extractive"),
     N_("IRISRAG_OPENAI_BASE_URL is not set: answers are assembled from the documents")),
    (re.compile(r"IRISRAG_OPENAI_BASE_URL is set: (?P<base>.*)"), N_("IRISRAG_OPENAI_BASE_URL is set: %(base)s")),
    (re.compile(r"IRISRAG_LLM=none: answers are extractive"),
     N_("IRISRAG_LLM=none: answers are assembled from the documents")),
)


def _part(text: str) -> str | None:
    for shape, message in _SHAPES:
        match = shape.fullmatch(text)
        if match:
            return gettext(message, **match.groupdict()) if match.groupdict() else gettext(message)
    return None


def known(reason: str) -> bool:
    """Say whether every part of the reason has a translation."""
    return all(_part(part) is not None for part in reason.split("; "))


def translate(reason: str) -> str:
    """Return the reason with each known part in the user's language, the others as they are."""
    return "; ".join(_part(part) or part for part in (reason or "").split("; "))
