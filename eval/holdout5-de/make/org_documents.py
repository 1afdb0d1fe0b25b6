"""Write the documents of eval/holdout5-de/docs that belong to the fictitious Lindwerk Medizintechnik GmbH.

Everything here is invented (company, people, addresses, numbers, products other than the named free software).
Licence: CC-BY-SA 4.0, (c) 2026 the IrisRAG authors.

    .venv/bin/python eval/holdout5-de/make/org_documents.py

The output is deterministic: the filler rows come from a seeded generator and the Office files carry fixed dates.
"""
from __future__ import annotations

import datetime as dt
import json
import random
import re
from pathlib import Path
from xml.sax.saxutils import quoteattr

DOCS = Path(__file__).resolve().parents[1] / "docs"
FIXED = dt.datetime(2026, 12, 7, 9, 0, 0)


# --------------------------------------------------------------------------------------------------------- DOCX
def works_agreement(path: Path) -> None:
    from docx import Document
    from docx.enum.text import WD_ALIGN_PARAGRAPH
    from docx.shared import Pt

    doc = Document()
    props = doc.core_properties
    props.author, props.title = "Betriebsrat Lindwerk", "Betriebsvereinbarung mobiles Arbeiten"
    props.created = props.modified = FIXED
    props.last_modified_by = "Personalabteilung"
    section = doc.sections[0]
    section.header.paragraphs[0].text = "Lindwerk Medizintechnik GmbH · Betriebsvereinbarung 7/2026 · intern"
    section.footer.paragraphs[0].text = "Stand: 18.01.2027 – Seite 1 von 4 – Ablage: Personal/BV/BV-07-2026.docx"

    title = doc.add_heading("Betriebsvereinbarung Nr. 7/2026", level=0)
    title.alignment = WD_ALIGN_PARAGRAPH.CENTER
    doc.add_paragraph("über mobiles Arbeiten und Telearbeit (BV Mobiles Arbeiten)").alignment = WD_ALIGN_PARAGRAPH.CENTER
    doc.add_paragraph(
        "zwischen der Lindwerk Medizintechnik GmbH, Am Hopfengarten 23, 34127 Kassel, vertreten durch den "
        "Geschäftsführer Jonas Wittekind, – nachfolgend „Arbeitgeberin“ –\n"
        "und dem Betriebsrat der Lindwerk Medizintechnik GmbH, vertreten durch die Vorsitzende Henrike Albers, "
        "– nachfolgend „Betriebsrat“ –")
    doc.add_heading("Präambel", level=1)
    doc.add_paragraph(
        "Mobiles Arbeiten soll die Vereinbarkeit von Beruf und Privatleben verbessern, ohne die Zusammenarbeit "
        "in den Teams zu schwächen. Die Parteien sind sich einig, dass mobiles Arbeiten freiwillig ist. "
        "Niemand kann dazu verpflichtet werden, und niemandem darf ein Nachteil daraus entstehen, dass er "
        "oder sie im Betrieb arbeiten möchte.")

    doc.add_heading("§ 1 Geltungsbereich", level=1)
    doc.add_paragraph(
        "Diese Vereinbarung gilt für alle Beschäftigten der Standorte Kassel und Baunatal. Sie gilt nicht für")
    for item in ("Auszubildende im ersten Ausbildungsjahr,",
                 "Beschäftigte in der Fertigung und im Lager, deren Tätigkeit an eine Maschine oder einen "
                 "Arbeitsplatz im Betrieb gebunden ist,",
                 "leitende Angestellte im Sinne des § 5 Abs. 3 BetrVG."):
        doc.add_paragraph(item, style="List Bullet")
    doc.add_paragraph("Für Werkstudierende gilt die Vereinbarung entsprechend, sofern ihr Vertrag nichts anderes regelt.")

    doc.add_heading("§ 2 Begriffe", level=1)
    doc.add_paragraph(
        "(1) Mobiles Arbeiten ist die Arbeit außerhalb der Betriebsstätte an einem Ort, den die oder der "
        "Beschäftigte selbst wählt, in der Regel die eigene Wohnung.")
    doc.add_paragraph(
        "(2) Telearbeit ist ein von der Arbeitgeberin fest eingerichteter Bildschirmarbeitsplatz in der "
        "Wohnung der oder des Beschäftigten. Telearbeit wird gesondert vereinbart (Anlage 2).")

    doc.add_heading("§ 3 Umfang", level=1)
    doc.add_paragraph(
        "(1) Mobiles Arbeiten ist an bis zu drei Arbeitstagen pro Woche möglich. Bei Teilzeit verringert "
        "sich die Zahl der Tage anteilig; halbe Tage werden aufgerundet.")
    doc.add_paragraph(
        "(2) Der Dienstag ist Teamtag. An diesem Tag sollen alle Beschäftigten einer Abteilung im Betrieb "
        "sein, Ausnahmen stimmt die Führungskraft ab.")
    doc.add_paragraph(
        "(3) Nicht genommene Tage verfallen am Ende der Woche; sie können nicht angespart werden.")

    doc.add_heading("§ 4 Antrag, Genehmigung und Widerruf", level=1)
    for step in ("Die oder der Beschäftigte stellt den Antrag mit dem Formular MA-01 im Personalportal bei der "
                 "direkten Führungskraft, spätestens vier Wochen vor dem gewünschten Beginn.",
                 "Die Führungskraft entscheidet innerhalb von 14 Kalendertagen. Eine Ablehnung ist schriftlich "
                 "zu begründen.",
                 "Wird der Antrag abgelehnt, kann die oder der Beschäftigte die paritätische Kommission "
                 "(§ 11) anrufen.",
                 "Beide Seiten können die Vereinbarung über mobiles Arbeiten mit einer Ankündigungsfrist von "
                 "sechs Wochen widerrufen."):
        doc.add_paragraph(step, style="List Number")

    doc.add_heading("§ 5 Arbeitszeit und Erreichbarkeit", level=1)
    doc.add_paragraph(
        "(1) Es gelten die Regeln der Betriebsvereinbarung Gleitzeit. Die Rahmenarbeitszeit beim mobilen "
        "Arbeiten liegt zwischen 6:30 Uhr und 20:00 Uhr.")
    doc.add_paragraph(
        "(2) Während der Kernzeit, montags bis donnerstags von 9:30 bis 14:30 Uhr und freitags von 9:30 bis "
        "12:00 Uhr, ist die oder der Beschäftigte telefonisch und über den Team-Chat erreichbar.")
    doc.add_paragraph(
        "(3) Außerhalb der Rahmenarbeitszeit besteht keine Pflicht, E-Mails zu lesen oder Anrufe anzunehmen.")
    doc.add_paragraph(
        "(4) Die Arbeitszeit wird wie im Betrieb im Zeitportal erfasst; Beginn und Ende werden mit dem "
        "Status „mobil“ gebucht.")

    doc.add_heading("§ 6 Ausstattung und Kosten", level=1)
    doc.add_paragraph(
        "(1) Die Arbeitgeberin stellt ein Notebook, ein Headset und auf Wunsch einen zweiten Monitor. "
        "Die Geräte bleiben Eigentum der Arbeitgeberin und werden nur dienstlich genutzt.")
    doc.add_paragraph("(2) Für die Kosten des mobilen Arbeitens zahlt die Arbeitgeberin:")
    table = doc.add_table(rows=1, cols=3)
    table.style = "Table Grid"
    for cell, text in zip(table.rows[0].cells, ("Leistung", "Betrag", "Voraussetzung"), strict=True):
        cell.text = text
        cell.paragraphs[0].runs[0].bold = True
    for row in (("Homeoffice-Pauschale", "30 € monatlich", "mindestens vier mobile Arbeitstage im Kalendermonat"),
                ("Internetpauschale", "15 € monatlich", "eigener Internetanschluss, keine Diensthandy-Karte"),
                ("Zuschuss Bürostuhl", "250 € einmalig", "gegen Beleg, erneut frühestens nach fünf Jahren"),
                ("Zuschuss Schreibtisch", "200 € einmalig", "höhenverstellbar, gegen Beleg"),
                ("Zweiter Monitor", "Sachleistung", "Bestellung über das IT-Ticketsystem")):
        cells = table.add_row().cells
        for cell, text in zip(cells, row, strict=True):
            cell.text = text
    doc.add_paragraph(
        "(3) Die Pauschalen werden mit dem Gehalt des Folgemonats ausgezahlt. Weitere Kosten, etwa für Strom "
        "oder Heizung, werden nicht erstattet.")

    doc.add_heading("§ 7 Datenschutz und Informationssicherheit", level=1)
    doc.add_paragraph("Beim mobilen Arbeiten gelten zusätzlich folgende Regeln:")
    for rule in ("Die Verbindung in das Firmennetz erfolgt ausschließlich über das VPN der Arbeitgeberin.",
                 "Der Bildschirm wird beim Verlassen des Arbeitsplatzes gesperrt.",
                 "Vertrauliche Unterlagen werden nicht zu Hause ausgedruckt; Papier mit personenbezogenen "
                 "Daten wird im Betrieb im Datenschutzbehälter vernichtet.",
                 "Öffentliche WLAN-Netze, etwa in Zügen oder Cafés, dürfen nur mit aktivem VPN genutzt werden.",
                 "Verlust oder Diebstahl eines Geräts ist innerhalb von 24 Stunden an "
                 "it-sicherheit@lindwerk.example zu melden."):
        doc.add_paragraph(rule, style="List Number")

    doc.add_heading("§ 8 Arbeitsschutz", level=1)
    doc.add_paragraph(
        "Die Arbeitgeberin stellt eine Checkliste zur Gefährdungsbeurteilung des mobilen Arbeitsplatzes "
        "bereit. Die oder der Beschäftigte füllt sie vor dem ersten mobilen Arbeitstag aus. Ein Unfall "
        "während des mobilen Arbeitens ist wie ein Arbeitsunfall im Betrieb unverzüglich der "
        "Personalabteilung zu melden.")

    doc.add_heading("§ 9 Mobiles Arbeiten im Ausland", level=1)
    doc.add_paragraph(
        "Mobiles Arbeiten aus einem anderen Mitgliedstaat der Europäischen Union oder der Schweiz ist an "
        "höchstens 20 Arbeitstagen im Kalenderjahr erlaubt. Es muss mindestens drei Wochen vorher bei der "
        "Personalabteilung beantragt werden, damit die A1-Bescheinigung rechtzeitig vorliegt. Aus Staaten "
        "außerhalb der EU ist mobiles Arbeiten nicht erlaubt.")

    doc.add_heading("§ 10 Inkrafttreten und Kündigung", level=1)
    doc.add_paragraph(
        "Diese Betriebsvereinbarung tritt am 1. März 2027 in Kraft. Sie kann mit einer Frist von drei "
        "Monaten zum Ende eines Kalenderjahres gekündigt werden, erstmals zum 31. Dezember 2028. "
        "Bis zum Abschluss einer neuen Vereinbarung wirkt sie nach.")

    doc.add_heading("§ 11 Paritätische Kommission", level=1)
    doc.add_paragraph(
        "Streitfragen aus dieser Vereinbarung klärt eine Kommission aus je zwei Mitgliedern, die die "
        "Arbeitgeberin und der Betriebsrat benennen. Sie tagt bei Bedarf, mindestens aber einmal im Quartal.")

    doc.add_paragraph()
    sign = doc.add_paragraph("Kassel, den 18. Januar 2027")
    sign.runs[0].font.size = Pt(10)
    doc.add_paragraph("Jonas Wittekind, Geschäftsführer\t\tHenrike Albers, Vorsitzende des Betriebsrats")
    doc.add_paragraph("Anlage 1: Formular MA-01 · Anlage 2: Mustervertrag Telearbeit · Anlage 3: Checkliste "
                      "Gefährdungsbeurteilung")
    doc.save(path)


