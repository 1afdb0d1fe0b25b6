"""Write the documents of eval/holdout7-de/docs that belong to the fictitious Wohnungsbaugenossenschaft Wendelsau eG.

Everything here is invented (the housing cooperative, the town of Wendelsau and its quarters, people, addresses,
phone numbers, fees, contractors, interest rates). Licence: CC-BY-SA 4.0, (c) 2026 the IrisRAG authors.

    .venv/bin/python eval/holdout7-de/make/org_documents.py

The output is deterministic: there is no random filler, the Office files carry fixed dates (and fixed ZIP entry
times), and the PDF is written by the small PDF writer at the end of this file (standard Helvetica fonts,
WinAnsiEncoding, fixed creation date), because neither LibreOffice nor reportlab is available here.
"""
from __future__ import annotations

import datetime as dt
import re
import zlib
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"
FIXED = dt.datetime(2026, 12, 7, 9, 0, 0)
COMPANY = "Wohnungsbaugenossenschaft Wendelsau eG"


def de(number: float, decimals: int = 2) -> str:
    """German number format: 1.234,50"""
    text = f"{number:,.{decimals}f}"
    return text.replace(",", "X").replace(".", ",").replace("X", ".")


# --------------------------------------------------------------------------------------------------------- DOCX
CLEANING = [
    ("Aufgabe", "Zuständig", "Wie oft"),
    ("Treppenhaus und Podeste wischen",
     "Mieter der jeweiligen Etage im Wechsel; in WA 04, 05, 07, 08 und 09 die Reinigungsfirma", "wöchentlich"),
    ("Kellergang, Trockenraum und Fahrradkeller fegen", "alle Mieter des Hauses im Wechsel (Plan am Schwarzen Brett)",
     "alle vier Wochen"),
    ("Fenster im Treppenhaus", "Reinigungsfirma", "zweimal jährlich (März und September)"),
    ("Gehweg und Hof kehren", "Hauswart", "nach Bedarf, mindestens 14-täglich"),
    ("Winterdienst (Schnee räumen, streuen)", "Vertragsfirma", "werktags 7:00–20:00 Uhr"),
    ("Mülltonnen an die Straße stellen", "Hauswart", "am Vorabend der Abfuhr"),
    ("Dachrinnen reinigen", "Dachdeckerei (Auftrag der Genossenschaft)", ""),
]


def house_rules(path: Path) -> None:
    from docx import Document
    from docx.enum.text import WD_ALIGN_PARAGRAPH
    from docx.shared import Pt

    doc = Document()
    props = doc.core_properties
    props.author, props.title = "Vermietung WBG Wendelsau", "Hausordnung 2027"
    props.created = props.modified = FIXED
    props.last_modified_by = "T. Lüdecke"
    props.revision = 7
    section = doc.sections[0]
    section.header.paragraphs[0].text = "WBG Wendelsau eG · Hausordnung 2027 · Anlage 2 zum Nutzungsvertrag"
    section.footer.paragraphs[0].text = ("Beschluss von Vorstand und Aufsichtsrat vom 14.11.2026 – "
                                         "Ablage: Vermietung/Vertragsanlagen/HO-2027.docx")

    title = doc.add_heading("Hausordnung", level=0)
    title.alignment = WD_ALIGN_PARAGRAPH.CENTER
    sub = doc.add_paragraph(f"der {COMPANY} – gültig ab 1. März 2027 (ersetzt die Fassung vom 01.07.2019)")
    sub.alignment = WD_ALIGN_PARAGRAPH.CENTER
    doc.add_paragraph(
        "Eine Genossenschaft lebt davon, dass die Mitglieder aufeinander Rücksicht nehmen. Diese Hausordnung "
        "ist Bestandteil jedes Nutzungsvertrags. Sie gilt für alle Bewohnerinnen und Bewohner, ihre Gäste und "
        "Besucher. Wo sie von „Mietern“ spricht, sind alle Nutzerinnen und Nutzer einer Wohnung gemeint.")

    doc.add_heading("§ 1 Ruhezeiten und Lärm", level=1)
    doc.add_paragraph(
        "(1) Allgemeine Ruhezeiten sind die Mittagsruhe von 13:00 bis 15:00 Uhr und die Nachtruhe von 22:00 bis "
        "6:00 Uhr. An Sonn- und Feiertagen gilt die Ruhezeit ganztägig.")
    doc.add_paragraph(
        "(2) Lärmintensive Arbeiten wie Bohren, Hämmern, Sägen oder Schleifen sind werktags von 8:00 bis "
        "13:00 Uhr und von 15:00 bis 19:00 Uhr erlaubt, samstags nur bis 17:00 Uhr.")
    doc.add_paragraph(
        "(3) Radio, Fernseher und Musikinstrumente sind auf Zimmerlautstärke einzustellen. Wer feiert, "
        "informiert die Nachbarn vorher; die Nachtruhe gilt trotzdem.")

    doc.add_heading("§ 2 Treppenhaus, Keller und Gemeinschaftsflächen", level=1)
    doc.add_paragraph(
        "(1) Treppenhäuser, Flure und Kellergänge sind Flucht- und Rettungswege und müssen frei bleiben. "
        "Schuhe, Schuhregale, Möbel und Pflanzen dürfen dort nicht abgestellt werden.")
    doc.add_paragraph(
        "(2) Kinderwagen, Rollatoren und Rollstühle dürfen im Erdgeschoss abgestellt werden, wenn eine "
        "Durchgangsbreite von mindestens 1,20 m frei bleibt. Fahrräder gehören in den Fahrradkeller oder an "
        "die Fahrradständer.")
    doc.add_paragraph(
        "(3) Akkus von E-Bikes und E-Scootern dürfen nicht im Keller oder im Treppenhaus geladen werden.")

    doc.add_heading("§ 3 Reinigung", level=1)
    doc.add_paragraph("Die Reinigung der gemeinsam genutzten Flächen ist wie folgt verteilt:")
    table = doc.add_table(rows=0, cols=3)
    table.style = "Table Grid"
    for r, row in enumerate(CLEANING):
        cells = table.add_row().cells
        for cell, text in zip(cells, row, strict=True):
            cell.text = text
            if r == 0:
                cell.paragraphs[0].runs[0].bold = True
    doc.add_paragraph(
        "Wer seine Reinigungspflicht nicht erfüllt, wird einmal schriftlich erinnert. Danach beauftragt die "
        "Genossenschaft eine Firma auf Kosten des Mitglieds.")

    doc.add_heading("§ 4 Balkone, Loggien und Grillen", level=1)
    doc.add_paragraph(
        "(1) Auf Balkonen, Loggien und Terrassen sind nur Elektrogrills erlaubt. Holzkohle- und Gasgrills sind "
        "dort verboten. Auf den Grillplätzen in den Anlagen Mühlenfeld und Auwiesen darf mit Holzkohle gegrillt "
        "werden; der Grillplatz wird beim Hauswart reserviert.")
    doc.add_paragraph(
        "(2) Blumenkästen sind an der Innenseite der Brüstung anzubringen. Wäsche darf nur unterhalb der "
        "Brüstung getrocknet werden. Tauben dürfen nicht gefüttert werden.")
    doc.add_paragraph(
        "(3) Steckersolargeräte („Balkonkraftwerke“) sind vor der Montage mit dem Formular T-17 bei der "
        "Abteilung Technik anzumelden.")

    doc.add_heading("§ 5 Haustiere", level=1)
    doc.add_paragraph(
        "Kleintiere wie Zierfische, Wellensittiche, Hamster oder Kaninchen dürfen in üblicher Zahl ohne "
        "Erlaubnis gehalten werden. Hunde und Katzen dürfen nur mit schriftlicher Zustimmung der Genossenschaft "
        "gehalten werden; der Antrag geht formlos an die Vermietung. Auf Gemeinschaftsflächen sind Hunde an der "
        "Leine zu führen.")

    doc.add_heading("§ 6 Waschküche und Trockenraum", level=1)
    doc.add_paragraph(
        "Waschküche und Trockenraum dürfen werktags von 7:00 bis 20:00 Uhr benutzt werden, nicht an Sonn- und "
        "Feiertagen. Es gilt der Belegungsplan an der Tür. Die Wäsche ist spätestens am Folgetag abzunehmen.")

    doc.add_heading("§ 7 Müll", level=1)
    doc.add_paragraph(
        "Abfall wird getrennt (Rest-, Bio-, Papier- und Verpackungsmüll). Sperrmüll meldet jedes Mitglied "
        "selbst bei der Stadt an; er darf nicht im Keller oder an den Tonnen gelagert werden.")

    doc.add_heading("§ 8 Heizen und Lüften", level=1)
    doc.add_paragraph(
        "Um Feuchtigkeit und Schimmel zu vermeiden, sollen die Räume in der Heizperiode nicht unter 16 °C "
        "abkühlen. Mehrmals täglich 5 bis 10 Minuten stoßlüften; Fenster im Winter nicht dauerhaft kippen.")

    doc.add_heading("§ 9 Verhalten bei Schäden", level=1)
    doc.add_paragraph("Bei einem Schaden in der Wohnung oder im Haus gehen Sie in dieser Reihenfolge vor:")
    for step in ("Tritt Wasser aus, sofort den Absperrhahn der Wohnung schließen (meist unter dem Waschbecken "
                 "im Bad oder in der Küche); bei größeren Schäden den Hauptabsperrhahn im Keller.",
                 "Bei Gasgeruch kein Licht schalten, Fenster öffnen, das Haus verlassen und erst draußen den "
                 "Gas-Notruf des Versorgers anrufen.",
                 "Die Geschäftsstelle anrufen, außerhalb der Sprechzeiten den Notdienst der Genossenschaft unter "
                 "04573 8810-99.",
                 "Den Schaden mit Fotos festhalten.",
                 "Die Schadensmeldung spätestens innerhalb von drei Tagen im Mieterportal „Wendelsau Online“ oder "
                 "schriftlich nachreichen."):
        doc.add_paragraph(step, style="List Number")

    doc.add_heading("§ 10 Schlüssel", level=1)
    doc.add_paragraph(
        "Der Verlust eines Schlüssels ist der Geschäftsstelle sofort zu melden. Nachschlüssel für die "
        "Schließanlage gibt es nur über die Geschäftsstelle gegen Vorlage der Sicherungskarte. Die Kosten für "
        "Nachschlüssel und, wenn nötig, für den Austausch der Schließanlage trägt das Mitglied.")

    doc.add_paragraph()
    sign = doc.add_paragraph("Wendelsau, den 14. November 2026")
    sign.runs[0].font.size = Pt(10)
    doc.add_paragraph("Der Vorstand: Dr. Henrike Voßberg · Jan-Ole Brettschneider")
    doc.save(path)


