"""Embedders: the real USE model, the HTTP providers against a local stub, the fake."""
from __future__ import annotations

import json
import subprocess
import sys
import time

import numpy as np
import pytest

from irisrag.config import DEFAULTS
from irisrag.embeddings import (
    Embedder,
    FakeEmbedder,
    OllamaEmbedder,
    OpenAIEmbedder,
    UseEmbedder,
    build_embedder,
)
from irisrag.errors import ConfigurationError, EmbeddingError
from tests.support.http_stub import HttpStub, Recorded, Reply, closed_port


@pytest.fixture
def stub():
    with HttpStub() as server:
        yield server


def _unit_rows(matrix: np.ndarray) -> None:
    assert matrix.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)


def test_use_embedder_loads_and_ranks_paraphrase_closest():
    emb = UseEmbedder()
    vectors = emb.embed_documents([
        "Der Antrag auf Urlaub muss zwei Wochen vorher eingereicht werden.",
        "Urlaubsanträge sind vierzehn Tage im Voraus zu stellen.",
        "Der Drucker im dritten Stock ist defekt.",
    ])
    assert emb.key == "use-m3-512" and emb.dim == 512
    assert vectors.shape == (3, 512)
    _unit_rows(vectors)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.1
    query = emb.embed_query("Wann muss ich Urlaub beantragen?")
    assert query.shape == (512,) and query.dtype == np.float32
    assert emb.embed_documents([]).shape == (0, 512)
    assert isinstance(emb, Embedder)


def test_ollama_embedder_posts_model_and_input(stub):
    stub.add("POST", "/api/embed", Reply(json={"embeddings": [[3.0, 4.0, 0.0], [0.0, 0.0, 2.0]]}))
    emb = OllamaEmbedder(stub.url + "/", model="nomic-embed-text", dim=3)
    vectors = emb.embed_documents(["eins", "zwei"])
    req = stub.last("POST", "/api/embed")
    assert req.json == {"model": "nomic-embed-text", "input": ["eins", "zwei"]}
    np.testing.assert_allclose(vectors, [[0.6, 0.8, 0.0], [0.0, 0.0, 1.0]], atol=1e-6)
    _unit_rows(vectors)
    assert emb.key == "ollama-nomic-embed-text-3"
    assert OllamaEmbedder(stub.url, model="jina/Emb:v2", dim=3).key == "ollama-jina-emb-v2-3"


def test_ollama_embedder_empty_input_makes_no_request(stub):
    emb = OllamaEmbedder(stub.url, dim=3)
    assert emb.embed_documents([]).shape == (0, 3)
    assert stub.requests == []


def test_ollama_embedder_wrong_dimension_names_both(stub):
    stub.add("POST", "/api/embed", Reply(json={"embeddings": [[1.0, 0.0]]}))
    with pytest.raises(EmbeddingError) as info:
        OllamaEmbedder(stub.url, dim=768).embed_query("x")
    assert "2" in info.value.message and "768" in info.value.message
    assert stub.url in info.value.detail


def test_ollama_embedder_http_500(stub):
    stub.add("POST", "/api/embed", Reply(status=500, body="model not loaded"))
    with pytest.raises(EmbeddingError) as info:
        OllamaEmbedder(stub.url, dim=3).embed_query("x")
    assert "HTTP 500" in info.value.message
    assert f"{stub.url}/api/embed" in info.value.detail and "model not loaded" in info.value.detail


def test_ollama_embedder_timeout_is_honoured(stub):
    stub.add("POST", "/api/embed", Reply(json={"embeddings": [[1.0, 0.0, 0.0]]}, delay=3.0))
    started = time.monotonic()
    with pytest.raises(EmbeddingError) as info:
        OllamaEmbedder(stub.url, dim=3, timeout=0.3).embed_query("x")
    assert time.monotonic() - started < 2.0
    assert "0.3 s" in info.value.message
    assert stub.url in info.value.detail


def test_ollama_embedder_unreachable():
    url = f"http://127.0.0.1:{closed_port()}"
    with pytest.raises(EmbeddingError) as info:
        OllamaEmbedder(url, dim=3, timeout=2).embed_query("x")
    assert "could not be reached" in info.value.message and url in info.value.message
    assert url in info.value.detail


def test_ollama_embedder_malformed_answer(stub):
    stub.add("POST", "/api/embed", Reply(json={"embedding": [1, 2, 3]}), Reply(body="<html>"))
    emb = OllamaEmbedder(stub.url, dim=3)
    with pytest.raises(EmbeddingError, match="unexpected"):
        emb.embed_query("x")
    with pytest.raises(EmbeddingError, match="not JSON"):
        emb.embed_query("x")


