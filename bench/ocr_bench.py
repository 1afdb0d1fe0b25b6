"""OCR: character error rate and seconds per page on pages rendered from known text.

``.venv/bin/python -m bench.ocr_bench [--pages N]`` (or ``bench/run.sh ocr``)

A page of known German and English text (``tests/ingest/scans.py``: DejaVu Sans 12 pt on
A4) is rendered as a 300-dpi PNG and as an image-only PDF page (200 dpi, no text layer),
then read through the import path (``irisrag.ingest.extract.iter_pages``) with Debian's
tesseract (``deu+eng``). CER = edit distance / length of the known text, whitespace runs
counted as one space. Seconds per page: wall time of the whole extraction / pages, with the
time the PDF text-layer read alone takes as the baseline of the same run.
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from bench.common import load_average, log, machine, table, write_report


def run(pages: int = 3) -> str:
    """Measure OCR accuracy and speed; return the Markdown report."""
    from irisrag.ingest.extract import iter_pages
    from irisrag.ingest.ocr import tesseract
    from tests.ingest.pdfs import write_text_pdf
    from tests.ingest.scans import KNOWN_TEXT, cer, write_scan_pdf, write_scan_png

    if tesseract() is None:
        return "tesseract is not installed (apt-get install tesseract-ocr tesseract-ocr-deu tesseract-ocr-eng)."
    rows, raw = [], {}
    with tempfile.TemporaryDirectory() as folder:
        inputs = {
            "PNG, 300 dpi": write_scan_png(Path(folder) / "scan.png"),
            f"image-only PDF, 200 dpi, {pages} pages": write_scan_pdf(Path(folder) / "scan.pdf", [KNOWN_TEXT] * pages),
            f"PDF with a text layer, {pages} pages (baseline)": write_text_pdf(Path(folder) / "text.pdf",
                                                                               [KNOWN_TEXT] * pages),
        }
        for label, path in inputs.items():
            log(f"ocr: {label}")
            began = time.perf_counter()
            texts = [page.text for page in iter_pages(path)]
            seconds = (time.perf_counter() - began) / len(texts)
            rates = [cer(KNOWN_TEXT, text) for text in texts]
            raw[label] = {"seconds_per_page": seconds, "cer": rates}
            rows.append([label, len(texts), f"{statistics.mean(rates):.2%}", f"{seconds:.2f}"])
    report = (f"Machine: {machine()}; load average {load_average()}.\n\n"
              + table(["input", "pages", "CER", "s/page"], rows))
    write_report("ocr", "OCR: accuracy and speed on rendered pages", [report], raw)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=3, help="pages of the PDF inputs (default 3)")
    print(run(parser.parse_args(argv).pages))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