# --------------------------------------------------------------------------------------------------------- XLSX
ESTATES = [
    # Nr, Wohnanlage, Quartier, Adresse, Baujahr, WE, Fläche, Gebühr, BK, Heizung, Hauswart, Modernisierung, Bem.
    ("WA 01", "Lindenhof", "Altwendel", "Lindenallee 10–16", 1956, 36, 2104.50, 5.48, 2.35, "Fernwärme",
     "Dieter Osterkamp", "2019 (Fenster, Dämmung)", "Geschäftsstelle im EG von Nr. 14"),
    ("WA 02", "Mühlenhof", "Mühlenfeld", "Müllerweg 1–9", 1962, 54, 3310.20, 5.21, 2.40, "Gas-Brennwert",
     "Sabine Tölke", "2015", "Gästewohnung Müllerweg 3"),
    ("WA 03", "Am Mühlbach", "Mühlenfeld", "Mühlbachstraße 2–8", 1971, 48, 2920.00, 5.36, 2.52, "Gas-Brennwert",
     "Sabine Tölke", "", "kein Aufzug"),
    ("WA 04", "Sonnenhang I", "Sonnenhang", "Lerchenstieg 1–11", 1984, 60, 3982.75, 5.95, 2.48, "Fernwärme",
     "Kemal Arslan", "2021 (Bäder)", "Aufzüge in Haus 5 und 7"),
    ("WA 05", "Sonnenhang II", "Sonnenhang", "Finkenweg 2–6", 1994, 30, 2055.40, 6.40, 2.61,
     "Wärmepumpe + Photovoltaik", "Kemal Arslan", "2024", "Gästewohnung Finkenweg 4"),
    ("WA 06", "Kirchberg", "Kirchberg", "Am Kirchberg 3–7", 1928, 18, 1166.30, 5.12, 2.20, "Pelletkessel",
     "Wolfgang Riedesel", "2011", "Denkmalschutz (Fassade)"),
    ("WA 07", "Pfarrgarten", "Kirchberg", "Pfarrgasse 9", 2009, 12, 884.00, 7.15, 2.70,
     "Gas-Brennwert + Solarthermie", "Wolfgang Riedesel", "", "barrierefrei, Aufzug"),
    ("WA 08", "Auwiesen", "Auwiesen", "Auenring 20–34", 1976, 72, 4611.90, 5.29, 2.44, "Fernwärme",
     "Jörg Brandhorst", "2017 (Aufzüge)", "größte Anlage; Gemeinschaftsraum Auenring 28"),
    ("WA 09", "Weidenhof", "Auwiesen", "Weidenweg 1–5", 2018, 24, 1788.60, 8.30, 2.85, "Wärmepumpe",
     "Jörg Brandhorst", "", "Neubau, KfW-Effizienzhaus 55"),
    ("WA 10", "Brunnenplatz", "Altwendel", "Brunnenplatz 2", 1899, 8, 612.40, 4.95, 2.18, "Gas-Etagenheizung",
     "Dieter Osterkamp", "2008", "Ladenlokal im EG an Bäckerei Hüsing vermietet"),
    ("WA 11", "Schulstraße", "Altwendel", "Schulstraße 17–21", 1966, 27, 1540.80, 5.33, 2.39, "Fernwärme",
     "Dieter Osterkamp", "2026 (Dach)", ""),
]
COSTS = [
    # Kostenart, Umlageschlüssel, 2025, 2026, Bemerkung
    ("Grundsteuer", "nach Wohnfläche", 48210.00, 49870.00, "Hebesatz der Stadt erhöht"),
    ("Wasser und Abwasser", "nach Verbrauch (Zähler)", 96440.12, 101203.55, ""),
    ("Müllabfuhr", "nach Personen", 58900.00, 61320.40, ""),
    ("Straßenreinigung und Winterdienst", "nach Wohnfläche", 22418.00, 26905.75, "strenger Winter Jan./Feb. 2026"),
    ("Gartenpflege", "nach Wohnfläche", 31200.00, 29840.00, "neuer Vertrag mit Grünwerk Schaper"),
    ("Hauswart", "nach Wohnfläche", 112500.00, 116030.00, ""),
    ("Aufzug (Wartung, Strom, Notruf)", "nach Wohnungen mit Aufzug", 18760.40, 19412.80, "WA 04, 07, 08"),
    ("Allgemeinstrom", "nach Wohnfläche", 14102.33, 12987.10, "LED-Umrüstung Treppenhäuser"),
    ("Gebäudeversicherung", "nach Wohnfläche", 67330.00, 74062.00, "Elementarschaden neu eingeschlossen"),
    ("Schornsteinfeger", "nach Wohnungen", 5840.00, 5912.00, ""),
    ("Rauchwarnmelder (Wartung)", "nach Wohnungen", 3890.00, None, "Rechnung Meyerhoff steht noch aus"),
    ("Treppenhausreinigung", "nach Wohnfläche", 38675.50, 40118.25, "nur Anlagen mit Reinigungsfirma"),
]


