"""IRISRAG_LLM=auto against a stub Ollama on 127.0.0.1: what it picks, the cache, one probe at a time."""
from __future__ import annotations

import threading

import pytest

from irisrag.llm import build_llm
from irisrag.llm.auto import AutoLLM, NoModelFound, active, chat_model
from irisrag.llm.clients import FakeLLM, NoLLM, OllamaLLM, OpenAILLM
from tests.support.http_stub import HttpStub, Reply, closed_port

MODEL = "llama3"


@pytest.fixture
def stub():
    with HttpStub() as server:
        yield server


def tags(*names: str) -> Reply:
    return Reply(json={"models": [{"name": n, "model": n} for n in names]})


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def auto(url: str, **extra) -> AutoLLM:
    clock = extra.pop("clock", Clock())
    config = {"LLM": "auto", "OLLAMA_URL": url, "OLLAMA_CHAT_MODEL": MODEL, "LLM_PROBE_SECONDS": 30.0,
              "EXPLICIT_SETTINGS": frozenset(extra.pop("explicit", ())), **extra}
    return AutoLLM(config, clock=clock)


def test_auto_is_the_default_and_builds_an_auto_llm():
    from irisrag.config import load

    config = load({})
    assert config["LLM"] == "auto" and isinstance(build_llm(config), AutoLLM)
    assert "OPENAI_BASE_URL" not in config["EXPLICIT_SETTINGS"]
    assert "OPENAI_BASE_URL" in load({"IRISRAG_OPENAI_BASE_URL": "http://x/v1"})["EXPLICIT_SETTINGS"]


def test_auto_uses_ollama_when_it_lists_the_model(stub):
    stub.add("GET", "/api/tags", tags("llama3:latest", "nomic-embed-text:latest"))
    llm = auto(stub.url)
    chosen = active(llm)
    assert isinstance(chosen, OllamaLLM) and chosen.model == MODEL
    found = llm.discovery()
    assert found.kind == "ollama" and "has the model" in found.reason


def test_auto_without_the_model_or_server_answers_extractively_and_says_why(stub):
    stub.add("GET", "/api/tags", tags("mistral:latest"))
    found = auto(stub.url).discovery()
    assert found.kind == "none" and "does not have the model 'llama3'" in found.reason
    down = auto(f"http://127.0.0.1:{closed_port()}")
    assert isinstance(down.resolve(), NoModelFound) and isinstance(down.resolve(), NoLLM)
    assert "did not answer GET /api/tags" in down.discovery().reason


def test_chat_model_is_the_model_to_ask_or_none(stub):
    stub.add("GET", "/api/tags", tags("llama3:latest"))
    fake = FakeLLM()
    assert chat_model(None) is None and chat_model(NoLLM()) is None and chat_model(fake) is fake
    assert chat_model(auto(f"http://127.0.0.1:{closed_port()}")) is None  # auto found none: extractive
    found = chat_model(auto(stub.url))
    assert isinstance(found, OllamaLLM) and found.model == MODEL


def test_auto_falls_back_to_an_explicit_openai_server_only(stub):
    down = f"http://127.0.0.1:{closed_port()}"
    assert auto(down, OPENAI_BASE_URL="http://127.0.0.1:8000/v1").discovery().kind == "none"
    llm = auto(down, OPENAI_BASE_URL=stub.url + "/v1", OPENAI_CHAT_MODEL="m", explicit={"OPENAI_BASE_URL"})
    assert isinstance(llm.resolve(), OpenAILLM) and llm.discovery().kind == "openai"


def test_auto_caches_the_probe_for_probe_seconds(stub):
    stub.add("GET", "/api/tags", tags("mistral"))
    clock = Clock()
    llm = auto(stub.url, clock=clock)
    assert llm.discovery().kind == "none"
    stub.add("GET", "/api/tags", tags("llama3"))
    clock.now += 29
    assert llm.discovery().kind == "none" and len(stub.requests) == 1
    clock.now += 2
    assert llm.discovery().kind == "ollama" and len(stub.requests) == 2


def test_auto_runs_one_probe_at_a_time(stub):
    stub.add("GET", "/api/tags", Reply(json={"models": [{"name": "llama3:latest"}]}, delay=0.5))
    llm = auto(stub.url)
    results = []
    threads = [threading.Thread(target=lambda: results.append(llm.discovery().kind)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == ["ollama"] * 8
    assert len(stub.requests) == 1 and llm.probes == 1


def test_dashboard_uses_a_stub_ollama_found_by_auto(tmp_path, database_url, redis_url, stub):
    from tests.conftest import make_app
    from tests.services import QUESTION, seed_library
    from tests.web.test_dashboard import ask, logged_in

    stub.add("GET", "/api/tags", tags("llama3:latest"))
    stub.add("POST", "/api/chat", Reply(json={"message": {"role": "assistant", "content": "Über otel.yaml [1]."},
                                              "done": True}))
    app = make_app(tmp_path, database_url, redis_url, LLM="auto", OLLAMA_URL=stub.url, OLLAMA_CHAT_MODEL=MODEL)
    library = seed_library(app)
    body = ask(logged_in(app), QUESTION, areas=[library.alpha])
    assert "Written by ollama:llama3 from the passages found." in body and stub.last("POST", "/api/chat")


def test_dashboard_is_calm_when_auto_finds_no_model(tmp_path, database_url, redis_url):
    from tests.conftest import make_app
    from tests.services import QUESTION, seed_library
    from tests.web.test_dashboard import ask, logged_in

    calm = make_app(tmp_path, database_url, redis_url, LLM="auto", OLLAMA_URL=f"http://127.0.0.1:{closed_port()}")
    library = seed_library(calm)
    body = ask(logged_in(calm), QUESTION, areas=[library.alpha])
    assert "This answer was assembled from the documents without a language model." in body
    assert 'class="error"' not in body and "otel.yaml" in body
