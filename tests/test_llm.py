"""LLM clients against a local HTTP stub, the fallback and the fake."""
from __future__ import annotations

import time

import pytest

from irisrag.errors import ConfigurationError, LLMUnavailable
from irisrag.llm import build_llm
from irisrag.llm.clients import LLM, FakeLLM, NoLLM, OllamaLLM, OpenAILLM
from tests.support.http_stub import HttpStub, Reply, closed_port

MESSAGES = [{"role": "system", "content": "Antworte kurz."}, {"role": "user", "content": "Was ist X?"}]


@pytest.fixture
def stub():
    with HttpStub() as server:
        yield server


def test_ollama_llm_posts_chat_without_streaming(stub):
    stub.add("POST", "/api/chat", Reply(json={"model": "llama3", "message": {"role": "assistant", "content": "X ist Y [1]."}}))
    llm = OllamaLLM(stub.url + "/", model="llama3", timeout=5)
    assert llm.chat(MESSAGES) == "X ist Y [1]."
    req = stub.last("POST", "/api/chat")
    assert req.json == {"model": "llama3", "messages": MESSAGES, "stream": False, "options": {"num_predict": 1024}}
    assert llm.name == "ollama:llama3"
    assert isinstance(llm, LLM)


def test_ollama_llm_timeout_is_honoured(stub):
    stub.add("POST", "/api/chat", Reply(json={"message": {"content": "late"}}, delay=3.0))
    started = time.monotonic()
    with pytest.raises(LLMUnavailable) as info:
        OllamaLLM(stub.url, model="llama3", timeout=0.3).chat(MESSAGES)
    assert time.monotonic() - started < 2.0
    assert info.value.message == "The language model did not finish its answer within 0.3 s"
    assert f"{stub.url}/api/chat" in info.value.detail and "llama3" in info.value.detail


def test_ollama_llm_http_500(stub):
    stub.add("POST", "/api/chat", Reply(status=500, json={"error": "model 'llama3' not found"}))
    with pytest.raises(LLMUnavailable) as info:
        OllamaLLM(stub.url, timeout=5).chat(MESSAGES)
    assert info.value.message == "The language model answered with HTTP 500"
    assert "not found" in info.value.detail and "model=llama3" in info.value.detail


def test_ollama_llm_unreachable():
    url = f"http://127.0.0.1:{closed_port()}"
    with pytest.raises(LLMUnavailable) as info:
        OllamaLLM(url, timeout=2).chat(MESSAGES)
    assert info.value.message == f"The language model at {url} could not be reached"
    assert url in info.value.detail


def test_ollama_llm_malformed_answer(stub):
    stub.add("POST", "/api/chat", Reply(json={"done": True}), Reply(json={"message": {"content": None}}),
             Reply(body="not json"))
    llm = OllamaLLM(stub.url, timeout=5)
    for _ in range(3):
        with pytest.raises(LLMUnavailable) as info:
            llm.chat(MESSAGES)
        assert stub.url in info.value.detail
    assert len(stub.requests) == 3


def test_openai_llm_posts_completion_with_key(stub):
    stub.add("POST", "/v1/chat/completions", Reply(json={"choices": [{"message": {"role": "assistant", "content": "Antwort"}}]}))
    llm = OpenAILLM(stub.url + "/v1", "sk-1", "gpt-4o-mini", timeout=5)
    assert llm.chat(MESSAGES) == "Antwort"
    req = stub.last()
    assert req.path == "/v1/chat/completions"
    assert req.json == {"model": "gpt-4o-mini", "messages": MESSAGES, "max_tokens": 1024, "stream": False}
    assert req.headers["authorization"] == "Bearer sk-1"
    assert llm.name == "openai:gpt-4o-mini"


def test_openai_llm_errors(stub):
    stub.add("POST", "/v1/chat/completions", Reply(json={"choices": []}), Reply(status=502, body="bad gateway"))
    llm = OpenAILLM(stub.url + "/v1", "", "m", timeout=5)
    with pytest.raises(LLMUnavailable, match="unexpected"):
        llm.chat(MESSAGES)
    with pytest.raises(LLMUnavailable, match="HTTP 502"):
        llm.chat(MESSAGES)
    assert "authorization" not in stub.last().headers


def test_no_llm_refuses():
    with pytest.raises(LLMUnavailable) as info:
        NoLLM().chat(MESSAGES)
    assert info.value.message == "No language model is configured"
    assert NoLLM().name == "none"


def test_fake_llm_records_calls_and_replies():
    fixed = FakeLLM("fest")
    assert fixed.chat(MESSAGES) == "fest"
    echo = FakeLLM(lambda messages: messages[-1]["content"].upper())
    assert echo.chat(MESSAGES) == "WAS IST X?"
    assert echo.calls == [MESSAGES] and fixed.calls == [MESSAGES]


def test_build_llm_by_config(stub):
    ollama = build_llm({"LLM": "ollama", "OLLAMA_URL": stub.url, "OLLAMA_CHAT_MODEL": "qwen2", "LLM_TIMEOUT": 9})
    assert isinstance(ollama, OllamaLLM) and (ollama.name, ollama.timeout) == ("ollama:qwen2", 9.0)
    openai = build_llm({"LLM": "openai", "OPENAI_BASE_URL": stub.url, "OPENAI_API_KEY": "k",
                        "OPENAI_CHAT_MODEL": "c"})
    assert isinstance(openai, OpenAILLM) and openai.name == "openai:c" and openai.timeout == 120.0
    assert isinstance(build_llm({"LLM": "none"}), NoLLM)
    assert isinstance(build_llm({"LLM": "fake"}), FakeLLM)
    with pytest.raises(ConfigurationError):
        build_llm({"LLM": "gpt5"})


def test_llm_keeps_a_connection_per_concurrent_request(caplog):
    """32 threads of one web worker ask at once: no connection is opened and thrown away."""
    import logging
    from concurrent.futures import ThreadPoolExecutor

    caplog.set_level(logging.WARNING, logger="urllib3.connectionpool")
    with HttpStub() as stub:
        stub.add("POST", "/api/chat", Reply(json={"message": {"content": "ok"}}, delay=0.2))
        llm = OllamaLLM(stub.url, "m", timeout=10)
        assert llm.session.get_adapter(stub.url)._pool_maxsize >= 32
        with ThreadPoolExecutor(32) as pool:
            for _ in range(2):  # the second round reuses the kept connections
                assert list(pool.map(lambda _: llm.chat([{"role": "user", "content": "x"}]), range(32))) == ["ok"] * 32
    assert not [r for r in caplog.records if "pool is full" in r.getMessage()]
