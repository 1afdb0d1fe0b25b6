"""LLM protocol, the Ollama and OpenAI-compatible chat clients, a fallback and a fake for tests.

    class LLM(Protocol):
        name: str                                        # e.g. "ollama:llama3", "none"
        def chat(self, messages: list[dict[str, str]]) -> str

Every failure of a real client (unreachable, timeout, HTTP error, malformed answer) is an
``LLMUnavailable`` whose detail names the URL and the model.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

import requests

from irisrag.config import DEFAULTS
from irisrag.embeddings import post_json
from irisrag.errors import ConfigurationError, LLMUnavailable

Messages = list[dict[str, str]]
_SERVICE = "The language model"


@runtime_checkable
class LLM(Protocol):
    name: str

    def chat(self, messages: Messages) -> str: ...


def _content(data: Any, path: tuple[str | int, ...], where: str) -> str:
    """Dig the answer text out of a decoded JSON reply."""
    value = data
    try:
        for step in path:
            value = value[step]
    except (KeyError, IndexError, TypeError) as exc:
        raise LLMUnavailable(f"{_SERVICE} sent an unexpected answer",
                             f"{where}: missing {'/'.join(map(str, path))}: {str(data)[:300]}") from exc
    if not isinstance(value, str):
        raise LLMUnavailable(f"{_SERVICE} sent an unexpected answer",
                             f"{where}: {'/'.join(map(str, path))} is {type(value).__name__}, not text")
    return value


class OllamaLLM:
    """Ollama ``/api/chat`` without streaming."""

    def __init__(self, url: str, model: str = "llama3", timeout: float = 120.0,
                 session: requests.Session | None = None) -> None:
        self.url = url.rstrip("/")
        self.model = model
        self.timeout = float(timeout)
        self.session = session or requests.Session()
        self.name = f"ollama:{model}"

    def chat(self, messages: Messages) -> str:
        """Send the conversation and return the model's reply text."""
        endpoint = f"{self.url}/api/chat"
        data = post_json(self.session, endpoint, {"model": self.model, "messages": messages, "stream": False},
                         timeout=self.timeout, error=LLMUnavailable, service=_SERVICE,
                         context=f"model={self.model}")
        return _content(data, ("message", "content"), f"POST {endpoint} (model={self.model})")


class OpenAILLM:
    """OpenAI-compatible ``/chat/completions``."""

    def __init__(self, base_url: str, api_key: str, model: str, timeout: float = 120.0,
                 session: requests.Session | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.model = model
        self.timeout = float(timeout)
        self.session = session or requests.Session()
        self.name = f"openai:{model}"

    def chat(self, messages: Messages) -> str:
        """Send the conversation and return the first choice's text."""
        endpoint = f"{self.base_url}/chat/completions"
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        data = post_json(self.session, endpoint, {"model": self.model, "messages": messages},
                         timeout=self.timeout, error=LLMUnavailable, service=_SERVICE,
                         context=f"model={self.model}", headers=headers)
        return _content(data, ("choices", 0, "message", "content"), f"POST {endpoint} (model={self.model})")


class NoLLM:
    """No model configured: answers fall back to extractive mode."""

    name = "none"

    def chat(self, messages: Messages) -> str:
        """Refuse: there is no model."""
        raise LLMUnavailable("No language model is configured", "IRISRAG_LLM=none")


class FakeLLM:
    """Reply with a fixed text or a function of the messages, recording every call."""

    name = "fake"

    def __init__(self, reply: str | Callable[[Messages], str] = "This is a fake answer [1].") -> None:
        self.reply = reply
        self.calls: list[Messages] = []

    def chat(self, messages: Messages) -> str:
        """Record the messages and return the scripted reply."""
        self.calls.append([dict(m) for m in messages])
        return self.reply(messages) if callable(self.reply) else self.reply


def build_llm(config: Mapping[str, Any]) -> LLM:
    """Build the LLM named by config["LLM"]."""
    def get(key: str) -> Any:
        return config.get(key, DEFAULTS.get(key))

    kind = str(get("LLM") or "").strip().lower()
    if kind == "ollama":
        return OllamaLLM(get("OLLAMA_URL"), get("OLLAMA_CHAT_MODEL"), float(get("LLM_TIMEOUT")))
    if kind == "openai":
        return OpenAILLM(get("OPENAI_BASE_URL"), get("OPENAI_API_KEY") or "", get("OPENAI_CHAT_MODEL"),
                         float(get("LLM_TIMEOUT")))
    if kind == "none":
        return NoLLM()
    if kind == "fake":
        return FakeLLM()
    raise ConfigurationError(f"Unknown language model setting {kind!r}",
                             "IRISRAG_LLM must be one of: ollama, openai, none, fake")
