"""Write the documents of eval/holdout8-de/docs that belong to the fictitious Volkshochschule Haselbrück.

Everything here is invented (the adult education centre, the town of Haselbrück and its villages Erlenau,
Steinbühl, Kranichsee and Moorwinkel, people, addresses, phone numbers, courses, fees, exams, trips, servers).
Licence: CC-BY-SA 4.0, (c) 2026 the IrisRAG authors.

The project's venv has python-pptx and odfpy but neither reportlab nor LibreOffice, so the PDF is written with
fpdf2. Run the script with a throwaway venv that holds the three libraries (nothing goes into the project's venv):

    python3 -m venv /tmp/h8gen && /tmp/h8gen/bin/pip install fpdf2==2.8.9 python-pptx==1.0.2 odfpy==1.4.1
    /tmp/h8gen/bin/python eval/holdout8-de/make/org_documents.py

The PDF uses DejaVu Sans from /usr/share/fonts/truetype/dejavu (fonts-dejavu-core), embedded as a subset.
The output is deterministic: there is no random filler, the Office files carry fixed dates and fixed ZIP entry
times, and the PDF has a fixed creation date.
"""
from __future__ import annotations

import csv
import datetime as dt
import io
import json
import re
import zipfile
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"
FIXED = dt.datetime(2026, 12, 7, 9, 0, 0)
VHS = "Volkshochschule Haselbrück"
ADDRESS = "Haus der Bildung · Am Mühlgraben 7 · Haselbrück"
FONTS = Path("/usr/share/fonts/truetype/dejavu")


def de(number: float, decimals: int = 2) -> str:
    """German number format: 1.234,50"""
    text = f"{number:,.{decimals}f}"
    return text.replace(",", "X").replace(".", ",").replace("X", ".")


# --------------------------------------------------------------------------------------------------------- JSON
CONTACTS = [
    {"name": "Dr. Henrike Albers", "role": "Direktorin", "department": "Leitung",
     "phone": "05179 6620-10", "email": "h.albers@vhs-haselbrueck.example", "room": "2.01",
     "office_hours": "nach Vereinbarung", "deputy": "Jonas Feddersen",
     "topics": ["Programmplanung", "Personal", "Kooperationen mit Landkreis und Schulen", "Presse"]},
    {"name": "Jonas Feddersen", "role": "stellvertretender Direktor, Fachbereichsleitung",
     "department": "Sprachen", "phone": "05179 6620-21", "email": "j.feddersen@vhs-haselbrueck.example",
     "room": "2.04", "office_hours": "Di 14:00–16:00", "deputy": "Anastasia Wolff",
     "topics": ["Fremdsprachen", "Einstufungsberatung Englisch, Spanisch, Französisch", "Cambridge- und telc-Prüfungen"]},
    {"name": "Anastasia Wolff", "role": "Fachbereichsleitung", "department": "Deutsch und Integration",
     "phone": "05179 6620-23", "email": "a.wolff@vhs-haselbrueck.example", "room": "2.05",
     "office_hours": "Mo und Do 9:30–12:00", "deputy": "Jonas Feddersen",
     "topics": ["Integrationskurse", "Einstufungstests Deutsch", "Deutsch-Test für Zuwanderer (DTZ)", "Einbürgerungstest"]},
    {"name": "Miriam Okafor", "role": "Fachbereichsleitung", "department": "Gesundheit",
     "phone": "05179 6620-31", "email": "m.okafor@vhs-haselbrueck.example", "room": "1.08",
     "office_hours": "Mi 10:00–12:00", "deputy": "Svenja Lütke-Börner",
     "topics": ["Bewegung und Entspannung", "Kochkurse und Lehrküche", "Erste Hilfe", "Kurse mit Krankenkassen-Zuschuss"]},
    {"name": "Tobias Hain", "role": "Fachbereichsleitung", "department": "Beruf und EDV",
     "phone": "05179 6620-41", "email": "t.hain@vhs-haselbrueck.example", "room": "1.12a",
     "office_hours": "Do 15:00–17:00", "deputy": "Kemal Aydın",
     "topics": ["EDV-Kurse", "Bildungsurlaub", "Firmenschulungen", "Xpert-Zertifikate"]},
    {"name": "Svenja Lütke-Börner", "role": "Fachbereichsleitung", "department": "Kultur und Gestalten",
     "phone": "05179 6620-51", "email": "s.luetke-boerner@vhs-haselbrueck.example", "room": "0.14",
     "office_hours": "Di 9:00–11:00", "deputy": "Miriam Okafor",
     "topics": ["Malen und Zeichnen", "Töpferwerkstatt und Brennofen", "Fotografie", "Musik"]},
    {"name": "Ralf Demirci", "role": "Fachbereichsleitung", "department": "Gesellschaft",
     "phone": "05179 6620-61", "email": "r.demirci@vhs-haselbrueck.example", "room": "2.08",
     "office_hours": "Mo 13:00–15:00", "deputy": "Dr. Henrike Albers",
     "topics": ["Vorträge", "Studienfahrten und Exkursionen", "Politische Bildung", "Senioren-Uni"]},
    {"name": "Petra Kowalczyk", "role": "Servicebüro, Teamleitung", "department": "Verwaltung",
     "phone": "05179 6620-0", "email": "anmeldung@vhs-haselbrueck.example", "room": "0.02",
     "office_hours": "zu den Servicezeiten", "deputy": "Nils Brandt",
     "topics": ["Anmeldung", "Abmeldung und Rücktritt", "Ermäßigungen", "Teilnahmebescheinigungen"]},
    {"name": "Nils Brandt", "role": "Servicebüro", "department": "Verwaltung",
     "phone": "05179 6620-0", "email": "anmeldung@vhs-haselbrueck.example", "room": "0.02",
     "office_hours": "zu den Servicezeiten", "deputy": "Petra Kowalczyk",
     "topics": ["Anmeldung", "Raumvermietung", "Fundsachen"]},
    {"name": "Ute Meinhardt", "role": "Buchhaltung", "department": "Verwaltung",
     "phone": "05179 6620-72", "email": "buchhaltung@vhs-haselbrueck.example", "room": "2.11",
     "office_hours": "Mo–Do 8:00–12:00", "deputy": "Bettina Rohlfs",
     "topics": ["Honorarabrechnung der Kursleitenden", "Lastschriften und Mahnungen", "Erstattungen", "Fahrtkosten"]},
    {"name": "Bettina Rohlfs", "role": "Buchhaltung (Teilzeit, Mo–Mi)", "department": "Verwaltung",
     "phone": "05179 6620-73", "email": "buchhaltung@vhs-haselbrueck.example", "room": "2.11",
     "office_hours": "Mo–Mi 8:00–12:00", "deputy": "Ute Meinhardt",
     "topics": ["Honorarverträge", "Rechnungen an Firmen", "Zuschüsse"]},
    {"name": "Kemal Aydın", "role": "IT-Administration", "department": "Verwaltung",
     "phone": "05179 6620-44", "email": "it@vhs-haselbrueck.example", "room": "1.12b",
     "office_hours": "Mo–Fr 8:00–14:00, Ticket jederzeit", "deputy": "Tobias Hain",
     "topics": ["WLAN", "Beamer und Medientechnik", "KuLe-Portal-Zugänge", "Laptopwagen"]},
    {"name": "Bernd Sasse", "role": "Hausmeister Haus der Bildung", "department": "Haustechnik",
     "phone": "0160 9911 4827", "email": "haustechnik@vhs-haselbrueck.example", "room": "UG.03",
     "office_hours": "Mo–Fr 7:00–15:30", "deputy": "Hausmeisterdienst Gerdes (Abend und Wochenende)",
     "topics": ["Schlüssel und Transponder", "Heizung", "Bestuhlung", "Fundsachen im Gebäude"]},
    {"name": "Christian Remmers", "role": "Datenschutzbeauftragter (extern)", "department": "Kommunale Datenschutz Nord GmbH",
     "phone": "05179 88 301", "email": "datenschutz@vhs-haselbrueck.example", "room": None,
     "office_hours": "nach Vereinbarung", "deputy": None,
     "topics": ["Auskunft nach Art. 15 DSGVO", "Löschung von Teilnehmerdaten"]},
]


