"""PDF text extraction: run-together words and CPU per page, the old extractor (pypdf) against the new one.

``.venv/bin/python -m bench.extract_bench [--quick]`` (or ``bench/run.sh extract``)

Inputs: the German Debian Reference PDF (276 pages, ``bench.data``) and the R reference
manual (2,415 pages, ``bench.memory_bench.fetch_refman``); ``--quick`` takes the first 300
pages of the manual. Each extractor runs over every page of a file in this process, one
after the other, in the same run:

- **pypdf (old)**: ``PdfReader(strict=False)``, ``page.extract_text()`` per page, object
  cache dropped every 50 pages: what ``irisrag.ingest.extract_pdf`` did before PDFium.
- **PDFium (new)**: ``irisrag.ingest.extract.iter_pages``, the import path itself (bomb
  check, text layer, hyphenation joined, running headers/footers left out).

Run-together rate: letter runs of at least 25 letters (``[^\\W\\d_]{25,}``) as a share of all
letter runs; German compounds reach 25 letters rarely, words glued together often.
CPU ms per page: process CPU time (user + system) of the whole pass / pages.
"""
from __future__ import annotations

import argparse
import logging
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from bench.common import load_average, log, machine, table, write_report

LONG = 25
_LETTERS = re.compile(r"[^\W\d_]+")
QUICK_REFMAN_PAGES = 300


def pypdf_pages(path: Path, limit: int | None) -> Iterator[str]:
    """Yield page texts the way the old extractor read them (pypdf, cache dropped every 50 pages)."""
    from pypdf import PdfReader

    reader = PdfReader(path, strict=False)
    count = len(reader.pages) if limit is None else min(limit, len(reader.pages))
    for index in range(count):
        yield reader.pages[index].extract_text() or ""
        if (index + 1) % 50 == 0:
            reader.resolved_objects.clear()


def pdfium_pages(path: Path, limit: int | None) -> Iterator[str]:
    """Yield page texts through the import path (``iter_pages``)."""
    from irisrag.ingest.extract import iter_pages

    for number, page in enumerate(iter_pages(path, "pdf"), start=1):
        if limit is not None and number > limit:
            break
        yield page.text


def measure(pages: Callable[[Path, int | None], Iterator[str]], path: Path, limit: int | None) -> dict:
    """Run one extractor over the file; return pages, CPU seconds, words, long words and examples."""
    started_cpu, started = time.process_time(), time.perf_counter()
    count = words = long_words = chars = 0
    examples: list[str] = []
    for text in pages(path, limit):
        count += 1
        chars += len(text)
        for run in _LETTERS.findall(text):
            words += 1
            if len(run) >= LONG:
                long_words += 1
                if len(examples) < 3 and count > 20:
                    examples.append(run)
    return {"pages": count, "cpu": time.process_time() - started_cpu, "wall": time.perf_counter() - started,
            "words": words, "long": long_words, "chars": chars, "examples": examples}


def inputs(quick: bool) -> list[tuple[str, Path, int | None]]:
    """Return (label, path, page limit) for the German Debian Reference and the R reference manual."""
    from bench.data import EXTRACTED, fetch
    from bench.memory_bench import fetch_refman

    fetch()
    refman = fetch_refman()
    limit = QUICK_REFMAN_PAGES if quick else None
    label = f"R reference manual (first {limit} pages)" if quick else "R reference manual (2,415 pages)"
    return [("German Debian Reference (276 pages)", EXTRACTED / "debian-reference.de.pdf", None),
            (label, refman, limit)]


def _row(label: str, name: str, result: dict, baseline: dict) -> list[object]:
    rate = result["long"] / max(result["words"], 1)
    per_page = result["cpu"] / max(result["pages"], 1)
    base_page = baseline["cpu"] / max(baseline["pages"], 1)
    return [label, name, result["pages"], f"{result['words']:,}", f"{rate:.2%}", f"{per_page * 1000:.2f}",
            f"{per_page / base_page:.2f}×", ", ".join(result["examples"]) or "–"]


def run(quick: bool = False) -> str:
    """Measure both extractors on both inputs; return the Markdown report."""
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    rows, raw = [], {}
    for label, path, limit in inputs(quick):
        log(f"extract: {label}: pypdf")
        old = measure(pypdf_pages, path, limit)
        log(f"extract: {label}: PDFium")
        new = measure(pdfium_pages, path, limit)
        raw[label] = {"pypdf": old, "pdfium": new}
        rows += [_row(label, "pypdf (old)", old, old), _row(label, "PDFium (new)", new, old)]
    headers = ["input", "extractor", "pages", "words", f"run-together (≥ {LONG} letters)", "CPU ms/page",
               "CPU vs old", "examples of long runs (after page 20)"]
    report = (f"Machine: {machine()}; load average {load_average()}.\n\n" + table(headers, rows))
    write_report("extract", "PDF text extraction: pypdf vs PDFium", [report], raw)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help=f"first {QUICK_REFMAN_PAGES} pages of the R manual")
    print(run(parser.parse_args(argv).quick))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
