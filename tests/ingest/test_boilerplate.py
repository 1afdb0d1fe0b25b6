"""Navigation and tables of contents marked at chunking (issue 37 item 2): ingest.boilerplate and the chunker."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from irisrag.embeddings import FakeEmbedder
from irisrag.ingest.boilerplate import nav_line, segments
from irisrag.ingest.chunk import chunk_pages, chunk_text
from irisrag.ingest.extract import iter_pages
from irisrag.ingest.pages import Page
from irisrag.ingest.pipeline import ImportJob, PipelineSettings, run_import
from irisrag.vectors.store import VectorStore

HANDBOOK_PDF = Path(__file__).resolve().parents[2] / "eval" / "real-de" / "docs" / "nordlicht-handbuch.pdf"
TOC = ("Inhalt\n1 Über uns .................... 2\n2 Arbeitszeit ................. 3\n"
       "3 Urlaub ...................... 4\n3.1 Urlaub beantragen 5\n")
BODY = ("Alle Beschäftigten haben Anspruch auf 30 Arbeitstage Urlaub im Kalenderjahr. "
        "Urlaub wird in Zeitwerk beantragt, mindestens vier Wochen vor Beginn. ") * 3


def test_navigation_lines_of_every_kind_are_recognised():
    for line in ("Urlaub ....... 4", "3.2 Urlaub beantragen 14", "« Zurück | Nach oben | Weiter »",
                 "Previous  Home  Next", "Start › Personal › Urlaub", "- [Kapitel 3](ch03.html)"):
        assert nav_line(line), line


def test_body_lines_that_look_a_little_like_navigation_stay_body():
    for line in ("ps aux | grep cron | less", "3. Urlaub", "Der Zug fährt um 8 Uhr ab und kommt um 10 Uhr an.",
                 "Siehe [die Anleitung](a.html) für alle Schritte des Imports.", "Zurück zum Thema: der Urlaub.",
                 "1. Tasse Mehl in die Schüssel geben", "a > b ist wahr", "/etc/pam.d/common-auth",
                 "-d, --home HOME_DIR", "--home-dir HOME_DIR", "Home | Home"):   # a manual's option; one word twice
        assert not nav_line(line), line


def test_a_run_of_three_toc_lines_or_one_navigation_bar_is_a_segment_of_its_own():
    text = "Vorwort des Handbuchs.\n" + TOC + "\n" + BODY + "\n« Zurück | Nach oben | Weiter »"
    found = segments(text)
    assert [nav for _, nav in found] == [False, True, False, True]
    assert "\n".join(piece for piece, _ in found).replace("\n", "") == text.replace("\n", "")
    assert found[1][0].startswith("1 Über uns") and found[1][0].endswith("3.1 Urlaub beantragen 5")
    assert segments("Nur zwei ..... 1\nZeilen ..... 2\nund Text danach.") == [
        ("Nur zwei ..... 1\nZeilen ..... 2\nund Text danach.", False)]


def test_the_chunker_gives_a_toc_chunks_of_its_own_marked_and_body_chunks_unmarked():
    chunks = list(chunk_pages([Page(1, "Handbuch\n" + TOC + BODY), Page(2, BODY)], size=300, overlap=50))
    marked = [c for c in chunks if c.boilerplate]
    assert marked and all("...." in c.text or "Urlaub beantragen 5" in c.text for c in marked)
    assert not any("...." in c.text for c in chunks if not c.boilerplate)
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert not any(c.boilerplate for c in chunk_text(BODY * 4))


def test_the_real_handbook_pdfs_table_of_contents_is_marked_and_its_text_is_not():
    chunks = list(chunk_pages(iter_pages(HANDBOOK_PDF, "pdf")))
    marked = [c for c in chunks if c.boilerplate]
    assert marked and all(c.page == 1 for c in marked) and "12 Kantine und Parken" in marked[-1].text
    assert not any(" ....." in c.text for c in chunks if not c.boilerplate)
    assert any("30 Arbeitstage Urlaub" in c.text and not c.boilerplate for c in chunks)


def test_an_import_stores_the_mark_in_lancedb(tmp_path):
    store = VectorStore(str(tmp_path / "lance"), "fake-16", 16, read_consistency_seconds=None)
    result = run_import(ImportJob(1, 1, HANDBOOK_PDF, "pdf"), embedder=FakeEmbedder(16), store=store,
                        settings=PipelineSettings(), progress=lambda *a: None)
    rows = store.chunks_of(1)
    assert result.status == "done" and len(rows) == result.chunks
    assert 1 <= [r.boilerplate for r in rows].count(True) < len(rows) // 4
    toc = next(r for r in rows if r.boilerplate)
    assert "Urlaub ....." in toc.text and toc.page == 1
    hits = store.search(np.asarray(FakeEmbedder(16).embed_query(toc.text)), [1], 3)
    assert hits[0].chunk_index == toc.chunk_index and hits[0].boilerplate   # read back by a search too
