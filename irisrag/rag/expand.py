"""Optional query expansion through the LLM (QUERY_EXPANSION setting).

``none`` (default)  the question is searched as asked.
``llm``             before searching, the LLM writes search keywords for the question: its key
                    terms, synonyms, and their translation into the language of the documents
                    (``language.CorpusLanguages``: detected from a sample of the stored passages,
                    FTS_LANGUAGE when that is unclear). The full-text leg searches the question plus these words,
                    and the fusion and the lexical gate count them as question terms; the
                    vector leg embeds the question as asked. This helps where the question's
                    words do not occur in the documents, e.g. a German question over English
                    documents, where full text alone finds little.

Expansion never fails a question: on an error or an empty reply the question is searched
as asked. The keywords are capped (MAX_CHARS) and stripped of markup.
"""
from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from irisrag.rag import language

log = logging.getLogger(__name__)

KINDS = ("none", "llm")
MAX_CHARS = 400
MAX_TOKENS = 96  # one line of keywords (MAX_CHARS)

PROMPT = (
    "You write search keywords. For the user's question, list its key terms, close synonyms, and "
    "their translation into {language}. Reply with the keywords only, separated by spaces, on one "
    "line, without explanations."
)


class QueryExpander(Protocol):
    name: str

    def expand(self, question: str) -> str: ...


def clean_keywords(reply: str) -> str:
    """Return the reply as one line of words: no markup, no numbering, at most MAX_CHARS."""
    text = " ".join(re.findall(r"[^\W_]+(?:[-'][^\W_]+)*", reply or ""))
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS].rsplit(" ", 1)[0]
    return text


class LLMQueryExpander:
    """Ask the LLM for keywords (with a translation into the documents' language)."""

    def __init__(self, llm, language: str | Callable[[], Sequence[str]] = "German") -> None:
        self.llm = llm
        self.languages = language if callable(language) else (lambda: [language])
        self.name = f"llm:{getattr(llm, 'name', type(llm).__name__)}"

    @property
    def language(self) -> str:
        """The documents' language(s), as the prompt names them."""
        return " and ".join(self.languages())

    def messages(self, question: str) -> list[dict[str, str]]:
        return [{"role": "system", "content": PROMPT.format(language=self.language)},
                {"role": "user", "content": question}]

    def expand(self, question: str) -> str:
        try:
            return clean_keywords(str(self.llm.chat(self.messages(question), max_tokens=MAX_TOKENS)))
        except Exception as exc:  # search the question as asked
            log.warning("event=expansion_failed expander=%s error=%s", self.name, exc)
            return ""


def build_expander(config: Mapping[str, Any], *, llm=None, store=None) -> QueryExpander | None:
    """Return the configured query expander, or None for ``none``; with ``store``, toward the documents' languages."""
    kind = str(config.get("QUERY_EXPANSION", "none")).strip().lower()
    if kind == "none":
        return None
    if kind == "llm":
        fallback = str(config.get("FTS_LANGUAGE", "German"))
        if store is None:
            return LLMQueryExpander(llm, fallback)
        return LLMQueryExpander(llm, language.CorpusLanguages(language.store_sample(store), fallback))
    raise ValueError(f"unknown query expansion {kind!r}; one of {', '.join(KINDS)}")
