"""Chunking: window sizes, overlap, natural boundaries, indices, pages, streaming and speed."""
from __future__ import annotations

import random
import re
import time
from pathlib import Path

import pytest

from irisrag.errors import ValidationError
from irisrag.ingest.chunk import Chunk, chunk_pages, chunk_text, normalize_whitespace
from irisrag.ingest.extract import extract
from irisrag.ingest.pages import Page

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
WORDS = ("Debian", "Paket", "Kernel", "Größe", "über", "das", "System", "wird", "mit", "apt-get",
         "Benutzer", "Rechte", "root", "Shell", "Datei", "Konfiguration", "ist", "ein", "und", "z.B.")


def positions(text: str, chunks: list[Chunk]) -> list[tuple[int, int]]:
    """Locate each chunk in the normalised text, in order; fail when one is not a substring."""
    spans, cursor = [], 0
    for chunk in chunks:
        start = text.find(chunk.text, cursor)
        assert start != -1, f"chunk {chunk.index} is not a piece of the text"
        spans.append((start, start + len(chunk.text)))
        cursor = start + 1
    return spans


def random_text(rng: random.Random, words: int) -> str:
    out = []
    for _ in range(words):
        word = rng.choice(WORDS) if rng.random() < 0.8 else "".join(rng.choices("abcdefghijkläöüß", k=rng.randint(1, 12)))
        out.append(word)
        roll = rng.random()
        out.append(". " if roll < 0.06 else "\n\n" if roll < 0.08 else "\n" if roll < 0.1 else "  " if roll < 0.15 else " ")
    return "".join(out)


# --- validation and normalisation --------------------------------------------

@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (-5, 0), (100, -1), (100, 100), (100, 250), (True, 0)])
def test_invalid_size_or_overlap_is_refused(size, overlap):
    with pytest.raises(ValidationError):
        chunk_pages([Page(None, "Text")], size, overlap)  # fails on the call, before iteration


def test_normalize_whitespace_collapses_spaces_and_keeps_paragraphs():
    raw = "  Erste\tZeile  mit\u00a0 Lücken \r\nzweite Zeile\n\n\n\n  Neuer   Absatz \n \n"
    assert normalize_whitespace(raw) == "Erste Zeile mit Lücken\nzweite Zeile\n\nNeuer Absatz"


def test_short_text_is_one_chunk():
    assert chunk_text("  Ein  kurzer\tText. ") == [Chunk(0, "Ein kurzer Text.", None)]


def test_empty_and_whitespace_pages_give_no_chunks():
    assert list(chunk_pages([Page(1, ""), Page(2, "  \n\n \t")])) == []


# --- boundaries --------------------------------------------------------------

def test_cuts_prefer_paragraph_breaks():
    paragraphs = [" ".join(["Absatz", str(n)] + ["Wort."] * 50) for n in range(12)]  # ~310 chars each
    text = "\n\n".join(paragraphs)
    chunks = chunk_text(text, size=700, overlap=150)
    assert len(chunks) > 3
    for chunk in chunks[:-1]:
        assert any(chunk.text.endswith(p) for p in paragraphs), chunk.text[-40:]


def test_cuts_prefer_sentence_ends_inside_a_paragraph():
    rng = random.Random(7)
    sentences = [" ".join(rng.choice(WORDS[:-1]) for _ in range(rng.randint(4, 12))) + "." for _ in range(200)]
    chunks = chunk_text(" ".join(sentences), size=400, overlap=80)
    for chunk in chunks[:-1]:
        assert chunk.text.endswith("."), chunk.text[-30:]
        assert len(chunk.text) <= 400


def test_cuts_at_whitespace_when_no_punctuation_and_never_mid_word():
    words = [f"wort{n}" for n in range(600)]
    chunks = chunk_text(" ".join(words), size=100, overlap=20)
    vocabulary = set(words)
    for chunk in chunks:
        assert len(chunk.text) <= 100
        assert set(chunk.text.split()) <= vocabulary  # only whole words at both ends


def test_a_sentence_mark_inside_a_table_row_is_no_cut_and_the_next_chunk_starts_at_a_row():
    # eval/holdout8-de ak-01: "| … | Tiefgarage Mühlgraben (2 Std. frei mit Kursausweis) | … |" was cut after "Std.",
    # one chunk ending in the cell and the next beginning in the middle of the row.
    header = "| Ort | Adresse | Parken | Schlüssel |\n|---|---|---|---|"
    rows = [f"| Außenstelle {n} | Schulweg {n}, Erlenau | Tiefgarage (2 Std. frei mit Kursausweis) | beim Hausmeister |"
            for n in range(12)]
    text = "Unsere Kursorte. Neben dem Haus der Bildung gibt es Außenstellen.\n\n" + header + "\n" + "\n".join(rows)
    chunks = chunk_text(text, size=300, overlap=100)
    assert len(chunks) > 3
    for chunk in chunks:
        table_lines = [line for line in chunk.text.splitlines() if line.startswith("|")]
        assert all(line in rows or line in header.splitlines() for line in table_lines), chunk.text
    assert all(chunk.text.startswith(header + "\n| Außenstelle") for chunk in chunks[1:])   # the columns' names
    assert {row for chunk in chunks for row in chunk.text.splitlines()} >= set(rows)


def test_a_chunk_beginning_inside_a_table_of_a_later_page_part_still_gets_its_header():
    # The buffer is trimmed after each page part; it keeps the header of the table the next chunk begins in.
    header = "| Zeit | Wer | Telefon |\n|---|---|---|"
    rows = [f"| Mo–Fr {n}:00–14:00 | Bereitschaft {n} (wechselnd) | 0160 9911 55{n:02d} |" for n in range(30)]
    pages = [Page(1, "## IT-Bereitschaft\n\n" + header + "\n" + "\n".join(rows)), Page(2, "Danach kommt Text.")]
    chunks = list(chunk_pages(pages, 300, 100))
    assert len(chunks) > 4
    assert all(c.text.startswith(header + "\n| Mo–Fr") for c in chunks[1:-1])


