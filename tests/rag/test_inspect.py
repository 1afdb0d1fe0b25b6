"""The retrieval inspector names the gate that dropped each chunk, on a real LanceDB table."""
from dataclasses import replace

import pytest

from irisrag.rag.inspect import inspect_document
from irisrag.rag.retrieve import RetrievalSettings
from irisrag.vectors.store import ChunkIn, VectorStore

from .fakes import DIM, AxisEmbedder, unit

QUESTION = "Wie wird OpenTelemetry konfiguriert?"
ON_TOPIC = "OpenTelemetry wird über otel.yaml konfiguriert."
OFF_TOPIC = "Die Kantine öffnet um elf Uhr."
SETTINGS = RetrievalSettings.original(candidates=8, context_chunks=3, max_chunks_per_document=2, mode="vector")


@pytest.fixture
def store(tmp_path):
    store = VectorStore(str(tmp_path / "lance"), "fake-axis-64", DIM, read_consistency_seconds=None)
    target = [(0.99, ON_TOPIC), (0.98, ON_TOPIC), (0.97, ON_TOPIC), (0.96, OFF_TOPIC), (0.10, ON_TOPIC)]
    other = [(0.95, ON_TOPIC), (0.94, ON_TOPIC), (0.90, OFF_TOPIC), (0.89, OFF_TOPIC), (0.88, OFF_TOPIC),
             (0.87, OFF_TOPIC)]
    for doc, area, rows in ((1, 1, target), (2, 1, other), (3, 2, [(0.999, ON_TOPIC)])):
        import numpy as np

        vectors = np.stack([unit(sim, axis=2 + i) for i, (sim, _) in enumerate(rows)])
        store.replace_document(doc, area, [ChunkIn(i, text) for i, (_, text) in enumerate(rows)], vectors)
    return store


def test_inspect_names_each_gate(store):
    trace = inspect_document(QUESTION, [1], 1, 1, embedder=AxisEmbedder(), store=store, settings=SETTINGS)
    gates = {c.chunk_index: c.gate for c in trace.chunks}
    assert gates == {0: None, 1: None, 2: "document_cap", 3: "lexical", 4: "candidate_window"}
    by_index = {c.chunk_index: c for c in trace.chunks}
    assert [by_index[i].position for i in (0, 1)] == [1, 2]
    assert by_index[4].vector_rank == 11 and by_index[4].fused_rank is None  # seen, but outside the window
    assert by_index[3].lexical_score == 0 and by_index[0].lexical_score > 0
    assert trace.context_documents == (2,)


def test_inspect_total_cap_on_the_other_document(store):
    trace = inspect_document(QUESTION, [1], 2, 1, embedder=AxisEmbedder(), store=store, settings=SETTINGS)
    gates = {c.chunk_index: c.gate for c in trace.chunks}
    assert gates[0] is None and gates[1] == "total_cap" and gates[2] == "lexical"


def test_inspect_area_filter_when_the_document_is_not_searched(store):
    trace = inspect_document(QUESTION, [1], 3, 2, embedder=AxisEmbedder(), store=store, settings=SETTINGS)
    assert [c.gate for c in trace.chunks] == ["area_filter"]
    assert trace.chunks[0].vector_rank is None


def test_inspect_wider_window_lets_the_far_chunk_in(store):
    wide = replace(SETTINGS, candidates=64, max_chunks_per_document=4, context_chunks=9)
    trace = inspect_document(QUESTION, [1], 1, 1, embedder=AxisEmbedder(), store=store, settings=wide)
    far = {c.chunk_index: c for c in trace.chunks}[4]
    assert far.gate is None and far.fused_rank == 11


def test_inspect_shows_the_evidence_and_its_verdict(store):
    from irisrag.rag.gate import GateSettings

    evidence = replace(SETTINGS, gate=GateSettings.of(rule="evidence", top_documents=2))
    trace = inspect_document(QUESTION, [1], 1, 1, embedder=AxisEmbedder(), store=store, settings=evidence)
    chunks = {c.chunk_index: c for c in trace.chunks}
    assert chunks[0].gate is None and chunks[0].evidence is not None and chunks[0].evidence > 0.9
    assert chunks[3].gate == "document_cap"   # no shared term (lexical: "lexical"), but a first document's chunk
    strict = replace(SETTINGS, gate=GateSettings.of(rule="evidence", top_documents=2, min_evidence=2.0))
    trace = inspect_document(QUESTION, [1], 1, 1, embedder=AxisEmbedder(), store=store, settings=strict)
    assert {c.gate for c in trace.chunks if c.fused_rank} == {"evidence"}   # off-topic: nothing reaches the context
    assert all(c.evidence is not None for c in trace.chunks if c.fused_rank)
    assert trace.context_documents == ()
