#!/usr/bin/env bash
# Run the IrisRAG benchmarks: bench/run.sh [--quick] [import|context|all] [--reps N] [--queries N] [--sizes A,B]
#        bench/run.sh llm [--build] [--gpu] [--model FILE.gguf] [--gpu-layers N]   (a real model; not in CI)
# Prints Markdown tables and writes them to bench/out/ (see bench/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
if [ "${1:-}" = llm ]; then
  shift
  exec "$PY" -m bench.llm_bench "$@"
fi
exec "$PY" -m bench "$@"
