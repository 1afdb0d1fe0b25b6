"""``python -m bench [--quick] [import|context|all]``: run the benchmarks, print Markdown tables.

Every report is also written to ``bench/out/<name>.md`` (and a timestamped copy with the raw
numbers as JSON). See bench/README.md.
"""
from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/run.sh", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", nargs="?", default="all", choices=("all", "import", "context"),
                        help="which benchmark (default: all)")
    parser.add_argument("--quick", action="store_true",
                        help="slices of the inputs, fewer queries and repetitions: a few minutes")
    parser.add_argument("--reps", type=int, default=None, help="import repetitions (default 3, quick 1)")
    parser.add_argument("--queries", type=int, default=None, help="questions per context configuration "
                        "(default 200, quick 30)")
    parser.add_argument("--sizes", default=None, help="comma-separated chunk counts for the context benchmark "
                        "(default 10000,100000)")
    args = parser.parse_args(argv)
    outputs = []
    if args.what in ("all", "import"):
        from bench import import_bench

        outputs.append(import_bench.run(args.quick, args.reps))
        print(outputs[-1], flush=True)
    if args.what in ("all", "context"):
        from bench import context_bench

        sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else None
        outputs.append(context_bench.run(args.quick, sizes=sizes, queries=args.queries))
        print(outputs[-1], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