def test_a_table_row_longer_than_half_the_window_is_still_cut():
    row = "| " + " | ".join(f"Zelle {n} mit etwas Text." for n in range(40)) + " |"
    chunks = chunk_text("Vorweg.\n\n| A | B |\n|---|---|\n" + row, size=200, overlap=50)
    assert all(len(c.text) <= 200 + len("| A | B |\n|---|---|\n") for c in chunks) and len(chunks) > 5


def test_single_word_longer_than_window_is_cut_hard():
    chunks = chunk_text("x" * 250, size=100, overlap=30)
    assert [len(c.text) for c in chunks] == [100, 100, 50]
    assert "".join(c.text for c in chunks) == "x" * 250


def test_overlap_is_about_the_configured_size():
    text = " ".join(f"w{n:04d}" for n in range(2000))  # 5-char words
    chunks = chunk_text(text, size=700, overlap=150)
    spans = positions(text, chunks)
    for (_, end), (next_start, _) in zip(spans, spans[1:], strict=False):
        shared = end - next_start
        assert 150 - 6 <= shared <= 150


def test_zero_overlap_means_adjacent_chunks():
    text = " ".join(f"w{n:04d}" for n in range(500))
    chunks = chunk_text(text, size=120, overlap=0)
    assert " ".join(c.text for c in chunks) == text


# --- indices, pages, streaming ------------------------------------------------

def test_indices_run_over_the_whole_document_and_pages_mark_chunk_start():
    pages = [Page(n, " ".join([f"Seite{n}"] * 120)) for n in range(1, 6)]  # ~780 chars per page
    chunks = list(chunk_pages(pages, size=300, overlap=60))
    assert [c.index for c in chunks] == list(range(len(chunks)))
    for chunk in chunks:
        first_word = chunk.text.split()[0]
        assert first_word == f"Seite{chunk.page}"
    assert {c.page for c in chunks} == {1, 2, 3, 4, 5}
    assert [c.page for c in chunks] == sorted(c.page for c in chunks)


def test_real_pdf_chunks_keep_page_numbers():
    doc = extract(FIXTURES / "debian-reference-de-3pages.pdf")
    chunks = list(chunk_pages(doc.pages))
    assert chunks[0].page == 1 and chunks[-1].page == 3
    assert all(0 < len(c.text) <= 700 for c in chunks)
    spans = positions(normalize_whitespace("\n\n".join(p.text for p in doc.pages)), chunks)
    assert spans[0][0] == 0


def test_pages_are_consumed_lazily():
    consumed = []

    def pages():
        for n in range(1, 1001):
            consumed.append(n)
            yield Page(n, f"Seite {n}. " + "Inhalt " * 100)

    stream = chunk_pages(pages(), size=700, overlap=150)
    first = next(stream)
    assert first.index == 0 and first.page == 1
    assert len(consumed) <= 3


def _seconds(work) -> float:
    started = time.process_time()
    work()
    return time.process_time() - started


def _growth(work, small: int, large: int) -> float:
    """CPU time of ``work(large)`` over ``work(small)``, best of two and three (a ratio load hardly moves)."""
    return min(_seconds(lambda: work(large)) for _ in range(2)) / max(
        min(_seconds(lambda: work(small)) for _ in range(3)), 1e-4)


def test_chunking_pages_grows_linearly_with_the_page_count():
    """Ten times the pages cost about ten times the time (quadratic would be ~100x); speed itself is in bench/."""
    page_text = (FIXTURES / "excerpt-de.txt").read_text(encoding="utf-8")
    count = lambda n: sum(1 for _ in chunk_pages(Page(i, page_text) for i in range(1, n + 1)))  # noqa: E731
    assert count(1200) > 1200
    assert _growth(count, 120, 1200) < 30


def test_one_huge_page_is_linear():
    chunks = chunk_text("Wort " * 500_000)
    assert all(len(c.text) <= 700 for c in chunks)
    assert _growth(lambda n: chunk_text("Wort " * n), 50_000, 500_000) < 30


# --- property-style check ----------------------------------------------------

def test_random_texts_keep_all_invariants():
    rng = random.Random(20240601)
    for _ in range(150):
        size = rng.randint(40, 900)
        overlap = rng.randint(0, size - 1) if rng.random() < 0.8 else 0
        pages = [Page(n, random_text(rng, rng.randint(0, 400))) for n in range(1, rng.randint(1, 6))]
        chunks = list(chunk_pages(pages, size=size, overlap=overlap))
        text = normalize_whitespace("\n\n".join(normalize_whitespace(p.text) for p in pages if p.text.strip()))
        if not text:
            assert chunks == []
            continue
        assert [c.index for c in chunks] == list(range(len(chunks)))
        assert all(c.text and c.text == c.text.strip() and len(c.text) <= size for c in chunks)
        spans = positions(text, chunks)
        covered = bytearray(len(text))
        for start, end in spans:
            covered[start:end] = b"\x01" * (end - start)
        assert all(covered[i] or text[i].isspace() for i in range(len(text))), "text lost between chunks"
        longest_word = max(len(w) for w in re.split(r"\s+", text))
        for (_, end), (next_start, _) in zip(spans, spans[1:], strict=False):
            assert next_start <= end + 2  # no gap beyond whitespace
            if overlap > longest_word + 2 and end - next_start < overlap - longest_word - 2:
                pytest.fail(f"overlap {end - next_start} too small for {overlap} (size {size})")
            assert end - next_start <= overlap
