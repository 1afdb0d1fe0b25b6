"""Write the documents of eval/holdout6-de/docs that belong to the fictitious Stadtwerke Ellerbrück GmbH.

Everything here is invented (the utility, the town of Ellerbrück and its districts, people, addresses, phone
numbers, tariffs, prices, contractors, incidents). Licence: CC-BY-SA 4.0, (c) 2026 the IrisRAG authors.

    .venv/bin/python eval/holdout6-de/make/org_documents.py

The output is deterministic: the filler rows come from a seeded generator and the Office files carry fixed dates
(and fixed ZIP entry times).
"""
from __future__ import annotations

import datetime as dt
import json
import random
import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"
FIXED = dt.datetime(2026, 12, 7, 9, 0, 0)
COMPANY = "Stadtwerke Ellerbrück GmbH"


# --------------------------------------------------------------------------------------------------------- PPTX
SLIDES = [
    ("Agenda", [
        "1. Wer hat wann Bereitschaft?",
        "2. Reaktionszeiten je Sparte",
        "3. Vergütung & Fahrtkosten",
        "4. Ausrüstung und Fahrzeug",
        "5. Wichtige Rufnummern",
        "6. Regeln während der Bereitschaft",
    ], "Dauer ca. 45 Min. inkl. Fragen. Die Folien liegen danach im Teams-Kanal „Netze – Bereitschaft“."),
    ("Wer hat wann Bereitschaft?", [
        "Bereitschaftswoche: Mo 7:00 Uhr bis folgender Mo 7:00 Uhr",
        "Übergabe persönlich in der Netzleitstelle (NLS), Gebäude C, 1. OG",
        "Dienstplan im Tool „PlanWerk“ – Tausch nur mit Zustimmung der Teamleitung",
        "Neue Kolleg:innen: die ersten 2 Wochen nur als „zweiter Mann“ mit einem erfahrenen Monteur",
        "Krank während der Bereitschaft? Sofort NLS anrufen, nicht nur Mail!",
    ], "Hinweis für Referent: Beispiel aus 2025 erzählen (Tausch per WhatsApp, Leitstelle wusste nichts)."),
    ("Reaktionszeiten je Sparte", None,
     "Die Zeiten gelten ab Alarmierung durch die NLS. Bei Gas gilt immer: erst sichern, dann melden."),
    ("Vergütung & Fahrtkosten", [
        "Pauschale pro Werktag (Mo–Fr): 28,50 €",
        "Pauschale pro Samstag, Sonntag oder Feiertag: 55,00 € je Tag",
        "Einsatzzeit = Arbeitszeit, zzgl. 25 % Zuschlag (nachts 22–6 Uhr: 40 %)",
        "Anfahrt mit dem Privat-Pkw (nur wenn kein Bereitschaftsfahrzeug frei): 0,30 € pro km",
        "Abrechnung bis zum 5. des Folgemonats über Formular „BE-3“ an die Personalabrechnung",
    ], "TV-V §8 – Details in der Dienstvereinbarung Rufbereitschaft vom 01.03.2024."),
    ("Ausrüstung und Fahrzeug", [
        "Bereitschaftshandy (wird bei der Übergabe getauscht) + Tablet mit App „NetzMobil“",
        "Bereitschaftsfahrzeug: VW Crafter, Kennzeichen ELB-SW 112, Standort Betriebshof Ostheide",
        "Fahrzeugschlüssel im Schlüsseltresor am Tor 2 – Code gibt die NLS telefonisch durch",
        "Gaswarngerät vor jeder Woche testen (Prüfgas im Lager, Regal G4)",
        "Fehlt etwas? Sofort dem Lager melden: lager@stadtwerke-ellerbrueck.example",
    ], None),
    ("Wichtige Rufnummern", [
        "Netzleitstelle (24/7): 05193 4471-200",
        "Meister vom Dienst Strom: 0171 5523190",
        "Meister vom Dienst Gas/Wasser: 0171 5523191",
        "Entstördienst für Kunden (Störungshotline): 0800 4471 000",
        "Feuerwehr/Rettungsdienst: 112 · Polizei: 110",
    ], "Nummern bitte vorab im Bereitschaftshandy prüfen – Kurzwahl 1 = NLS."),
    ("Regeln während der Bereitschaft", [
        "Alkohol: 0,0 ‰ – ohne Ausnahme",
        "Aufenthalt: höchstens 20 km Entfernung vom Betriebshof Ostheide",
        "Handy immer laut, Akku mind. 50 %",
        "Einsatz beendet? Rückmeldung an die NLS und Eintrag im Störungsregister",
        "Arbeiten allein an Mittelspannung: verboten – immer zweite Person anfordern",
    ], "Fragen? Ansprechpartner: Marek Kowalczyk (Leitung NLS), Durchwahl -210."),
]
REACTION = [
    ("Sparte", "Alarm quittieren", "an der Einsatzstelle", "Bemerkung"),
    ("Gas (Gasgeruch, Leck)", "sofort", "30 Minuten", "Vorrang vor allen anderen Einsätzen"),
    ("Strom (Ausfall, Kabelschaden)", "5 Minuten", "45 Minuten", "ab 100 betroffenen Kunden MvD informieren"),
    ("Wasser (Rohrbruch)", "5 Minuten", "60 Minuten", "Absperrplan in NetzMobil"),
    ("Fernwärme", "10 Minuten", "60 Minuten", "nur Hauptleitungen; Hausstationen: nächster Werktag"),
]