# --------------------------------------------------------------------------------------------------------- XLSX
PEOPLE = ["Lea Brinkhoff", "Tobias Reinecke", "Svenja Kuhlmann", "Murat Yıldız", "Annika Fehse", "Ole Marquardt",
          "Paulina Wroblewski", "Fabian Heuer", "Nele Dreyer", "Kerstin Vogelsang", "Jannik Timmermann",
          "Aylin Demirci", "Rüdiger Scholle", "Carla Henning", "Bastian Rook", "Inga Sommerfeld"]
ROOMS_KS = ["1.03", "1.05", "1.12", "2.04", "2.07", "2.11", "3.02", "3.09"]
ROOMS_BN = ["H1-Büro", "Halle 2", "Lager", "Werkstatt", "Versand"]


def inventory(path: Path) -> None:
    from openpyxl import Workbook
    from openpyxl.styles import Font

    rnd = random.Random(2026)
    wb = Workbook()
    wb.properties.creator, wb.properties.title = "IT-Service Lindwerk", "IT-Inventar"
    wb.properties.created = wb.properties.modified = FIXED
    ws = wb.active
    ws.title = "Inventar"
    ws["A1"] = "IT-Inventar Lindwerk Medizintechnik GmbH – Stand 30.11.2026 (Export aus der Inventardatenbank)"
    ws["A1"].font = Font(bold=True, size=12)
    header = ["Inventar-Nr.", "Gerätetyp", "Hersteller", "Modell", "Seriennummer", "Standort", "Raum",
              "Nutzer/in", "Anschaffung", "Garantie bis", "Status", "Bemerkung"]
    ws.append([])
    ws.append(header)
    for cell in ws[3]:
        cell.font = Font(bold=True)

    fixed_rows = {
        7: ["Notebook", "Trelon", "Book 14 G3", "TRB14G3-88A21K", "Kassel", "2.07", "Ole Marquardt",
            dt.date(2024, 5, 13), dt.date(2027, 5, 12), "IB", ""],
        12: ["Beamer", "Norvik", "Lumina X500", "NVX5-00317-Q", "Kassel", "1.12", "",
             dt.date(2023, 9, 1), dt.date(2026, 8, 31), "IB", "Lampe getauscht 02/2026; Fernbedienung fehlt"],
        19: ["Etikettendrucker", "Pallas", "LabelJet 410", "PLJ410-5524", "Baunatal", "Versand", "",
             dt.date(2022, 3, 21), dt.date(2025, 3, 20), "RP", "Schneidwerk defekt, Rücksendung an Händler 25.11."],
        23: ["Tablet", "Trelon", "Slate 11", "TRS11-40C9Z7", "Baunatal", "Halle 2", "Rüdiger Scholle",
             dt.date(2025, 1, 8), dt.date(2028, 1, 7), "IB", "mit Schutzhülle IP65, für Prüfprotokolle"],
        31: ["Dockingstation", "Quandt", "Dock U4", "QDU4-71192", "Kassel", "3.02", "Kerstin Vogelsang",
             dt.date(2021, 6, 30), dt.date(2024, 6, 29), "AUS", "ausgesondert 10/2026, Datenträger n/a"],
        38: ["Workstation", "Trelon", "Tower W7", "TRTW7-2291", "Kassel", "2.11", "Jannik Timmermann",
             dt.date(2025, 10, 2), dt.date(2030, 10, 1), "IB", "CAD-Arbeitsplatz, 64 GB RAM"],
        44: ["Notebook", "Trelon", "Book 14 G3", "TRB14G3-90F03M", "Kassel", "Lager IT", "",
             dt.date(2026, 11, 17), dt.date(2029, 11, 16), "LG", "Ersatzgerät für Neueinstellungen"],
    }
    types = [("Notebook", "Trelon", "Book 14 G2"), ("Notebook", "Trelon", "Book 14 G3"),
             ("Monitor", "Vellis", "V27 QHD"), ("Monitor", "Vellis", "V24 FHD"), ("Headset", "Sonnecta", "Duo 55"),
             ("Dockingstation", "Quandt", "Dock U4"), ("Smartphone", "Farro", "F8"), ("Tablet", "Trelon", "Slate 11"),
             ("Workstation", "Trelon", "Tower W7")]
    for number in range(1, 61):
        inv = f"LW-IT-{400 + number:04d}"
        if number in fixed_rows:
            typ, maker, model, serial, site, room, user, bought, warranty, status, note = fixed_rows[number]
        else:
            typ, maker, model = types[rnd.randrange(len(types))]
            serial = f"{maker[:2].upper()}{rnd.randrange(10000, 99999)}-{rnd.choice('ABCDEFGHJK')}{rnd.randrange(10, 99)}"
            site = "Kassel" if rnd.random() < 0.7 else "Baunatal"
            room = rnd.choice(ROOMS_KS if site == "Kassel" else ROOMS_BN)
            user = rnd.choice(PEOPLE)
            bought = dt.date(2021 + rnd.randrange(6), 1 + rnd.randrange(12), 1 + rnd.randrange(28))
            years = 5 if typ == "Workstation" else 3
            warranty = dt.date(bought.year + years, bought.month, bought.day) - dt.timedelta(days=1)
            status = rnd.choices(["IB", "IB", "IB", "IB", "LG", "RP"], k=1)[0]
            note = rnd.choice(["", "", "", "", "Akku schwach", "Tastatur DE-CH", "Zweitgerät", "Leihgerät"])
            if status == "LG":
                user = ""
        ws.append([inv, typ, maker, model, serial, site, room, user or None, bought, warranty, status, note or None])
    for row in ws.iter_rows(min_row=4, min_col=9, max_col=10):
        for cell in row:
            cell.number_format = "DD.MM.YYYY"
    for column, width in zip("ABCDEFGHIJKL", (13, 16, 11, 13, 17, 10, 10, 18, 12, 12, 8, 40), strict=True):
        ws.column_dimensions[column].width = width
    ws.freeze_panes = "A4"

    legend = wb.create_sheet("Legende")
    legend.append(["Status", "Bedeutung"])
    for row in (("IB", "in Betrieb, einer Person oder einem Raum zugeordnet"),
                ("LG", "auf Lager, einsatzbereit (Ausgabe über den IT-Service, Raum 1.05)"),
                ("RP", "in Reparatur oder beim Händler"),
                ("AUS", "ausgesondert; Datenträger nach DIN 66399 vernichtet, Gerät an den Verwerter übergeben")):
        legend.append(list(row))
    legend.append([])
    legend.append(["Hinweis", "Garantiefälle meldet der IT-Service, nicht die Nutzerin oder der Nutzer selbst."])
    wb.save(path)