def estates_sheet(path: Path) -> None:
    from openpyxl import Workbook
    from openpyxl.styles import Font

    wb = Workbook()
    wb.properties.creator = "Rechnungswesen WBG Wendelsau"
    wb.properties.title = "Bestandsübersicht und Betriebskosten"
    wb.properties.created = wb.properties.modified = FIXED

    ws = wb.active
    ws.title = "Wohnanlagen"
    ws["A1"] = "Bestandsübersicht Wohnanlagen – Stand 30.11.2026 (intern)"
    ws["A1"].font = Font(bold=True, size=13)
    header = ["Nr.", "Wohnanlage", "Quartier", "Adresse", "Baujahr", "Wohnungen", "Wohnfläche m²",
              "Nutzungsgebühr €/m² (netto kalt)", "BK-Vorauszahlung €/m²", "Heizung", "Hauswart",
              "Letzte Modernisierung", "Bemerkung"]
    ws.append([])
    ws.append(header)
    for cell in ws[3]:
        cell.font = Font(bold=True)
    for estate in ESTATES:
        ws.append([value if value != "" else None for value in estate])
        row = ws.max_row
        ws.cell(row, 7).number_format = "#,##0.00"
        ws.cell(row, 8).number_format = "#,##0.00"
        ws.cell(row, 9).number_format = "#,##0.00"
    flats = sum(e[5] for e in ESTATES)
    area = round(sum(e[6] for e in ESTATES), 2)
    ws.append(["Summe", None, None, None, None, flats, area])
    ws.cell(ws.max_row, 7).number_format = "#,##0.00"
    for cell in ws[ws.max_row]:
        cell.font = Font(bold=True)
    ws.append([])
    ws.append(["WE = Wohneinheiten; Gewerbeeinheiten nicht enthalten. Gebühren ab 01.01.2027."])
    for column, width in zip("ABCDEFGHIJKLM", (7, 15, 12, 20, 8, 10, 13, 14, 12, 26, 18, 22, 40), strict=True):
        ws.column_dimensions[column].width = width

    costs = wb.create_sheet("Betriebskosten 2026")
    costs["A1"] = "Betriebskosten aller Wohnanlagen 2026 – vorläufig (Stand 30.11.2026, Dezember geschätzt)"
    costs["A1"].font = Font(bold=True, size=13)
    costs.append(["Kostenart", "Umlageschlüssel", "2025 (€)", "2026 (€)", "Veränderung", "Bemerkung"])
    for cell in costs[2]:
        cell.font = Font(bold=True)
    for name, key, before, now, note in COSTS:
        change = None if now is None else round((now - before) / before, 4)
        costs.append([name, key, before, now, change, note or None])
        row = costs.max_row
        costs.cell(row, 3).number_format = "#,##0.00"
        costs.cell(row, 4).number_format = "#,##0.00"
        costs.cell(row, 5).number_format = "0.0%"
    total_before = round(sum(c[2] for c in COSTS), 2)
    total_now = round(sum(c[3] for c in COSTS if c[3] is not None), 2)
    costs.append(["Summe", None, total_before, total_now, None, "2026 ohne Rauchwarnmelder"])
    costs.cell(costs.max_row, 3).number_format = "#,##0.00"
    costs.cell(costs.max_row, 4).number_format = "#,##0.00"
    for cell in costs[costs.max_row]:
        cell.font = Font(bold=True)
    for column, width in zip("ABCDEF", (34, 26, 14, 14, 12, 36), strict=True):
        costs.column_dimensions[column].width = width
    wb.save(path)


# ---------------------------------------------------------------------------------------------------------- XML
GROUPS = [
    ("SAN", "Sanitär", [
        ("SAN-01", "notfall", "Rohrbruch / Wasser tritt aus", "Burst pipe, water leaking into the flat or ceiling",
         ["sofort, spätestens 2 Stunden"], "Genossenschaft", "Haustechnik Grote & Söhne GmbH",
         "Mieter schließt den Absperrhahn, siehe Hausordnung § 9.", None),
        ("SAN-02", "dringend", "WC verstopft (einziges WC der Wohnung)", "Toilet blocked (only toilet in the flat)",
         ["24 Stunden"], "Genossenschaft", "Kanal-Blitz Rohrservice", None,
         "Tenant is charged if the blockage was caused by food waste, fat, wet wipes or hygiene products."),
        ("SAN-03", "normal", "Abfluss von Waschbecken oder Dusche läuft langsam ab", "Slow drain in basin or shower",
         ["5 Werktage"], "Mitglied (Kleinreparatur)", "Haustechnik Grote & Söhne GmbH", None, None),
        ("SAN-04", "normal", "Wasserhahn tropft", "Dripping tap", ["5 Werktage"], "Mitglied (Kleinreparatur)",
         "Haustechnik Grote & Söhne GmbH", None, None),
        ("SAN-05", "dringend", "Kein Warmwasser", "No hot water", ["24 Stunden"], "Genossenschaft",
         "Wärmetechnik Bölling KG", "Bei zentraler Warmwasserbereitung das ganze Haus prüfen.", None),
        ("SAN-06", "normal", "Spülkasten läuft nach", "Cistern keeps running", ["5 Werktage"],
         "Mitglied (Kleinreparatur)", "Haustechnik Grote & Söhne GmbH", None, None),
    ]),
    ("HZG", "Heizung", [
        ("HZG-01", "dringend", "Heizung in der ganzen Wohnung ausgefallen", "Heating failure in the whole flat",
         [("Oktober–April", "3 Stunden"), ("Mai–September", "3 Werktage")], "Genossenschaft",
         "Wärmetechnik Bölling KG", "Bei Frost leiht der Hauswart einen Heizlüfter aus dem Lager aus.", None),
        ("HZG-02", "normal", "Einzelner Heizkörper wird nicht warm", "Single radiator not heating up",
         ["3 Werktage"], "Genossenschaft", "Wärmetechnik Bölling KG", None,
         "Ask the tenant to bleed the radiator first; a bleed key is available from the caretaker."),
        ("HZG-03", "normal", "Thermostatkopf defekt", "Broken thermostatic valve head", ["5 Werktage"],
         "Mitglied (Kleinreparatur)", "Wärmetechnik Bölling KG", None, None),
        ("HZG-04", "notfall", "Heizungsraum: Wasser am Boden oder Brandgeruch",
         "Boiler room: water on the floor or smell of burning", ["sofort, spätestens 2 Stunden"], "Genossenschaft",
         "Wärmetechnik Bölling KG", "Bei Brandgeruch zuerst Feuerwehr 112.", None),
    ]),
    ("ELT", "Elektro", [
        ("ELT-01", "notfall", "Stromausfall in der Wohnung, Sicherung löst immer wieder aus",
         "Power keeps tripping in the flat", ["sofort, spätestens 2 Stunden"], "Genossenschaft",
         "Elektro Hagedorn GmbH", "Am Wochenende: Elektro Sievert (Notdienst).", None),
        ("ELT-02", "dringend", "Treppenhausbeleuchtung ausgefallen", "Stairwell lighting out", ["24 Stunden"],
         "Genossenschaft", "Elektro Hagedorn GmbH", None, None),
        ("ELT-03", "normal", "Steckdose oder Lichtschalter locker/defekt", "Loose or broken socket or light switch",
         ["5 Werktage"], "Mitglied (Kleinreparatur)", "Elektro Hagedorn GmbH", None, None),
        ("ELT-04", "normal", "Rauchwarnmelder piept", "Smoke alarm beeping", ["3 Werktage"], "Genossenschaft",
         "Brandschutz Meyerhoff", "Melder nicht selbst abnehmen – sie werden per Funk geprüft.", None),
        ("ELT-05", "normal", None, "Intercom / door entry system not working", ["3 Werktage"], "Genossenschaft",
         "Elektro Hagedorn GmbH", None, "Imported from FixFlow, German label missing."),
        ("ELT-06", "normal", None, "Outdoor light or motion sensor at the entrance faulty", ["5 Werktage"],
         "Genossenschaft", "Elektro Hagedorn GmbH", None, "Imported from FixFlow, German label missing."),
    ]),
    ("TUE", "Türen und Schlösser", [
        ("TUE-01", "notfall", "Haustür schließt nicht / Schloss der Haustür defekt",
         "Main entrance door of the building does not lock", ["4 Stunden"], "Genossenschaft", "Schlüssel-Kruse",
         None, None),
        ("TUE-02", "dringend", "Schlüssel im Schloss der Wohnungstür abgebrochen",
         "Key broken off in the flat door lock",
         ["24 Stunden"], "Mitglied", "Schlüssel-Kruse", None,
         "A lockout (keys lost or forgotten) is not a repair: the tenant calls and pays the locksmith directly."),
        ("TUE-03", "gering", "Briefkasten klemmt", "Letterbox jammed", ["10 Werktage"], "Genossenschaft",
         "Schlüssel-Kruse", None, None),
    ]),
    ("AUF", "Aufzug", [
        ("AUF-01", "notfall", "Person im Aufzug eingeschlossen", "Person trapped in the lift",
         ["30 Minuten (Notrufzentrale)"], "Genossenschaft", "Lift24 Aufzugsservice GmbH",
         "Der Notruf geht über den Notrufknopf in der Kabine direkt an die Notrufzentrale von Lift24.", None),
        ("AUF-02", "dringend", "Aufzug steht still", "Lift out of service", ["24 Stunden"], "Genossenschaft",
         "Lift24 Aufzugsservice GmbH",
         "Mitglieder mit Rollstuhl oder Rollator: Einkaufshilfe über die Sozialberatung anbieten.", None),
        ("AUF-03", "normal", "Aufzugtür schließt ruckartig", "Lift door closes jerkily", ["5 Werktage"],
         "Genossenschaft", "Lift24 Aufzugsservice GmbH", None, None),
    ]),
    ("DACH", "Dach und Fassade", [
        ("DACH-01", "dringend", "Sturmschaden: Dachziegel lose oder heruntergefallen",
         "Storm damage: loose or fallen roof tiles", ["24 Stunden"], "Genossenschaft", "Dachdeckerei Ahlers",
         "Gefahrenbereich sofort absperren (Hauswart).", None),
        ("DACH-02", "normal", "Dachrinne verstopft oder läuft über", "Gutter blocked or overflowing",
         ["10 Werktage"], "Genossenschaft", "Dachdeckerei Ahlers", None, None),
        ("DACH-03", "normal", "Feuchter Fleck an der Decke im obersten Geschoss", "Damp patch on top-floor ceiling",
         ["5 Werktage"], "Genossenschaft", "Dachdeckerei Ahlers", None, None),
    ]),
    ("FEN", "Fenster und Rollläden", [
        ("FEN-01", "dringend", "Fensterscheibe gebrochen", "Broken window pane", ["24 Stunden"], "Genossenschaft",
         "Glaserei Fenske", None, "Emergency boarding first if the pane cannot be replaced on the same day."),
        ("FEN-02", "normal", "Fenster schließt nicht richtig, es zieht", "Window does not close properly, draught",
         ["10 Werktage"], "Genossenschaft", "Tischlerei Wöhrmann", None, None),
        ("FEN-03", "normal", "Rollladengurt gerissen", "Roller shutter strap broken", ["10 Werktage"],
         "Mitglied (Kleinreparatur)", "Tischlerei Wöhrmann", None, None),
    ]),
    ("ALL", "Allgemein und Außenanlagen", [
        ("ALL-01", "normal", "Schimmel in der Wohnung", "Mould in the flat", ["5 Werktage"], "nach Begehung",
         "Technik (R. Kampmann)", "Begehung vor Ort; dem Mitglied ein Lüftungsprotokoll anbieten.", None),
        ("ALL-02", "gering", "Spielgerät beschädigt", "Damaged playground equipment",
         ["Gerät sofort sperren, Reparatur in 10 Werktagen"], "Genossenschaft", "Spielgeräte-Prüfdienst Lorenz",
         None, None),
        ("ALL-03", "gering", "Ungeziefer (Schaben, Mäuse)", "Pests (cockroaches, mice)", ["3 Werktage"],
         "Genossenschaft", "Schädlingsdienst Kessler", None,
         "Wasp nests are only removed inside the building; nests in the gardens stay (protected species)."),
        ("ALL-04", "gering", "Graffiti / Schmiererei", "Graffiti", ["10 Werktage"], "Genossenschaft",
         "Malerbetrieb Özdemir & Lange", "Beleidigende oder rassistische Inhalte innerhalb von 24 Stunden entfernen.",
         None),
    ]),
]
LEVELS = [
    ("notfall", "rot", "Gefahr für Menschen oder Gebäude, sofort handeln"),
    ("dringend", "orange", "Wohnung nur eingeschränkt nutzbar"),
    ("normal", "gelb", "Reparatur im Rahmen der Tagesplanung"),
    ("gering", "grün", "Sammelauftrag, nächster Rundgang des Hauswarts"),
]


