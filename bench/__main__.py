"""``bench/run.sh [--quick] [WHAT ...]``: run the benchmarks, print Markdown tables.

WHAT is any of ``import context index stream load memory scale`` or ``all`` (the default):

- ``import``   import throughput through a real worker vs the embedder alone (PDF, HTML, Markdown)
- ``context``  context building per stage at 10k and 100k chunks vs NumPy (``--sizes``)
- ``index``    the vector index vs NumPy and brute force on synthetic vectors, recall@256
- ``stream``   streamed answers: time to sources and to the first token through gunicorn
- ``load``     20 users asking for 60 s against gunicorn; page latency under that load
- ``memory``   peak RSS of a worker importing the 2,415-page R reference manual
- ``scale``    retrieval per leg at 1M chunks and the web process's RSS at 100k and 1M chunks
- ``rerank``   what the optional e5 reranker costs a question, next to the question's embedding
- ``extract``  PDF text: run-together words and CPU ms per page, pypdf (old) vs PDFium (new)
- ``html``     HTML extraction per page (the import's path, one lxml parse, trafilatura) vs the embedder
- ``fork``     what a forked work horse pays for the worker's objects, with and without ``gc.freeze``
- ``ocr``      OCR character error rate and seconds per page on pages rendered from known text
- ``s3``       context building with LanceDB on S3 (SeaweedFS), directly and through the web's mirror, vs local (``--sizes``)
- ``sync``     source syncs: pages crawled per minute (delay 0 and 1 s), an unchanged 500-page section's re-sync
- ``first``    the first question after a restart (gunicorn and worker) vs a warm question
- ``s3requests`` object-store requests and latency per question, S3 and S3 + mirror vs local (synthetic table)
- ``million``  hybrid context at 1M chunks per vector index layout (IVF_SQ, IVF_PQ, IVF_HNSW_SQ)

Every report is also written to ``bench/out/<name>.md`` (and a timestamped copy with the raw
numbers as JSON). See bench/README.md for what each table means and how long each takes.
"""
from __future__ import annotations

import argparse
import sys
import time

CHOICES = ("import", "context", "index", "stream", "load", "memory", "scale", "rerank", "extract", "html", "fork",
           "ocr", "s3", "sync", "first", "s3requests", "million")


def _import(args) -> str:
    from bench import import_bench

    only = tuple(label.strip() for label in args.inputs.split(",")) if args.inputs else None
    return import_bench.run(args.quick, args.reps, embedder=args.embedder, only=only, sweep=not args.no_sweep,
                            html_dir=args.html_dir)


def _context(args) -> str:
    from bench import context_bench

    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else None
    return context_bench.run(args.quick, sizes=sizes, queries=args.queries)


def _index(args) -> str:
    from bench import index_bench

    sizes = "10000,50000" if args.quick else "10000,100000"
    index_bench.main(["--sizes", sizes, "--queries", "30" if args.quick else "100"])
    return ""  # index_bench prints its own tables


def _stream(args) -> str:
    from bench import stream_bench

    return stream_bench.run(args.quick)


def _load(args) -> str:
    from bench import load_bench

    return load_bench.run(args.quick)


def _memory(args) -> str:
    from bench import memory_bench

    return memory_bench.run(args.quick)


def _scale(args) -> str:
    from bench import context_bench, scale_memory

    size = 200_000 if args.quick else 1_000_000
    latency = context_bench.run(args.quick, sizes=[size], queries=args.queries or (30 if args.quick else 100))
    return latency + "\n\n" + scale_memory.run(args.quick)


def _rerank(args) -> str:
    from bench import rerank_bench

    return rerank_bench.run(args.quick)


def _extract(args) -> str:
    from bench import extract_bench

    return extract_bench.run(args.quick)


def _html(args) -> str:
    from bench import html_extract_bench

    return html_extract_bench.run(args.quick)


def _fork(args) -> str:
    from bench import fork_bench

    return fork_bench.run(args.reps or 6)


def _ocr(args) -> str:
    from bench import ocr_bench

    return ocr_bench.run(2 if args.quick else 3)


def _s3(args) -> str:
    from bench import s3_bench

    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else None
    return s3_bench.run(args.quick, sizes=sizes, queries=args.queries)


def _sync(args) -> str:
    from bench import sync_bench

    return sync_bench.run(args.quick)


def _first(args) -> str:
    from bench import first_question

    return first_question.run(20_000 if args.quick else first_question.ROWS, rounds=1 if args.quick else 3)


def _s3requests(args) -> str:
    from bench import s3_requests

    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else [20_000 if args.quick else 100_000]
    return "\n\n".join(s3_requests.run(size, args.queries or (10 if args.quick else 30)) for size in sizes)


def _million(args) -> str:
    from bench import million_bench

    return million_bench.run(args.queries or (20 if args.quick else 60))


RUNNERS = {"import": _import, "context": _context, "index": _index, "stream": _stream, "load": _load,
           "memory": _memory, "scale": _scale, "rerank": _rerank, "extract": _extract, "html": _html, "fork": _fork,
           "ocr": _ocr, "s3": _s3, "sync": _sync, "first": _first, "s3requests": _s3requests, "million": _million}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/run.sh", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", nargs="*", default=["all"], choices=("all", *CHOICES),
                        help="which benchmarks (default: all, in the order listed)")
    parser.add_argument("--quick", action="store_true",
                        help="slices of the inputs, fewer queries and repetitions")
    parser.add_argument("--reps", type=int, default=None, help="import repetitions (default 3, quick 1)")
    parser.add_argument("--embedder", choices=("use", "e5"), default="use",
                        help="import: the embedder of the baseline and the worker (default use)")
    parser.add_argument("--inputs", default=None, help="import: comma-separated input labels to measure "
                        "(PDF, HTML, Markdown; default all)")
    parser.add_argument("--html-dir", default=None, help="import: the HTML input is every .html file of this "
                        "folder, one document each (instead of the Debian Reference pages; no download)")
    parser.add_argument("--no-sweep", action="store_true", help="import: skip the batch-size and BLAS-thread sweeps")
    parser.add_argument("--queries", type=int, default=None, help="questions per context configuration "
                        "(default 200, quick 30)")
    parser.add_argument("--sizes", default=None, help="comma-separated chunk counts for the context benchmark "
                        "(default 10000,100000)")
    args = parser.parse_args(argv)
    chosen = list(CHOICES) if "all" in args.what else [w for w in CHOICES if w in args.what]
    for name in chosen:
        began = time.monotonic()
        print(f"[{time.strftime('%H:%M:%S')}] bench {name}", file=sys.stderr, flush=True)
        output = RUNNERS[name](args)
        if output:
            print(output, flush=True)
        print(f"[{time.strftime('%H:%M:%S')}] bench {name} took {time.monotonic() - began:.0f} s",
              file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