def on_call_slides(path: Path) -> None:
    from pptx import Presentation
    from pptx.util import Cm, Pt

    prs = Presentation()
    props = prs.core_properties
    props.author, props.title = "Marek Kowalczyk", "Einarbeitung Rufbereitschaft Netze"
    props.created = props.modified = FIXED
    props.last_modified_by = "Netzleitstelle"
    props.revision = 3

    def footer(slide, number: int) -> None:
        box = slide.shapes.add_textbox(Cm(1), Cm(17.8), Cm(23), Cm(0.8))
        box.text_frame.text = f"{COMPANY} · Netze · intern · Stand 11/2026 · Folie {number}"
        box.text_frame.paragraphs[0].runs[0].font.size = Pt(9)

    title = prs.slides.add_slide(prs.slide_layouts[0])
    title.shapes.title.text = "Rufbereitschaft Netze – Einarbeitung"
    title.placeholders[1].text = ("für neue Kolleginnen und Kollegen in Strom, Gas, Wasser und Fernwärme\n"
                                  "Netzleitstelle Ellerbrück · M. Kowalczyk · Nov. 2026")
    footer(title, 1)
    for number, (heading, bullets, notes) in enumerate(SLIDES, start=2):
        if bullets is None:
            slide = prs.slides.add_slide(prs.slide_layouts[5])
            slide.shapes.title.text = heading
            rows, cols = len(REACTION), len(REACTION[0])
            table = slide.shapes.add_table(rows, cols, Cm(1.2), Cm(4.2), Cm(23.0), Cm(7.5)).table
            for r, row in enumerate(REACTION):
                for c, text in enumerate(row):
                    table.cell(r, c).text = text
                    table.cell(r, c).text_frame.paragraphs[0].runs[0].font.size = Pt(14)
        else:
            slide = prs.slides.add_slide(prs.slide_layouts[1])
            slide.shapes.title.text = heading
            body = slide.placeholders[1].text_frame
            body.text = bullets[0]
            for bullet in bullets[1:]:
                body.add_paragraph().text = bullet
        if notes:
            slide.notes_slide.notes_text_frame.text = notes
        footer(slide, number)
    last = prs.slides.add_slide(prs.slide_layouts[0])
    last.shapes.title.text = "Danke! Fragen?"
    last.placeholders[1].text = "Folien: Teams › Netze – Bereitschaft › Dateien › Einarbeitung_RB_2026-11.pptx"
    footer(last, len(SLIDES) + 2)
    prs.save(path)


# ---------------------------------------------------------------------------------------------------------- ODS
TARIFFS = [
    # Sparte, Tarif, Grundpreis €/Jahr, Arbeitspreis, Einheit, Laufzeit, Bemerkung
    ("Strom", "ElbStrom Basis (Grundversorgung)", "158,40", "36,92", "ct/kWh", "keine",
     "Grundversorgung nach EnWG; Kündigung jederzeit mit 2 Wochen Frist"),
    ("Strom", "ElbStrom Öko 24", "142,80", "34,87", "ct/kWh", "24 Monate",
     "100 % Wasserkraft (Herkunftsnachweise); Neukundenbonus siehe Fußnote 3"),
    ("Strom", "ElbStrom Wärme", "96,00", "27,45", "ct/kWh", "12 Monate",
     "nur für Wärmepumpen und Nachtspeicher mit separatem, steuerbarem Zähler (§ 14a EnWG)"),
    ("Strom", "ElbStrom Mobil", "96,00", "29,90", "ct/kWh", "12 Monate", "Wallbox mit eigenem Zähler"),
    ("Erdgas", "ElbGas Basis (Grundversorgung)", "189,00", "11,84", "ct/kWh", "keine", ""),
    ("Erdgas", "ElbGas Fix 12", "165,00", "10,96", "ct/kWh", "12 Monate",
     "Preisgarantie auf den Arbeitspreis bis 31.12.2027 (ausgenommen Steuern und Abgaben)"),
    ("Trinkwasser", "Wasser Haushalt (Zähler Q3 = 4)", "84,00", "2,38", "€/m³", "–", "Grundpreis je Zähler"),
    ("Trinkwasser", "Wasser Gewerbe (Zähler Q3 = 10)", "210,00", "2,38", "€/m³", "–", ""),
]
FOOTNOTES = [
    "1) Alle Preise brutto inkl. 19 % USt (Trinkwasser 7 % USt), Stand der Beschlusslage 14.10.2026.",
    "2) Sonderverträge: Kündigungsfrist 1 Monat zum Ende der Mindestlaufzeit, danach monatlich kündbar.",
    "3) Neukundenbonus ElbStrom Öko 24: einmalig 60 € nach 12 Monaten Belieferung.",
    "4) Abschläge werden monatlich erhoben; Jahresabrechnung im Januar (Ablesung KW 51/52).",
    "5) Preisblatt ersetzt die Fassung vom 01.04.2026. Rückfragen: Vertrieb, Durchwahl -330.",
]


