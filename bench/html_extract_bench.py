"""HTML extraction per page against the embedder: what trafilatura and lxml cost an HTML import.

``.venv/bin/python -m bench.html_extract_bench [--quick]`` (or ``bench/run.sh html``)

Inputs: the 15 English Debian Reference HTML pages (``bench.data``). They are DocBook, so the
import reads them with the product's own lxml path (``docbook_text``); the same pages with
their DocBook marker renamed go through trafilatura, as an ordinary intranet page would.
Per page, in this process, one after the other in the same run:

- **import extraction**: ``irisrag.ingest.extract.extract_html_file``, the import's own call;
- **lxml parse**: the product's ``extract_html._parse`` alone (what one parse of the page costs);
- **trafilatura**: ``extract_html_text`` on the page with the marker renamed (trafilatura's
  parse, cleaning and Markdown output);
- **embedder**: ``UseEmbedder.embed_documents`` on the page's chunk texts (chunk size 700,
  overlap 150) in batches of 32, model loaded: the baseline.

Extraction times are CPU ms (process time, the median of ``REPEATS``); the embedder's is wall
time (it keeps both cores busy). The last columns give extraction as a share of embedding:
the most that taking extraction off the embedding path could gain.
"""
from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from bench.common import load_average, log, machine, table, write_report

REPEATS = 3
BATCH = 32


def _cpu_ms(call: Callable[[], object], repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        began = time.process_time()
        call()
        times.append(time.process_time() - began)
    return statistics.median(times) * 1000


def _embed_seconds(embedder, texts: list[str]) -> float:
    began = time.perf_counter()
    for start in range(0, len(texts), BATCH):
        embedder.embed_documents(texts[start:start + BATCH])
    return time.perf_counter() - began


def measure_page(path: Path, embedder) -> dict:
    """Return one page's extraction CPU ms per path and the embedder's seconds for its chunks."""
    from irisrag.ingest.chunk import chunk_pages
    from irisrag.ingest.extract import extract_html_file
    from irisrag.ingest.extract_html import _parse, decode_html, extract_html_text
    from irisrag.ingest.pages import Page

    html = decode_html(path.read_bytes())
    generic = html.replace("titlepage", "title-page")  # not DocBook any more: trafilatura reads it
    text = extract_html_file(path)
    texts = [c.text for c in chunk_pages([Page(None, text)], 700, 150)]
    return {"page": path.name, "kb": len(html) / 1024, "chunks": len(texts),
            "import_ms": _cpu_ms(lambda: extract_html_file(path)),
            "parse_ms": _cpu_ms(lambda: _parse(html)),
            "trafilatura_ms": _cpu_ms(lambda: extract_html_text(generic)),
            "embed_s": _embed_seconds(embedder, texts) if texts else 0.0}


def _share(ms: float, embed_ms: float) -> str:
    return f"{ms / embed_ms:.1%}" if embed_ms else "–"


def _rows(results: list[dict]) -> list[list[object]]:
    rows = []
    for r in results + [_total(results)]:
        embed_ms = r["embed_s"] * 1000
        rows.append([r["page"], f"{r['kb']:.0f}", r["chunks"], f"{r['import_ms']:.1f}", f"{r['parse_ms']:.1f}",
                     f"{r['trafilatura_ms']:.1f}", f"{embed_ms:.0f}", _share(r["import_ms"], embed_ms),
                     _share(r["trafilatura_ms"], embed_ms)])
    return rows


def _total(results: list[dict]) -> dict:
    keys = ("kb", "chunks", "import_ms", "parse_ms", "trafilatura_ms", "embed_s")
    return {"page": "**all pages**", **{k: sum(r[k] for r in results) for k in keys}}


def run(quick: bool = False) -> str:
    from bench.data import DataUnavailable, inputs
    from irisrag.embeddings import UseEmbedder

    try:
        html = next(i for i in inputs(quick) if i.label == "HTML")
    except DataUnavailable as exc:
        return f"## HTML extraction against the embedder\n\nSkipped: {exc}\n"
    machine_text, load = machine(), load_average()
    embedder = UseEmbedder()
    embedder.embed_documents(["warm up"])
    results = []
    for path in html.files:
        results.append(measure_page(path, embedder))
        log(f"{path.name}: {results[-1]}")
    section = (f"## HTML extraction against the embedder\n\n{html.note}; load at start {load}, at end "
               f"{load_average()}. CPU ms per page (median of {REPEATS}); embedder: wall ms for the page's "
               f"chunks, batches of {BATCH}, model loaded, same run.\n\n"
               + table(["page", "KB", "chunks", "import extraction ms (DocBook path)", "one lxml parse ms",
                        "trafilatura ms (generic page)", "embedder ms", "import extraction / embedder",
                        "trafilatura / embedder"], _rows(results)))
    path = write_report("html-extract", "IrisRAG HTML extraction", [machine_text, section], {"pages": results})
    log(f"wrote {path}")
    return section


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="three pages instead of fifteen")
    print(run(parser.parse_args(argv).quick))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
