"""Records through the real pipeline into a real LanceDB, then a question about one row finds its chunk first."""
from __future__ import annotations

import pytest

from irisrag.config import DEFAULTS
from irisrag.embeddings import FakeEmbedder, UseEmbedder
from irisrag.ingest.pipeline import ImportJob, PipelineSettings, run_import
from irisrag.ingest.records import parse_records
from irisrag.rag.bridge import WordVectors
from irisrag.rag.retrieve import RetrievalSettings, build_context
from irisrag.vectors.store import VectorStore

NAMES = ("Schraube", "Mutter", "Scheibe", "Dübel", "Nagel", "Winkel", "Haken", "Niete")


def write_catalogue(path, rows: int = 400):
    lines = ["Artikel;Bezeichnung;Preis;Lager"]
    for n in range(rows):
        number = 4000 + n * 3 + 1 if n else 4711
        lines.append(f"{number};{NAMES[n % len(NAMES)]} M{n % 12 + 2};{n % 50 + 1},{n % 100:02d} €;{n % 40}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def use():
    return UseEmbedder()


@pytest.mark.parametrize("embedder_kind", ["use", "fake"])
def test_a_fact_in_one_row_is_found_first(tmp_path, request, embedder_kind):
    embedder = request.getfixturevalue("use") if embedder_kind == "use" else FakeEmbedder()
    path = write_catalogue(tmp_path / "preisliste.csv")
    store = VectorStore(str(tmp_path / "lance"), embedder.key, embedder.dim, read_consistency_seconds=0)
    stages = []
    result = run_import(ImportJob(1, 1, path, "csv", title="preisliste.csv"), embedder=embedder, store=store,
                        settings=PipelineSettings(write_rows=16), progress=lambda *a: stages.append(a))
    assert result.status == "done" and result.chunks > 16  # staged in batches, shown in one commit
    assert stages[-1][1] == stages[-1][2] == result.chunks  # the streamed total is exact at the end
    store.refresh_indexes()
    rows = store.chunks_of(1)
    assert all(parse_records(hit.text).table == "preisliste" for hit in rows)
    settings = RetrievalSettings.from_config(DEFAULTS)
    words = WordVectors(request.getfixturevalue("use").embed_documents)  # the app's bridge reads USE's, whatever embeds
    context = build_context("Was kostet Artikel 4711?", [1], embedder=embedder, store=store, settings=settings,
                            words=words)
    assert context.chunks, "the question found nothing"
    first = parse_records(context.chunks[0].hit.text)
    record = next(fields for fields in first.records if fields[0] == ("Artikel", "4711"))
    assert dict(record)["Preis"] == "1,00 €"


def test_records_stream_through_the_pipeline_without_listing_every_chunk_first(tmp_path):
    path = write_catalogue(tmp_path / "preisliste.csv", rows=2000)
    embedder = FakeEmbedder()
    store = VectorStore(str(tmp_path / "lance"), embedder.key, embedder.dim, read_consistency_seconds=0)
    totals = []
    result = run_import(ImportJob(1, 1, path, "csv"), embedder=embedder, store=store,
                        settings=PipelineSettings(),
                        progress=lambda stage, done, total: stage == "embedding" and totals.append((done, total)))
    assert result.chunks == 2000
    assert totals[0][1] < 2000  # the first batch is embedded before the last row is read (a list would know all)
    assert totals[-1] == (2000, 2000) and all(done <= total for done, total in totals)


def test_records_are_written_to_lancedb_in_larger_batches(tmp_path):
    from irisrag.ingest.pipeline import RECORD_WRITE_FACTOR, _write_rows

    settings = PipelineSettings(write_rows=512)
    assert RECORD_WRITE_FACTOR > 1
    assert _write_rows(ImportJob(1, 1, tmp_path / "a.csv", "csv"), settings) == 512 * RECORD_WRITE_FACTOR
    assert _write_rows(ImportJob(1, 1, tmp_path / "a.jsonl", "text"), settings) == 512 * RECORD_WRITE_FACTOR
    assert _write_rows(ImportJob(1, 1, tmp_path / "a.md", "text"), settings) == 512
    assert _write_rows(ImportJob(1, 1, tmp_path / "a.pdf", "pdf"), settings) == 512
