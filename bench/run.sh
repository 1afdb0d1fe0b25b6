#!/usr/bin/env bash
# Run the IrisRAG benchmarks: bench/run.sh [--quick] [import|context|all] [--reps N] [--queries N] [--sizes A,B]
# Prints Markdown tables and writes them to bench/out/ (see bench/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
exec "$PY" -m bench "$@"