def damage_catalogue(path: Path) -> None:
    from lxml import etree

    ns = "urn:wbg-wendelsau:schadenskatalog:2027"
    xml_lang = "{http://www.w3.org/XML/1998/namespace}lang"
    root = etree.Element(f"{{{ns}}}schadenskatalog", nsmap={None: ns},
                         version="2027.1", gueltigAb="2027-01-01", system="Wendelsau Online / FixFlow 4.2")
    root.append(etree.Comment(" Export aus dem Mieterportal – bitte nicht von Hand bearbeiten (M. Szymanski) "))
    head = etree.SubElement(root, f"{{{ns}}}kopf")
    etree.SubElement(head, f"{{{ns}}}herausgeber").text = f"{COMPANY}, Abteilung Technik"
    etree.SubElement(head, f"{{{ns}}}verantwortlich").text = "Rüdiger Kampmann (Leitung Technik)"
    etree.SubElement(head, f"{{{ns}}}stand").text = "2026-11-30"
    levels = etree.SubElement(head, f"{{{ns}}}dringlichkeitsstufen")
    for key, colour, text in LEVELS:
        etree.SubElement(levels, f"{{{ns}}}stufe", id=key, farbe=colour).text = text
    for group_id, group_name, entries in GROUPS:
        group = etree.SubElement(root, f"{{{ns}}}gewerk", id=group_id, name=group_name)
        for code, level, label, description, times, payer, contractor, note_de, note_en in entries:
            item = etree.SubElement(group, f"{{{ns}}}schaden", code=code, dringlichkeit=level, aktiv="true")
            name = etree.SubElement(item, f"{{{ns}}}bezeichnung")
            if label:
                name.text = label
            desc = etree.SubElement(item, f"{{{ns}}}description")
            desc.set(xml_lang, "en")
            desc.text = description
            for time in times:
                if isinstance(time, tuple):
                    etree.SubElement(item, f"{{{ns}}}reaktionszeit", saison=time[0]).text = time[1]
                else:
                    etree.SubElement(item, f"{{{ns}}}reaktionszeit").text = time
            etree.SubElement(item, f"{{{ns}}}kostentraeger").text = payer
            etree.SubElement(item, f"{{{ns}}}auftragnehmer").text = contractor
            if note_de:
                etree.SubElement(item, f"{{{ns}}}hinweis").text = note_de
            if note_en:
                note = etree.SubElement(item, f"{{{ns}}}note")
                note.set(xml_lang, "en")
                note.text = note_en
    path.write_bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True))


# ---------------------------------------------------------------------------------------------------------- CSV
FIRMS = [
    # Gewerk, Firma, Ort, Ansprechpartner, Telefon, Notdienst, Stundensatz, Anfahrt, Vertrag bis, Bemerkung
    ("Sanitär", "Haustechnik Grote & Söhne GmbH", "Wendelsau", "Uwe Grote", "04573 2219", "ja", "58,50", "24,00",
     "31.12.2027", "Rohrbruch-Notdienst rund um die Uhr"),
    ("Heizung", "Wärmetechnik Bölling KG", "Eschenrode", "Marita Bölling", "04573 60418", "ja (Okt.-Apr.)", "62,00",
     "29,00", "30.04.2028", "Wartung aller Gas- und Pelletkessel im September"),
    ("Elektro", "Elektro Hagedorn GmbH", "Wendelsau", "Marion Hagedorn", "04573 3377", "nein", "56,00",
     "pauschal 19,50", "2028-06-30", "Notdienst am Wochenende: siehe Elektro Sievert"),
    ("Elektro (Notdienst Wochenende)", "Elektro Sievert", "Tannhöfen", "Lars Sievert", "0171 4452087", "ja",
     "61,80", "35,00", "31.12.27", "Fr 16 Uhr bis Mo 7 Uhr"),
    ("Aufzüge", "Lift24 Aufzugsservice GmbH", "Eschenrode", "Service-Hotline", "0800 5438 240", "ja", "89,00",
     "inkl.", "30.09.27", "Notrufzentrale für Personenbefreiung; Wartung 4x jährlich"),
    ("Schlüssel und Schließanlage", "Schlüssel-Kruse", "Wendelsau", "Heiko Kruse", "04573 1180", "ja", "49,00",
     "", "unbefristet", "Türöffnung werktags 79,00 EUR pauschal, nachts und sonntags Zuschlag 50 %"),
    ("Dach und Dachrinnen", "Dachdeckerei Ahlers", "Tannhöfen", "Frank Ahlers", "04574 9021", "nein", "54,00",
     "30,00", "Ende Q2/2027", "Dachrinnenreinigung zweimal jährlich (April/Oktober)"),
    ("Maler", "Malerbetrieb Özdemir & Lange", "Wendelsau", "Tuncay Özdemir", "04573 5562", "nein", "46,50", "",
     "31.12.2027", "Treppenhausanstrich nach Plan; Graffiti-Entfernung"),
    ("Fenster und Türen", "Tischlerei Wöhrmann", "Bad Sülzbrunn", "Jens Wöhrmann", "04575 2290", "nein", "52,00",
     "25,00", "2027-12-31", ""),
    ("Glas", "Glaserei Fenske", "Eschenrode", "Birgit Fenske", "04573 60771", "ja", "55,00", "25,00",
     "31.12.2027", "Notverglasung / emergency boarding"),
    ("Rohrreinigung", "Kanal-Blitz Rohrservice", "Eschenrode", "Hotline", "0800 7262 500", "ja", "72,00", "35,00",
     "31.03.2028", "Kamera-Inspektion 145,00 EUR pauschal"),
    ("Schädlingsbekämpfung", "Schädlingsdienst Kessler", "Bad Sülzbrunn", "Ralf Kessler", "04575 8804", "nein",
     "68,00", "", "30.06.2027", "Wespen nur im Gebäude"),
    ("Gartenpflege", "Grünwerk Schaper", "Wendelsau", "Ina Schaper", "04573 4410", "nein", "41,00", "",
     "31.10.2028", "Rasen mähen 14-täglich April bis Oktober; Heckenschnitt im Juli"),
    ("Winterdienst", "Grünwerk Schaper", "Wendelsau", "Ina Schaper", "0160 9934412", "ja (Nov.-März)", "", "",
     "31.03.2027", "Räumen werktags 7:00-20:00 Uhr, sonntags ab 9:00 Uhr; Pauschale je Saison"),
    ("Treppenhausreinigung", "Glanzwerk Gebäudereinigung GmbH", "Tannhöfen", "Olga Becker", "04574 7733",
     "nein", "32,50", "", "31.12.2027", "WA 04, 05, 07, 08, 09 wöchentlich; Fenster März/September"),
    ("Rauchwarnmelder", "Brandschutz Meyerhoff", "Eschenrode", "Sven Meyerhoff", "04573 60990", "nein", "", "",
     "2029-12-31", "jährliche Funkprüfung; Melder bleiben Eigentum von Meyerhoff"),
    ("Heizkostenabrechnung", "Wärmezähler Nord GmbH", "Hamburg", "Kundenservice", "040 6078 1200", "nein", "",
     "", "31.12.2030", "Ablesung per Funk, keine Termine in der Wohnung"),
    ("Spielplätze", "Spielgeräte-Prüfdienst Lorenz", "Bad Sülzbrunn", "Peter Lorenz", "04575 3312", "nein",
     "48,00", "", "2027-05-31", "Hauptinspektion jährlich im Mai"),
    ("Entrümpelung und Umzüge", "Umzüge Jankowski", "Wendelsau", "Dariusz Jankowski", "04573 2981", "nein",
     "38,00 je Helfer", "", "nach Auftrag", "auch Umzugshilfe Senioren (Zuschuss siehe Mitgliederhandbuch)"),
    ("Breitband / Kabel", "NetzWendel Breitband GmbH", "Wendelsau", "Störungsannahme", "0800 6393 000", "ja", "",
     "", "31.12.2031", "Hotline German/English; Hausanschlüsse in allen Anlagen außer WA 10"),
    ("Sanitär (Vertretung)", "Bad & Wärme Petersen", "Tannhöfen", "", "04574 1156", "nein", "57,00", "24,00",
     "", "nur wenn Grote nicht verfügbar"),
]


