"""Streaming through the real Ollama and OpenAI-compatible clients against local servers in the real wire formats."""
from __future__ import annotations

import json
import threading
import time

import pytest
import requests

from irisrag.errors import (
    LLMContextTooLong,
    LLMModelNotFound,
    LLMTimeout,
    LLMUnavailable,
    LLMUnreachable,
)
from irisrag.llm.clients import FakeLLM, NoLLM, OllamaLLM, OpenAILLM
from tests.support.http_stub import HttpStub, Reply, closed_port

MESSAGES = [{"role": "system", "content": "Antworte kurz."}, {"role": "user", "content": "Was ist X?"}]
WORDS = ["X ", "ist ", "**Y** ", "[1]."]


@pytest.fixture
def stub():
    with HttpStub() as server:
        yield server


def ollama_line(content: str, done: bool = False) -> dict:
    line = {"model": "llama3", "created_at": "2024-05-01T10:00:00Z",
            "message": {"role": "assistant", "content": content}, "done": done}
    if done:
        line.update(done_reason="stop", total_duration=123, eval_count=4)
    return line


def openai_event(content: str | None = None, finish: str | None = None) -> str:
    delta = {} if content is None else {"content": content}
    chunk = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
             "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return "data: " + json.dumps(chunk)


def sse_lines(*events: str) -> list[str]:
    """Lay out server-sent events as lines, each followed by the blank line that ends it."""
    return [line for event in events for line in (event, "")]


def ollama_lines(words=WORDS) -> list:
    return [ollama_line(w) for w in words] + [ollama_line("", done=True)]


