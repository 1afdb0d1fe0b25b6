"""``IRISRAG_LLM=auto`` (the default): use a language model when one is there, else answer extractively.

The order: Ollama at OLLAMA_URL when ``GET /api/tags`` answers within ``PROBE_TIMEOUT`` and
lists OLLAMA_CHAT_MODEL (``llama3`` matches ``llama3:latest``); then the OpenAI-compatible
server when OPENAI_BASE_URL was set explicitly (environment or overrides; its default is
not a server anybody started); else none, and answers are extractive without an error.

The probe's outcome is cached for LLM_PROBE_SECONDS (30) per process, and a lock keeps
more than one probe from running at a time: a caller arriving during a probe waits for it
and uses its result. ``Discovery`` says what was found and why (admin system page,
``flask rag check-llm``).
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from irisrag.config import DEFAULTS
from irisrag.errors import LLMUnavailable
from irisrag.llm.clients import LLM, Messages, NoLLM, OllamaLLM, ollama_client, openai_client
from irisrag.llm.http import model_listed

log = logging.getLogger(__name__)

PROBE_TIMEOUT = 1.5


@dataclass(frozen=True)
class Discovery:
    """What ``auto`` chose (``ollama``, ``openai`` or ``none``), the model, and why."""

    kind: str
    model: str
    reason: str
    checked_at: float


class NoModelFound(NoLLM):
    """``auto`` found no model: answers are extractive, and that is not an error."""

    name = "none"

    def __init__(self, reason: str) -> None:
        self.reason = reason


def probe_ollama(url: str, model: str, timeout: float = PROBE_TIMEOUT) -> tuple[bool, str]:
    """Return (usable, why): whether Ollama answers ``/api/tags`` and lists the model."""
    try:
        names = OllamaLLM(url, model).models(timeout)
    except LLMUnavailable as exc:
        return False, f"Ollama at {url} did not answer GET /api/tags: {exc.message}"
    if not model_listed(names, model):
        return False, f"Ollama at {url} answers but does not have the model {model!r} (ollama pull {model})"
    return True, f"Ollama at {url} answers and has the model {model!r}"


class AutoLLM:
    """A chat model that is whichever ``auto`` finds; ``resolve()`` returns it (cached, one probe at a time)."""

    def __init__(self, config: Mapping[str, Any], *, clock: Callable[[], float] = time.monotonic,
                 probe: Callable[[str, str], tuple[bool, str]] = probe_ollama) -> None:
        self.config = config
        self.clock = clock
        self.probe = probe
        self.ttl = float(self._get("LLM_PROBE_SECONDS"))
        self._lock = threading.Lock()
        self._chosen: tuple[LLM, Discovery] | None = None
        self.probes = 0

    def _get(self, key: str) -> Any:
        return self.config.get(key, DEFAULTS.get(key))

    @property
    def name(self) -> str:
        return self.resolve().name

    def _fresh(self) -> tuple[LLM, Discovery] | None:
        chosen = self._chosen
        if chosen is not None and self.clock() - chosen[1].checked_at < self.ttl:
            return chosen
        return None

    def choose(self) -> tuple[LLM, Discovery]:
        """Return the model and the discovery, probing at most once per LLM_PROBE_SECONDS."""
        chosen = self._fresh()
        if chosen is not None:
            return chosen
        with self._lock:  # one probe in flight; whoever waited here reads its result
            chosen = self._fresh()
            if chosen is None:
                chosen = self._discover()
                self._chosen = chosen
                log.info("llm_auto kind=%s model=%s reason=%r", chosen[1].kind, chosen[1].model, chosen[1].reason)
            return chosen

    def resolve(self) -> LLM:
        """Return the model ``auto`` uses now (a ``NoModelFound`` when there is none)."""
        return self.choose()[0]

    def discovery(self) -> Discovery:
        """Return what ``auto`` found and why."""
        return self.choose()[1]

    def _discover(self) -> tuple[LLM, Discovery]:
        self.probes += 1
        url, model = self._get("OLLAMA_URL"), self._get("OLLAMA_CHAT_MODEL")
        usable, why = self.probe(url, model)
        now = self.clock()
        if usable:
            return ollama_client(self.config), Discovery("ollama", model, why, now)
        if "OPENAI_BASE_URL" in (self._get("EXPLICIT_SETTINGS") or ()):
            base, chat_model = self._get("OPENAI_BASE_URL"), self._get("OPENAI_CHAT_MODEL")
            client = openai_client(self.config)
            return client, Discovery("openai", chat_model, f"{why}; IRISRAG_OPENAI_BASE_URL is set: {base}", now)
        reason = f"{why}; IRISRAG_OPENAI_BASE_URL is not set: answers are extractive"
        return NoModelFound(reason), Discovery("none", "", reason, now)

    def chat(self, messages: Messages, max_tokens: int | None = None) -> str:
        """Ask the model ``auto`` found (``LLMUnavailable`` when there is none)."""
        return self.resolve().chat(messages, max_tokens)

    def stream(self, messages: Messages, max_tokens: int | None = None) -> Iterator[str]:
        """Stream from the model ``auto`` found."""
        return self.resolve().stream(messages, max_tokens)


def active(llm: object | None) -> object | None:
    """Return the model to ask now: ``auto`` resolved to what it found, anything else as it is."""
    return llm.resolve() if isinstance(llm, AutoLLM) else llm


def chat_model(llm: object | None) -> object | None:
    """Return the model to ask now, or None when there is none: the one answer to "is there a model?".

    ``auto`` is resolved to what it found (cached probe); none configured (``NoLLM``, ``IRISRAG_LLM=none``)
    or none found (``NoModelFound``) is None, and answers are extractive by design.
    """
    model = active(llm)
    return None if model is None or isinstance(model, NoLLM) else model


@dataclass(frozen=True)
class ModelStatus:
    """The language model setting and what it means now (admin system page)."""

    setting: str
    kind: str
    model: str
    reason: str


def status(llm: object, setting: str) -> ModelStatus:
    """Return what the LLM setting uses now: with ``auto``, what the (cached) probe found and why."""
    if isinstance(llm, AutoLLM):
        found = llm.discovery()
        return ModelStatus(setting, found.kind, found.model, found.reason)
    if isinstance(llm, NoLLM):
        return ModelStatus(setting, "none", "", "IRISRAG_LLM=none: answers are extractive")
    return ModelStatus(setting, setting, str(getattr(llm, "model", "")), f"IRISRAG_LLM={setting}")