def contractors(path: Path) -> None:
    lines = ["Vertragsfirmen und Notdienste 2027 - WBG Wendelsau eG, Abteilung Technik - Stand: 02.12.2026;;;;;;;;;;",
             ";;;;;;;;;;",
             "Nr.;Gewerk;Firma;Ort;Ansprechpartner;Telefon;Notdienst 24/7;Stundensatz netto (EUR);"
             "Anfahrt (EUR);Vertrag bis;Bemerkung"]
    for number, values in enumerate(FIRMS, start=1):
        cells = [str(number)] + [f'"{v}"' if ";" in v or '"' in v else v for v in values]
        lines.append(";".join(cells))
    lines.append(f";Anzahl Vertragsfirmen: {len({f[1] for f in FIRMS})};;;;;;;;;")
    lines.append(";Änderungen bitte an R. Kampmann (Technik), Durchwahl -31;;;;;;;;;")
    path.write_bytes(("\r\n".join(lines) + "\r\n").encode("iso-8859-1"))


# --------------------------------------------------------------------------------------------------------- HTML
ROOMS_PAGE = """<!DOCTYPE html>
<html lang="de">
<head>
<meta charset="utf-8">
<title>Gästewohnungen und Gemeinschaftsräume – Vermietung | WBG-Intranet</title>
<link rel="stylesheet" href="/static/intranet.css">
<script src="/static/matomo.js" defer></script>
</head>
<body>
<a class="skip" href="#inhalt">Zum Inhalt springen</a>
<header class="top">
  <a class="logo" href="/"><img src="/static/wbg-logo.svg" alt="WBG Wendelsau eG"></a>
  <nav class="main-nav" aria-label="Hauptnavigation">
    <ul>
      <li><a href="/">Start</a></li>
      <li><a href="/news/">Neuigkeiten</a></li>
      <li><a href="/vermietung/" class="active">Vermietung</a></li>
      <li><a href="/mitglieder/">Mitglieder</a></li>
      <li><a href="/technik/">Technik</a></li>
      <li><a href="/rewe/">Rechnungswesen</a></li>
      <li><a href="/it/">IT &amp; Mieterportal</a></li>
      <li><a href="/telefon/">Telefonliste</a></li>
    </ul>
  </nav>
  <form class="search" action="/suche/" role="search"><input name="q" placeholder="Suchen …"><button>Los</button></form>
</header>
<nav class="breadcrumbs" aria-label="Brotkrumen">
  <a href="/">Start</a> › <a href="/vermietung/">Vermietung</a> › <a href="/vermietung/raeume/">Räume &amp; Gästewohnungen</a> › Vermietung an Mitglieder
</nav>
<div class="layout">
<aside class="sidebar">
  <h3>Vermietung</h3>
  <ul>
    <li><a href="/vermietung/wohnungsangebote/">Wohnungsangebote</a></li>
    <li><a href="/vermietung/warteliste/">Warteliste &amp; Wohnungswechsel</a></li>
    <li><a href="/vermietung/raeume/" class="active">Räume &amp; Gästewohnungen</a></li>
    <li><a href="/vermietung/abnahme/">Wohnungsabnahme (Checkliste)</a></li>
  </ul>
  <h3>Kalender</h3>
  <ul>
    <li><a href="https://kalender.wbg.intern/gaeste-muehlenfeld">Belegung GW Mühlenfeld</a></li>
    <li><a href="https://kalender.wbg.intern/gaeste-sonnenhang">Belegung GW Sonnenhang</a></li>
    <li><a href="https://kalender.wbg.intern/alte-muehle">Belegung Alte Mühle</a></li>
  </ul>
</aside>
<main id="inhalt">
<h1>Gästewohnungen und Gemeinschaftsräume: Vermietung an Mitglieder</h1>
<p class="meta">Seite gepflegt von Tobias Lüdecke (Vermietung), zuletzt geändert am 25.11.2026 · gilt ab 01.01.2027</p>

<div class="toc">
<h2>Inhalt</h2>
<ol>
  <li><a href="#angebot">Was wir vermieten</a></li>
  <li><a href="#preise">Preise und Kaution</a></li>
  <li><a href="#buchung">Buchung und Storno</a></li>
  <li><a href="#schluessel">Schlüssel, An- und Abreise</a></li>
  <li><a href="#regeln">Regeln für Feiern</a></li>
</ol>
</div>

<h2 id="angebot">1. Was wir vermieten</h2>
<p>Mitglieder können für ihren Besuch eine unserer zwei Gästewohnungen mieten und für Feiern, Kurse oder
Versammlungen einen Gemeinschaftsraum. Nichtmitglieder können nur die Räume mieten, nicht die Gästewohnungen.</p>
<ul>
  <li><strong>Gästewohnung Mühlenfeld</strong>, Müllerweg 3, Erdgeschoss rechts: 2 Zimmer, 2 Betten + Zustellbett, barrierearm</li>
  <li><strong>Gästewohnung Sonnenhang</strong>, Finkenweg 4, 1. OG: 3 Zimmer, bis 4 Personen, kein Aufzug</li>
  <li><strong>Nachbarschaftstreff „Alte Mühle“</strong>, Müllerweg 12: Saal für bis zu 60 Personen mit Küche</li>
  <li><strong>Gemeinschaftsraum Auwiesen</strong>, Auenring 28, Souterrain: bis zu 20 Personen, Teeküche</li>
</ul>

<h2 id="preise">2. Preise und Kaution</h2>
<table class="grid">
<caption>Preise ab 01.01.2027 (inkl. Nebenkosten)</caption>
<thead>
<tr><th>Angebot</th><th>Preis für Mitglieder</th><th>Preis für Externe</th><th>Endreinigung</th><th>Kaution</th></tr>
</thead>
<tbody>
<tr><td>Gästewohnung Mühlenfeld</td><td>42,00 € pro Nacht (2 Personen), jede weitere Person 8,00 €</td><td>–</td><td>25,00 €</td><td>keine</td></tr>
<tr><td>Gästewohnung Sonnenhang</td><td>38,00 € pro Nacht (bis 4 Personen)</td><td>–</td><td>25,00 €</td><td>keine</td></tr>
<tr><td>Saal „Alte Mühle“</td><td>60,00 € pro Tag</td><td>140,00 € pro Tag</td><td>inklusive</td><td>150,00 €</td></tr>
<tr><td>Gemeinschaftsraum Auwiesen</td><td>25,00 € pro Tag</td><td>55,00 € pro Tag</td><td>selbst</td><td>50,00 €</td></tr>
</tbody>
</table>
<p>Gemeinnützige Gruppen aus unseren Quartieren (z. B. Seniorentreff, Krabbelgruppe) nutzen den
Gemeinschaftsraum Auwiesen werktags kostenlos.</p>

<h2 id="buchung">3. Buchung und Storno</h2>
<p>Gebucht wird am Empfang der Geschäftsstelle, telefonisch unter 04573 8810-0 oder im Mieterportal. Wir
tragen die Buchung in den Belegungskalender ein (Links links in der Seitenleiste).</p>
<ul>
  <li>Buchung frühestens 6 Monate vor der Anreise</li>
  <li>Gästewohnungen: mindestens 2 und höchstens 14 Nächte am Stück</li>
  <li>Zahlung per Lastschrift mit der nächsten Nutzungsgebühr – keine Barzahlung</li>
  <li>Storno kostenlos bis 21 Tage vor der Anreise, danach 50 % des Übernachtungspreises</li>
</ul>
<div class="note">Tipp für den Empfang: In den Sommerferien und über Weihnachten ist die Gästewohnung Mühlenfeld
meist schon im Januar ausgebucht – auf Sonnenhang hinweisen.</div>

<h2 id="schluessel">4. Schlüssel, An- und Abreise</h2>
<p>Den Schlüssel für die Gästewohnungen gibt der Hauswart aus (Mühlenfeld: Sabine Tölke, Sonnenhang: Kemal
Arslan), Anreise ab 15:00 Uhr, Abreise bis 11:00 Uhr. Den Schlüssel für die Alte Mühle gibt es am Empfang der
Geschäftsstelle, spätestens am Donnerstag vor einem Wochenende.</p>

<h2 id="regeln">5. Regeln für Feiern</h2>
<p>Im Saal der Alten Mühle darf bis 1:00 Uhr gefeiert werden; ab 22:00 Uhr Fenster geschlossen halten, die
Nachbarn wohnen direkt nebenan. Im Gemeinschaftsraum Auwiesen ist um 22:00 Uhr Schluss. Rauchen ist in allen
Räumen verboten. Die Kaution zahlen wir nach der Abnahme durch den Hauswart innerhalb von 10 Tagen zurück.</p>
</main>
</div>
<footer class="site-footer">
  <p>WBG Wendelsau eG · Lindenallee 14 · Wendelsau · <a href="/impressum/">Impressum</a> · <a href="/datenschutz/">Datenschutz</a></p>
  <p>Intranet – nur für Beschäftigte · Fragen zur Seite: vermietung@wbg-wendelsau.example</p>
</footer>
</body>
</html>
"""