def tariff_sheet(path: Path) -> None:
    import odf.meta as meta
    from odf.dc import Creator, Date, Title
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.table import Table, TableCell, TableColumn, TableRow
    from odf.text import P

    doc = OpenDocumentSpreadsheet()
    doc.meta.addElement(Title(text="Preisblatt 2027"))
    doc.meta.addElement(Creator(text="Vertrieb Stadtwerke Ellerbrück"))
    doc.meta.addElement(Date(text="2026-12-07T09:00:00"))
    doc.meta.addElement(meta.CreationDate(text="2026-10-14T11:20:00"))

    def row(table: Table, values, numeric: set[int] = frozenset()) -> None:
        tr = TableRow()
        for i, value in enumerate(values):
            if value == "":
                tr.addElement(TableCell())
            elif i in numeric:
                cell = TableCell(valuetype="float", value=value.replace(",", "."))
                cell.addElement(P(text=value))
                tr.addElement(cell)
            else:
                cell = TableCell(valuetype="string")
                cell.addElement(P(text=value))
                tr.addElement(cell)
        table.addElement(tr)

    prices = Table(name="Preise 2027")
    for _ in range(7):
        prices.addElement(TableColumn())
    row(prices, ["Preisblatt Strom, Erdgas, Trinkwasser – Haushaltskunden – gültig ab 01.01.2027"])
    row(prices, [""])
    row(prices, ["Sparte", "Tarif", "Grundpreis €/Jahr brutto", "Arbeitspreis brutto", "Einheit",
                 "Mindestlaufzeit", "Bemerkung"])
    for tariff in TARIFFS:
        row(prices, tariff, numeric={2, 3})
    row(prices, [""])
    row(prices, ["Fußnoten siehe Blatt 2"])
    doc.spreadsheet.addElement(prices)

    notes = Table(name="Fußnoten")
    notes.addElement(TableColumn())
    for note in FOOTNOTES:
        row(notes, [note])
    doc.spreadsheet.addElement(notes)
    doc.save(str(path))


# ---------------------------------------------------------------------------------------------------------- CSV
WORKS = [
    # Maßnahme, Straße, Ortsteil, Sparte, Beginn, Ende, Wert, Firma, Bauleitung, Verkehr, Bemerkung
    ("Erneuerung Versorgungsleitung DN 150", "Kirchgasse", "Altstadt", "Wasser", "08.03.2027", "KW 18/2027",
     "187.300,00 €", "Aqua-Tiefbau Reinholz GmbH", "S. Brandes", "Vollsperrung", "Anlieger frei; Markttage beachten"),
    ("Kabelumlegung 20 kV", "Lindenallee", "Ostheide", "Strom", "2027-04-12", "2027-07-30",
     "96.420,50 €", "Elektro Nordhoff KG", "T. Aydın", "halbseitig, Ampel", "Radweg gesperrt"),
    ("Fernwärmeanschluss Schulzentrum", "Am Schulzentrum 2–6", "Ellerbrück-Nord", "Fernwärme", "Sommerferien 2027",
     "03.09.2027", "212.400,00 €", "Rohrbau Wessel & Söhne", "K. Lüdtke", "Parkplatz gesperrt",
     "Arbeiten nur in den Ferien (Schulbetrieb!)"),
    ("Hausanschlüsse Neubaugebiet „Auf dem Kamp“", "Auf dem Kamp", "Ostheide", "Strom/Gas/Wasser", "Mai 2027",
     "Dez. 2027", "341.000,00 €", "Tiefbau Hollmann GmbH", "S. Brandes", "Baustraße", "42 Hausanschlüsse"),
    ("Gasleitung Sanierung (Inliner)", "Bahnhofstraße", "Altstadt", "Gas", "14.06.2027", "25.06.2027",
     "58.915,00 €", "Inliner Technik Ost GmbH", "H. Vahlenkamp", "keine Sperrung",
     "grabenlos; nur Start-/Zielgruben vor Nr. 11 und Nr. 37"),
    ("Straßenbeleuchtung LED-Umrüstung", "Mühlenweg", "Brückfeld", "Strom", "KW 22/2027", "KW 24/2027",
     "12.880,00 €", "Elektro Nordhoff KG", "T. Aydın", "–", "Nachtarbeit nicht erforderlich"),
]
STREETS = ["Birkenweg", "Eichenstraße", "Hauptstraße", "Schulstraße", "Am Anger", "Feldstraße", "Rosenweg",
           "Wiesengrund", "Gartenstraße", "Sandweg", "Teichstraße", "Kastanienallee", "Querstraße", "Zum Sportplatz",
           "Heideweg", "Marktstraße", "Bergstraße", "Am Bach", "Waldstraße", "Tulpenweg", "Kampstraße", "Grüner Weg",
           "Hinter den Höfen", "Am Wasserturm"]
