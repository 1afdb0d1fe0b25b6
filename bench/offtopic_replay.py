"""Record what the gate sees on a library's questions, to design off-topic rules (issue 37 item 6).

    PYTHONPATH=. python -m bench.offtopic_replay eval/real-de OUT.jsonl

Imports the library into a temporary instance (``evaluation.scratch_instance``, as
``flask rag eval-answers`` does), asks every answerable and off-topic question through the
product's retriever and writes one JSON line each: the evidence of the first documents, the
threshold, the unknown-noun share, whether the gate refused, and each question noun with what
the rule knows of it (in the word list, bridged, which candidate documents hold its own form,
which only its head's). Rules are then replayed on these lines without importing again.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from irisrag import components, create_app
from irisrag.evaluation import library
from irisrag.evaluation.scratch_instance import open_instance
from irisrag.rag import nouns
from irisrag.rag.lexical import match
from irisrag.vectors.searchtext import compounds_of


def _holders(forms, context) -> dict:
    holders = {}
    for c in context.candidates:
        for form in match(forms, c.hit.lexical_text).terms:
            holders.setdefault(form, set()).add(c.hit.document_id)
    return holders


def _prefixed(word: str, context) -> list[int]:
    stem = word.casefold()[:5]
    return sorted({c.hit.document_id for c in context.candidates
                   if any(t.startswith(stem) for t in c.hit.lexical_text.casefold().split())})


def _noun_row(noun: nouns.Noun, own: str, context, words, splitter) -> dict:
    holders = _holders(noun.forms | noun.head, context)
    parts = splitter.split(noun.word) if splitter else ()
    first = nouns.normal_form(parts[0]) if parts else None
    return {"word": noun.word, "listed": bool(words and words.knows(noun.word)),
            "bridged": noun.word in context.bridge.words, "own": sorted(holders.get(own, ())),
            "head": sorted(set().union(*holders.values()) - holders.get(own, set())),
            "split": list(parts),
            "modifier": sorted(set().union(*_holders({first}, context).values())) if first else [],
            "prefix": _prefixed(noun.word, context),
            "df": sum(bool(match(noun.forms | noun.head, c.hit.lexical_text).terms) for c in context.candidates)}


RELATED_CANDIDATES = 10
ONLY = os.environ.get("OFFTOPIC_REPLAY_ONLY", "")   # a file of question ids (BEIR), or any value: off-topic only


def _related(unknown: list[dict], context) -> dict:
    """Each unknown noun's best word cosine (the bridge's USE word vectors) to a word of the first candidates."""
    if not unknown:
        return {}
    from irisrag.rag.bridge import content_words
    pool = sorted({w for c in context.candidates[:RELATED_CANDIDATES] for w in content_words(c.hit.text)})
    if not pool:
        return {}
    embed = components.get().word_vectors
    sims = embed([r["word"] for r in unknown]) @ embed(pool).T
    return {r["word"]: [round(float(row.max()), 3), pool[int(row.argmax())]] for r, row in zip(unknown, sims, strict=True)}


def record(question: library.Question, kind: str, area: int, context=None) -> dict:
    comps = components.get()
    settings = comps.retriever.settings
    context = context or comps.retriever.context(question.question, [area])
    words = settings.bridge.word_list()
    splitter = compounds_of(settings.bridge.dictionary, settings.bridge.dictionary_cache) if words else None
    evidence = {}
    for c in context.candidates:
        if c.evidence is not None:
            evidence[c.hit.document_id] = c.evidence
    rows = [_noun_row(n, nouns.normal_form(n.word), context, words, splitter)
            for n in nouns.question_nouns(question.question, splitter)]
    related = _related([r for r in rows if r["listed"] and not r["bridged"] and not r["own"] and not r["head"]],
                       context)
    return {"related": related, "id": question.id, "set": kind, "question": question.question, "evidence": evidence,
            "threshold": settings.gate.threshold(context.bridge.crosses), "whole": bool(context.bridge.whole),
            "refused": not context.chunks, "nouns": rows, "candidates": len(context.candidates),
            "first": [c.hit.document_id for c in context.candidates[:3]]}


def beir_set(directory: Path, language: str, scratch: Path) -> list[dict]:
    """Record every test question of a BEIR set against its corpus, as ``flask rag eval --mode hybrid`` asks it."""
    from irisrag.cli.evaluate import eval_options
    from irisrag.evaluation import beir, runner
    from irisrag.rag.retrieve import build_context

    comps = components.get()
    options = eval_options(comps, language)
    dataset = beir.load(directory, "test")
    store, _, _ = runner.build_store(dataset, comps.embedder, options, scratch / "lancedb", scratch / "cache",
                                     lambda m: print(m, file=sys.stderr))
    questions = runner.questions_of(dataset, comps.embedder, scratch / "cache")
    rows = []
    only = set(Path(ONLY).read_text().split()) if ONLY else None
    for (qid, text), vector in zip(questions.queries.items(), questions.vectors, strict=True):
        if only is not None and qid not in only:
            continue
        context = build_context(text, [runner.SCRATCH_AREA], embedder=comps.embedder, store=store,
                                settings=options.settings, query_vector=vector, mode="hybrid", words=options.words)
        rows.append(record(library.Question(qid, text), "answerable", runner.SCRATCH_AREA, context))
    return rows


def main(argv: list[str]) -> None:
    directory, out = Path(argv[0]), Path(argv[1])
    app = create_app()
    with app.app_context():
        if len(argv) > 2:   # a BEIR set: DIR OUT LANGUAGE SCRATCH
            rows = beir_set(directory, argv[2], Path(argv[3]))
            out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
            return
        lib = library.load(directory)
        with open_instance(app, lib.documents, Path(app.instance_path) / "tmp" / "eval") as instance:
            rows = [] if ONLY else [record(q, "answerable", instance.area_id) for q in lib.questions]
            rows += [record(q, "offtopic", instance.area_id) for q in lib.offtopic]
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