# ----------------------------------------------------------------------------------------------------- Markdown
WIKI_PAGE = """# Mieterportal „Wendelsau Online“ – Betrieb und Support

> Wiki › IT › Anwendungen › Mieterportal · zuletzt bearbeitet von Malte Szymański am 28.11.2026 · Version 14

Das Mieterportal ist seit März 2024 in Betrieb. Mitglieder melden dort Schäden, laden Dokumente herunter
(Nutzungsvertrag, Betriebskostenabrechnung) und buchen Gästewohnungen. Rund 62 % der Haushalte sind registriert.

## Überblick

| Komponente | Server | Hinweis |
|---|---|---|
| Web-Anwendung | `portal01.wbg.intern` | nginx + Anwendung, Port 8443 intern |
| Datenbank | `db01.wbg.intern` | PostgreSQL 15, Datenbank `portal` |
| Schadensmeldungen | FixFlow 4.2 (Cloud) | Schnittstelle, Abgleich alle 10 Minuten |
| Mailversand | `mail.wbg.intern` | Absender noreply@wbg-wendelsau.example |

## Konto freischalten

Neue Mitglieder registrieren sich selbst unter https://online.wbg-wendelsau.example. Das Konto ist erst aktiv,
wenn die Mitgliederbetreuung es freigeschaltet hat. Ruft ein Mitglied deswegen an, lässt du dir folgende
Angaben nennen:

- Mitgliedsnummer (fünfstellig, steht oben rechts auf dem Nutzungsvertrag)
- Name und Geburtsdatum
- Wohnanlage und Wohnungsnummer (z. B. WA 08 / 34-2-re)
- die letzten vier Ziffern der IBAN, von der die Nutzungsgebühr abgebucht wird

Stimmt eine Angabe nicht, wird **nicht** freigeschaltet; wir rufen dann unter der Nummer aus dem Vertrag zurück.

## Gesperrtes Konto entsperren

Nach 5 Fehlversuchen bei der Anmeldung sperrt das Portal ein Konto für 30 Minuten, nach 10 Fehlversuchen
dauerhaft, bis wir es entsperren. Entsperren und ein neues Passwort schicken geht nur auf dem Server:

```bash
ssh portal01.wbg.intern
sudo -u portal portalctl user unlock --mitglied 10482
sudo -u portal portalctl user reset-password --mitglied 10482 --mail
```

> **Notiz (Malte):** Bitte nicht `portalctl user delete` und neu anlegen, auch wenn es schneller geht –
> dabei gehen die hochgeladenen Dokumente und die Schadenshistorie verloren!

Passwörter im Portal: mindestens 12 Zeichen, keine weiteren Regeln. Zwei-Faktor-Anmeldung ist freiwillig.

## Datensicherung

- Datenbank: täglich um 01:30 Uhr (`pg_dump`), Aufbewahrung 35 Tage, Ablage auf `backup02`
- Hochgeladene Dokumente: wöchentlich sonntags um 03:00 Uhr, Aufbewahrung 12 Wochen
- Restore-Test: vierteljährlich, zuletzt am 14.10.2026 (erfolgreich, 22 Minuten)

## Wartung

Das Wartungsfenster ist jeden zweiten Dienstag im Monat von 20:00 bis 22:00 Uhr. Die Wartung kündigen wir
mindestens 5 Tage vorher im Portal an (Banner unter *Administration › Hinweise*).

## Ansprechpartner

- fachlich (Mitglieder, Freischaltung): Selin Aydın, Mitgliederbetreuung, Durchwahl -21
- technisch: Malte Szymański, IT, Durchwahl -45
- Vertretung und Störungen außerhalb der Arbeitszeit: Kobold IT-Service, Ticket an support@kobold-it.example
  (Reaktionszeit laut Vertrag 4 Stunden, Mo–Fr 7–19 Uhr)

## Bekannte Probleme

- Uploads über 20 MB brechen ab (nginx `client_max_body_size`) – Ticket IT-2291, offen
- Umlaute in Dateinamen werden beim Download als `_` angezeigt – betrifft nur Safari
- Die App „Wendelsau Online“ für Android zeigt Push-Nachrichten doppelt an; Workaround: App-Cache leeren

> Notiz: Die Seite bitte nach jeder Änderung an `portalctl` aktualisieren. – S. A.
"""