# --------------------------------------------------------------------------------------------------------- JSON
def licence_register(path: Path) -> None:
    licences = [
        {"id": "SW-001", "produkt": "Kartograph CAD Pro", "vendor": "Kartograph Systems AG",
         "license_type": "named user subscription", "anzahl_plaetze": 18, "seats_used": 17,
         "laufzeit_bis": "2027-09-30", "kosten_pro_jahr_eur": 21960, "verantwortlich": "Jannik Timmermann",
         "notes": "Renewal must be confirmed 90 days before expiry; price increase of 4 % announced for 2027."},
        {"id": "SW-002", "produkt": "Pergament DMS", "vendor": "Pergament Software GmbH",
         "license_type": "concurrent", "anzahl_plaetze": 140, "seats_used": 121,
         "laufzeit_bis": "2028-03-31", "kosten_pro_jahr_eur": 18200, "verantwortlich": "Dilara Öztürk",
         "notes": "Wartungsvertrag inkl. Updates; Ansprechpartner beim Hersteller: support@pergament.example"},
        {"id": "SW-003", "produkt": "Taktwerk Zeit", "vendor": "Taktwerk GmbH", "license_type": "SaaS",
         "anzahl_plaetze": 260, "seats_used": 244, "laufzeit_bis": "2027-12-31", "kosten_pro_jahr_eur": 9360,
         "verantwortlich": "Malte Sievers", "notes": "Zeitportal; Mitarbeiterzahl wird jährlich im Januar gemeldet."},
        {"id": "SW-004", "produkt": "LibreOffice", "vendor": "The Document Foundation", "license_type": "open source",
         "lizenz": "MPL-2.0", "anzahl_plaetze": None, "seats_used": 212, "laufzeit_bis": None,
         "kosten_pro_jahr_eur": 0, "verantwortlich": "Dilara Öztürk",
         "notes": "Standard office suite since 2025; no licence key required."},
        {"id": "SW-005", "produkt": "KeePassXC", "vendor": "KeePassXC Team", "license_type": "open source",
         "lizenz": "GPL-2.0-only OR GPL-3.0-only", "anzahl_plaetze": None, "seats_used": 64, "laufzeit_bis": None,
         "kosten_pro_jahr_eur": 0, "verantwortlich": "Dilara Öztürk",
         "notes": "Nur für Teampasswörter der IT freigegeben; persönliche Kennwörter im Firmen-Tresor."},
        {"id": "SW-006", "produkt": "GIMP", "vendor": "The GIMP Team", "license_type": "open source",
         "lizenz": "GPL-3.0-or-later", "anzahl_plaetze": None, "seats_used": 9, "laufzeit_bis": None,
         "kosten_pro_jahr_eur": 0, "verantwortlich": "Carla Henning", "notes": "Marketing only."},
        {"id": "SW-007", "produkt": "Signavio Lite", "vendor": "Brückner IT-Dienste", "license_type": "perpetual",
         "anzahl_plaetze": 5, "seats_used": 5, "laufzeit_bis": None, "kosten_pro_jahr_eur": 600,
         "verantwortlich": "Annika Fehse",
         "notes": "Kauflizenz von 2019, nur Wartung wird jährlich bezahlt. Keine weiteren Plätze nachkaufbar."},
        {"id": "SW-008", "produkt": "MailWall Gateway", "vendor": "Corvex Security Ltd.",
         "license_type": "subscription per mailbox", "anzahl_plaetze": 300, "seats_used": 268,
         "laufzeit_bis": "2027-04-30", "kosten_pro_jahr_eur": 7200, "verantwortlich": "Dilara Öztürk",
         "notes": "Spam and malware filter. Contract renews automatically for 12 months unless cancelled 60 days before."},
        {"id": "SW-009", "produkt": "Messfix Prüfsoftware", "vendor": "Messfix Instruments", "license_type": "dongle",
         "anzahl_plaetze": 4, "seats_used": 4, "laufzeit_bis": None, "kosten_pro_jahr_eur": 1480,
         "verantwortlich": "Rüdiger Scholle",
         "notes": "Hardware-Dongles in Halle 2, Prüfplätze P1–P4. Dongle loss = new licence (approx. 3,900 EUR)."},
        {"id": "SW-010", "produkt": "VLC media player", "vendor": "VideoLAN", "license_type": "open source",
         "lizenz": "GPL-2.0-or-later", "anzahl_plaetze": None, "seats_used": 37, "laufzeit_bis": None,
         "kosten_pro_jahr_eur": 0, "verantwortlich": "Dilara Öztürk", "notes": ""},
        {"id": "SW-011", "produkt": "Übersetzungsbüro-Portal Linguana", "vendor": "Linguana GmbH",
         "license_type": "pay per use", "anzahl_plaetze": None, "seats_used": 12, "laufzeit_bis": "2027-06-30",
         "kosten_pro_jahr_eur": None, "verantwortlich": "Carla Henning",
         "notes": "Abrechnung nach Wörtern (0,11 € pro Wort Deutsch–Englisch); Rahmenvertrag bis 30.06.2027."},
    ]
    register = {
        "register": "Softwarelizenzen Lindwerk Medizintechnik GmbH",
        "stand": "2026-11-30",
        "owner": "IT-Einkauf (Dilara Öztürk)",
        "currency": "EUR",
        "hinweis": "Neue Software nur über das IT-Ticketsystem beantragen; Installation durch den IT-Service.",
        "lizenzen": licences,
    }
    path.write_text(json.dumps(register, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------------------------------------------- XML
def printers(path: Path) -> None:
    sites = [
        ("Kassel", "Am Hopfengarten 23, 34127 Kassel", [
            ("KS-EG-EMPFANG", "Empfang, Erdgeschoss", "Pallas", "ColorPro M455", "10.20.0.15", True, True, "4000",
             "A4,A5,Umschläge C5", "Empfang / Nadine Brosig"),
            ("KS-1OG-SW", "1. OG, Flur vor Raum 1.05", "Pallas", "MonoJet 5200", "10.20.1.21", False, True, "4100",
             "A4", "IT-Service"),
            ("KS-1OG-FARBE", "1. OG, Kopierraum 1.12a", "Pallas", "ColorPro M455", "10.20.1.22", True, True, "4100",
             "A4,A3", "IT-Service"),
            ("KS-2OG-FARBE", "2. OG, Teeküche neben Raum 2.07", "Pallas", "ColorPro M560", "10.20.2.31", True, True,
             "4200", "A4,A3,Etiketten", "Konstruktion / Jannik Timmermann"),
            ("KS-2OG-PLOT", "2. OG, Raum 2.11 (CAD)", "Norvik", "PlotMaster 36", "10.20.2.40", True, False, "4200",
             "Rolle 914 mm,A1,A0", "Konstruktion / Jannik Timmermann"),
            ("KS-3OG-GF", "3. OG, Sekretariat Geschäftsführung", "Pallas", "ColorPro M455", "10.20.3.11", True, True,
             "1000", "A4,Briefpapier (Fach 2)", "Sekretariat / Kerstin Vogelsang"),
            ("KS-3OG-PERSONAL", "3. OG, Raum 3.09 (abschließbar)", "Pallas", "MonoJet 5200", "10.20.3.19", False, True,
             "1200", "A4", "Personal / Malte Sievers"),
        ]),
        ("Baunatal", "Gewerbering Süd 7, 34225 Baunatal", [
            ("BN-H1-BUERO", "Halle 1, Meisterbüro", "Pallas", "MonoJet 5200", "10.30.0.12", False, True, "5100", "A4",
             "Fertigung / Rüdiger Scholle"),
            ("BN-H2-PRUEF", "Halle 2, Prüfplatz P2", "Pallas", "MonoJet 3100", "10.30.2.14", False, False, "5200",
             "A4", "Qualität / Fabian Heuer"),
            ("BN-VERSAND-ETI", "Versand, Packtisch 3", "Pallas", "LabelJet 410", "10.30.4.50", False, False, "5400",
             "Etiketten 100x150 mm", "Versand / Bastian Rook"),
            ("BN-LAGER", "Lager, Wareneingang", "Pallas", "MonoJet 3100", "10.30.4.21", False, False, "5400", "A4",
             "Lager / Bastian Rook"),
        ]),
    ]
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             "<!-- Export print server PRT-SRV02, 2026-11-28 06:00. Manual edits are overwritten at the next export. -->",
             '<printers exported="2026-11-28T06:00:00+01:00" server="prt-srv02.lindwerk.example" version="3.2">']
    for site, address, devices in sites:
        lines.append(f"  <site name={quoteattr(site)} address={quoteattr(address)}>")
        for name, location, maker, model, ip, colour, duplex, cost, paper, contact in devices:
            lines.append(f"    <printer name={quoteattr(name)} enabled=\"true\">")
            lines.append(f"      <location>{location}</location>")
            lines.append(f"      <model vendor={quoteattr(maker)}>{model}</model>")
            lines.append(f"      <ip>{ip}</ip>")
            lines.append(f"      <color>{'yes' if colour else 'no'}</color>")
            lines.append(f"      <duplex>{'yes' if duplex else 'no'}</duplex>")
            lines.append(f"      <paper>{paper}</paper>")
            lines.append(f"      <costcenter>{cost}</costcenter>")
            lines.append(f"      <contact>{contact}</contact>")
            if name == "KS-3OG-PERSONAL":
                lines.append("      <securePrint pin=\"required\">Ausdruck erst nach PIN-Eingabe am Gerät</securePrint>")
            if name.endswith("FARBE") or name == "KS-EG-EMPFANG":
                lines.append(f"      <scanToMail>scan-{name.lower()}@lindwerk.example</scanToMail>")
            lines.append("    </printer>")
        lines.append("  </site>")
    lines.append("</printers>")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


# --------------------------------------------------------------------------------------------------------- HTML
ONBOARDING = """<!DOCTYPE html>
<html lang="de">
<head>
<meta charset="utf-8">
<title>Willkommen bei Lindwerk – Ihre ersten Wochen | Lindwerk Intranet</title>
<link rel="stylesheet" href="/static/intranet.css">
</head>
<body>
<header class="top">
  <a class="logo" href="/">Lindwerk Intranet</a>
  <nav class="main-nav">
    <ul>
      <li><a href="/">Start</a></li>
      <li><a href="/news/">Neuigkeiten</a></li>
      <li><a href="/personal/">Personal</a></li>
      <li><a href="/it/">IT-Service</a></li>
      <li><a href="/standorte/">Standorte</a></li>
      <li><a href="/formulare/">Formulare</a></li>
      <li><a href="/suche/">Suche</a></li>
    </ul>
  </nav>
</header>
<nav class="breadcrumbs" aria-label="Brotkrumen">
  <a href="/">Start</a> › <a href="/personal/">Personal</a> › <a href="/personal/neu/">Neu bei Lindwerk</a> › Ihre ersten Wochen
</nav>
<main>
<h1>Willkommen bei Lindwerk – Ihre ersten Wochen</h1>
<p class="lead">Schön, dass Sie da sind! Diese Seite fasst zusammen, was in den ersten Tagen und Wochen auf Sie
zukommt. Fragen beantwortet Ihnen jederzeit Ihre Patin oder Ihr Pate und das Team Personal.</p>

<div class="toc">
<h2>Inhalt</h2>
<ol>
  <li><a href="#vor-dem-start">Vor dem ersten Tag</a></li>
  <li><a href="#erster-tag">Der erste Arbeitstag</a></li>
  <li><a href="#ausweis">Werksausweis und Zutritt</a></li>
  <li><a href="#it">Ihr IT-Zugang</a></li>
  <li><a href="#pate">Patenprogramm</a></li>
  <li><a href="#anreise">Anreise und Parken</a></li>
  <li><a href="#probezeit">Probezeit und Feedback</a></li>
  <li><a href="#checkliste">Checkliste für die erste Woche</a></li>
</ol>
</div>

<h2 id="vor-dem-start">1. Vor dem ersten Tag</h2>
<p>Etwa zwei Wochen vor Ihrem Start schickt Ihnen das Team Personal eine E-Mail mit dem Einsatzplan für die
erste Woche. Bitte senden Sie uns bis spätestens eine Woche vor Beginn den Personalfragebogen, Ihre
Steuer-Identifikationsnummer, den Nachweis Ihrer Krankenkasse und ein Passfoto für den Werksausweis
(als JPG, mindestens 600 × 800 Pixel) zurück.</p>

<h2 id="erster-tag">2. Der erste Arbeitstag</h2>
<p>Ihr erster Tag beginnt um <strong>8:30 Uhr am Empfang im Erdgeschoss</strong> des Verwaltungsgebäudes
Am Hopfengarten 23 in Kassel – auch wenn Sie später in Baunatal arbeiten. Dort holt Sie Nadine Brosig vom Team
Personal ab. Am Vormittag stehen die Begrüßung durch die Geschäftsführung, die Sicherheitsunterweisung und
ein Rundgang auf dem Programm; um 12:00 Uhr essen Sie mit Ihrem Team zu Mittag. Am Nachmittag richtet der
IT-Service mit Ihnen Ihr Notebook ein.</p>
<p>Bitte bringen Sie Ihren Personalausweis mit. Arbeitskleidung und Sicherheitsschuhe für die Fertigung
erhalten Sie in Baunatal am zweiten Tag.</p>

<h2 id="ausweis">3. Werksausweis und Zutritt</h2>
<p>Den Werksausweis mit Foto bekommen Sie am ersten Tag am Empfang. Er ist zugleich Schlüssel für die
Türen, Zeiterfassungskarte und Bezahlkarte im Automatenraum. Für den Ausweis wird kein Pfand erhoben; bei
Verlust berechnen wir aber 15 € für den Ersatz. Melden Sie einen Verlust sofort dem Empfang
(Durchwahl 100), damit der Ausweis gesperrt wird.</p>
<p>Besucherinnen und Besucher melden Sie bitte am Vortag im Besucherportal an.</p>

<h2 id="it">4. Ihr IT-Zugang</h2>
<p>Ihren Benutzernamen (Schema: <code>vorname.nachname</code>) und ein Startkennwort übergibt Ihnen der
IT-Service persönlich. Bei der ersten Anmeldung richten Sie die Zwei-Faktor-Anmeldung mit der App auf Ihrem
Diensthandy ein. Die E-Learning-Kurse „Informationssicherheit“ und „Datenschutz“ schließen Sie bitte
innerhalb der ersten 30 Tage ab.</p>
<p>Bei Problemen erreichen Sie den IT-Service unter der Durchwahl 444 oder über das Ticketsystem.</p>

<h2 id="pate">5. Patenprogramm</h2>
<p>Jede neue Kollegin und jeder neue Kollege bekommt für die ersten sechs Monate eine Patin oder einen Paten
aus einem anderen Team. Ihre Patin oder Ihr Pate zeigt Ihnen, wo was ist, stellt Sie anderen vor und trifft
sich mindestens alle zwei Wochen mit Ihnen auf einen Kaffee. Wer selbst Pate werden möchte, meldet sich bei
Nadine Brosig.</p>

<h2 id="anreise">6. Anreise und Parken</h2>
<p>Das Verwaltungsgebäude erreichen Sie mit der Tram-Linie 7 bis zur Haltestelle „Hopfengarten“. In den
ersten vier Wochen dürfen neue Mitarbeitende auf den Gästeparkplätzen vor dem Haupteingang parken; danach
können Sie beim Empfang einen Stellplatz im Parkhaus P2 beantragen (Warteliste, 25 € im Monat).
Fahrräder stellen Sie in den überdachten Fahrradboxen an der Nordseite ab, ein Schlüssel liegt am Empfang.</p>

<h2 id="probezeit">7. Probezeit und Feedback</h2>
<p>Die Probezeit beträgt sechs Monate. Nach drei Monaten führen Sie mit Ihrer Führungskraft ein
Zwischengespräch; das Abschlussgespräch findet spätestens zwei Wochen vor dem Ende der Probezeit statt.
Beide Gespräche werden mit dem Bogen „Feedback Probezeit“ (Formulare › Personal) vorbereitet.</p>

<h2 id="checkliste">8. Checkliste für die erste Woche</h2>
<ul>
  <li>Werksausweis abgeholt und Foto geprüft</li>
  <li>Notebook eingerichtet, Zwei-Faktor-Anmeldung aktiv</li>
  <li>Sicherheitsunterweisung unterschrieben</li>
  <li>Erstes Treffen mit Patin oder Pate</li>
  <li>Notfallplan gelesen (Intranet › Standorte › Notfall)</li>
</ul>
</main>
<aside class="sidebar">
  <h3>Auch interessant</h3>
  <ul>
    <li><a href="/personal/gleitzeit/">Gleitzeit</a></li>
    <li><a href="/personal/mobiles-arbeiten/">Mobiles Arbeiten</a></li>
    <li><a href="/it/software/">Software beantragen</a></li>
  </ul>
</aside>
<footer>
  <p>Verantwortlich: Team Personal · Letzte Änderung: 02.12.2026 · <a href="/impressum/">Impressum</a> ·
  <a href="/datenschutz/">Datenschutz</a></p>
  <p>© 2026 Lindwerk Medizintechnik GmbH (fiktiv) – Inhalt unter CC-BY-SA 4.0, © 2026 the IrisRAG authors</p>
</footer>
</body>
</html>
"""


# ----------------------------------------------------------------------------------------------------- Markdown
EMERGENCY = """# Notfallplan und Erste Hilfe – Standort Kassel

Lindwerk Medizintechnik GmbH · Ausgabe 4 · gültig ab 1. Oktober 2026 · verantwortlich: Kemal Arslan
(Fachkraft für Arbeitssicherheit)

## Inhalt

1. Notruf ..................................................... 1
2. Erste Hilfe ................................................ 1
3. Brand ...................................................... 2
4. Räumung und Sammelplatz .................................... 2
5. Unfälle melden ............................................. 3
6. Ersthelferinnen und Ersthelfer ............................. 3
7. Betriebsärztlicher Dienst .................................. 4

## 1. Notruf

Im Notfall zuerst den öffentlichen Notruf **112** wählen (von jedem Firmentelefon ohne Vorwahl, auch ohne
die 0 für die Amtsleitung). Danach die Pforte unter der internen Notrufnummer **5555** verständigen,
damit sie den Rettungsdienst an der Einfahrt Tor 2 in Empfang nimmt und einweist.

Beim Notruf angeben: Wo ist es passiert? Was ist passiert? Wie viele Verletzte? Welche Verletzungen?
Warten auf Rückfragen – nicht selbst auflegen.

## 2. Erste Hilfe

- Erste-Hilfe-Kästen hängen in jeder Teeküche und an jedem Treppenhaus (grünes Schild mit weißem Kreuz).
- Der **Defibrillator (AED)** hängt im Foyer des Verwaltungsgebäudes neben dem Aufzug; ein zweites Gerät
  hängt in der Werkhalle Baunatal am Hallentor 1.
- Augenspülflaschen stehen im Labor 1.08 und in der Werkstatt.
- Verbrauchtes Material bitte der Pforte melden, damit es nachgefüllt wird.

Der AED sagt jeden Schritt an; er darf von jeder Person benutzt werden, auch ohne Ausbildung.

## 3. Brand

1. Ruhe bewahren, Feuermelder (roter Druckknopfmelder) betätigen.
2. Feuerwehr über 112 alarmieren.
3. Menschen in Sicherheit bringen, Türen schließen (nicht abschließen).
4. Löschversuch nur ohne eigene Gefahr – Feuerlöscher hängen an allen Fluren und sind mit dem Symbol F001
   gekennzeichnet.
5. Aufzüge im Brandfall nicht benutzen.

## 4. Räumung und Sammelplatz

Beim Räumungsalarm (Dauerton der Sirene) verlassen alle das Gebäude über die grün gekennzeichneten
Fluchtwege. Der **Sammelplatz** für das Verwaltungsgebäude ist der Mitarbeiterparkplatz Ost an der
Lindenallee, vor der Schranke. Die Räumungshelfer kontrollieren ihre Etage und melden sich dort bei der
Einsatzleitung (gelbe Weste).

Besucherinnen und Besucher werden von der Person begleitet, die sie eingeladen hat. Niemand verlässt den
Sammelplatz, bevor die Einsatzleitung das Gebäude freigibt.

Eine Räumungsübung findet einmal im Jahr statt, in der Regel in der zweiten Septemberwoche.

## 5. Unfälle melden

Jede Erste-Hilfe-Leistung, auch ein Pflaster, wird im **Verbandbuch** eingetragen (liegt an der Pforte und
im Meisterbüro Baunatal, digital unter Intranet › Arbeitssicherheit). Die Einträge werden fünf Jahre
aufbewahrt.

Unfälle mit mehr als drei Tagen Arbeitsunfähigkeit meldet das Team Personal innerhalb von drei Tagen an die
Berufsgenossenschaft. Wegeunfälle – also auf dem Weg zur Arbeit oder nach Hause – bitte ebenfalls dem Team
Personal melden.

## 6. Ersthelferinnen und Ersthelfer

| Bereich               | Ersthelfer/in          | Telefon |
|-----------------------|------------------------|---------|
| Erdgeschoss / Empfang | Nadine Brosig          | 100     |
| 1. OG                 | Fabian Heuer           | 131     |
| 2. OG                 | Birte Rohloff          | 247     |
| 3. OG                 | Kerstin Vogelsang      | 310     |
| Labor                 | Dr. Selma Gündoğdu     | 182     |

Die Ausbildung zur Ersthelferin oder zum Ersthelfer dauert einen Tag und wird alle zwei Jahre aufgefrischt;
die Kosten trägt die Berufsgenossenschaft. Interessierte melden sich bei Kemal Arslan.

## 7. Betriebsärztlicher Dienst

Der betriebsärztliche Dienst (Dr. Anselm Rieck, Praxis Arbeitsmedizin Nordhessen) hält jeden zweiten
Mittwoch im Monat von 8:00 bis 12:00 Uhr eine Sprechstunde in Raum 1.03. Termine über das Team Personal;
die Sprechstunde ist vertraulich und zählt als Arbeitszeit.

---
Lindwerk Medizintechnik GmbH (fiktiv) · CC-BY-SA 4.0, © 2026 the IrisRAG authors
"""


# --------------------------------------------------------------------------------------------------- plain text
STYLE_GUIDE = """LINDWERK MEDIZINTECHNIK GMBH
Schreibregeln für Briefe und E-Mails an Kunden
Version 2.1, November 2026 - Herausgeber: Unternehmenskommunikation (Carla Henning)
==========================================================================

INHALT
  1. Grundsätze .............................................. 1
  2. Anrede und Gruß ......................................... 1
  3. Zahlen, Daten, Telefonnummern ........................... 2
  4. Dateinamen und Ablage ................................... 2
  5. Häufige Abkürzungen ..................................... 3


1. GRUNDSÄTZE
--------------
Wir schreiben kurz, freundlich und ohne Fachjargon. Ein Satz hat möglichst
nicht mehr als 20 Wörter. Wir siezen Kundinnen und Kunden immer, auch wenn
sie uns duzen. Geschlechtergerecht schreiben wir mit Paarformen
("Kundinnen und Kunden") oder neutralen Wörtern ("Beschäftigte"); den
Genderstern und den Doppelpunkt verwenden wir in Kundenbriefen nicht.

Briefe richten sich nach DIN 5008. Vorlagen liegen im DMS unter
Vorlagen > Korrespondenz > 2026.


2. ANREDE UND GRUSS
-------------------
Kennen wir den Namen:      "Sehr geehrte Frau Dr. Lange," / "Sehr geehrter Herr Okafor,"
Kennen wir ihn nicht:      "Guten Tag,"   (NICHT: "Sehr geehrte Damen und Herren")
Gruß in Briefen:           "Mit freundlichen Grüßen"
Gruß in E-Mails:           "Freundliche Grüße aus Kassel"
Englische E-Mails:         "Kind regards"

Nach der Anrede folgt ein Komma, der erste Satz beginnt klein. Nach der
Grußformel steht kein Komma.


3. ZAHLEN, DATEN, TELEFONNUMMERN
--------------------------------
  Was               | So schreiben wir          | Nicht so
  ------------------+---------------------------+-------------------------
  Datum im Text     | 7. Dezember 2026          | 07.12.26, Dez. 7th
  Datum in Tabellen | 2026-12-07                | 7.12.2026
  Uhrzeit           | 14:30 Uhr                 | 14.30h, 2:30 pm
  Geldbeträge       | 1.250,00 EUR              | EUR 1250,-
  Telefon           | +49 561 4471-230          | 0561/4471230
  Große Zahlen      | 12 500 Stück              | 12.500 Stk.

Zahlen von eins bis zwölf schreiben wir im Fließtext als Wort aus, außer vor
Einheiten ("3 kg", "5 %").


4. DATEINAMEN UND ABLAGE
------------------------
Dateinamen beginnen mit dem Datum, dann Kunde, dann Thema, getrennt durch
Unterstriche, ohne Umlaute und Leerzeichen:

    JJJJ-MM-TT_Kunde_Thema_Version.docx
    Beispiel: 2026-12-07_Klinikum-Fulda_Angebot-Infusionspumpen_v2.docx

Ausgehende Briefe werden als PDF im DMS beim Kundenvorgang abgelegt, nicht auf
dem Laufwerk S:. Entwürfe bleiben höchstens 90 Tage im persönlichen Ordner.


5. HÄUFIGE ABKÜRZUNGEN
----------------------
  Abkürzung   Bedeutung                          im Kundenbrief?
  ---------   --------------------------------   ---------------
  MPG         Medizinproduktegesetz (alt)        nur mit Erklärung
  MDR         Medical Device Regulation          ja
  UDI         Unique Device Identification       ja
  KVA         Kostenvoranschlag                  nein, ausschreiben
  i. A.       im Auftrag                         ja
  z. Hd.      zu Händen                          nein, veraltet

Fragen zu diesen Regeln: kommunikation@lindwerk.example, Durchwahl 275.

----
Lindwerk Medizintechnik GmbH (fiktiv) - CC-BY-SA 4.0, (c) 2026 the IrisRAG authors
"""


def fixed_zip_times(path: Path) -> None:
    """Rewrite an Office file (a ZIP package) with fixed entry times, so that a rebuild gives the same bytes."""
    import zipfile

    with zipfile.ZipFile(path) as source:
        entries = [(info, source.read(info.filename)) for info in source.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as target:
        for info, data in entries:
            if info.filename == "docProps/core.xml":  # openpyxl stamps the time of saving as "modified"
                data = re.sub(rb"(<dcterms:modified[^>]*>)[^<]*", rb"\g<1>2026-12-07T09:00:00Z", data)
            fixed = zipfile.ZipInfo(info.filename, date_time=FIXED.timetuple()[:6])
            fixed.compress_type, fixed.external_attr = zipfile.ZIP_DEFLATED, info.external_attr
            target.writestr(fixed, data)


def main() -> None:
    DOCS.mkdir(exist_ok=True)
    works_agreement(DOCS / "betriebsvereinbarung-mobiles-arbeiten.docx")
    inventory(DOCS / "it-inventar-2026.xlsx")
    fixed_zip_times(DOCS / "betriebsvereinbarung-mobiles-arbeiten.docx")
    fixed_zip_times(DOCS / "it-inventar-2026.xlsx")
    licence_register(DOCS / "softwarelizenzen.json")
    printers(DOCS / "drucker-export.xml")
    (DOCS / "willkommen-neue-mitarbeitende.html").write_text(ONBOARDING, encoding="utf-8")
    (DOCS / "notfallplan-kassel.md").write_text(EMERGENCY, encoding="utf-8")
    (DOCS / "schreibregeln-korrespondenz.txt").write_text(STYLE_GUIDE, encoding="utf-8")


if __name__ == "__main__":
    main()