def openai_lines(words=WORDS) -> list[str]:
    role = "data: " + json.dumps({"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]})
    return sse_lines(role, *(openai_event(w) for w in words), openai_event(finish="stop"), "data: [DONE]")


class Counting:
    """Stream ``total`` lines made by ``make(i)``, counting how many the server produced."""

    def __init__(self, make, total: int = 2000, content_type: str = "application/x-ndjson") -> None:
        self.make, self.total, self.content_type, self.produced = make, total, content_type, 0

    def __call__(self, request) -> Reply:
        return Reply(lines=self._lines(), line_delay=0.01, content_type=self.content_type)

    def _lines(self):
        for i in range(self.total):
            self.produced = i + 1
            yield self.make(i)


# --- Ollama: JSON lines --------------------------------------------------------------


def test_ollama_stream_yields_pieces_as_they_arrive(stub):
    stub.add("POST", "/api/chat", Reply(lines=ollama_lines(), line_delay=0.2))
    llm = OllamaLLM(stub.url + "/", model="llama3", timeout=5)
    started = time.monotonic()
    arrivals = []
    pieces = []
    for piece in llm.stream(MESSAGES):
        arrivals.append(time.monotonic() - started)
        pieces.append(piece)
    assert pieces == WORDS
    assert arrivals[0] < 0.15 and arrivals[-1] > 0.5  # the first piece did not wait for the rest
    assert stub.last("POST", "/api/chat").json == {"model": "llama3", "messages": MESSAGES, "stream": True,
                                                     "options": {"num_predict": 1024}}


def test_ollama_stream_and_chat_agree(stub):
    stub.add("POST", "/api/chat", Reply(lines=ollama_lines()))
    assert "".join(OllamaLLM(stub.url, timeout=5).stream(MESSAGES)) == "X ist **Y** [1]."


def test_ollama_stream_cancel_closes_the_upstream_response(stub):
    counting = Counting(lambda i: ollama_line(f"w{i} "))
    stub.add("POST", "/api/chat", counting)
    tokens = OllamaLLM(stub.url, timeout=5).stream(MESSAGES)
    assert [next(tokens) for _ in range(3)] == ["w0 ", "w1 ", "w2 "]
    tokens.close()
    time.sleep(0.5)  # the server notices on its next writes
    stopped_at = counting.produced
    time.sleep(0.5)
    assert counting.produced == stopped_at < 100  # it stopped writing, long before the 2000 lines


def test_ollama_error_line_mid_stream_raises_after_the_partial_answer(stub):
    lines = [ollama_line("X "), ollama_line("ist "), {"error": "model runner has unexpectedly stopped"}]
    stub.add("POST", "/api/chat", Reply(lines=lines))
    received = []
    with pytest.raises(LLMUnavailable) as info:
        for piece in OllamaLLM(stub.url, model="llama3", timeout=5).stream(MESSAGES):
            received.append(piece)
    assert received == ["X ", "ist "]
    assert info.value.message == "The language model reported an error"
    assert "unexpectedly stopped" in info.value.detail and "model=llama3" in info.value.detail


def test_ollama_stream_ending_without_done_is_an_error(stub):
    stub.add("POST", "/api/chat", Reply(lines=[ollama_line("X "), ollama_line("ist ")]))
    received = []
    with pytest.raises(LLMUnavailable) as info:
        received.extend(OllamaLLM(stub.url, timeout=5).stream(MESSAGES))
    assert received == ["X ", "ist "]
    assert info.value.message == "The language model broke off the answer"
    assert isinstance(info.value.__cause__, requests.ConnectionError)
    assert isinstance(info.value, LLMUnreachable)  # the type services read; they never look at requests


def test_ollama_connection_dropped_mid_stream_is_an_error(stub):
    def dropping(request) -> Reply:
        def lines():
            yield ollama_line("X ")
            raise ConnectionAbortedError("the model server died")  # the stub drops the connection
        return Reply(lines=lines())

    stub.add("POST", "/api/chat", dropping)
    received = []
    with pytest.raises(LLMUnavailable) as info:
        received.extend(OllamaLLM(stub.url, timeout=5).stream(MESSAGES))
    assert received == ["X "]
    assert info.value.message == "The language model broke off the answer"


def test_ollama_stream_stall_is_a_timeout(stub):
    stub.add("POST", "/api/chat", Reply(lines=[ollama_line("X "), ollama_line("ist ")], line_delay=2.0))
    started = time.monotonic()
    tokens = OllamaLLM(stub.url, timeout=0.4).stream(MESSAGES)
    assert next(tokens) == "X "
    with pytest.raises(LLMUnavailable) as info:
        list(tokens)
    assert time.monotonic() - started < 1.8
    assert info.value.message == "The language model did not finish its answer within 0.4 s"
    assert isinstance(info.value.__cause__, requests.Timeout)
    assert isinstance(info.value, LLMTimeout)


def test_ollama_stream_http_error_and_unreachable(stub):
    stub.add("POST", "/api/chat", Reply(status=404, json={"error": "model 'llama3' not found"}))
    with pytest.raises(LLMUnavailable) as info:
        list(OllamaLLM(stub.url, timeout=5).stream(MESSAGES))
    assert info.value.message == "The language model server does not have the configured model"
    assert "not found" in info.value.detail and isinstance(info.value, LLMModelNotFound)
    url = f"http://127.0.0.1:{closed_port()}"
    with pytest.raises(LLMUnavailable) as info:
        list(OllamaLLM(url, timeout=2).stream(MESSAGES))
    assert info.value.message == f"The language model at {url} could not be reached"


# --- OpenAI-compatible: server-sent events -------------------------------------------


def test_openai_stream_reads_server_sent_events(stub):
    stub.add("POST", "/v1/chat/completions",
             Reply(lines=openai_lines(), line_delay=0.1, content_type="text/event-stream"))
    llm = OpenAILLM(stub.url + "/v1/", "sk-test", "gpt-test", timeout=5)
    started = time.monotonic()
    tokens = llm.stream(MESSAGES)
    first = next(tokens)
    assert time.monotonic() - started < 0.5
    assert [first, *tokens] == WORDS
    request = stub.last("POST", "/v1/chat/completions")
    assert request.json == {"model": "gpt-test", "messages": MESSAGES, "max_tokens": 1024, "stream": True}
    assert request.headers["authorization"] == "Bearer sk-test"
    assert request.headers["accept"] == "text/event-stream"


def test_openai_stream_skips_comments_and_joins_multiline_data(stub):
    chunk = json.dumps({"choices": [{"delta": {"content": "Hallo"}, "finish_reason": "stop"}]}, indent=1)
    lines = [": keep-alive", ""] + ["data: " + line for line in chunk.split("\n")] + ["", "data: [DONE]", ""]
    stub.add("POST", "/chat/completions", Reply(lines=lines, content_type="text/event-stream"))
    assert list(OpenAILLM(stub.url, "", "m", timeout=5).stream(MESSAGES)) == ["Hallo"]
    assert "authorization" not in stub.last("POST", "/chat/completions").headers


def test_openai_stream_cancel_closes_the_upstream_response(stub):
    counting = Counting(lambda i: f"{openai_event(f'w{i} ')}\n", content_type="text/event-stream")
    stub.add("POST", "/chat/completions", counting)
    tokens = OpenAILLM(stub.url, "", "m", timeout=5).stream(MESSAGES)
    assert [next(tokens) for _ in range(3)] == ["w0 ", "w1 ", "w2 "]
    tokens.close()
    time.sleep(0.5)
    stopped_at = counting.produced
    time.sleep(0.5)
    assert counting.produced == stopped_at < 100


def test_openai_error_event_mid_stream_raises_after_the_partial_answer(stub):
    error = "data: " + json.dumps({"error": {"message": "context length exceeded", "type": "server_error"}})
    stub.add("POST", "/chat/completions",
             Reply(lines=sse_lines(openai_event("X "), openai_event("ist "), error), content_type="text/event-stream"))
    received = []
    with pytest.raises(LLMUnavailable) as info:
        for piece in OpenAILLM(stub.url, "", "m", timeout=5).stream(MESSAGES):
            received.append(piece)
    assert received == ["X ", "ist "]
    assert info.value.message == "The language model refused the question: the passages do not fit its context window"
    assert "context length exceeded" in info.value.detail and isinstance(info.value, LLMContextTooLong)


def test_openai_stream_cut_off_before_done_is_an_error(stub):
    stub.add("POST", "/chat/completions",
             Reply(lines=sse_lines(openai_event("X "), openai_event("ist ")), content_type="text/event-stream"))
    with pytest.raises(LLMUnavailable) as info:
        list(OpenAILLM(stub.url, "", "m", timeout=5).stream(MESSAGES))
    assert info.value.message == "The language model broke off the answer"


def test_openai_stream_with_finish_reason_but_no_done_marker_is_complete(stub):
    stub.add("POST", "/chat/completions",
             Reply(lines=sse_lines(openai_event("Ja."), openai_event(finish="stop")), content_type="text/event-stream"))
    assert list(OpenAILLM(stub.url, "", "m", timeout=5).stream(MESSAGES)) == ["Ja."]


def test_openai_stream_without_chunked_encoding_still_arrives_piece_by_piece():
    """A server that streams with Connection: close (no chunked encoding) is read as it writes."""
    import socket

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()

    def serve():
        conn, _ = server.accept()
        conn.recv(65536)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
        for event in openai_lines():
            conn.sendall((event + "\n").encode())
            time.sleep(0.05)
        conn.close()

    threading.Thread(target=serve, daemon=True).start()
    started = time.monotonic()
    tokens = OpenAILLM(f"http://127.0.0.1:{server.getsockname()[1]}", "", "m", timeout=5).stream(MESSAGES)
    assert next(tokens) == "X " and time.monotonic() - started < 0.4
    assert list(tokens) == WORDS[1:]
    server.close()


# --- the fake and the fallback ---------------------------------------------------------


def test_fake_llm_streams_words_and_can_fail_mid_answer():
    fake = FakeLLM("Eins zwei  drei [1].")
    assert list(fake.stream(MESSAGES)) == ["Eins", " zwei", "  drei", " [1]."]
    assert fake.calls == [MESSAGES] and fake.closed == 1
    failing = FakeLLM("Eins zwei drei", fail_after=2)
    received = []
    with pytest.raises(LLMUnavailable):
        received.extend(failing.stream(MESSAGES))
    assert received == ["Eins", " zwei"] and failing.closed == 1


def test_no_llm_stream_refuses():
    with pytest.raises(LLMUnavailable):
        next(NoLLM().stream(MESSAGES))
