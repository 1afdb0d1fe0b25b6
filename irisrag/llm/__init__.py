"""Language models: the protocol and clients (``clients``), their HTTP (``http``), ``LLM=auto`` (``auto``)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from irisrag.config import DEFAULTS
from irisrag.errors import ConfigurationError
from irisrag.i18n import N_
from irisrag.llm.auto import AutoLLM
from irisrag.llm.clients import LLM, FakeLLM, NoLLM, ollama_client, openai_client


def build_llm(config: Mapping[str, Any]) -> LLM:
    """Build the LLM named by config["LLM"]."""
    kind = str(config.get("LLM", DEFAULTS["LLM"]) or "").strip().lower()
    if kind == "auto":
        return AutoLLM(config)
    if kind == "ollama":
        return ollama_client(config)
    if kind == "openai":
        return openai_client(config)
    if kind == "none":
        return NoLLM()
    if kind == "fake":
        return FakeLLM()
    raise ConfigurationError(N_("Unknown language model setting %(value)s"),
                             "IRISRAG_LLM must be one of: auto, ollama, openai, none, fake", params={"value": repr(kind)})