DISTRICTS = ["Altstadt", "Ostheide", "Ellerbrück-Nord", "Brückfeld", "Westerfeld"]
FIRMS = ["Tiefbau Hollmann GmbH", "Elektro Nordhoff KG", "Rohrbau Wessel & Söhne", "Bauunternehmung Grote",
         "Netzbau Weser-Aller GmbH"]
LEADS = ["S. Brandes", "T. Aydın", "K. Lüdtke", "M. Petersen", "J. Rautenberg"]


def excavations(path: Path) -> None:
    rng = random.Random(6)
    rows = list(WORKS)
    kinds = [("Hausanschluss neu", "Strom"), ("Hausanschluss neu", "Gas"), ("Hausanschluss neu", "Wasser"),
             ("Störungsbeseitigung Kabelfehler", "Strom"), ("Schieberwechsel", "Wasser"),
             ("Hydrantenerneuerung", "Wasser"), ("Netzverstärkung NS", "Strom"), ("Leckstelle", "Gas")]
    used = {w[1] for w in WORKS}
    streets = [s for s in STREETS if s not in used]
    rng.shuffle(streets)
    for street in streets[:22]:
        kind, branch = rng.choice(kinds)
        month = rng.randint(1, 11)
        day = rng.randint(1, 26)
        start = dt.date(2027, month, day)
        end = start + dt.timedelta(days=rng.randint(2, 40))
        style = rng.randint(0, 2)
        if style == 0:
            begin, finish = start.strftime("%d.%m.%Y"), end.strftime("%d.%m.%Y")
        elif style == 1:
            begin, finish = start.isoformat(), end.isoformat()
        else:
            begin, finish = start.strftime("%d.%m.%y"), f"KW {end.isocalendar()[1]}/{end.year}"
        amount = rng.randint(18, 2400) * 25 + rng.choice([0, 0, 50, 90]) / 100
        value = f"{amount:,.2f} €".replace(",", "X").replace(".", ",").replace("X", ".")
        rows.append((kind, f"{street} {rng.randint(1, 60)}", rng.choice(DISTRICTS), branch, begin, finish, value,
                     rng.choice(FIRMS), rng.choice(LEADS), rng.choice(["–", "halbseitig", "Gehweg gesperrt"]), ""))
    rng.shuffle(rows)
    lines = ["Aufgrabungen und Baumaßnahmen 2027 – Stadtwerke Ellerbrück, Abt. Netzbau – Stand 30.11.2026;;;;;;;;;;;",
             "Lfd.Nr.;Maßnahme;Straße;Ortsteil;Sparte;Beginn;Ende (geplant);Auftragswert brutto;Baufirma;"
             "Bauleitung SWE;Verkehr;Bemerkung"]
    for number, values in enumerate(rows, start=1):
        cells = [f"2027-{number:03d}"] + [f'"{v}"' if ";" in v or '"' in v else v for v in values]
        lines.append(";".join(cells))
    lines.append(";;;;;;Summe (ohne Gewähr):;siehe Controlling;;;;")
    path.write_bytes(("\r\n".join(lines) + "\r\n").encode("utf-8-sig"))


