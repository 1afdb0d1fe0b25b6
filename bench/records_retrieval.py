"""Retrieval over records: whole records packed into chunks vs one record a chunk (``bench.records_bench``)."""
from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np

from bench.common import log

FIRST = ("Anna", "Bernd", "Clara", "Dieter", "Eva", "Frank", "Gisela", "Hans", "Ines", "Jonas", "Karin", "Lukas")
LAST = ("Müller", "Schmidt", "Schneider", "Fischer", "Weber", "Meyer", "Wagner", "Becker", "Hoffmann", "Koch")
DEPARTMENTS = ("Einkauf", "Vertrieb", "Buchhaltung", "IT", "Personal", "Lager")
ADJECTIVES = ("stille", "rote", "ferne", "letzte", "kalte", "goldene", "dunkle", "alte", "neue", "grüne")
NOUNS = ("Insel", "Stadt", "Reise", "Brücke", "Stunde", "Grenze", "Küste", "Straße", "Sonne", "Nacht")
TOOLS = ("Schraube", "Mutter", "Scheibe", "Dübel", "Nagel", "Winkel", "Haken", "Niete", "Zange", "Kabel")
RECORDS = 150
QUESTIONS = 10


def datasets(root: Path, seed: int = 3) -> list[tuple[Path, str, list[tuple[str, tuple[str, str]]]]]:
    """Write the three files; return (path, kind, [(question, (key field, key value))])."""
    rng = random.Random(seed)
    numbers = rng.sample(range(1000, 9999), RECORDS)
    prices = root / "preisliste.csv"
    prices.write_text("Artikel;Bezeichnung;Preis;Lager\n" + "".join(
        f"{n};{rng.choice(TOOLS)} M{rng.randint(2, 12)};{rng.randint(0, 99)},{rng.randint(0, 99):02d} €;"
        f"{rng.randint(0, 300)}\n" for n in numbers), encoding="utf-8")
    everyone = [f"{first} {last}" for first in FIRST for last in LAST]
    people = rng.sample(everyone, min(RECORDS, len(everyone)))
    staff = root / "telefonliste.json"
    staff.write_text(json.dumps({"stand": "2026-11", "mitarbeiter": [
        {"name": p, "abteilung": rng.choice(DEPARTMENTS), "telefon": f"0221 {rng.randint(1000, 9999)}",
         "raum": f"{rng.choice('ABC')} {rng.randint(1, 4)}.{rng.randint(10, 40)}"} for p in people]},
        ensure_ascii=False), encoding="utf-8")
    titles = rng.sample([f"Die {a} {n}" for a in ADJECTIVES for n in NOUNS], min(RECORDS, 100))
    books = root / "buecher.xml"
    books.write_text("<katalog>" + "".join(
        f'<buch isbn="978-3-{rng.randint(10000, 99999)}"><titel>{t}</titel><autor>{rng.choice(people)}</autor>'
        f"<jahr>{rng.randint(1950, 2025)}</jahr></buch>" for t in titles) + "</katalog>", encoding="utf-8")
    return [
        (prices, "csv", [(f"Was kostet Artikel {n}?", ("Artikel", str(n))) for n in rng.sample(numbers, QUESTIONS)]),
        (staff, "text", [(f"Welche Telefonnummer hat {p}?", ("name", p)) for p in rng.sample(people, QUESTIONS)]),
        (books, "text", [(f"Wer hat das Buch „{t}“ geschrieben?", ("titel", t)) for t in rng.sample(titles, QUESTIONS)]),
    ]


def _load(store, embedder, files, pack: bool) -> int:
    from irisrag.ingest.chunk import chunk_pages
    from irisrag.ingest.extract import iter_pages
    from irisrag.vectors.store import ChunkIn

    total = 0
    for document_id, (path, kind, _) in enumerate(files, start=1):
        chunks = list(chunk_pages(iter_pages(path, kind), 700, 150, pack_records=pack))
        vectors = np.asarray(embedder.embed_documents([c.text for c in chunks]), dtype=np.float32)
        store.replace_document(document_id, 1, [ChunkIn(c.index, c.text, c.page, path.name) for c in chunks], vectors)
        total += len(chunks)
    store.refresh_indexes()
    return total


def _rank(context, key: tuple[str, str]) -> int | None:
    from irisrag.ingest.records import parse_records

    for position, chunk in enumerate(context.chunks, start=1):
        parsed = parse_records(chunk.hit.text)
        if parsed and any(key in fields for fields in parsed.records):
            return position
    return None


def compare(root: Path) -> dict:
    """Return hit@1 and MRR of packed and one-record chunks over the three tables."""
    from irisrag.config import DEFAULTS
    from irisrag.embeddings import UseEmbedder
    from irisrag.rag.retrieve import RetrievalSettings, build_context
    from irisrag.vectors.store import VectorStore

    files = datasets(root)
    embedder = UseEmbedder()
    settings = RetrievalSettings.from_config(DEFAULTS)
    results = {}
    for name, pack in (("packed", True), ("one record a chunk (default)", False)):
        log(f"retrieval: {name}")
        store = VectorStore(str(root / f"lance-{pack}"), embedder.key, embedder.dim, read_consistency_seconds=0)
        chunks = _load(store, embedder, files, pack)
        ranks = [_rank(build_context(q, [1], embedder=embedder, store=store, settings=settings), key)
                 for _, _, questions in files for q, key in questions]
        results[name] = {"chunks": chunks, "questions": len(ranks), "ranks": ranks,
                         "hit1": sum(r == 1 for r in ranks) / len(ranks),
                         "mrr": sum(1 / r for r in ranks if r) / len(ranks)}
    return results
