"""Records (issue 37): the chunk format and its parser, and the chunker never splitting a record."""
from __future__ import annotations

import random

from irisrag.ingest.chunk import chunk_pages
from irisrag.ingest.extract_csv import record_pages
from irisrag.ingest.pages import Page
from irisrag.ingest.records import (
    MAX_FIELDS,
    MAX_VALUE_CHARS,
    Record,
    format_records,
    make_record,
    parse_records,
    split_record,
)


def test_a_record_reads_as_field_lines_under_its_table_and_parses_back():
    record = make_record("preise", [("Artikel", 4711), ("Preis", "12,90 €"), ("Lager", 3)])
    text = format_records("preise", [record, make_record("preise", [("Artikel", "4712"), ("Preis", "3,50 €")])])
    assert text == "# preise\nArtikel: 4711\nPreis: 12,90 €\nLager: 3\n\nArtikel: 4712\nPreis: 3,50 €"
    parsed = parse_records(text)
    assert parsed.table == "preise"
    assert parsed.records == ((("Artikel", "4711"), ("Preis", "12,90 €"), ("Lager", "3")),
                              (("Artikel", "4712"), ("Preis", "3,50 €")))


def test_names_and_values_are_cleaned_so_every_record_parses_back_exactly():
    record = make_record("t", [("Ort: Stadt", "Köln\nam Rhein"), ("", "ohne Namen"), ("leer", "  "),
                               ("# Kopf", "x"), ("n", None)])
    assert record.fields == (("Ort:Stadt", "Köln am Rhein"), ("2", "ohne Namen"), ("Kopf", "x"))
    assert parse_records(format_records("t", [record])).records == (record.fields,)


def test_fields_and_values_are_bounded():
    record = make_record("t", [(f"f{n}", "v" * (MAX_VALUE_CHARS + 50)) for n in range(MAX_FIELDS + 40)])
    assert len(record.fields) == MAX_FIELDS
    assert all(len(value) == MAX_VALUE_CHARS and value.endswith("…") for _, value in record.fields)


def test_a_record_without_values_is_none():
    assert make_record("t", [("a", ""), ("b", None)]) is None


def test_plain_text_is_not_read_as_records():
    for text in ("Ein Absatz ohne Tabelle.", "# Titel\nEin Satz ohne Doppelpunkt.", "# Titel\n\nname: x",
                 "Artikel: 4711\nPreis: 3", "# Titel"):
        assert parse_records(text) is None, text


def _records(count: int, seed: int = 7) -> list[Record]:
    rng = random.Random(seed)
    return [make_record("artikel", [("Artikel", 1000 + n), ("Bezeichnung", "Schraube " * rng.randint(1, 12)),
                                    ("Preis", f"{rng.randint(1, 99)},90 €")]) for n in range(count)]


def _whole(records: list[Record], chunks) -> None:
    """Assert every record sits whole in exactly one chunk, in order, under its table's line."""
    found = [fields for chunk in chunks for fields in parse_records(chunk.text).records]
    assert found == [record.fields for record in records]


def test_records_are_never_split_across_chunks_and_share_one_only_whole():
    records = _records(300)
    chunks = list(chunk_pages(record_pages(iter(records)), 300, 60, pack_records=True))
    assert len(chunks) < len(records)  # small records share chunks ...
    assert all(len(c.text) <= 300 and c.text.startswith("# artikel\nArtikel: ") for c in chunks)
    _whole(records, chunks)  # ... each whole, across the batches of BATCH records too
    assert [c.index for c in chunks] == list(range(len(chunks)))


def test_one_record_per_chunk_by_default():
    records = _records(40)
    chunks = list(chunk_pages(record_pages(iter(records)), 300, 60))
    assert len(chunks) == len(records)
    _whole(records, chunks)


def test_records_of_different_tables_never_share_a_chunk_nor_with_text():
    first, second = _records(3), [make_record("lager", [("Ort", "Halle 2"), ("Regal", "B7")])]
    pages = [Page(1, "Einleitung zum Katalog."), *record_pages(iter(first)), *record_pages(iter(second)),
             Page(3, "Schlusswort.")]
    texts = [c.text for c in chunk_pages(pages, 700, 100, pack_records=True)]
    assert texts[0] == "Einleitung zum Katalog." and texts[-1] == "Schlusswort."
    assert [parse_records(t).table for t in texts[1:-1]] == ["artikel", "lager"]


def test_a_record_longer_than_a_chunk_is_cut_between_fields_repeating_table_and_key():
    record = make_record("artikel", [("Artikel", "4711"), *((f"Merkmal {n}", "lang " * 12) for n in range(12)),
                                     ("Notiz", "sehr " * 120)])
    pieces = split_record(record, 200)
    assert len(pieces) > 5 and all(len(p) <= 200 for p in pieces)
    parsed = [parse_records(p) for p in pieces]
    assert all(p.table == "artikel" and p.records[0][0] == ("Artikel", "4711") for p in parsed)
    names = [name for p in parsed[1:] for name, _ in p.records[0][1:]] + [n for n, _ in parsed[0].records[0][1:]]
    assert sorted(set(names)) == sorted({name for name, _ in record.fields[1:]})  # every field is kept
    notiz = " ".join(v for p in parsed for n, v in p.records[0] if n == "Notiz")
    assert notiz.split() == ["sehr"] * 120  # a too long field is cut between words, nothing lost
    chunks = list(chunk_pages(record_pages(iter([record])), 200, 40))
    assert [c.text for c in chunks] == pieces


def test_a_short_key_is_repeated_with_the_next_field_in_every_piece():
    # eval/holdout9-de st-05: "kuerzel: HM" alone did not say which branch the second piece belongs to.
    fields = [("kuerzel", "HM"), ("name", "Stadtteilbibliothek Hafenmühle"),
              *((f"feld {n}", "wert " * 12) for n in range(12))]
    pieces = [parse_records(p).records[0] for p in split_record(make_record("standorte", fields), 250)]
    assert len(pieces) > 2
    assert all(p[:2] == (("kuerzel", "HM"), ("name", "Stadtteilbibliothek Hafenmühle")) for p in pieces)
    named = [("name", "Stadtteilbibliothek Hafenmühle"), *fields[2:]]   # a long key: repeated alone
    later = [parse_records(p).records[0] for p in split_record(make_record("standorte", named), 250)][1:]
    assert later and all(p[0] == named[0] and p[1][0] != "kuerzel" and p[1] != named[1] for p in later)