# --------------------------------------------------------------------------------------------------------- JSON
def incident_register(path: Path) -> None:
    incidents = [
        {"id": "ST-2026-0311", "sparte": "Strom", "status": "closed",
         "ort": {"ortsteil": "Ostheide", "strasse": "Lindenallee", "netz": {"ebene": "MS", "station": "UW Ostheide"}},
         "zeit": {"beginn": "2026-10-14T07:42:00+02:00", "ende": "2026-10-14T10:05:00+02:00"},
         "betroffen": {"kunden": 1240, "kritische_infrastruktur": ["Pflegeheim Am Anger"]},
         "ursache": {"code": "EXT-BAU", "description": "Medium-voltage cable damaged by a third-party excavator "
                                                      "(road works, not commissioned by SWE)"},
         "massnahmen": ["Umschaltung über Ring Nord", "Notstromaggregat für Pflegeheim", "Muffe gesetzt"],
         "schadensersatz": {"geltend_gemacht": True, "betrag_eur": 18450.0, "gegner": "Bau-Union Kreiensen"}},
        {"id": "ST-2026-0319", "sparte": "Wasser", "status": "closed",
         "ort": {"ortsteil": "Altstadt", "strasse": "Gartenstraße", "netz": {"ebene": "Versorgungsleitung",
                                                                            "dn": 100}},
         "zeit": {"beginn": "2026-10-21T22:10:00+02:00", "ende": "2026-10-22T04:30:00+02:00"},
         "betroffen": {"kunden": 318, "kritische_infrastruktur": []},
         "ursache": {"code": "KORR", "description": "Pipe burst, grey cast iron from 1958, corrosion"},
         "massnahmen": ["Abschiebern", "Reparaturschelle", "Spülung und Probenahme"],
         "schadensersatz": None},
        {"id": "ST-2026-0325", "sparte": "Gas", "status": "closed",
         "ort": {"ortsteil": "Brückfeld", "strasse": "Mühlenweg 14", "netz": {"ebene": "Hausanschluss"}},
         "zeit": {"beginn": "2026-10-30T18:55:00+01:00", "ende": "2026-10-30T21:15:00+01:00"},
         "betroffen": {"kunden": 1, "kritische_infrastruktur": []},
         "ursache": {"code": "LECK-HA", "description": "Leaking house connection, loose screw joint behind "
                                                      "the main shut-off valve"},
         "massnahmen": ["Haus geräumt (Feuerwehr)", "Absperrung", "Verschraubung erneuert"],
         "schadensersatz": None},
        {"id": "ST-2026-0331", "sparte": "Strom", "status": "closed",
         "ort": {"ortsteil": "Westerfeld", "strasse": "Feldstraße", "netz": {"ebene": "NS", "station": "ST 4417"}},
         "zeit": {"beginn": "2026-11-02T13:20:00+01:00", "ende": "2026-11-02T14:02:00+01:00"},
         "betroffen": {"kunden": 86, "kritische_infrastruktur": []},
         "ursache": {"code": "TIER", "description": "Marten in the secondary substation, short circuit"},
         "massnahmen": ["Sicherungen getauscht", "Station verschlossen, Marderschutz bestellt"],
         "schadensersatz": None},
        {"id": "ST-2026-0340", "sparte": "Fernwärme", "status": "open",
         "ort": {"ortsteil": "Ellerbrück-Nord", "strasse": "Am Schulzentrum", "netz": {"ebene": "Hauptleitung",
                                                                                        "dn": 200}},
         "zeit": {"beginn": "2026-11-18T06:05:00+01:00", "ende": None},
         "betroffen": {"kunden": 0, "kritische_infrastruktur": ["Gesamtschule Ellerbrück"]},
         "ursache": {"code": "UNBEK", "description": "Pressure drop of 0.4 bar, leak not yet located; "
                                                    "thermography flight booked for 2026-12-10"},
         "massnahmen": ["Nachspeisung erhöht", "Begehung der Trasse"],
         "schadensersatz": None},
        {"id": "ST-2026-0344", "sparte": "Strom", "status": "closed",
         "ort": {"ortsteil": "Altstadt", "strasse": "Marktstraße", "netz": {"ebene": "NS", "station": "ST 1102"}},
         "zeit": {"beginn": "2026-11-21T16:40:00+01:00", "ende": "2026-11-21T19:10:00+01:00"},
         "betroffen": {"kunden": 204, "kritische_infrastruktur": []},
         "ursache": {"code": "ALT", "description": "Ageing low-voltage cable, insulation failure"},
         "massnahmen": ["Provisorium (Freileitung)", "Kabel im Frühjahr 2027 erneuern"],
         "schadensersatz": None},
        {"id": "ST-2026-0352", "sparte": "Wasser", "status": "in Bearbeitung",
         "ort": {"ortsteil": "Ostheide", "strasse": "Heideweg", "netz": {"ebene": "Hydrant", "nr": "H-0871"}},
         "zeit": {"beginn": "2026-11-27T09:15:00+01:00", "ende": None},
         "betroffen": {"kunden": 0, "kritische_infrastruktur": []},
         "ursache": {"code": "EXT-KFZ", "description": "Hydrant knocked over by a delivery van"},
         "massnahmen": ["Hydrant abgesperrt", "Ersatz bestellt (Lieferzeit 3 Wochen)"],
         "schadensersatz": {"geltend_gemacht": True, "betrag_eur": None, "gegner": "Versicherung des Halters"}},
    ]
    register = {
        "register": "Störungsregister Netze",
        "unternehmen": COMPANY,
        "export": {"erstellt": "2026-12-01T06:00:00+01:00", "system": "NetzMobil 4.2", "zeitraum": "Q4/2026",
                   "generated_by": "nightly export job, do not edit by hand"},
        "legende": {"status": {"open": "offen, Ursache nicht behoben", "in Bearbeitung": "gesichert, Reparatur "
                               "ausstehend", "closed": "abgeschlossen"},
                    "netz.ebene": {"MS": "Mittelspannung (20 kV)", "NS": "Niederspannung (0,4 kV)"}},
        "stoerungen": incidents,
    }
    path.write_text(json.dumps(register, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


# --------------------------------------------------------------------------------------------------------- HTML
CUSTOMER_CENTRE = """<!DOCTYPE html>
<html lang="de">
<head>
<meta charset="utf-8">
<title>Kundenzentrum – Leitfaden für den Schalter | SWE-Intranet</title>
<link rel="stylesheet" href="/static/intranet.css">
<script>window.dataLayer = window.dataLayer || []; function track(){ /* Analytics aus */ }</script>
</head>
<body>
<header class="top">
  <a class="logo" href="/"><img src="/static/swe-logo.svg" alt="Stadtwerke Ellerbrück"></a>
  <nav class="main-nav" aria-label="Hauptnavigation">
    <ul>
      <li><a href="/">Start</a></li>
      <li><a href="/aktuelles/">Aktuelles</a></li>
      <li><a href="/netze/">Netze</a></li>
      <li><a href="/vertrieb/" class="active">Vertrieb &amp; Kundenservice</a></li>
      <li><a href="/personal/">Personal</a></li>
      <li><a href="/it/">IT</a></li>
      <li><a href="/telefonbuch/">Telefonbuch</a></li>
    </ul>
  </nav>
  <form class="search" action="/suche/"><input name="q" placeholder="Intranet durchsuchen …"></form>
</header>
<nav class="breadcrumbs" aria-label="Brotkrumen">
  <a href="/">Start</a> › <a href="/vertrieb/">Vertrieb &amp; Kundenservice</a> › <a href="/vertrieb/kuz/">Kundenzentrum</a> › Leitfaden Schalter
</nav>
<div class="layout">
<aside class="sidebar">
  <h3>Kundenzentrum</h3>
  <ul>
    <li><a href="/vertrieb/kuz/team/">Team &amp; Dienstplan</a></li>
    <li><a href="/vertrieb/kuz/leitfaden/" class="active">Leitfaden Schalter</a></li>
    <li><a href="/vertrieb/kuz/formulare/">Formulare (SEPA, Umzug, Ratenplan)</a></li>
    <li><a href="/vertrieb/kuz/kasse/">Kassenanweisung</a></li>
  </ul>
  <h3>Schnellzugriff</h3>
  <ul>
    <li><a href="/it/tickets/">IT-Ticket</a></li>
    <li><a href="/personal/urlaub/">Urlaubsantrag</a></li>
    <li><a href="/kantine/">Speiseplan</a></li>
  </ul>
</aside>
<main>
<h1>Kundenzentrum: Leitfaden für die Arbeit am Schalter</h1>
<p class="meta">Zuletzt geändert am 02.11.2026 von Petra Lindemann (Leitung Kundenzentrum) · Lesedauer 6 Min.</p>

<div class="toc">
<h2>Auf dieser Seite</h2>
<ol>
  <li><a href="#oeffnungszeiten">Öffnungszeiten</a></li>
  <li><a href="#abschlag">Abschlag ändern</a></li>
  <li><a href="#umzug">Ein- und Auszug</a></li>
  <li><a href="#raten">Ratenzahlung und Stundung</a></li>
  <li><a href="#mahnung">Mahnung und Sperrung</a></li>
  <li><a href="#kasse">Barzahlung</a></li>
  <li><a href="#schwierig">Schwierige Gespräche</a></li>
</ol>
</div>

<h2 id="oeffnungszeiten">1. Öffnungszeiten</h2>
<table class="hours">
  <tr><th>Tag</th><th>Schalter</th><th>Telefon</th></tr>
  <tr><td>Montag – Mittwoch</td><td>8:00 – 16:00 Uhr</td><td>7:30 – 16:30 Uhr</td></tr>
  <tr><td>Donnerstag</td><td>8:00 – 18:00 Uhr</td><td>7:30 – 18:00 Uhr</td></tr>
  <tr><td>Freitag</td><td>8:00 – 12:30 Uhr</td><td>7:30 – 13:00 Uhr</td></tr>
  <tr><td>Erster Samstag im Monat</td><td>9:00 – 12:00 Uhr</td><td>–</td></tr>
</table>
<p>Am 24.12. und 31.12. ist das Kundenzentrum geschlossen. Wer Spätdienst am Donnerstag hat, beginnt um
10:00 Uhr.</p>

<h2 id="abschlag">2. Abschlag ändern</h2>
<p>Kundinnen und Kunden können ihren monatlichen Abschlag im Kundenportal selbst anpassen. Am Schalter dürfen
Sie den Abschlag um <strong>bis zu 20 % nach oben oder unten</strong> ändern. Größere Senkungen nur mit
aktuellem Zählerstand und Freigabe durch die Abrechnung (Durchwahl -340).</p>

<h2 id="umzug">3. Ein- und Auszug</h2>
<ul>
  <li>Zählerstand und Zählernummer vom Tag der Schlüsselübergabe aufnehmen (Foto reicht).</li>
  <li>Auszug muss spätestens <strong>14 Tage</strong> nach dem Auszugstag gemeldet sein, sonst haftet die
      Kundin oder der Kunde bis zur Meldung.</li>
  <li>Neue Anschrift für die Schlussrechnung erfragen.</li>
</ul>

<h2 id="raten">4. Ratenzahlung und Stundung</h2>
<p>Bei offenen Beträgen <strong>bis 500 €</strong> dürfen Sie eine Ratenzahlung selbst vereinbaren, mit höchstens
sechs Monatsraten und einer Mindestrate von 25 €. Bei höheren Beträgen oder wenn bereits eine Sperrung angedroht
ist, übernimmt das Forderungsmanagement (Aylin Yıldız, Durchwahl -318). Eine Stundung (Zahlungsaufschub ohne
Raten) ist einmalig für bis zu 4 Wochen möglich.</p>

<h2 id="mahnung">5. Mahnung und Sperrung</h2>
<p>Die erste Zahlungserinnerung ist kostenlos. Für jede weitere Mahnung berechnen wir eine
Mahngebühr von <strong>2,50 €</strong>. Eine Sperrung wird frühestens vier Wochen nach Androhung und nur bei
einem Rückstand von mindestens 100 € durchgeführt; die Sperrung wird acht Werktage vorher angekündigt.
Die Wiederherstellung der Versorgung kostet 65,00 € (werktags) bzw. 120,00 € (am Wochenende).</p>

<h2 id="kasse">6. Barzahlung</h2>
<p>An der Kasse nehmen wir Bargeld bis 1.000 € je Vorgang an, EC-Karte ohne Grenze. Keine Kreditkarten.
Kassenabschluss täglich 15 Minuten vor Schalterschluss.</p>

<h2 id="schwierig">7. Schwierige Gespräche</h2>
<p>Bleiben Sie ruhig, bieten Sie einen Termin im Besprechungsraum „Aller“ an. Bei Bedrohung: Notrufknopf unter
dem Schalter, der Hausdienst (Durchwahl -100) kommt sofort. Jeder Vorfall wird im Formular „Vorfall KuZ“ gemeldet.</p>
</main>
</div>
<footer>
  <p>© 2026 Stadtwerke Ellerbrück GmbH · Mühlenstraße 12 · 31699 Ellerbrück (fiktiv) ·
  <a href="/impressum/">Impressum</a> · <a href="/datenschutz/">Datenschutz</a> · <a href="/barrierefreiheit/">Barrierefreiheit</a></p>
  <p class="small">Seite drucken · Seite als PDF · Feedback an intranet@stadtwerke-ellerbrueck.example</p>
</footer>
</body>
</html>
"""


# --------------------------------------------------------------------------------------------------------- text
PPE_POLICY = """STADTWERKE ELLERBRÜCK GMBH                                   Richtlinie AS-04
Arbeitssicherheit                                               Version 3.1
----------------------------------------------------------------------------
        RICHTLINIE PERSÖNLICHE SCHUTZAUSRÜSTUNG UND ARBEITSKLEIDUNG
----------------------------------------------------------------------------
Gültig ab: 1. Januar 2027          ersetzt: AS-04 v3.0 vom 15.06.2023
Verantwortlich: Fachkraft für Arbeitssicherheit (FaSi), Jens Oltmanns
Freigabe: GF Dr. Ute Harms, 25.11.2026

INHALT
1. Geltungsbereich ........................................... 1
2. Grundsätze ................................................ 1
3. Ausstattung und Tauschintervalle .......................... 2
4. Ausgabe und Kleiderkammer ................................. 2
5. Reinigung ................................................. 3
6. Korrektionsschutzbrillen .................................. 3
7. Verlust und Beschädigung .................................. 3
8. Ausscheiden aus dem Unternehmen ........................... 4

1. GELTUNGSBEREICH
Diese Richtlinie gilt für alle Beschäftigten der Bereiche Netze, Betriebshof,
Zählerwesen und Wasserwerk sowie für Auszubildende dieser Bereiche. Für
Beschäftigte in der Verwaltung gilt sie nur, soweit sie Baustellen oder
Anlagen betreten (Besucher-PSA am Empfang Betriebshof).

2. GRUNDSÄTZE
(1) PSA wird von der Arbeitgeberin gestellt und bleibt ihr Eigentum.
(2) Das Tragen ist Pflicht, wo die Gefährdungsbeurteilung es vorsieht.
    Wer ohne PSA angetroffen wird, wird von der Baustelle verwiesen.
(3) Private Kleidung darf nicht über der Warnschutzkleidung getragen werden.

3. AUSSTATTUNG UND TAUSCHINTERVALLE
+--------------------------------+----------------+------------------------+
| Artikel                        | Menge          | Tausch                 |
+--------------------------------+----------------+------------------------+
| Sicherheitsschuhe S3 (Halbschuh| 1 Paar         | alle 18 Monate         |
|   oder Stiefel, nach Wahl)     |                |                        |
| Winterstiefel S3               | 1 Paar         | alle 30 Monate         |
| Warnschutzjacke Klasse 3       | 1 Stück        | alle 3 Jahre           |
| Warnschutz-Bundhose            | 4 Stück        | jährlich               |
| T-Shirts / Polos (Logo)        | 6 Stück        | jährlich               |
| Schutzhelm mit Kinnriemen      | 1 Stück        | alle 4 Jahre           |
| Störlichtbogen-Schutzanzug     | 1 Satz         | nach Herstellerangabe  |
|   (nur Netze Strom)            |                |                        |
| Gehörschutz-Otoplastik         | 1 Paar         | alle 5 Jahre           |
| Schutzhandschuhe               | nach Bedarf    | bei Verschleiß         |
+--------------------------------+----------------+------------------------+
Ein Helm, der einen Schlag oder Sturz abbekommen hat, wird sofort getauscht,
unabhängig vom Intervall.

4. AUSGABE UND KLEIDERKAMMER
Die Ausgabe erfolgt in der Kleiderkammer im Betriebshof Ostheide, Am
Wasserturm 4, Gebäude B, Raum 0.14.
   Öffnungszeiten: Mo und Do 07:00-08:30 Uhr, sonst nach Absprache
   Ansprechpartnerin: Sabine Kruse, Lager, Tel. -255
Neue Beschäftigte erhalten die Grundausstattung am ersten Arbeitstag; die
Maße werden vorab über den Personalfragebogen erfragt.

5. REINIGUNG
Warnschutzkleidung wird NICHT zu Hause gewaschen (Reflexstreifen!). Die
Reinigung übernimmt der Mietwäsche-Dienst Textilpflege Brandt: Abholung und
Lieferung jeden Dienstag im Betriebshof, Wäschesäcke am Eingang Halle 2.
Für sonstige Arbeitskleidung (T-Shirts, Polos) gibt es kein Wäschegeld.

6. KORREKTIONSSCHUTZBRILLEN
Wer eine Sehhilfe braucht und nach der Gefährdungsbeurteilung eine
Schutzbrille tragen muss, erhält eine Schutzbrille mit Korrektionsgläsern.
Die Stadtwerke übernehmen die Kosten bis zu 180,00 EUR alle zwei Jahre
(bei geänderter Sehstärke auch früher). Ablauf:
   a) Sehtest beim Augenarzt oder Optiker (Kosten trägt die/der Beschäftigte)
   b) Bestellung über den Vertragsoptiker "Optik Reinecke", Marktstraße 3
   c) Rechnung direkt an die Stadtwerke, Kostenstelle 4100

7. VERLUST UND BESCHÄDIGUNG
Beschädigte PSA wird gegen Rückgabe des alten Teils kostenlos ersetzt.
Bei Verlust durch eigenes Verschulden tragen Beschäftigte 50 % des
Einkaufspreises; die Fachkraft für Arbeitssicherheit entscheidet im
Einzelfall. Verlust ist binnen 3 Arbeitstagen dem Lager zu melden.

8. AUSSCHEIDEN AUS DEM UNTERNEHMEN
Bei Austritt ist die gesamte PSA spätestens am letzten Arbeitstag in der
Kleiderkammer abzugeben (Rückgabeprotokoll). Otoplastiken und getragene
Schuhe werden nicht zurückgenommen.

----------------------------------------------------------------------------
AS-04 v3.1 | Seite 1-4 | Ablage: Q:/Arbeitssicherheit/Richtlinien/AS-04.txt
Stadtwerke Ellerbrück GmbH (fiktiv) - CC-BY-SA 4.0, (c) 2026 the IrisRAG authors
"""


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
            # the ODF "mimetype" entry must stay first and uncompressed
            fixed.compress_type = zipfile.ZIP_STORED if info.filename == "mimetype" else zipfile.ZIP_DEFLATED
            fixed.external_attr = info.external_attr
            target.writestr(fixed, data)


def main() -> None:
    DOCS.mkdir(exist_ok=True)
    on_call_slides(DOCS / "einarbeitung-rufbereitschaft.pptx")
    tariff_sheet(DOCS / "preisblatt-2027.ods")
    fixed_zip_times(DOCS / "einarbeitung-rufbereitschaft.pptx")
    fixed_zip_times(DOCS / "preisblatt-2027.ods")
    excavations(DOCS / "aufgrabungen-2027.csv")
    incident_register(DOCS / "stoerungsregister-q4-2026.json")
    (DOCS / "kundenzentrum-leitfaden.html").write_text(CUSTOMER_CENTRE, encoding="utf-8")
    (DOCS / "richtlinie-psa-arbeitskleidung.txt").write_text(PPE_POLICY, encoding="utf-8")


if __name__ == "__main__":
    main()
