"""Write real Office, OpenDocument and EPUB sample files with the libraries that read them."""
from __future__ import annotations

import zipfile
from pathlib import Path

ROWS = [(n, f"Paket-{n}", f"Beschreibung des Pakets Nummer {n} für die Paketverwaltung") for n in range(1, 121)]


def write_docx(path: Path) -> Path:
    import docx

    document = docx.Document()
    document.add_heading("Paketverwaltung", level=1)
    document.add_paragraph("APT löst Abhängigkeiten selbst auf und holt Pakete aus dem Archiv.")
    document.add_heading("Werkzeuge", level=2)
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Paket", "Zweck"
    table.cell(1, 0).text, table.cell(1, 1).text = "dpkg", "installiert .deb-Dateien"
    document.add_paragraph("Nach der Tabelle folgt der Schluss.")
    document.save(path)
    return path


def write_pptx(path: Path) -> Path:
    import pptx

    presentation = pptx.Presentation()
    for title, body, notes in (("Einführung", "Was ist Debian?", "Sprechernotiz eins"),
                               ("Pakete", "dpkg und apt arbeiten zusammen", "Sprechernotiz zwei")):
        slide = presentation.slides.add_slide(presentation.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
        slide.notes_slide.notes_text_frame.text = notes
    presentation.save(path)
    return path


def write_xlsx(path: Path) -> Path:
    import openpyxl

    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Pakete"
    sheet.append(["Nr", "Name", "Beschreibung"])
    for row in ROWS:
        sheet.append(list(row))
    other = workbook.create_sheet("Versionen")
    other.append(["Version", "Codename"])
    other.append(["12", "bookworm"])
    workbook.save(path)
    return path


def write_odt(path: Path) -> Path:
    from odf.opendocument import OpenDocumentText
    from odf.text import H, P

    document = OpenDocumentText()
    document.text.addElement(H(outlinelevel=1, text="Systemverwaltung"))
    document.text.addElement(P(text="Die Datei /etc/fstab beschreibt die Dateisysteme."))
    document.text.addElement(H(outlinelevel=2, text="Einhängen"))
    document.text.addElement(P(text="mount hängt ein Dateisystem ein."))
    document.save(str(path))
    return path


def write_ods(path: Path) -> Path:
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    document = OpenDocumentSpreadsheet()
    table = Table(name="Pakete")
    for row in [("Nr", "Name", "Beschreibung"), *ROWS]:
        line = TableRow()
        for value in row:
            cell = TableCell()
            cell.addElement(P(text=str(value)))
            line.addElement(cell)
        table.addElement(line)
    document.spreadsheet.addElement(table)
    document.save(str(path))
    return path


def write_odp(path: Path) -> Path:
    from odf.draw import Frame, TextBox
    from odf.draw import Page as DrawPage
    from odf.opendocument import OpenDocumentPresentation
    from odf.style import MasterPage, PageLayout
    from odf.text import P

    document = OpenDocumentPresentation()
    layout = PageLayout(name="Layout")
    document.automaticstyles.addElement(layout)
    master = MasterPage(name="Standard", pagelayoutname=layout)
    document.masterstyles.addElement(master)
    for text in ("Folie eins über Netzwerke", "Folie zwei über Drucker"):
        page = DrawPage(masterpagename=master)
        frame = Frame(width="20cm", height="5cm", x="1cm", y="1cm")
        box = TextBox()
        box.addElement(P(text=text))
        frame.addElement(box)
        page.addElement(frame)
        document.presentation.addElement(page)
    document.save(str(path))
    return path


CONTAINER = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>"""
OPF = """<?xml version="1.0"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Buch</dc:title></metadata>
<manifest><item id="b" href="text/b.xhtml" media-type="application/xhtml+xml"/>
<item id="a" href="text/a.xhtml" media-type="application/xhtml+xml"/></manifest>
<spine><itemref idref="a"/><itemref idref="b"/></spine></package>"""
CHAPTER = ("<html xmlns='http://www.w3.org/1999/xhtml'><body><h1>{title}</h1><p>{text}</p></body></html>")


def write_epub(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as package:
        package.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        package.writestr("META-INF/container.xml", CONTAINER)
        package.writestr("OEBPS/content.opf", OPF)
        package.writestr("OEBPS/text/a.xhtml", CHAPTER.format(title="Erstes Kapitel", text="Am Anfang war die Shell. " * 5))
        package.writestr("OEBPS/text/b.xhtml", CHAPTER.format(title="Zweites Kapitel", text="Dann kam der Kernel. " * 5))
    return path


def write_zip_bomb_docx(path: Path, mib: int = 300) -> Path:
    """A ZIP named .docx whose document part inflates to ``mib`` MiB of zeros (about 300 KB on disk)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr("[Content_Types].xml", "<Types/>")
        with package.open("word/document.xml", "w", force_zip64=True) as part:
            block = b"\0" * (1 << 20)
            for _ in range(mib):
                part.write(block)
    return path


WRITERS = {"docx": write_docx, "pptx": write_pptx, "xlsx": write_xlsx, "odt": write_odt, "ods": write_ods,
           "odp": write_odp, "epub": write_epub}
