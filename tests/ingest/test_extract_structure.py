"""Structure that must survive extraction: DocBook headings in HTML, the table and field names of every CSV chunk."""
from __future__ import annotations

from pathlib import Path

from irisrag.ingest.chunk import chunk_pages
from irisrag.ingest.extract import extract, iter_pages
from irisrag.ingest.extract_html import extract_html_text
from irisrag.ingest.pages import Page
from irisrag.ingest.records import parse_records

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
ITEM = "<li class='listitem'><p>Ein Punkt über Paketquellen und ihre Pflege im Alltag.</p>{}</li>"
DOCBOOK = """<html><body>
<div class="navheader"><table><tr><th>Kapitel 2. Paketverwaltung</th></tr><tr><td>Zurück</td></tr></table></div>
<div class="chapter"><div class="titlepage"><div><div><h1 class="title"><a id="x"></a>Kapitel 2. Paketverwaltung
</h1></div></div></div>
<div class="toc"><p><b>Inhaltsverzeichnis</b></p><dl class="toc"><dt>2.1. Voraussetzungen</dt></dl></div>
<div class="section"><div class="titlepage"><div><div><h2 class="title">2.1. Voraussetzungen</h2></div></div></div>
<div class="section"><div class="titlepage"><div><div><h3 class="title">2.1.1. Paketkonfiguration</h3></div></div></div>
<p>Die Konfiguration eines Pakets
bleibt erhalten.</p>
<div class="itemizedlist"><ul>""" + ITEM.format("<div><ul>" + ITEM.format("") + "</ul></div>") * 3 + """</ul></div>
<pre>apt-get install
  paket</pre>
<table><tr><th>Paket</th><th>Größe</th></tr><tr><td><p>dpkg</p></td><td>5989</td></tr></table>
</div></div></div>
<div class="navfooter"><a>Weiter</a></div></body></html>"""


def test_docbook_headings_survive_as_markdown_headings():
    text = extract_html_text(DOCBOOK)
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert headings == ["# Kapitel 2. Paketverwaltung", "## 2.1. Voraussetzungen", "### 2.1.1. Paketkonfiguration"]
    assert "Die Konfiguration eines Pakets bleibt erhalten." in text  # source line breaks are not paragraph breaks
    assert "apt-get install\npaket" in text  # preformatted text keeps its lines
    assert "Paket | Größe" in text and "dpkg | 5989" in text  # one table row a line
    for navigation in ("Zurück", "Weiter", "Inhaltsverzeichnis"):
        assert navigation not in text


def test_docbook_list_items_keep_their_mark():
    page = ('<html><body><div class="titlepage"><h2>5.5.1. MTU</h2></div><p>Der Zusammenhang ist wie folgt:</p>'
            '<div class="itemizedlist"><ul><li class="listitem"><p>MSS = "MTU - 40" bei IPv4</p></li>'
            '<li class="listitem"><p>MSS = "MTU - 60" bei IPv6</p></li></ul></div></body></html>')
    lines = [line for line in extract_html_text(page).splitlines() if line]
    assert lines[-3:] == ["Der Zusammenhang ist wie folgt:", '- MSS = "MTU - 40" bei IPv4', '- MSS = "MTU - 60" bei IPv6']


def test_the_fixture_docbook_page_keeps_its_heading():
    assert extract(FIXTURES / "sample.html").text.startswith("# Vorwort")


def test_every_csv_chunk_starts_with_the_table_and_names_each_field(tmp_path):
    # Issue 37: a row is a record, "field: value" a line under the table's name (irisrag.ingest.records).
    rows = [(str(n), f"Paket-{n}", f"Beschreibung des Pakets Nummer {n}, mit etwas Text dazu") for n in range(1, 200)]
    path = tmp_path / "pakete.csv"
    path.write_text("Nr;Name;Beschreibung\n" + "\n".join(";".join(row) for row in rows) + "\n", encoding="utf-8")
    chunks = list(chunk_pages(iter_pages(path), 300, 60))
    assert len(chunks) > 20 and [c.index for c in chunks] == list(range(len(chunks)))
    kept = []
    for chunk in chunks:
        assert chunk.text.startswith("# pakete\nNr: ") and len(chunk.text) <= 300
        parsed = parse_records(chunk.text)
        assert parsed.table == "pakete"
        assert all([name for name, _ in fields] == ["Nr", "Name", "Beschreibung"] for fields in parsed.records)
        kept += [tuple(value for _, value in fields) for fields in parsed.records]
    assert kept == rows  # every row once, whole, in order


def test_table_page_between_text_pages_keeps_indices_and_pages():
    pages = [Page(1, "Einleitung. " * 10), Page(2, "a,1\nb,2", header="k,v"), Page(3, "Schluss.")]
    chunks = list(chunk_pages(pages, 100, 20))
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert [c.text for c in chunks if c.page == 2] == ["k,v\na,1\nb,2"]
    assert chunks[-1].text == "Schluss." and chunks[-1].page == 3


def test_overlong_csv_row_is_cut_with_the_header_on_each_piece():
    row = "x;" + "lang " * 100
    chunks = list(chunk_pages([Page(None, row, header="a;b")], 120, 30))
    assert len(chunks) > 3 and all(c.text.startswith("a;b\n") and len(c.text) <= 120 for c in chunks)


def test_a_table_caption_stands_above_the_table_and_the_header_row_stays_the_header():
    page = ("<html><body><article><h1>Räume</h1><p>Die Preise für Mitglieder und Externe stehen hier, "
            "zusammen mit der Kaution für jeden Raum der Genossenschaft.</p>"
            "<table><caption>Preise ab 2027</caption><thead><tr><th>Angebot</th><th>Preis</th><th>Kaution</th></tr>"
            "</thead><tbody><tr><td>Saal</td><td>60,00 €</td><td>150,00 €</td></tr>"
            "<tr><td>Gemeinschaftsraum</td><td>25,00 €</td><td>50,00 €</td></tr></tbody></table>"
            "<p>Gruppen aus dem Quartier nutzen den Gemeinschaftsraum werktags kostenlos.</p></article></body></html>")
    lines = [line.strip() for line in extract_html_text(page).splitlines()]
    at = lines.index("Preise ab 2027")
    assert lines[at + 2].startswith("| Angebot | Preis | Kaution |") and lines[at + 3].startswith("|---")
    assert sum(line.startswith("|---") for line in lines) == 1


def test_captions_above_tables_leaves_ordinary_tables_alone():
    from irisrag.ingest.extract_html import captions_above_tables

    table = "| a |  |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |"
    assert captions_above_tables(table) == table          # a first row with an empty cell, no second separator