# ---------------------------------------------------------------------------------------------------------- PDF
HANDBOOK_HEADER = "WBG Wendelsau eG · Mitgliederhandbuch 2027"
HANDBOOK_FOOTER = "Nur für Mitglieder · Ausgabe Januar 2027"
HANDBOOK = [
    ("h", "1  Willkommen und Ansprechpartner"),
    ("p", "Herzlich willkommen in der Wohnungsbaugenossenschaft Wendelsau! Als Mitglied sind Sie nicht nur "
          "Mieterin oder Mieter, sondern Miteigentümerin oder Miteigentümer der Genossenschaft. Dieses Handbuch "
          "fasst zusammen, was Sie über Ihre Mitgliedschaft, Ihre Wohnung und unsere Angebote wissen sollten. "
          "Verbindlich sind die Satzung, der Nutzungsvertrag und die Hausordnung."),
    ("p", "Unsere Geschäftsstelle finden Sie in der Lindenallee 14 in Wendelsau (Wohnanlage Lindenhof, "
          "Erdgeschoss). Telefon 04573 8810-0, E-Mail info@wbg-wendelsau.example."),
    ("t", [70, 200, 325], [("Sprechzeiten", "vormittags", "nachmittags"),
                           ("Montag", "9:00 – 12:00 Uhr", "–"),
                           ("Dienstag", "9:00 – 12:00 Uhr", "–"),
                           ("Mittwoch", "nach Vereinbarung", "–"),
                           ("Donnerstag", "9:00 – 12:00 Uhr", "14:00 – 18:00 Uhr"),
                           ("Freitag", "nach Vereinbarung", "–")]),
    ("p", "Ihre Ansprechpartner: Mitgliederbetreuung und Mieterportal Selin Aydin (Durchwahl -21), Vermietung "
          "und Wohnungswechsel Tobias Lüdecke (-24), Technik und Schäden Rüdiger Kampmann (-31), Sozialberatung "
          "Hannelore Pietsch (-27)."),
    ("h", "2  Mitgliedschaft und Geschäftsanteile"),
    ("p", "Wer bei uns wohnt, ist Mitglied der Genossenschaft. Beim Eintritt zahlen Sie ein einmaliges "
          "Eintrittsgeld von 30,00 € und zeichnen Geschäftsanteile. Ein Geschäftsanteil kostet 160,00 €. Wie "
          "viele Pflichtanteile Sie übernehmen, richtet sich nach der Größe der Wohnung:"),
    ("t", [70, 235, 360], [("Wohnungsgröße", "Pflichtanteile", "Betrag"),
                           ("1 oder 2 Zimmer", "4 Anteile", "640,00 €"),
                           ("3 Zimmer", "6 Anteile", "960,00 €"),
                           ("4 Zimmer und mehr", "8 Anteile", "1.280,00 €")]),
    ("p", "Die Hälfte der Pflichtanteile ist bei Abschluss des Nutzungsvertrags fällig, den Rest können Sie in "
          "höchstens 12 Monatsraten zahlen. Sie können freiwillig weitere Anteile zeichnen, insgesamt bis zu 50. "
          "Eine Mietkaution verlangen wir nicht: Die Geschäftsanteile ersetzen die Kaution."),
    ("p", "Auf das Geschäftsguthaben zahlt die Genossenschaft eine Dividende, wenn die Vertreterversammlung sie "
          "beschließt. Für das Geschäftsjahr 2025 wurden 3,5 % beschlossen; ausgezahlt wird jeweils im Juli."),
    ("p", "Austritt: Die Mitgliedschaft kann schriftlich mit einer Frist von zwei Jahren zum Ende eines "
          "Geschäftsjahres (31. Dezember) gekündigt werden. Das Geschäftsguthaben wird nach der "
          "Vertreterversammlung ausgezahlt, die den Jahresabschluss feststellt, in der Regel im Juli des "
          "folgenden Jahres. Stirbt ein Mitglied, geht die Mitgliedschaft zum Ende des Geschäftsjahres auf die "
          "Erben über."),
    ("h", "3  Der Nutzungsvertrag"),
    ("p", "Bei einer Genossenschaft heißt der Mietvertrag Nutzungsvertrag, die Miete heißt Nutzungsgebühr. Die "
          "Nutzungsgebühr ist monatlich im Voraus bis zum dritten Werktag fällig; wir ziehen sie am ersten "
          "Werktag per SEPA-Lastschrift ein."),
    ("p", "Kündigung der Wohnung: Sie können den Nutzungsvertrag mit einer Frist von drei Monaten zum "
          "Monatsende kündigen. Ziehen Sie in ein Pflegeheim, gilt eine Frist von einem Monat. Die Kündigung der "
          "Wohnung beendet nicht automatisch die Mitgliedschaft."),
    ("p", "Untervermietung eines Teils der Wohnung ist nur mit unserer schriftlichen Zustimmung erlaubt. Für "
          "jede teilweise untervermietete Wohnung berechnen wir einen Untermietzuschlag von 20,00 € im Monat. "
          "Für Tiere und den Gebrauch von Balkon, Keller und Waschküche gilt die Hausordnung."),
    ("h", "4  Reparaturen und Schäden"),
    ("p", "Schäden melden Sie im Mieterportal „Wendelsau Online“ oder telefonisch in der Geschäftsstelle. "
          "Außerhalb der Sprechzeiten erreichen Sie in Notfällen (Rohrbruch, Heizungsausfall im Winter, "
          "Stromausfall, Sturmschaden) unseren Notdienst unter 04573 8810-99."),
    ("p", "Kleinreparaturen an Teilen, die Sie häufig benutzen (Wasserhähne, Schalter, Steckdosen, Rollladengurte, "
          "Thermostatköpfe), tragen Sie selbst bis zu 110,00 € im Einzelfall, insgesamt jedoch höchstens 6 % "
          "der jährlichen Nettonutzungsgebühr. Wer einen Schaden verursacht hat, trägt die Kosten."),
    ("p", "Die Rauchwarnmelder werden einmal im Jahr per Funk geprüft; dafür muss niemand in Ihre Wohnung."),
    ("h", "5  Auszug und Wohnungswechsel"),
    ("p", "Etwa vier Wochen vor dem Auszug vereinbaren wir mit Ihnen eine Vorabnahme. Dabei besprechen wir, was "
          "bis zur Rückgabe zu tun ist. Die Schlüssel geben Sie am letzten Tag des Vertrags bis 12:00 Uhr beim "
          "Hauswart oder in der Geschäftsstelle ab."),
    ("p", "Wohnungswechsel innerhalb der Genossenschaft: Wird Ihre Wohnung zu groß oder zu klein, stellen Sie einen "
          "Antrag auf Wohnungswechsel bei der Vermietung. Mitglieder, die seit mindestens fünf Jahren bei uns "
          "wohnen, werden bevorzugt. Mitglieder ab 70 Jahren, die in eine kleinere Wohnung der Genossenschaft "
          "ziehen, erhalten einen Umzugszuschuss von 500,00 €."),
    ("h", "6  Mitbestimmung: die Vertreterversammlung"),
    ("p", "Die Mitglieder wählen aus ihrer Mitte Vertreterinnen und Vertreter, je 50 Mitglieder eine Person. Die "
          "Wahl findet alle vier Jahre statt, die nächste im Frühjahr 2028. Die Vertreterversammlung tagt einmal "
          "im Jahr im Juni. Sie stellt den Jahresabschluss fest, beschließt über die Dividende und wählt den "
          "Aufsichtsrat mit sechs Mitgliedern."),
    ("h", "7  Die Spareinrichtung"),
    ("p", "Seit 1998 können Mitglieder und ihre Angehörigen bei uns sparen. Mit Ihrem Geld finanzieren wir "
          "Modernisierungen und Neubauten in Wendelsau. Die Spareinlagen sind über die Selbsthilfeeinrichtung "
          "der Wohnungsgenossenschaften mit Spareinrichtung gesichert."),
    ("t", [70, 255, 330, 450], [("Sparform", "Zins p. a.", "Kündigung / Laufzeit", "Mindestanlage"),
                                ("Spareinlage (3 Monate Kündigung)", "0,75 %", "3 Monate", "50,00 €"),
                                ("Wendelsau-Sparbrief 3 Jahre", "2,40 %", "fest 3 Jahre", "2.000,00 €"),
                                ("Wendelsau-Sparbrief 5 Jahre", "2,90 %", "fest 5 Jahre", "2.000,00 €"),
                                ("Kindersparen (bis 18 Jahre)", "2,00 %", "3 Monate", "5,00 €")]),
    ("p", "Zinssätze Stand 01.01.2027; variable Zinsen können sich ändern. Ein Freistellungsauftrag kann in der "
          "Geschäftsstelle abgegeben werden."),
    ("h", "8  Nachbarschaft und Beratung"),
    ("p", "Unser Nachbarschaftstreff „Alte Mühle“ im Müllerweg 12 steht allen Mitgliedern offen. Jeden Mittwoch um "
          "15:00 Uhr gibt es den Seniorennachmittag, jeden ersten Samstag im Monat ein Repair-Café. Das "
          "Mieterfest feiern wir jedes Jahr im September, abwechselnd in den Quartieren."),
    ("p", "Die Sozialberatung hilft bei Problemen mit Nachbarn, bei Zahlungsschwierigkeiten und bei Anträgen "
          "(z. B. Wohngeld). Sprechstunde: dienstags 10:00 bis 12:00 Uhr in der Geschäftsstelle oder nach "
          "Vereinbarung bei Ihnen zu Hause."),
    ("h", "Anhang: Wichtige Telefonnummern"),
    ("t", [70, 300], [("Wen?", "Nummer"),
                      ("Geschäftsstelle (Zentrale)", "04573 8810-0"),
                      ("Notdienst außerhalb der Sprechzeiten", "04573 8810-99"),
                      ("Aufzug: Notruf aus der Kabine", "Notrufknopf (Lift24)"),
                      ("Feuerwehr und Rettungsdienst", "112"),
                      ("Polizei", "110")]),
]

HELVETICA = dict(zip(
    " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~",
    [278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278] + [556] * 10 +
    [278, 278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722,
     778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500,
     556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500,
     500, 500, 334, 260, 334, 584], strict=True))
