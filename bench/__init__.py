"""IrisRAG benchmarks: import throughput and context building (see bench/README.md)."""
