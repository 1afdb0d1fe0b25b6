"""The one place that picks implementations (embedder, LLM, vector store, queue) from config."""
from __future__ import annotations

import threading
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import Any

from flask import Flask, current_app


class Components:
    """Lazily built adapters shared by one process; thread-safe construction."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        self.config = config
        self._lock = threading.Lock()
        self.mirror_reads = False   # a web process reads LanceDB on S3 from a local mirror (read_from_mirror)

    @cached_property
    def embedder(self):
        from irisrag.embeddings import build_embedder

        with self._lock:
            return build_embedder(self.config)

    @cached_property
    def llm(self):
        from irisrag.llm import build_llm

        return build_llm(self.config)

    @cached_property
    def reranker(self):
        """The optional reranking stage (RERANKER), or None."""
        from irisrag.rag.rerank import build_reranker

        return build_reranker(self.config, llm=self.llm, embedder_factory=self.rerank_embedder_of)

    def embedder_of(self, kind: str):
        """Return the embedder of that kind (reranking, word vectors): the app's own when it is the same kind."""
        from irisrag.embeddings import build_embedder

        if kind.strip().lower() == str(self.config["EMBEDDER"]).strip().lower():
            return self.embedder
        with self._lock:
            return build_embedder({**self.config, "EMBEDDER": kind})

    rerank_embedder_of = embedder_of

    @cached_property
    def word_vectors(self):
        """The term bridge's word vectors: the built-in USE embedder's, whatever EMBEDDER is (rag/bridge.py)."""
        from irisrag.rag.bridge import WordVectors

        return WordVectors(self.embedder_of("use").embed_documents)

    @cached_property
    def expander(self):
        """The optional query expansion stage (QUERY_EXPANSION), or None."""
        from irisrag.rag.expand import build_expander

        return build_expander(self.config, llm=self.llm, store=self.store)

    @cached_property
    def retriever(self):
        """The one retrieval wiring (embedder, store, settings, reranker, expander) every question uses."""
        from irisrag.rag.retrieve import RetrievalSettings
        from irisrag.rag.retriever import Retriever

        settings = RetrievalSettings.from_config(self.config)
        return Retriever(self.embedder, self.store, settings, reranker=self.reranker, expander=self.expander,
                         words=self.word_vectors if settings.bridge.enabled else None)

    @cached_property
    def store(self):
        from irisrag.vectors.searchtext import SearchText
        from irisrag.vectors.store import VectorStore

        embedder = self.embedder
        store = VectorStore(
            self.lancedb_uri(),
            embedder.key,
            embedder.dim,
            read_consistency_seconds=self.config["LANCEDB_READ_CONSISTENCY_SECONDS"],
            fts_language=self.config["FTS_LANGUAGE"],
            storage_options=self.config["LANCEDB_STORAGE_OPTIONS"],
            search_text=SearchText.from_config(self.config),
        )
        if self.mirror_reads:
            store.read_from_mirror(self.mirror_directory())
        return store

    def read_from_mirror(self) -> None:
        """Let this process's store read LanceDB on S3 from a local copy (web processes: ``warmup.start``)."""
        self.mirror_reads = True
        if "store" in self.__dict__:
            self.store.read_from_mirror(self.mirror_directory())

    def mirror_directory(self) -> Path:
        """Where the local copy lives: ``lancedb-mirror`` in the instance folder (shared by the machine's processes)."""
        from irisrag.vectors.mirror import DIRECTORY

        return Path(self.config["IRISRAG_ROOT"]) / str(self.config["INSTANCE_PATH"]) / DIRECTORY

    @cached_property
    def redis(self):
        """The process's Redis connection (the queue adapter, ``irisrag.jobs.queue``, uses it)."""
        return connect_redis(self.config)

    @cached_property
    def queue(self):
        """The import queue on that connection."""
        return open_queue(self.config, self.redis)

    def lancedb_connection(self, read_consistency_seconds: float | None = None) -> Any:
        """Open a new LanceDB connection at the configured location (storage options included)."""
        from irisrag.vectors.store import connect

        return connect(self.lancedb_uri(), storage_options=self.config["LANCEDB_STORAGE_OPTIONS"],
                       read_consistency_seconds=read_consistency_seconds)

    def lancedb_uri(self) -> str:
        """Return the LanceDB URI with a relative local path resolved against the project root."""
        uri = str(self.config["LANCEDB_URI"])
        if "://" in uri or uri.startswith("/"):
            return uri
        return str(self.config["IRISRAG_ROOT"] / uri)


def connect_redis(config: Mapping[str, Any]):
    """Open the Redis connection of the configured REDIS_URL (components keep one per process)."""
    from redis import Redis

    return Redis.from_url(config["REDIS_URL"], socket_connect_timeout=2, socket_timeout=10)


def open_queue(config: Mapping[str, Any], connection):
    """Return the configured import queue on a connection."""
    from rq import Queue

    return Queue(config["QUEUE_NAME"], connection=connection, default_timeout=config["JOB_TIMEOUT"])


def init_app(app: Flask) -> None:
    """Attach a Components instance to the app."""
    app.extensions["irisrag"] = Components(app.config)


def get() -> Components:
    """Return the current app's components."""
    return current_app.extensions["irisrag"]
