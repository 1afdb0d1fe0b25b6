"""Build the self-written documents of eval/holdout-de/docs (run from anywhere: python make/build.py).

Needs python-docx, odfpy and Debian's ``groff`` (for gropdf). The Debian documents are copied or
rendered by ``debian.sh``. The output is deterministic apart from creation dates.
"""
import csv
import json
import subprocess
import sys
from pathlib import Path

import docx
from odf.opendocument import OpenDocumentSpreadsheet
from odf.table import Table, TableCell, TableRow
from odf.text import P

sys.path.insert(0, str(Path(__file__).parent))
import richtlinie  # noqa: E402
import satzung  # noqa: E402
import tabellen  # noqa: E402

DOCS = Path(__file__).resolve().parent.parent / "docs"


def statutes_docx() -> None:
    document = docx.Document()
    document.add_heading(satzung.TITLE, 0)
    document.add_paragraph(satzung.VERSION)
    for heading, paragraphs in satzung.SECTIONS:
        document.add_heading(heading, 1)
        for paragraph in paragraphs:
            if paragraph.startswith("- "):
                document.add_paragraph(paragraph[2:], style="List Bullet")
            else:
                document.add_paragraph(paragraph)
    document.add_heading(satzung.FEES_CAPTION, 1)
    table = document.add_table(rows=0, cols=3)
    for row in satzung.FEES:
        cells = table.add_row().cells
        for cell, value in zip(cells, row, strict=True):
            cell.text = value
    document.save(DOCS / "weserwelle-satzung.docx")


def roff(text: str) -> str:
    text = text.replace("\\", "\\e")
    return ("\\&" + text) if text.startswith((".", "'")) else text


def policy_pdf() -> None:
    lines = [".nr PS 11", ".nr VS 14", ".ds LH " + roff(richtlinie.HEADER), ".ds CH", ".ds RH Seite %",
             ".ds LF " + roff(richtlinie.FOOTER), ".TL", roff(richtlinie.TITLE), ".AU", roff(richtlinie.VERSION),
             ".LP", ".B Inhaltsverzeichnis", ".LP"]
    for number, title, _ in richtlinie.SECTIONS:
        lines += [roff(f"{number}. {title} " + "." * (50 - len(title)) + f" {int(number) // 3 + 1}"), ".br"]
    for number, title, paragraphs in richtlinie.SECTIONS:
        lines += [".SH", roff(f"{number}. {title}")]
        for paragraph in paragraphs:
            lines += [".PP", roff(paragraph)]
    result = subprocess.run(["groff", "-ms", "-Tpdf", "-k", "-dpaper=a4", "-P-pa4"],
                            input=("\n".join(lines) + "\n").encode("utf-8"), capture_output=True, check=True)
    (DOCS / "it-richtlinie.pdf").write_bytes(result.stdout)


def _sheet(name: str, header: tuple, rows: list) -> Table:
    table = Table(name=name)
    for row in [header, *rows]:
        table_row = TableRow()
        for value in row:
            numeric = isinstance(value, int)
            cell = TableCell(valuetype="float", value=value) if numeric else TableCell(valuetype="string")
            cell.addElement(P(text=str(value)))
            table_row.addElement(cell)
        table.addElement(table_row)
    return table


def fleet_ods() -> None:
    sheet = OpenDocumentSpreadsheet()
    sheet.spreadsheet.addElement(_sheet("Fahrzeuge", tabellen.FLEET_HEADER, tabellen.FLEET))
    sheet.spreadsheet.addElement(_sheet("Werkstätten", tabellen.WORKSHOP_HEADER, tabellen.WORKSHOPS))
    sheet.save(str(DOCS / "fuhrpark-2025.ods"))


def rooms_csv() -> None:
    with (DOCS / "raumbuchungen-maerz-2025.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter=",", quoting=csv.QUOTE_ALL)
        writer.writerows([tabellen.ROOM_HEADER, *tabellen.ROOMS])


def backup_json() -> None:
    text = json.dumps(tabellen.BACKUP, ensure_ascii=False, indent=2)
    (DOCS / "backup-konfiguration.json").write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    statutes_docx()
    policy_pdf()
    fleet_ods()
    rooms_csv()
    backup_json()
