"""Replay hybrid fusion variants on retrieval legs collected once per set (how FUSION_* was chosen).

    .venv/bin/python bench/fusion_replay.py collect DATASET_DIR [--splits test,train] [--fts-language English]
    .venv/bin/python bench/fusion_replay.py replay [--variants NAME,...] [--context] [--grid]

``collect`` builds the scratch store exactly as ``flask rag eval`` does (``runner.build_store``:
the product's chunker 700/150, the USE embedder, ``VectorStore``, its full-text index; the
embeddings are cached in ``instance/tmp/eval/cache``, shared with the eval) and asks every
question of the splits once: the vector leg (the CONTEXT_CANDIDATES = 256 nearest chunks with
their cosine) and the full-text leg (the 256 best BM25 chunks, with their BM25 score and their
cosine to the question), plus the question's normalised terms each chunk holds. The legs go to
``instance/tmp/fusion/<set>.pkl``.

``replay`` ranks every question with each fusion variant in milliseconds (documents by their
best chunk, as the eval) and prints nDCG@10 per set on the tuning half, the held-out half and
all questions (``--context``: also the share of the relevant documents that the caps, 9
chunks and at most 4 per document, let into the context; the gate left out). Halves: the query id's SHA-256 (``irisrag.evaluation.tune.half``): "even" tunes,
"odd" is held out; SciFact tunes on its train split and is held out on its test split.
The product's fusion (``fusion.py``, settings ``FusionSettings``) is replayed through its own
functions, so the ``default`` row reproduces ``flask rag eval``'s hybrid nDCG@10.
"""
from __future__ import annotations

import argparse
import os
import pickle
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from irisrag.evaluation import beir  # noqa: E402
from irisrag.evaluation.runner import SCRATCH_AREA, EvalOptions, build_store, questions_of  # noqa: E402
from irisrag.rag.lexical import term_list, terms  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LEGS = ROOT / "instance" / "tmp" / "fusion"
CACHE = ROOT / "instance" / "tmp" / "eval" / "cache"
CANDIDATES = 256


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _matched(question_terms: frozenset[str], text: str) -> frozenset[str]:
    return frozenset(t for t in term_list(text) if t in question_terms)


def _row(store, query_id: str, split: str, question: str, vector) -> dict:
    """Both legs of one question, as the product's hybrid retrieval sees them."""
    question_terms = terms(question)
    dense = store.search(vector, [SCRATCH_AREA], CANDIDATES)
    lexical = store.search_fulltext(question, [SCRATCH_AREA], CANDIDATES, vector=vector)
    matched = {(h.document_id, h.chunk_index): _matched(question_terms, h.text)
               for h in [*dense, *(t.hit for t in lexical)]}
    return {"id": query_id, "split": split, "question": question, "terms": question_terms,
            "dense": [((h.document_id, h.chunk_index), h.score) for h in dense],
            "lexical": [((t.hit.document_id, t.hit.chunk_index), t.bm25, t.hit.score) for t in lexical],
            "matched": matched}


def collect(directory: Path, splits: list[str], language: str) -> Path:
    """Ask every question of the splits once in a scratch store; pickle both legs."""
    from irisrag.embeddings import UseEmbedder

    embedder, options = UseEmbedder(), EvalOptions.original(fts_language=language)
    sets = [beir.load(directory, split) for split in splits]
    scratch = Path(tempfile.mkdtemp(prefix="irisrag-fusion-"))
    try:
        store, chunks, prepare = build_store(sets[0], embedder, options, scratch / "lancedb", CACHE, log)
        log(f"{sets[0].name}: {chunks} chunks, prepared in {sum(prepare.values()):.0f} s")
        rows, qrels = [], {}
        for dataset in sets:
            questions = questions_of(dataset, embedder, CACHE)
            for (query_id, question), vector in zip(questions.queries.items(), questions.vectors, strict=True):
                rows.append(_row(store, query_id, dataset.split, question, vector))
            qrels.update(dataset.qrels)
            log(f"{dataset.name} {dataset.split}: {len(dataset.queries)} questions")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    LEGS.mkdir(parents=True, exist_ok=True)
    out = LEGS / f"{sets[0].name.replace('/', '-')}.pkl"
    tmp = out.with_name(f"tmp-{out.name}")
    with tmp.open("wb") as handle:
        pickle.dump({"name": sets[0].name, "corpus": list(sets[0].corpus), "qrels": qrels, "rows": rows,
                     "chunks": chunks, "language": language}, handle)
    os.replace(tmp, out)  # a replay running meanwhile never reads half a file
    log(f"wrote {out}")
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("directory", type=Path)
    c.add_argument("--splits", default="test")
    c.add_argument("--fts-language", default="English")
    r = sub.add_parser("replay")
    r.add_argument("--variants", default="")
    r.add_argument("--context", action="store_true", help="also the caps recall of the product's chunk order")
    r.add_argument("--grid", action="store_true", help="only the selection grid (about 7 minutes)")
    args = parser.parse_args(argv)
    if args.command == "collect":
        collect(args.directory, args.splits.split(","), args.fts_language)
    else:
        from bench import fusion_variants

        if args.grid:
            fusion_variants.grid()
            return
        fusion_variants.report([v for v in args.variants.split(",") if v])
        if args.context:
            fusion_variants.context_report()


if __name__ == "__main__":
    main()