WIDE = {"ä": "a", "ö": "o", "ü": "u", "Ä": "A", "Ö": "O", "Ü": "U", "é": "e", "ß": "b", "€": "0", "–": "0",
        "„": ",", "“": ",", "·": ".", "²": "2"}


def text_width(text: str, size: float, bold: bool = False) -> float:
    units = sum(HELVETICA.get(WIDE.get(ch, ch), 556) for ch in text)
    return units * size / 1000 * (1.06 if bold else 1.0)


def pdf_string(text: str) -> str:
    out = []
    for byte in text.encode("cp1252"):
        if byte in b"()\\":
            out.append("\\" + chr(byte))
        elif 32 <= byte < 127:
            out.append(chr(byte))
        else:
            out.append(f"\\{byte:03o}")
    return "(" + "".join(out) + ")"


class Pages:
    """Lays out the handbook onto A4 pages: headings, wrapped paragraphs and ruled tables."""

    LEFT, RIGHT, TOP, BOTTOM = 70, 525, 770, 80

    def __init__(self) -> None:
        self.pages: list[list[str]] = []
        self.y = 0.0
        self.sections: list[tuple[str, int]] = []

    def new_page(self) -> None:
        self.pages.append([])
        self.y = self.TOP

    def text(self, x: float, y: float, text: str, size: float = 10.5, bold: bool = False) -> None:
        font = "F2" if bold else "F1"
        self.pages[-1].append(f"BT /{font} {size:g} Tf {x:.2f} {y:.2f} Td {pdf_string(text)} Tj ET")

    def line(self, x1: float, y1: float, x2: float, y2: float, width: float = 0.5) -> None:
        self.pages[-1].append(f"{width:g} w {x1:.2f} {y1:.2f} m {x2:.2f} {y2:.2f} l S")

    def need(self, height: float) -> None:
        if not self.pages or self.y - height < self.BOTTOM:
            self.new_page()

    def wrap(self, text: str, width: float, size: float) -> list[str]:
        lines, current = [], ""
        for word in text.split():
            trial = f"{current} {word}".strip()
            if current and text_width(trial, size) > width:
                lines.append(current)
                current = word
            else:
                current = trial
        return lines + [current] if current else lines

    def heading(self, text: str) -> None:
        self.need(60)
        self.y -= 10
        self.text(self.LEFT, self.y, text, size=13, bold=True)
        self.sections.append((text, len(self.pages)))
        self.y -= 20

    def paragraph(self, text: str) -> None:
        for line in self.wrap(text, self.RIGHT - self.LEFT, 10.5):
            self.need(14)
            self.text(self.LEFT, self.y, line)
            self.y -= 14
        self.y -= 6

    def table(self, columns: list[float], rows: list[tuple[str, ...]]) -> None:
        self.need(18 * len(rows) + 10)
        self.line(self.LEFT, self.y + 12, self.RIGHT, self.y + 12)
        for number, row in enumerate(rows):
            for x, cell in zip(columns, row, strict=True):
                self.text(x + 2, self.y, cell, size=10, bold=number == 0)
            self.line(self.LEFT, self.y - 5, self.RIGHT, self.y - 5, 1.0 if number == 0 else 0.3)
            self.y -= 18
        self.y -= 8


def handbook_pdf(path: Path) -> None:
    body = Pages()
    for kind, *content in HANDBOOK:
        {"h": body.heading, "p": body.paragraph, "t": body.table}[kind](*content)
    total = len(body.pages) + 2  # a title page and a table of contents come first

    doc = Pages()
    doc.new_page()  # title page: no header and footer
    doc.text(70, 620, COMPANY, size=14, bold=True)
    doc.text(70, 570, "Mitgliederhandbuch 2027", size=28, bold=True)
    doc.text(70, 540, "Wohnen, mitbestimmen, sparen – das Wichtigste für Mitglieder", size=13)
    doc.line(70, 520, 525, 520, 1.5)
    doc.text(70, 160, "Ausgabe Januar 2027", size=11)
    doc.text(70, 144, "Lindenallee 14 · Wendelsau · Telefon 04573 8810-0 · www.wbg-wendelsau.example", size=9)

    doc.new_page()
    doc.text(70, doc.TOP - 20, "Inhalt", size=16, bold=True)
    y = doc.TOP - 60
    for title, page in body.sections:
        number = str(page + 2)
        start = 70 + text_width(title, 11) + 6
        end = 525 - text_width(number, 11) - 6
        dots = "." * max(3, int((end - start) / text_width(".", 11)))
        doc.text(70, y, f"{title} {dots} {number}", size=11)
        y -= 22
    doc.pages.extend(body.pages)

    streams = []
    edition = "Ausgabe 01/2027"
    for number, commands in enumerate(doc.pages, start=1):
        if number > 1:
            commands = [
                f"BT /F1 8.5 Tf 70 805 Td {pdf_string(HANDBOOK_HEADER)} Tj ET",
                f"BT /F1 8.5 Tf {525 - text_width(edition, 8.5):.2f} 805 Td {pdf_string(edition)} Tj ET",
                "0.5 w 70 798 m 525 798 l S",
                *commands,
                "0.5 w 70 58 m 525 58 l S",
                f"BT /F1 8.5 Tf 70 44 Td {pdf_string(HANDBOOK_FOOTER)} Tj ET",
                f"BT /F1 8.5 Tf {525 - text_width(f'Seite {number} von {total}', 8.5):.2f} 44 Td "
                f"{pdf_string(f'Seite {number} von {total}')} Tj ET",
            ]
        streams.append("\n".join(commands).encode("latin-1"))
    write_pdf(path, streams, title="Mitgliederhandbuch 2027", author="WBG Wendelsau eG")


def write_pdf(path: Path, streams: list[bytes], title: str, author: str) -> None:
    """A minimal PDF 1.4 writer: one content stream per page, Helvetica and Helvetica-Bold, WinAnsiEncoding."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")
    pages = add(b"")
    regular = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    bold = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>")
    kids = []
    for stream in streams:
        data = zlib.compress(stream, 9)
        content = add(b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data) + data + b"\nendstream")
        kids.append(add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Contents %d 0 R "
                        b"/Resources << /Font << /F1 %d 0 R /F2 %d 0 R >> >> >>" % (pages, content, regular, bold)))
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages
    objects[pages - 1] = (b"<< /Type /Pages /Kids [" + b" ".join(b"%d 0 R" % k for k in kids) +
                          b"] /Count %d >>" % len(kids))
    info = add(b"<< /Title " + pdf_string(title).encode("latin-1") + b" /Author " + pdf_string(author).encode("latin-1")
               + b" /Producer (eval/holdout7-de/make/org_documents.py) /CreationDate (D:20261207090000+01'00') >>")

    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, catalog, info, xref)
    path.write_bytes(bytes(out))


# --------------------------------------------------------------------------------------------------------------
def fixed_zip_times(path: Path) -> None:
    """Rewrite an Office file (a ZIP package) with fixed entry times, so that a rebuild gives the same bytes."""
    import zipfile

    with zipfile.ZipFile(path) as source:
        entries = [(info, source.read(info.filename)) for info in source.infolist()]
    with zipfile.ZipFile(path, "w") as target:
        for info, data in entries:
            if info.filename == "docProps/core.xml":  # stamped with the time of saving
                data = re.sub(rb"(<dcterms:modified[^>]*>)[^<]*", rb"\g<1>2026-12-07T09:00:00Z", data)
            fixed = zipfile.ZipInfo(info.filename, date_time=FIXED.timetuple()[:6])
            fixed.compress_type = zipfile.ZIP_DEFLATED
            fixed.external_attr = info.external_attr
            target.writestr(fixed, data)


def main() -> None:
    DOCS.mkdir(exist_ok=True)
    house_rules(DOCS / "hausordnung-2027.docx")
    estates_sheet(DOCS / "wohnanlagen-betriebskosten.xlsx")
    fixed_zip_times(DOCS / "hausordnung-2027.docx")
    fixed_zip_times(DOCS / "wohnanlagen-betriebskosten.xlsx")
    damage_catalogue(DOCS / "schadenskatalog-2027.xml")
    contractors(DOCS / "vertragsfirmen-2027.csv")
    handbook_pdf(DOCS / "mitgliederhandbuch-2027.pdf")
    (DOCS / "gaestewohnungen-raeume.html").write_text(ROOMS_PAGE, encoding="utf-8")
    (DOCS / "wiki-mieterportal.md").write_text(WIKI_PAGE, encoding="utf-8")


if __name__ == "__main__":
    main()
