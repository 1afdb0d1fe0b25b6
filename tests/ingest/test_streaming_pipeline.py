"""The pipeline streams pages from a reader thread: bounded read-ahead, errors surface, progress adds up."""
from __future__ import annotations

import threading
import time

import pytest

from irisrag.embeddings import FakeEmbedder
from irisrag.errors import ExtractionError
from irisrag.ingest import pipeline
from irisrag.ingest.pages import Page
from irisrag.ingest.pipeline import ImportJob, PipelineSettings, run_import
from irisrag.ingest.prefetch import PagePrefetch
from tests.ingest.pdfs import write_text_pdf


def _pages(n: int, produced: list[int] | None = None):
    def source():
        for number in range(1, n + 1):
            if produced is not None:
                produced.append(number)
            yield Page(number, f"Seite {number}: Paketverwaltung mit apt und dpkg.")
    return source


def test_prefetch_yields_every_page_in_order():
    pages = PagePrefetch(_pages(50), depth=4)
    assert [p.number for p in pages] == list(range(1, 51))
    assert pages.finished and pages.pages_read == 50


def test_prefetch_reads_at_most_its_depth_ahead_of_a_slow_consumer():
    produced: list[int] = []
    pages = PagePrefetch(_pages(1000, produced), depth=4)
    iterator = iter(pages)
    next(iterator)
    time.sleep(0.3)  # the producer fills the queue and blocks
    assert len(produced) <= 1 + 4 + 1  # the page taken, the queue, one waiting to be put
    pages.close()


def test_prefetch_raises_the_readers_error_in_the_consumer():
    def source():
        yield Page(1, "eins")
        raise ExtractionError("The PDF is damaged and cannot be read", "page 2")

    pages = PagePrefetch(source)
    seen = []
    with pytest.raises(ExtractionError, match="damaged"):
        for page in pages:
            seen.append(page.number)
    assert seen == [1] and not pages.finished


def test_prefetch_thread_ends_when_the_consumer_gives_up():
    pages = PagePrefetch(_pages(100_000), depth=2)
    for page in pages:
        if page.number == 3:
            break
    pages.close()
    assert not any(t.name == "page-prefetch" and t.is_alive() for t in threading.enumerate())


class _Store:
    def __init__(self):
        self.rows = None

    def replace_document(self, document_id, area_id, rows, vectors):
        self.rows = (rows, vectors)


def test_pdf_import_streams_with_a_progress_estimate_that_ends_exact(tmp_path):
    path = write_text_pdf(tmp_path / "lang.pdf", [f"Seite {i}: " + "Paketverwaltung mit apt und dpkg. " * 30
                                                 for i in range(1, 41)])
    calls: list[tuple[str, int, int]] = []
    store = _Store()
    result = run_import(ImportJob(1, 1, path, "pdf"), embedder=FakeEmbedder(16), store=store,
                        settings=PipelineSettings(700, 150, 4), progress=lambda *c: calls.append(c))
    rows, vectors = store.rows
    assert result.status == "done" and result.chunks == len(rows) == vectors.shape[0] > 40
    assert [c[0] for c in calls][:2] == ["extracting", "chunking"]
    embedding = [c for c in calls if c[0] == "embedding"]
    assert embedding[-1] == ("embedding", result.chunks, result.chunks)
    assert all(done <= total for _, done, total in embedding)
    assert [r.index for r in rows] == list(range(len(rows)))
    assert {r.page for r in rows} == set(range(1, 41))
    assert {"extract", "extract_wait", "chunk", "embed", "store", "total"} <= set(result.timings)


def test_text_import_reports_the_exact_total_from_the_start(tmp_path):
    path = tmp_path / "notiz.md"
    path.write_text("Paketverwaltung mit apt und dpkg. " * 200)
    calls: list[tuple[str, int, int]] = []
    result = run_import(ImportJob(1, 1, path, "text"), embedder=FakeEmbedder(16), store=_Store(),
                        settings=PipelineSettings(700, 150, 2), progress=lambda *c: calls.append(c))
    totals = {total for stage, _, total in calls if stage == "embedding"}
    assert totals == {result.chunks}


def test_an_embedder_failure_stops_the_reader_and_writes_nothing(tmp_path, monkeypatch):
    path = write_text_pdf(tmp_path / "lang.pdf", [f"Seite {i} " * 100 for i in range(1, 200)])

    class Broken(FakeEmbedder):
        def embed_documents(self, texts):
            raise RuntimeError("embedding service down")

    store = _Store()
    with pytest.raises(RuntimeError, match="down"):
        run_import(ImportJob(1, 1, path, "pdf"), embedder=Broken(16), store=store,
                   settings=PipelineSettings(700, 150, 4), progress=lambda *c: None)
    assert store.rows is None
    assert not any(t.name == "page-prefetch" and t.is_alive() for t in threading.enumerate())


def test_a_pdf_whose_pages_hold_no_text_fails_as_empty(tmp_path):
    path = write_text_pdf(tmp_path / "leer.pdf", [" ", " "])
    with pytest.raises(ExtractionError):
        run_import(ImportJob(1, 1, path, "pdf"), embedder=FakeEmbedder(16), store=_Store(),
                   settings=PipelineSettings(), progress=lambda *c: None)


def test_estimate_scales_chunks_by_pages_read():
    class Pages:
        finished, pages_read = False, 10

    assert pipeline._estimate(20, 25, Pages(), 100) == 250
    Pages.finished = True
    assert pipeline._estimate(25, 25, Pages(), 100) == 25
    Pages.finished, Pages.pages_read = False, 0
    assert pipeline._estimate(0, 3, Pages(), 100) == 3  # no page read yet: only what is known


def test_pdf_pages_read_the_same_from_an_opened_file_as_by_path(tmp_path):
    from irisrag.ingest import extract_pdf

    path = write_text_pdf(tmp_path / "lang.pdf", [f"Seite {i}: Paketverwaltung" for i in range(1, 131)])
    kept = [p.text for p in extract_pdf.iter_pdf_pages(path)]
    pdf = extract_pdf.open_pdf(path)
    again = [p.text for p in extract_pdf.iter_pdf_pages(path, pdf)]
    assert again == kept and len(kept) == 130 and "Seite 130" in kept[-1]


def test_each_chunk_carries_its_documents_title_for_the_search_text(tmp_path):
    from irisrag.jobs.documents import title_of
    from irisrag.models import Document

    path = tmp_path / "notiz.md"
    path.write_text("Paketverwaltung mit apt und dpkg. " * 60)
    store = _Store()
    run_import(ImportJob(1, 1, path, "text", title="Debian-Handbuch"), embedder=FakeEmbedder(16), store=store,
               settings=PipelineSettings(700, 150, 4), progress=lambda *c: None)
    rows, _ = store.rows
    assert len(rows) > 2 and {r.title for r in rows} == {"Debian-Handbuch"}
    assert title_of(Document(name="Urlaubsantrag_2024.pdf", title="")) == "Urlaubsantrag_2024"
    assert title_of(Document(name="index.html", title="Elternzeit beantragen")) == "Elternzeit beantragen"