def contacts(path: Path) -> None:
    path.write_text(json.dumps(CONTACTS, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------------------------------------------- ODS
COURSES = [
    # Kurs-Nr., Titel, Fachbereich, Kursleitung, Ort, Raum, Tag, Uhrzeit, Beginn, Termine, UE, Entgelt, ermäßigt, max. TN, Hinweis
    ("27A-101", "Englisch A2 – Auffrischung am Abend", "Sprachen", "Kathrin Meyerhoff", "Haus der Bildung", "2.14",
     "Mo", "18:30–20:00", "2027-02-15", 12, 24, 96.0, 48.0, 14, ""),
    ("27A-118", "Englisch B1 Konversation", "Sprachen", "Dr. Alan Whitcombe", "Haus der Bildung", "2.14",
     "Mi", "10:00–11:30", "2027-02-17", 12, 24, 96.0, 48.0, 12, "mit Muttersprachler"),
    ("27A-204", "Spanisch für die Reise A1", "Sprachen", "Lucía Ferreira Hansen", "Erlenau", "Grundschule, Raum 3",
     "Di", "19:00–20:30", "2027-02-16", 10, 20, 80.0, 40.0, 14, ""),
    ("27A-230", "Italienisch A1 – Kompaktkurs am Wochenende", "Sprachen", "Giorgia Brandl", "Haus der Bildung",
     "2.12", "Sa", "9:30–15:30", "2027-03-06", 3, 18, 79.0, 39.5, 12, "Termine 06.03., 13.03., 20.03."),
    ("27A-305", "Deutsch B1 – Vorbereitung auf den DTZ", "Deutsch und Integration", "Sabine Ruhnke",
     "Haus der Bildung", "1.03", "Mo, Mi", "9:00–12:15", "2027-02-15", 20, 80, 160.0, 80.0, 16, ""),
    ("27B-310", "Yoga für Einsteiger", "Gesundheit", "Annika Dreyer", "Erlenau", "Turnhalle der Grundschule",
     "Do", "18:00–19:30", "2027-02-18", 10, 20, 72.0, 36.0, 16, "Matte mitbringen"),
    ("27B-315", "Rückenfit – Wirbelsäulengymnastik", "Gesundheit", "Markus Tjaden", "Steinbühl",
     "Dorfgemeinschaftshaus", "Mo", "17:30–18:30", "2027-02-15", 12, 16, 58.0, 29.0, 14,
     "von Krankenkassen bezuschusst (§ 20 SGB V)"),
    ("27B-322", "Aqua-Fitness", "Gesundheit", "Markus Tjaden", "Kranichsee", "Hallenbad Kranichsee",
     "Fr", "8:15–9:00", "2027-02-19", 10, 10, 65.0, 32.5, 12, "Eintritt ins Bad im Entgelt enthalten"),
    ("27B-330", "Indisch vegetarisch kochen", "Gesundheit", "Priya Natarajan-Schulz", "Haus der Bildung",
     "Lehrküche 0.21", "Fr", "18:00–21:45", "2027-03-12", 1, 5, 24.0, 24.0, 10, "zzgl. 14,50 € Lebensmittelumlage"),
    ("27B-334", "Brot backen mit Sauerteig", "Gesundheit", "Hinrich Bödeker", "Moorwinkel", "Alte Schule, Küche",
     "Sa", "10:00–15:00", "2027-04-17", 1, 6, 29.0, 29.0, 8, "zzgl. 9,00 € Materialumlage"),
    ("27B-340", "Erste Hilfe am Kind", "Gesundheit", "DRK-Ausbilderteam", "Haus der Bildung", "1.01",
     "Sa", "9:00–16:30", "2027-03-20", 1, 9, 45.0, 45.0, 18, "keine Ermäßigung"),
    ("27C-402", "Excel Grundlagen", "Beruf und EDV", "Tobias Hain", "Haus der Bildung", "EDV-Raum 1.12",
     "Di, Do", "18:00–21:00", "2027-03-02", 4, 16, 119.0, 59.5, 10, ""),
    ("27C-406", "Excel für Fortgeschrittene: Pivot und SVERWEIS", "Beruf und EDV", "Jelena Marković",
     "Haus der Bildung", "EDV-Raum 1.12", "Sa", "9:00–16:00", "2027-04-10", 2, 16, 129.0, 64.5, 10, ""),
    ("27C-415", "Smartphone-Sprechstunde für Seniorinnen und Senioren", "Beruf und EDV", "Kemal Aydın",
     "Haus der Bildung", "1.10", "Mi", "15:00–16:30", "2027-02-17", 6, 12, 0.0, 0.0, 8,
     "kostenfrei, gefördert vom Seniorenbeirat"),
    ("27C-420", "Bildungsurlaub: Digitale Zusammenarbeit im Team", "Beruf und EDV", "Jelena Marković",
     "Haus der Bildung", "EDV-Raum 1.12", "Mo–Fr", "8:30–15:30", "2027-05-10", 5, 40, 385.0, 385.0, 12,
     "als Bildungsurlaub anerkannt"),
    ("27C-431", "Linux auf dem Heimrechner – erste Schritte", "Beruf und EDV", "Kemal Aydın", "Haus der Bildung",
     "EDV-Raum 1.12", "Di", "18:30–20:45", "2027-04-13", 4, 12, 68.0, 34.0, 10, "eigener Laptop möglich"),
    ("27D-501", "Aquarellmalen am Wochenende", "Kultur und Gestalten", "Ingrid Wessels-Ohm", "Haus der Bildung",
     "Atelier 0.16", "Sa, So", "10:00–16:00", "2027-03-13", 2, 14, 98.0, 49.0, 12, "Materialliste auf Anfrage"),
    ("27D-520", "Töpfern für Eltern und Kinder", "Kultur und Gestalten", "Marlene Ahrends", "Haus der Bildung",
     "Töpferwerkstatt 0.18", "Sa", "10:00–12:15", "2027-02-27", 3, 9, 54.0, 54.0, 8,
     "Preis je Paar (1 Erwachsener + 1 Kind), zzgl. Brennkosten"),
    ("27D-533", "Digitale Fotografie: Raus aus dem Automatikmodus", "Kultur und Gestalten", "Olaf Heuer",
     "Steinbühl", "Dorfgemeinschaftshaus", "Mi", "19:00–21:15", "2027-04-14", 5, 15, 89.0, 44.5, 12, ""),
    ("27D-540", "Ukulele für Anfänger", "Kultur und Gestalten", "Finn Ubbelohde", "Kranichsee",
     "Bürgerhaus, Saal", "Do", "19:30–21:00", "2027-02-25", 8, 16, 88.0, 44.0, 10, "Leih-Ukulele 10,00 € Kursmiete"),
    ("27E-601", "Vortrag: Die Moore rund um Haselbrück", "Gesellschaft", "Dr. Wiebke Lorenzen", "Moorwinkel",
     "Alte Schule, Saal", "Di", "19:30–21:00", "2027-03-09", 1, 2, 6.0, 3.0, 60, "Abendkasse"),
    ("27E-612", "Senioren-Uni: Geschichte der Hanse", "Gesellschaft", "Prof. i. R. Dieter Claußen",
     "Haus der Bildung", "Saal 0.01", "Do", "10:00–11:30", "2027-02-18", 8, 16, 48.0, 48.0, 40, ""),
    ("27E-620", "Mein Geld im Griff – Finanzen im Ruhestand", "Gesellschaft", "Verbraucherzentrale (Referentin)",
     "Haus der Bildung", "1.01", "Mi", "18:00–20:15", "2027-03-24", 1, 3, 12.0, 6.0, 20, ""),
]

ROOMS = [
    ("Raum", "Ort", "Plätze", "Ausstattung", "barrierefrei"),
    ("Saal 0.01", "Haus der Bildung, EG", 80, "Beamer, Mikrofonanlage, Bühne", "ja"),
    ("1.01", "Haus der Bildung, 1. OG", 24, "Beamer, Flipchart", "ja (Aufzug)"),
    ("1.03", "Haus der Bildung, 1. OG", 18, "Smartboard", "ja (Aufzug)"),
    ("1.10", "Haus der Bildung, 1. OG", 12, "Bildschirm 65 Zoll, Dokumentenkamera", "ja (Aufzug)"),
    ("EDV-Raum 1.12", "Haus der Bildung, 1. OG", 16, "16 PCs (Windows 11), Beamer, Laserdrucker", "ja (Aufzug)"),
    ("2.12", "Haus der Bildung, 2. OG", 14, "Beamer", "ja (Aufzug)"),
    ("2.14", "Haus der Bildung, 2. OG", 16, "Bildschirm 65 Zoll", "ja (Aufzug)"),
    ("Atelier 0.16", "Haus der Bildung, EG", 12, "Staffeleien, Waschbecken", "ja"),
    ("Töpferwerkstatt 0.18", "Haus der Bildung, EG", 10, "Brennofen, 4 Drehscheiben", "ja"),
    ("Lehrküche 0.21", "Haus der Bildung, EG", 12, "5 Kochinseln, Spülmaschine", "ja"),
    ("Grundschule, Raum 3", "Erlenau, Schulweg 4", 20, "Tafel", "nein"),
    ("Turnhalle der Grundschule", "Erlenau, Schulweg 4", 20, "Matten vorhanden (begrenzt)", "ja"),
    ("Dorfgemeinschaftshaus", "Steinbühl, Lindenplatz 2", 30, "Beamer (mobil)", "ja"),
    ("Bürgerhaus, Saal", "Kranichsee, Seestraße 11", 40, "Klavier, Beamer", "ja"),
    ("Alte Schule, Saal", "Moorwinkel, Kirchdamm 1", 60, "Beamer, Leinwand", "nein"),
]


def courses_sheet(path: Path) -> None:
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.style import Style, TableCellProperties, TextProperties
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    doc = OpenDocumentSpreadsheet()
    bold = Style(name="fett", family="table-cell")
    bold.addElement(TextProperties(fontweight="bold"))
    bold.addElement(TableCellProperties(backgroundcolor="#dde8f0"))
    doc.automaticstyles.addElement(bold)

    def row(table, values, style=None):
        tr = TableRow()
        for value in values:
            if value is None or value == "":
                tr.addElement(TableCell())
            elif isinstance(value, float):
                text = "kostenfrei" if value == 0 else de(value) + " €"
                cell = TableCell(valuetype="currency", currency="EUR", value=value)
                cell.addElement(P(text=text))
                tr.addElement(cell)
            elif isinstance(value, int):
                cell = TableCell(valuetype="float", value=value)
                cell.addElement(P(text=str(value)))
                tr.addElement(cell)
            elif isinstance(value, str) and re.fullmatch(r"\d{4}-\d\d-\d\d", value):
                day = dt.date.fromisoformat(value)
                cell = TableCell(valuetype="date", datevalue=value)
                cell.addElement(P(text=day.strftime("%d.%m.%Y")))
                tr.addElement(cell)
            else:
                cell = TableCell(valuetype="string", stylename=style) if style else TableCell(valuetype="string")
                cell.addElement(P(text=str(value)))
                tr.addElement(cell)
        table.addElement(tr)

    courses = Table(name="Kurse Frühjahr 2027")
    row(courses, ["VHS Haselbrück – Kursprogramm Frühjahr 2027 (Stand: 07.12.2026, Änderungen vorbehalten)"])
    row(courses, [])
    row(courses, ["Kurs-Nr.", "Titel", "Fachbereich", "Kursleitung", "Ort", "Raum", "Tag", "Uhrzeit", "Beginn",
                  "Termine", "UE", "Entgelt", "ermäßigt", "max. TN", "Hinweis"], style=bold)
    for course in COURSES:
        row(courses, list(course))
    row(courses, [])
    row(courses, ["UE = Unterrichtseinheit zu 45 Minuten. Ermäßigung nach Abschnitt 4 der Teilnahmebedingungen."])
    doc.spreadsheet.addElement(courses)

    rooms = Table(name="Räume")
    row(rooms, list(ROOMS[0]), style=bold)
    for room in ROOMS[1:]:
        row(rooms, list(room))
    doc.spreadsheet.addElement(rooms)

    buffer = io.BytesIO()
    doc.write(buffer)
    path.write_bytes(buffer.getvalue())


# ---------------------------------------------------------------------------------------------------------- XML
EXAMS = [
    # id, art, Bezeichnung, Datum, schriftlich, mündlich, Anmeldeschluss, Gebühr, Ort, Plätze, Hinweis (de), note (en)
    ("P27-01", "deutsch", "Deutsch-Test für Zuwanderer (DTZ) A2–B1", "2027-01-23", "9:00", "ab 13:30",
     "2026-12-11", "0.00", "Haus der Bildung, Saal 0.01", 40,
     "Für Teilnehmende eines Integrationskurses kostenfrei (Kostenübernahme durch das BAMF).", ""),
    ("P27-02", "einbuergerung", "Test „Leben in Deutschland“ / Einbürgerungstest", "2027-02-13", "10:00", "",
     "2027-01-15", "25.00", "Haus der Bildung, 1.01", 24,
     "Bitte Personalausweis oder Reisepass und Aufenthaltstitel mitbringen.", ""),
    ("P27-03", "deutsch", "telc Deutsch B2", "2027-03-06", "9:00", "ab 14:00", "2027-01-29", "195.00",
     "Haus der Bildung, 1.03", 16, "", "Oral exam in pairs; partners are assigned by the examination office."),
    ("P27-04", "englisch", "telc English B1", "2027-03-20", "9:30", "ab 13:00", "2027-02-12", "150.00",
     "Haus der Bildung, 2.14", 12, "", ""),
    ("P27-05", "deutsch", "Deutsch-Test für Zuwanderer (DTZ) A2–B1", "2027-04-10", "9:00", "ab 13:30",
     "2027-02-26", "0.00", "Haus der Bildung, Saal 0.01", 40,
     "Selbstzahler: 139,00 €", ""),
    ("P27-06", "einbuergerung", "Test „Leben in Deutschland“ / Einbürgerungstest", "2027-05-08", "10:00", "",
     "2027-04-16", "25.00", "Kranichsee, Bürgerhaus", 24, "", "Results are sent by the BAMF after about 4-6 weeks."),
    ("P27-07", "englisch", "Cambridge English: First (FCE), paper-based", "2027-05-22", "9:00", "nach Einteilung",
     "2027-03-19", "228.00", "Haus der Bildung, Saal 0.01", 20,
     "Anmeldung über die VHS, Durchführung mit dem Cambridge-Prüfungszentrum Lüneheide.",
     "Speaking test may take place on a different day (Friday 21 May 2027)."),
    ("P27-08", "deutsch", "telc Deutsch C1 Hochschule", "2027-06-05", "8:30", "ab 15:00", "2027-04-23", "235.00",
     "Haus der Bildung, 1.03", 12, "Ermäßigung für Studierende: 10 %", ""),
    ("P27-09", "spanisch", "DELE A2 (Instituto Cervantes)", "2027-05-21", "9:00", "ab 14:00", "2027-04-07",
     "130.00", "Haus der Bildung, 2.12", 10, "Anmeldung direkt beim Instituto Cervantes, wir sind nur Prüfungsort.", ""),
    ("P27-10", "edv", "Xpert Business Finanzbuchhaltung 1", "2027-06-19", "10:00", "", "2027-05-28", "89.00",
     "Haus der Bildung, EDV-Raum 1.12", 16, "", "Online exam; bring your own headphones."),
    ("P27-11", "einbuergerung", "Test „Leben in Deutschland“ / Einbürgerungstest", "2027-07-03", "10:00", "",
     "2027-06-11", "25.00", "Haus der Bildung, 1.01", 24, "", ""),
    ("P27-12", "deutsch", "Deutsch-Test für Zuwanderer (DTZ) A2–B1", "2027-07-10", "9:00", "ab 13:30",
     "2027-05-28", "0.00", "Steinbühl, Dorfgemeinschaftshaus", 24, "letzter Termin vor den Sommerferien", ""),
]


def exams_xml(path: Path) -> None:
    from xml.sax.saxutils import escape

    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             "<!-- Exportiert aus der Kursverwaltung (Modul Prüfungen) am 07.12.2026, Stand der Planung -->",
             '<pruefungstermine xmlns="urn:example:vhs-haselbrueck:pruefungen" jahr="2027" version="3">',
             "  <kopf>",
             f"    <herausgeber>{escape(VHS)}</herausgeber>",
             "    <pruefungsbuero>Pruefungsbuero, Raum 2.06, pruefungen@vhs-haselbrueck.example</pruefungsbuero>",
             "    <hinweis>Die Prüfungsgebühr ist mit der Anmeldung fällig. Bei Rücktritt bis zum Anmeldeschluss "
             "wird sie abzüglich 20,00 € Bearbeitungsgebühr erstattet, danach nicht mehr.</hinweis>",
             "  </kopf>"]
    for (eid, kind, title, day, written, oral, deadline, fee, place, seats, hint, note) in EXAMS:
        lines.append(f'  <pruefung id="{eid}" art="{kind}">')
        lines.append(f"    <bezeichnung>{escape(title)}</bezeichnung>")
        lines.append(f'    <termin datum="{day}">')
        lines.append(f"      <schriftlich beginn=\"{written}\"/>")
        if oral:
            lines.append(f"      <muendlich>{escape(oral)}</muendlich>")
        lines.append("    </termin>")
        lines.append(f"    <anmeldeschluss>{deadline}</anmeldeschluss>")
        lines.append(f'    <gebuehr waehrung="EUR">{fee}</gebuehr>')
        lines.append(f"    <ort>{escape(place)}</ort>")
        lines.append(f"    <plaetze>{seats}</plaetze>")
        if hint:
            lines.append(f"    <hinweis>{escape(hint)}</hinweis>")
        if note:
            lines.append(f'    <note xml:lang="en">{escape(note)}</note>')
        lines.append("  </pruefung>")
    lines.append("</pruefungstermine>")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------------------------------------------- CSV
TRIPS_HEADER = ["Nr.", "Ziel", "Thema", "Datum", "Abfahrt", "Treffpunkt", "Leitung", "Preis", "ermäßigt",
                "Leistungen", "Anmeldeschluss", "Plätze", "Bemerkung"]
TRIPS = [
    ["27E-701", "Lüneheide", "Salzmuseum und Altstadtführung", "Sa 20.03.2027", "8:00", "ZOB Haselbrück, Steig 4",
     "Ralf Demirci", "64,00 EUR", "52,00 EUR", "Bus, Eintritt, Führung", "05.03.2027", "45", ""],
    ["27E-702", "Hamburg", "Speicherstadt und Elbphilharmonie (Plaza)", "Sa 17.04.2027", "7:15",
     "ZOB Haselbrück, Steig 4", "Ralf Demirci", "72,00 EUR", "", "Bus, Führung, Hafenrundfahrt",
     "19.03.2027", "45", "keine Ermäßigung möglich"],
    ["27E-703", "Moorwinkel", "Moorwanderung mit Torfstich", "So 25.04.2027", "14:00",
     "Parkplatz Alte Schule Moorwinkel", "Dr. Wiebke Lorenzen", "8,00 EUR", "4,00 EUR", "Führung", "",
     "25", "Gummistiefel!; eigene Anreise"],
    ["27E-704", "Berlin", "Politische Bildungsfahrt: Bundestag und Gedenkstätte Hohenschönhausen",
     "Mi 12.05. bis Fr 14.05.2027", "6:30", "Bahnhof Haselbrück, Gleis 1", "Ralf Demirci", "289,00 EUR",
     "249,00 EUR", "Bahnfahrt, 2 Übernachtungen mit Frühstück im DZ, Führungen",
     "12.03.2027", "30", "EZ-Zuschlag 58,00 EUR; Personalausweis erforderlich"],
    ["27E-705", "Bremen", "Übersee-Museum und Schnoor", "Sa 05.06.2027", "8:30", "ZOB Haselbrück, Steig 4",
     "Birte Oltmanns", "59,00 EUR", "49,00 EUR", "Bus, Eintritt, Führung", "14.05.2027", "45", ""],
    ["27E-706", "Kranichsee", "Kraniche beobachten am Abend (Ornithologie)", "Fr 08.10.2027", "17:00",
     "Aussichtsturm Kranichsee", "NABU-Gruppe Kranichsee", "6,00 EUR", "3,00 EUR", "Führung, Leihfernglas",
     "", "20", "Fernglas kann geliehen werden"],
    ["27E-707", "Weimar", "Klassik und Bauhaus", "Do 23.09. bis So 26.09.2027", "7:00",
     "ZOB Haselbrück, Steig 4", "Birte Oltmanns", "465,00 EUR", "", "Bus, 3 Übernachtungen/HP, Eintritte",
     "30.06.2027", "35", "Anzahlung 100,00 EUR bei Anmeldung; Rest bis 4 Wochen vorher"],
    ["27E-708", "Steinbühl", "Besuch der Biogasanlage Hof Ostermann", "Mi 02.06.2027", "16:00",
     "Hof Ostermann, Steinbühl", "Tobias Hain", "kostenfrei", "", "Führung", "26.05.2027", "20",
     "festes Schuhwerk"],
    ["27E-709", "Wolfsburg", "Autostadt und phaeno", "Sa 11.09.2027", "8:00", "ZOB Haselbrück, Steig 4",
     "Ralf Demirci", "69,00 EUR", "59,00 EUR", "Bus, Eintritte", "20.08.2027", "45", "Familien: Kinder bis 14 J. 35,00 EUR"],
    ["27E-710", "Haselbrück", "Stadtführung: Haselbrück im Mittelalter", "So 16.05.2027", "11:00",
     "Marktbrunnen", "Gästeführerin Hanna Kück", "5,00 EUR", "", "Führung", "", "30", "ohne Anmeldung"],
]


def trips(path: Path) -> None:
    """An Excel-style export ("CSV (Trennzeichen-getrennt)"): every line padded with ; to the column count."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=";", lineterminator="\r\n")
    width = len(TRIPS_HEADER)

    def line(cells: list[str]) -> None:
        writer.writerow(cells + [""] * (width - len(cells)))

    line(["Studienfahrten und Exkursionen 2027 - Fachbereich Gesellschaft (Stand 07.12.2026)"])
    line([])
    line(TRIPS_HEADER)
    for trip in TRIPS:
        line(trip)
    line([])
    line([f"{len(TRIPS)} Fahrten; Rücktritt von Studienfahrten: siehe Teilnahmebedingungen Abschnitt 5.3"])
    line(["Anmeldung: Servicebüro 05179 6620-0; Fragen zu den Fahrten: Ralf Demirci, Durchwahl -61"])
    path.write_bytes(buffer.getvalue().encode("iso-8859-1"))


# ----------------------------------------------------------------------------------------------------- Markdown
WIKI_PAGE = """\
> Intranet › IT & Medientechnik › Kursräume › **WLAN und Medientechnik**

# WLAN und Medientechnik in den Kursräumen

*Zuletzt bearbeitet von Kemal Aydın am 30.11.2026 · Seite für Kursleitende und Servicebüro*

Diese Seite sammelt, was Kursleitende im Haus der Bildung und in den Außenstellen zur Technik wissen müssen.
Wenn etwas nicht funktioniert: erst hier nachsehen, dann ein Ticket an `it@vhs-haselbrueck.example` schreiben
oder während der Kurszeiten die IT-Bereitschaft anrufen (siehe unten).

## WLAN-Netze

| Netz (SSID) | Für wen | Anmeldung | Gültigkeit |
|---|---|---|---|
| `VHS-Intern` | Mitarbeitende, Dienstgeräte | Benutzername + Passwort (wie am PC) | dauerhaft |
| `VHS-Kursleitung` | Kursleitende mit eigenem Laptop | Zugang aus dem KuLe-Portal | bis Semesterende |
| `VHS-Gast` | Teilnehmende | Voucher-Code (8-stellig) | 6 Stunden ab erster Anmeldung |
| `Bürgerhaus-Frei` | Kranichsee, Bürgerhaus | ohne Anmeldung (Netz der Gemeinde) | – |

Voucher-Codes für `VHS-Gast` druckt das Servicebüro aus, 20 Stück pro Kurs und Abend. In **Steinbühl** und
**Moorwinkel** gibt es kein WLAN der VHS; dort hilft nur der mobile LTE-Router aus dem Medienschrank
(Ausleihe beim Servicebüro, Datenvolumen 30 GB im Monat für alle zusammen).

> **Notiz (Kemal):** Der Gast-Voucher funktioniert nur auf einem Gerät. Wer Handy und Laptop nutzen will,
> braucht zwei Codes.

## Beamer, Bildschirme und Anschlüsse

- Alle Beamer und Bildschirme haben **HDMI**. Adapter (USB-C, Mini-DisplayPort, Lightning) liegen im
  Medienschrank im Flur des 1. OG, Schlüssel im Servicebüro.
- Die Fernbedienungen liegen in der Schublade des Lehrertischs. Bitte nach dem Kurs dorthin zurücklegen.
- Im Saal 0.01 wird der Beamer über das Wandpanel neben der Tür eingeschaltet (Taste „Präsentation“); die
  Mikrofonanlage hat zwei Funkmikrofone, Ersatzbatterien (AA) liegen im Regiepult.
- Die Dokumentenkamera in Raum 1.10 schaltet sich nach 20 Minuten ohne Bewegung ab. Einmal die Taste
  „Live“ drücken, dann ist sie wieder da.

## Laptopwagen

Für Kurse ohne EDV-Raum gibt es einen Laptopwagen mit **12 Notebooks** (Windows 11, Office, Firefox).
Er wird mindestens **fünf Werktage vorher** über ein Ticket mit Kursnummer und Datum gebucht.
Nach dem Kurs kommt der Wagen zurück in Raum 1.12b und wird **an den Strom angeschlossen**, sonst sind die
Akkus beim nächsten Kurs leer.

## Zugang zum KuLe-Portal

Im KuLe-Portal (Kursleitungsportal) führen Kursleitende die Anwesenheit und rechnen ihr Honorar ab.

1. Die Zugangsdaten kommen per E-Mail mit dem Honorarvertrag.
2. Das Passwort muss mindestens 12 Zeichen lang sein und wird alle 365 Tage erneuert.
3. Nach **fünf Fehlversuchen** ist das Konto 30 Minuten gesperrt.

Passwort vergessen? Auf der Anmeldeseite „Passwort zurücksetzen“ wählen; der Link in der E-Mail gilt
24 Stunden. Für das Servicebüro: entsperren kann nur die IT. Auf dem Portalserver `kule01` geht das so:

```bash
# Konto entsperren (Benutzername = Kursleitungsnummer, z. B. KL-0815)
sudo -u kule /opt/kule/bin/kulectl account unlock KL-0815
# Liste der gesperrten Konten
sudo -u kule /opt/kule/bin/kulectl account list --locked
```

> **Notiz (Tobias):** Bitte keine Passwörter am Telefon herausgeben, auch nicht an bekannte Kursleitende.
> Immer den Link zum Zurücksetzen schicken.

## IT-Bereitschaft

| Zeit | Wer | Telefon |
|---|---|---|
| Mo–Fr 8:00–14:00 | Kemal Aydın | 05179 6620-44 |
| Mo–Do 17:00–21:00 | Bereitschaftshandy IT (wechselnd) | 0160 9911 5530 |
| Sa bei Wochenendkursen | Tobias Hain | 0160 9911 5531 |

Am Freitagabend und am Sonntag gibt es keine IT-Bereitschaft.

## Bekannte Probleme

- *Kein Ton über HDMI in Raum 2.14:* am Bildschirm die Quelle „HDMI 2“ wählen, nicht „HDMI 1“.
- *Drucker im EDV-Raum druckt nicht:* Der Laserdrucker heißt `EDV-1.12-Laser`; der alte Drucker
  `EDV-Drucker-alt` ist abgebaut und muss aus der Liste gelöscht werden.
- *Windows-Updates beim Hochfahren:* Die PCs im EDV-Raum installieren Updates dienstags nach 22:00 Uhr.
  Wer am Mittwochmorgen als Erster kommt, sollte 10 Minuten früher einschalten.
"""


# --------------------------------------------------------------------------------------------------------- HTML
PLACES = [
    ("Haus der Bildung (Hauptstelle)", "Am Mühlgraben 7, Haselbrück", "Servicebüro (Petra Kowalczyk)",
     "siehe Servicezeiten", "ja, Aufzug bis 2. OG", "Tiefgarage Mühlgraben (2 Std. frei mit Kursausweis)",
     "Transponder vom Hausmeister"),
    ("Außenstelle Erlenau", "Grundschule Erlenau, Schulweg 4", "Gisela Harms", "Di 16:00–18:00",
     "nur Turnhalle", "Schulhof (ab 16 Uhr)", "Schlüssel beim Hausmeister der Schule, Herr Gerken"),
    ("Außenstelle Steinbühl", "Dorfgemeinschaftshaus, Lindenplatz 2", "Frank Ostermann", "Mi 17:00–18:30",
     "ja", "Lindenplatz", "Schlüsselkasten, Code über die Außenstellenleitung"),
    ("Außenstelle Kranichsee", "Bürgerhaus, Seestraße 11", "Lea Voss", "Do 10:00–12:00",
     "ja", "Parkplatz am See (kostenpflichtig, 1,50 € pro Stunde)", "Bürgerhaus-Verwaltung im EG"),
    ("Außenstelle Moorwinkel", "Alte Schule, Kirchdamm 1", "Heiko Brüning", "nach Vereinbarung",
     "nein (Stufen am Eingang)", "Kirchplatz", "Schlüssel bei Heiko Brüning, Kirchdamm 3"),
]


def places_page() -> str:
    from html import escape

    rows = "\n".join(
        "          <tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in place) + "</tr>" for place in PLACES)
    return f"""<!DOCTYPE html>
<html lang="de">
<head>
  <meta charset="utf-8">
  <title>Außenstellen und Kursorte – Intranet VHS Haselbrück</title>
  <link rel="stylesheet" href="/static/intranet.css">
</head>
<body>
  <a class="skip" href="#inhalt">Zum Inhalt springen</a>
  <header class="top">
    <div class="logo"><img src="/static/vhs-logo.svg" alt="VHS Haselbrück"> Intranet</div>
    <nav class="main-nav" aria-label="Hauptnavigation">
      <ul>
        <li><a href="/start">Start</a></li>
        <li><a href="/programm">Programm</a></li>
        <li class="active"><a href="/orte">Orte &amp; Räume</a></li>
        <li><a href="/kursleitung">Für Kursleitende</a></li>
        <li><a href="/verwaltung">Verwaltung</a></li>
        <li><a href="/it">IT &amp; Medientechnik</a></li>
        <li><a href="/telefonliste">Telefonliste</a></li>
      </ul>
    </nav>
    <form class="search" action="/suche" method="get">
      <label for="q">Intranet durchsuchen</label> <input id="q" name="q" type="search"> <button>Suchen</button>
    </form>
  </header>
  <nav class="breadcrumb" aria-label="Brotkrumen">
    <a href="/start">Start</a> &rsaquo; <a href="/orte">Orte &amp; Räume</a> &rsaquo; <span>Außenstellen und Kursorte</span>
  </nav>
  <div class="layout">
    <aside class="sidebar">
      <h2>In diesem Bereich</h2>
      <ul>
        <li><a href="/orte/raumliste">Raumliste Haus der Bildung</a></li>
        <li><a href="/orte/aussenstellen" aria-current="page">Außenstellen und Kursorte</a></li>
        <li><a href="/orte/raumvermietung">Raumvermietung an Externe</a></li>
        <li><a href="/orte/brandschutz">Brandschutz und Evakuierung</a></li>
      </ul>
      <h2>Schnellzugriff</h2>
      <ul>
        <li><a href="/kursleitung/kule">KuLe-Portal</a></li>
        <li><a href="/it/tickets">IT-Ticket schreiben</a></li>
        <li><a href="/verwaltung/formulare">Formulare</a></li>
      </ul>
    </aside>
    <main id="inhalt">
      <h1>Außenstellen und Kursorte</h1>
      <p class="meta">Verantwortlich: Petra Kowalczyk (Servicebüro) · zuletzt geändert am 02.12.2026</p>
      <nav class="toc" aria-label="Auf dieser Seite">
        <strong>Auf dieser Seite:</strong>
        <a href="#servicezeiten">Servicezeiten</a> ·
        <a href="#orte">Unsere Kursorte</a> ·
        <a href="#ausfall">Wenn ein Kurs ausfällt</a> ·
        <a href="#schliesstage">Schließtage 2027</a>
      </nav>

      <section id="servicezeiten">
        <h2>Servicezeiten des Servicebüros im Haus der Bildung</h2>
        <p>Das Servicebüro (Raum 0.02, Telefon 05179 6620-0) ist für Anmeldungen, Abmeldungen, Ermäßigungen
        und Bescheinigungen zuständig. Es ist zu folgenden Zeiten besetzt:</p>
        <ul>
          <li>Montag bis Donnerstag: 9:00–12:30 Uhr und 14:00–17:30 Uhr</li>
          <li>Freitag: 9:00–12:30 Uhr</li>
          <li>Samstag: geschlossen, außer an den beiden ersten Samstagen nach Programmstart
          (13.02. und 20.02.2027) von 10:00 bis 13:00 Uhr</li>
        </ul>
        <p>In den Schulferien ist das Servicebüro nur vormittags besetzt.</p>
      </section>

      <section id="orte">
        <h2>Unsere Kursorte</h2>
        <p>Neben dem Haus der Bildung finden Kurse in vier Außenstellen statt. Die Außenstellenleitungen sind
        ehrenamtlich tätig und zu ihren Sprechzeiten vor Ort erreichbar.</p>
        <table class="data">
          <caption>Kursorte der VHS Haselbrück (Frühjahr 2027)</caption>
          <thead>
            <tr><th>Ort</th><th>Adresse</th><th>Ansprechperson</th><th>Sprechzeit</th><th>Barrierefrei</th><th>Parken</th><th>Schlüssel</th></tr>
          </thead>
          <tbody>
{rows}
          </tbody>
        </table>
        <div class="tip">
          <strong>Tipp:</strong> Die Tiefgarage Mühlgraben ist mit dem Kursausweis zwei Stunden kostenlos. Den
          Parkschein am Automaten im Servicebüro-Flur entwerten, bevor Sie gehen.
        </div>
      </section>

      <section id="ausfall">
        <h2>Wenn ein Kurs ausfällt</h2>
        <p>Kursleitende, die krank werden, rufen so früh wie möglich im Servicebüro an, spätestens
        <strong>zwei Stunden vor Kursbeginn</strong>. Außerhalb der Servicezeiten sprechen sie auf den
        Anrufbeantworter der Durchwahl -99 und schreiben zusätzlich eine E-Mail an ausfall@vhs-haselbrueck.example.
        Das Servicebüro informiert die Teilnehmenden per SMS und E-Mail und hängt in der Außenstelle einen
        Zettel aus. Ausgefallene Termine werden am Kursende angehängt.</p>
        <ol>
          <li>Anruf im Servicebüro (oder Anrufbeantworter -99)</li>
          <li>E-Mail an ausfall@vhs-haselbrueck.example mit Kursnummer und Datum</li>
          <li>Nachholtermin mit der Fachbereichsleitung absprechen</li>
        </ol>
      </section>

      <section id="schliesstage">
        <h2>Schließtage 2027</h2>
        <p>An diesen Tagen finden keine Kurse statt und das Haus der Bildung ist geschlossen:</p>
        <ul>
          <li>Rosenmontag, 08.02.2027 (nur Servicebüro geschlossen, Kurse finden statt)</li>
          <li>Osterferien: 22.03. bis 02.04.2027 (nur Kompakt- und Ferienkurse)</li>
          <li>Brückentag nach Christi Himmelfahrt: 07.05.2027</li>
          <li>Betriebsausflug: Mittwoch, 16.06.2027 (ganztägig)</li>
          <li>Sommerpause: 19.07. bis 27.08.2027</li>
        </ul>
      </section>
    </main>
  </div>
  <footer class="site-footer">
    <p>{VHS} · {ADDRESS} · Telefon 05179 6620-0 ·
    <a href="/impressum">Impressum</a> · <a href="/datenschutz">Datenschutz</a></p>
    <p>Nur für den internen Gebrauch.</p>
  </footer>
</body>
</html>
"""


# --------------------------------------------------------------------------------------------------------- PPTX
SLIDES = [
    ("title", "Willkommen an der VHS Haselbrück",
     "Einführung für neue Kursleitende · Frühjahrssemester 2027\nDr. Henrike Albers und Tobias Hain · 30.01.2027",
     ""),
    ("bullets", "Die VHS Haselbrück in Zahlen (2026)",
     ["1.412 Kurse und Veranstaltungen", "17.860 Belegungen", "214 Kursleitende, davon 38 neu",
      "Haus der Bildung und vier Außenstellen: Erlenau, Steinbühl, Kranichsee, Moorwinkel",
      "Träger: Zweckverband Volkshochschule Haselbrück (Stadt und Samtgemeinde)"],
     "Zahlen aus dem Jahresbericht 2026, Folie nur als Einstieg, nicht ausführlich besprechen."),
    ("table", "Honorarsätze ab 01.02.2027",
     [("Bereich", "Honorar pro UE (45 Min.)", "Bemerkung"),
      ("Allgemeine Kurse", "28,00 €", "Gesundheit, Kultur, Gesellschaft"),
      ("Sprachen und EDV", "32,00 €", "ab Niveau B2: 34,00 €"),
      ("Integrationskurse", "45,00 €", "nur mit BAMF-Zulassung"),
      ("Bildungsurlaub und Firmenschulungen", "40,00 €", "pro UE, max. 8 UE am Tag"),
      ("Vorträge (einmalig)", "90,00 € pauschal", "bis 90 Minuten")],
     "Die Sätze gelten für alle Verträge, die ab Februar 2027 beginnen. Laufende Verträge werden nicht "
     "rückwirkend geändert."),
    ("bullets", "Abrechnung im KuLe-Portal",
     ["Anwesenheit nach jedem Termin im KuLe-Portal eintragen",
      "Honorarabrechnung bis zum 5. des Folgemonats abschicken",
      "Auszahlung zum 15. des Folgemonats auf Ihr Konto",
      "Fahrtkosten: 0,30 € pro km, erst ab 10 km einfacher Strecke, nur für Kurse in den Außenstellen",
      "Materialkosten nur nach vorheriger Absprache und mit Beleg"],
     "Wichtig: Wer die Frist verpasst, wird erst mit dem nächsten Monat ausgezahlt. Fragen zur Abrechnung: "
     "Ute Meinhardt, Buchhaltung."),
    ("bullets", "Vor dem ersten Kurstag",
     ["Teilnehmerliste im KuLe-Portal ansehen (ab 3 Tage vor Beginn)",
      "Transponder oder Schlüssel beim Hausmeister abholen – Pfand 20,00 €",
      "Raum vorher ansehen: Technik, Bestuhlung, Fluchtwege",
      "Bei weniger als 8 Anmeldungen entscheidet die Fachbereichsleitung, ob der Kurs stattfindet"],
     ""),
    ("bullets", "Wenn Sie krank sind",
     ["So früh wie möglich im Servicebüro anrufen: 05179 6620-0",
      "Spätestens 2 Stunden vor Kursbeginn",
      "Abends und am Wochenende: Anrufbeantworter Durchwahl -99",
      "Ausgefallene Termine werden am Ende angehängt – nicht selbst einen Ersatztermin vereinbaren"],
     "Bitte nicht die Teilnehmenden selbst per WhatsApp informieren (Datenschutz)."),
    ("bullets", "Fortbildung für Kursleitende",
     ["Zwei Fortbildungen pro Jahr sind für Sie kostenlos",
      "Pflicht für alle neuen Kursleitenden: „Erste Hilfe im Kursraum“ (2 Stunden, online)",
      "Nächster Termin „Didaktik für Erwachsene“: Samstag, 06.03.2027, 9:30–15:00 Uhr, Saal 0.01",
      "Anmeldung über das KuLe-Portal, Menü „Fortbildung“"],
     ""),
    ("table", "Ihre Ansprechpersonen",
     [("Thema", "Wer", "Durchwahl"),
      ("Vertrag, Kursplanung", "Ihre Fachbereichsleitung", "siehe Telefonliste"),
      ("Honorar, Fahrtkosten", "Ute Meinhardt", "-72"),
      ("Schlüssel, Heizung, Räume", "Bernd Sasse (Hausmeister)", "0160 9911 4827"),
      ("WLAN, Beamer, KuLe-Portal", "Kemal Aydın", "-44"),
      ("Kursausfall, Teilnehmende", "Servicebüro", "-0")],
     "Telefonliste liegt auch im Intranet unter „Telefonliste“."),
]


def instructors_pptx(path: Path) -> None:
    from pptx import Presentation
    from pptx.util import Emu, Pt

    prs = Presentation()
    prs.core_properties.author = "Tobias Hain"
    prs.core_properties.title = "Einführung für neue Kursleitende 2027"
    prs.core_properties.created = prs.core_properties.modified = FIXED
    prs.core_properties.last_modified_by = "Tobias Hain"
    prs.core_properties.revision = 4
    for number, (kind, title, body, notes) in enumerate(SLIDES, start=1):
        if kind == "title":
            slide = prs.slides.add_slide(prs.slide_layouts[0])
            slide.shapes.title.text = title
            slide.placeholders[1].text = body
        elif kind == "bullets":
            slide = prs.slides.add_slide(prs.slide_layouts[1])
            slide.shapes.title.text = title
            frame = slide.placeholders[1].text_frame
            frame.text = body[0]
            for line in body[1:]:
                frame.add_paragraph().text = line
        else:
            slide = prs.slides.add_slide(prs.slide_layouts[5])
            slide.shapes.title.text = title
            shape = slide.shapes.add_table(len(body), len(body[0]), Emu(457200), Emu(1600200), Emu(8229600),
                                           Emu(370840 * len(body)))
            for r, line in enumerate(body):
                for c, text in enumerate(line):
                    cell = shape.table.cell(r, c)
                    cell.text = text
                    cell.text_frame.paragraphs[0].runs[0].font.size = Pt(16)
        if number > 1:  # a footer text box on every slide but the first
            box = slide.shapes.add_textbox(Emu(457200), Emu(6400800), Emu(8229600), Emu(300000))
            box.text_frame.text = f"VHS Haselbrück · Einführung Kursleitende 2027 · {number}"
            box.text_frame.paragraphs[0].runs[0].font.size = Pt(10)
        if notes:
            slide.notes_slide.notes_text_frame.text = notes
    prs.save(str(path))


# ---------------------------------------------------------------------------------------------------------- PDF
CONDITIONS_HEADER = "Volkshochschule Haselbrück · Teilnahmebedingungen"
CONDITIONS_EDITION = "Fassung 2027"
CONDITIONS_FOOTER = "Beschluss der Verbandsversammlung vom 18.11.2026"

CONDITIONS = [
    ("h", "1 Geltungsbereich"),
    ("p", "Diese Teilnahmebedingungen gelten für alle Kurse, Vorträge, Prüfungen und Studienfahrten der "
          "Volkshochschule Haselbrück (im Folgenden „VHS“), soweit in der Ausschreibung nichts anderes steht. "
          "Träger der VHS ist der Zweckverband Volkshochschule Haselbrück. Mit der Anmeldung erkennen Sie diese "
          "Bedingungen an."),
    ("h", "2 Anmeldung"),
    ("p", "Sie können sich online über vhs-haselbrueck.example, schriftlich, per E-Mail oder persönlich im "
          "Servicebüro anmelden. Telefonische Anmeldungen nehmen wir nur für Vorträge an. Die Anmeldung ist "
          "verbindlich. Sie erhalten keine gesonderte Bestätigung, wenn der Kurs wie geplant stattfindet; eine "
          "Nachricht bekommen Sie nur, wenn der Kurs voll ist, sich ändert oder ausfällt."),
    ("p", "Bei Kursen für Kinder und Jugendliche meldet ein Erziehungsberechtigter an. Die Teilnahme an "
          "Kursen für Erwachsene ist ab 16 Jahren möglich, jüngere Teilnehmende nur mit Zustimmung der "
          "Kursleitung."),
    ("h", "3 Zahlung"),
    ("p", "Das Kursentgelt wird per SEPA-Lastschrift eingezogen, frühestens zwei Wochen vor Kursbeginn. "
          "Barzahlung ist nur im Servicebüro und nur bei Entgelten bis 30,00 € möglich; Vorträge werden an "
          "der Abendkasse bezahlt. Kann eine Lastschrift nicht eingelöst werden, berechnen wir die Bankgebühr "
          "und eine Bearbeitungsgebühr von 5,00 €."),
    ("p", "Bei Kursen ab 250,00 € ist auf Antrag eine Ratenzahlung in bis zu drei Monatsraten möglich."),
    ("h", "4 Ermäßigungen"),
    ("p", "Ermäßigungen gibt es nur auf Antrag bei der Anmeldung und gegen Nachweis. Nachträglich wird das "
          "Entgelt nicht ermäßigt. Ermäßigungen gelten nicht für Bildungsurlaub, Firmenschulungen, "
          "Prüfungsgebühren, Material- und Lebensmittelumlagen."),
    ("t", [150, 190, 130], [("Wer", "Nachweis", "Ermäßigung"),
                           ("Schüler, Azubis, Studierende", "Schüler-, Azubi- oder Studierendenausweis", "50 %"),
                           ("Bürgergeld, Grundsicherung", "aktueller Bescheid", "50 %"),
                           ("Haselbrück-Pass", "Haselbrück-Pass", "50 %"),
                           ("Ehrenamtskarte", "Ehrenamtskarte des Landes", "25 %"),
                           ("Zweiter Kurs im Semester", "–", "10 % auf den günstigeren Kurs")]),
    ("p", "Ermäßigungen werden nicht addiert; es gilt die höchste. Familien mit drei oder mehr Kindern "
          "erhalten für Eltern-Kind-Kurse 25 % Ermäßigung."),
    ("h", "5 Rücktritt und Abmeldung"),
    ("h2", "5.1 Kurse"),
    ("p", "Eine Abmeldung muss schriftlich oder per E-Mail im Servicebüro eingehen. Eine Abmeldung bei der "
          "Kursleitung oder bloßes Fernbleiben gilt nicht als Abmeldung."),
    ("t", [90, 110], [("Eingang der Abmeldung", "Was Sie zahlen"),
                      ("bis 10 Tage vor Kursbeginn", "nichts"),
                      ("9 bis 1 Tag vor Kursbeginn", "Bearbeitungsgebühr 10,00 €"),
                      ("ab Kursbeginn", "das volle Entgelt")]),
    ("p", "Stellen Sie eine Ersatzperson, die den Kurs übernimmt, entstehen keine Kosten."),
    ("h2", "5.2 Prüfungen"),
    ("p", "Für Prüfungen gelten die Bedingungen des Prüfungsanbieters und die Hinweise im Prüfungsplan."),
    ("h2", "5.3 Studienfahrten"),
    ("p", "Bei Studienfahrten ist ein kostenfreier Rücktritt bis 6 Wochen vor der Abfahrt möglich. Danach "
          "berechnen wir 50 % des Preises, ab 14 Tagen vor der Abfahrt den vollen Preis, sofern der Platz nicht "
          "neu besetzt werden kann. Wir empfehlen eine Reiserücktrittsversicherung."),
    ("h", "6 Kursausfall und Änderungen"),
    ("p", "Ein Kurs findet in der Regel erst ab acht Anmeldungen statt. Kommt diese Zahl nicht zustande, "
          "sagen wir den Kurs spätestens drei Werktage vor Beginn ab oder bieten eine Fortsetzung mit weniger "
          "Terminen oder einem höheren Entgelt an. Bereits gezahlte Entgelte erstatten wir vollständig."),
    ("p", "Fällt ein Termin wegen Krankheit der Kursleitung aus, wird er nachgeholt. Ein Wechsel der "
          "Kursleitung oder des Kursortes berechtigt nicht zum Rücktritt."),
    ("h", "7 Bescheinigungen"),
    ("p", "Eine Teilnahmebescheinigung erhalten Sie auf Wunsch nach Kursende, wenn Sie an mindestens 80 % der "
          "Termine teilgenommen haben. Sie ist für den laufenden Kurs kostenlos; für Kurse, die länger als "
          "zwölf Monate zurückliegen, berechnen wir 5,00 €."),
    ("h", "8 Bildungsurlaub"),
    ("p", "Als Bildungsurlaub anerkannte Veranstaltungen sind im Programm gekennzeichnet. Den Antrag beim "
          "Arbeitgeber stellen Sie mindestens sechs Wochen vor Beginn; die Anerkennungsbescheinigung schicken "
          "wir Ihnen mit der Anmeldebestätigung. Für Bildungsurlaub gilt ein kostenfreier Rücktritt nur bis "
          "4 Wochen vor Beginn."),
    ("h", "9 Haftung und Hausordnung"),
    ("p", "Die VHS haftet nicht für Garderobe und mitgebrachte Gegenstände. Fundsachen bewahrt das Servicebüro "
          "drei Monate auf; danach werden sie dem Fundbüro der Stadt Haselbrück übergeben. In allen Kursräumen "
          "gilt ein Rauchverbot; Hunde sind außer Assistenzhunden nicht erlaubt."),
    ("h", "10 Datenschutz"),
    ("p", "Wir verarbeiten Ihre Daten nur zur Durchführung und Abrechnung der Kurse. Teilnehmerdaten werden "
          "drei Jahre nach dem Ende des letzten Kurses gelöscht, Buchungsbelege nach den gesetzlichen Fristen "
          "(zehn Jahre). Auskunft gibt der Datenschutzbeauftragte, Christian Remmers."),
    ("h", "11 Kontakt"),
    ("p", "Servicebüro im Haus der Bildung, Am Mühlgraben 7, Haselbrück, Raum 0.02 · Telefon 05179 6620-0 · "
          "anmeldung@vhs-haselbrueck.example. Servicezeiten: Montag bis Donnerstag 9:00–12:30 Uhr und "
          "14:00–17:30 Uhr, Freitag 9:00–12:30 Uhr."),
]


def conditions_pdf(path: Path) -> None:
    from fpdf import FPDF

    class Document(FPDF):
        def header(self) -> None:
            if self.page_no() == 1:
                return
            self.set_font("dejavu", "", 8.5)
            self.set_y(10)
            self.cell(0, 5, CONDITIONS_HEADER)
            self.set_x(self.l_margin)
            self.cell(0, 5, CONDITIONS_EDITION, align="R")
            self.line(self.l_margin, 16, self.w - self.r_margin, 16)
            self.set_y(24)

        def footer(self) -> None:
            if self.page_no() == 1:
                return
            self.set_y(-16)
            self.line(self.l_margin, self.get_y() - 1, self.w - self.r_margin, self.get_y() - 1)
            self.set_font("dejavu", "", 8.5)
            self.cell(0, 5, CONDITIONS_FOOTER)
            self.set_x(self.l_margin)
            self.cell(0, 5, f"Seite {self.page_no()} von {{nb}}", align="R")

    pdf = Document(format="A4")
    pdf.set_creation_date(FIXED)
    pdf.set_title("Teilnahmebedingungen 2027")
    pdf.set_author(VHS)
    pdf.set_creator("eval/holdout8-de/make/org_documents.py")
    pdf.set_producer("fpdf2")
    pdf.add_font("dejavu", "", str(FONTS / "DejaVuSans.ttf"))
    pdf.add_font("dejavu", "B", str(FONTS / "DejaVuSans-Bold.ttf"))
    pdf.set_margins(22, 22, 22)
    pdf.set_auto_page_break(True, 24)

    # title page
    pdf.add_page()
    pdf.set_font("dejavu", "B", 13)
    pdf.set_y(60)
    pdf.cell(0, 8, VHS, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("dejavu", "B", 26)
    pdf.ln(6)
    pdf.multi_cell(0, 12, "Teilnahmebedingungen\nund Entgeltordnung", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("dejavu", "", 13)
    pdf.ln(4)
    pdf.cell(0, 8, "gültig für alle Veranstaltungen ab dem 1. Februar 2027", new_x="LMARGIN", new_y="NEXT")
    pdf.line(22, pdf.get_y() + 4, 188, pdf.get_y() + 4)
    pdf.set_y(250)
    pdf.set_font("dejavu", "", 9)
    pdf.cell(0, 5, ADDRESS + " · Telefon 05179 6620-0 · vhs-haselbrueck.example")

    def toc(pdf: FPDF, outline) -> None:
        pdf.set_xy(pdf.l_margin, 30)
        pdf.set_font("dejavu", "B", 16)
        pdf.cell(0, 10, "Inhalt", new_x="LMARGIN", new_y="NEXT")
        pdf.ln(4)
        pdf.set_font("dejavu", "", 11)
        width = pdf.w - pdf.l_margin - pdf.r_margin
        for section in outline:
            if section.level > 0:
                continue
            number = str(section.page_number)
            room = width - pdf.get_string_width(section.name) - pdf.get_string_width(number) - 4
            dots = "." * int(room / pdf.get_string_width("."))
            pdf.cell(0, 8, f"{section.name} {dots} {number}", new_x="LMARGIN", new_y="NEXT")

    pdf.add_page()
    pdf.insert_toc_placeholder(toc, pages=1)  # the contents on page 2; the body starts on a new page
    for kind, *content in CONDITIONS:
        if kind == "h":
            if pdf.get_y() > 230:
                pdf.add_page()
            pdf.ln(3)
            pdf.start_section(content[0], level=0)
            pdf.set_font("dejavu", "B", 13)
            pdf.cell(0, 8, content[0], new_x="LMARGIN", new_y="NEXT")
        elif kind == "h2":
            pdf.start_section(content[0], level=1)
            pdf.set_font("dejavu", "B", 11)
            pdf.cell(0, 7, content[0], new_x="LMARGIN", new_y="NEXT")
        elif kind == "p":
            pdf.set_font("dejavu", "", 10.5)
            pdf.multi_cell(0, 5.6, content[0], new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2.5)
        else:
            widths, rows = content
            pdf.set_font("dejavu", "", 10)
            with pdf.table(col_widths=tuple(widths), text_align="LEFT", line_height=6) as table:
                for line in rows:
                    row = table.row()
                    for cell in line:
                        row.cell(cell)
            pdf.ln(3)
    pdf.output(str(path))


# --------------------------------------------------------------------------------------------------------------
def fixed_zip_times(path: Path) -> None:
    """Rewrite an Office file (a ZIP package) with fixed entry times, so that a rebuild gives the same bytes; an
    OpenDocument's ``mimetype`` stays first and uncompressed."""
    with zipfile.ZipFile(path) as source:
        entries = [(info, source.read(info.filename)) for info in source.infolist()]
    with zipfile.ZipFile(path, "w") as target:
        for info, data in entries:
            if info.filename == "docProps/core.xml":  # stamped with the time of saving
                data = re.sub(rb"(<dcterms:modified[^>]*>)[^<]*", rb"\g<1>2026-12-07T09:00:00Z", data)
            if info.filename == "meta.xml":
                data = re.sub(rb"<meta:creation-date>[^<]*", b"<meta:creation-date>2026-12-07T09:00:00", data)
                data = re.sub(rb"<dc:date>[^<]*", b"<dc:date>2026-12-07T09:00:00", data)
            fixed = zipfile.ZipInfo(info.filename, date_time=FIXED.timetuple()[:6])
            fixed.compress_type = zipfile.ZIP_STORED if info.filename == "mimetype" else zipfile.ZIP_DEFLATED
            fixed.external_attr = info.external_attr
            target.writestr(fixed, data)


def main() -> None:
    DOCS.mkdir(exist_ok=True)
    instructors_pptx(DOCS / "einfuehrung-kursleitende-2027.pptx")
    fixed_zip_times(DOCS / "einfuehrung-kursleitende-2027.pptx")
    courses_sheet(DOCS / "kursprogramm-fruehjahr-2027.ods")
    fixed_zip_times(DOCS / "kursprogramm-fruehjahr-2027.ods")
    contacts(DOCS / "ansprechpersonen.json")
    exams_xml(DOCS / "pruefungstermine-2027.xml")
    trips(DOCS / "studienfahrten-2027.csv")
    conditions_pdf(DOCS / "teilnahmebedingungen-2027.pdf")
    (DOCS / "wiki-wlan-medientechnik.md").write_text(WIKI_PAGE, encoding="utf-8")
    (DOCS / "aussenstellen-kursorte.html").write_text(places_page(), encoding="utf-8")


if __name__ == "__main__":
    main()
