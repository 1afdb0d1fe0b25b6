"""What the optional ``embedder`` reranker costs a question, next to the question's own embedding.

``.venv/bin/python -m bench.rerank_bench [--quick] [--top-n 20]``

Per question (SciFact queries; passages: SciFact chunks of 700 characters, the product's
chunking), interleaved: the default USE embedder's ``embed_query`` (the baseline: what every
question pays already), and ``EmbedderReranker.rerank`` with e5 on the top N passages (one
e5 ``embed_query`` plus ``embed_documents`` of N passages), the RERANKER=embedder stage.
The quality side is in the README (``flask rag eval --rerank embedder``).
"""
from __future__ import annotations

import argparse
import json
import sys
import time

from bench.common import load_average, log, machine, med_p95, median, table, write_report
from bench.context_bench import CORPUS_DIR, load_corpus


def run(quick: bool = False, top_n: int = 20) -> str:
    from irisrag.embeddings import E5Embedder, UseEmbedder
    from irisrag.rag.rerank import EmbedderReranker
    from irisrag.vectors.store import Hit

    n_questions = 5 if quick else 20
    questions = []
    with open(CORPUS_DIR / "queries.jsonl", encoding="utf-8") as handle:
        for line in handle:
            questions.append(json.loads(line)["text"])
            if len(questions) >= n_questions + 2:
                break
    _, docs = load_corpus(top_n * (n_questions + 2))
    texts = [t for chunks in docs for t in chunks]
    use, e5 = UseEmbedder(), E5Embedder()
    reranker = EmbedderReranker(e5, top_n=top_n)
    use.embed_query("warm up")
    e5.embed_query("warm up")
    base, rerank = [], []
    load_start = load_average()
    for i, question in enumerate(questions):
        passages = texts[(i * top_n) % max(1, len(texts) - top_n):][:top_n]
        hits = [Hit(n, 1, 0, None, text, 0.5, n) for n, text in enumerate(passages)]
        began = time.perf_counter()
        use.embed_query(question)
        middle = time.perf_counter()
        reranker.rerank(question, hits)
        end = time.perf_counter()
        if i >= 2:  # two warm-up questions
            base.append(middle - began)
            rerank.append(end - middle)
        log(f"question {i + 1}/{len(questions)}: USE {1000 * (middle - began):.0f} ms, "
            f"e5 rerank {1000 * (end - middle):.0f} ms")
    ratio = median(rerank) / median(base)
    report = "\n\n".join([
        f"## Cost of RERANKER=embedder (e5, top {top_n}) per question",
        f"{len(base)} SciFact questions after 2 warm-up ones, passages of up to 700 characters; "
        f"load average {load_start} at the start, {load_average()} at the end. Milliseconds, median / p95.",
        table(["stage", "ms (median / p95)", "× USE embed_query"], [
            ["USE `embed_query` (baseline: every question pays it)", med_p95(base), "1.0×"],
            [f"e5 reranker: `embed_query` + {top_n} passages", med_p95(rerank), f"{ratio:.0f}×"],
        ]),
    ])
    write_report("rerank", "Reranker cost", [machine(), report], {"base": base, "rerank": rerank, "top_n": top_n})
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="5 questions")
    parser.add_argument("--top-n", type=int, default=20)
    args = parser.parse_args(argv)
    print(run(args.quick, args.top_n), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