def test_openai_embedder_sorts_by_index_and_sends_key(stub):
    stub.add("POST", "/v1/embeddings", Reply(json={"data": [
        {"embedding": [0.0, 2.0], "index": 1},
        {"embedding": [5.0, 0.0], "index": 0},
    ]}))
    emb = OpenAIEmbedder(stub.url + "/v1", "sk-test", "text-embedding-3-small", 2, timeout=5)
    vectors = emb.embed_documents(["a", "b"])
    np.testing.assert_allclose(vectors, [[1.0, 0.0], [0.0, 1.0]])
    req = stub.last()
    assert req.path == "/v1/embeddings"
    assert req.json == {"model": "text-embedding-3-small", "input": ["a", "b"]}
    assert req.headers["authorization"] == "Bearer sk-test"
    assert emb.key == "openai-text-embedding-3-small-2"


def test_openai_embedder_without_key_sends_no_authorization(stub):
    stub.add("POST", "/v1/embeddings", Reply(json={"data": [{"embedding": [1.0, 0.0], "index": 0}]}))
    OpenAIEmbedder(stub.url + "/v1", "", "m", 2, timeout=5).embed_query("a")
    assert "authorization" not in stub.last().headers


def test_openai_embedder_count_mismatch_and_500(stub):
    stub.add("POST", "/v1/embeddings", Reply(json={"data": [{"embedding": [1.0, 0.0], "index": 0}]}),
             Reply(status=503, json={"error": "overloaded"}))
    emb = OpenAIEmbedder(stub.url + "/v1", "", "m", 2, timeout=5)
    with pytest.raises(EmbeddingError, match="malformed"):
        emb.embed_documents(["a", "b"])
    with pytest.raises(EmbeddingError, match="HTTP 503"):
        emb.embed_documents(["a"])


def test_fake_embedder_is_deterministic_and_word_sensitive():
    emb = FakeEmbedder(dim=64)
    docs = ["Urlaub beantragen im Personalbüro", "Urlaub beantragen", "Drucker defekt Toner leer", ""]
    first, second = emb.embed_documents(docs), FakeEmbedder(dim=64).embed_documents(docs)
    np.testing.assert_array_equal(first, second)
    assert first.shape == (4, 64)
    _unit_rows(first)
    assert first[0] @ first[1] > first[0] @ first[2] + 0.3
    np.testing.assert_allclose(emb.embed_query("URLAUB beantragen!"), first[1], atol=1e-6)
    assert emb.key == "fake-64"


def test_fake_embedder_hash_is_stable_across_processes():
    # Python's hash() is salted per process; a fixed expected value catches a switch to it.
    vec = FakeEmbedder(dim=8).embed_query("hund")
    code = "from irisrag.embeddings import FakeEmbedder; print(FakeEmbedder(8).embed_query('hund').tolist())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONHASHSEED": "123", "PYTHONPATH": ":".join(sys.path)})
    np.testing.assert_allclose(json.loads(out.stdout), vec, atol=1e-7)


def test_build_embedder_by_config(stub):
    ollama = build_embedder({"EMBEDDER": "ollama", "OLLAMA_URL": stub.url, "OLLAMA_EMBED_MODEL": "bge-m3",
                             "EMBEDDING_DIM": 1024, "OLLAMA_TIMEOUT": 7})
    assert isinstance(ollama, OllamaEmbedder)
    assert (ollama.key, ollama.dim, ollama.timeout) == ("ollama-bge-m3-1024", 1024, 7.0)
    openai = build_embedder({"EMBEDDER": "openai", "OPENAI_BASE_URL": stub.url, "OPENAI_API_KEY": "k",
                             "OPENAI_EMBED_MODEL": "e", "EMBEDDING_DIM": 16})
    assert isinstance(openai, OpenAIEmbedder) and openai.dim == 16
    assert isinstance(build_embedder({"EMBEDDER": "fake"}), FakeEmbedder)
    assert isinstance(build_embedder({"EMBEDDER": "use"}), UseEmbedder)
    with pytest.raises(ConfigurationError):
        build_embedder({"EMBEDDER": "word2vec"})


def test_http_stub_callable_reply_and_streaming(stub):
    import requests

    stub.add("POST", "/echo", lambda req: Reply(json={"got": req.json, "q": req.query}))
    stub.add("GET", "/stream", Reply(lines=[{"n": 1}, "plain"], line_delay=0.01))
    assert requests.post(stub.url + "/echo?x=1", json={"a": 1}).json() == {"got": {"a": 1}, "q": {"x": ["1"]}}
    lines = list(requests.get(stub.url + "/stream", stream=True).iter_lines())
    assert lines == [b'{"n": 1}', b"plain"]
    assert requests.get(stub.url + "/nothing").status_code == 404
    assert [r.path for r in stub.wait_for(3)] == ["/echo", "/stream", "/nothing"]
    assert isinstance(stub.requests[0], Recorded)


def test_embedding_dim_zero_means_the_default_models_dimension(stub):
    ollama = build_embedder({**DEFAULTS, "EMBEDDER": "ollama", "OLLAMA_URL": stub.url})
    openai = build_embedder({**DEFAULTS, "EMBEDDER": "openai", "OPENAI_BASE_URL": stub.url})
    assert DEFAULTS["EMBEDDING_DIM"] == 0 and (ollama.dim, openai.dim) == (768, 1536)
