"""Write the documents of eval/holdout9-de/docs that belong to the fictitious Stadtbibliothek Falkenried.

Everything here is invented (the municipal library, the town of Falkenried with its districts Birkenweiler,
Ostfeld and Hafenmühle and the villages of the mobile library's route, people, addresses, phone numbers, fees,
events, rooms, figures and the library system "Katalogix").
Licence: CC-BY-SA 4.0, (c) 2026 the IrisRAG authors.

The project's venv has python-docx and openpyxl but no PDF writer, so the PDF is written with fpdf2. Run the
script with a throwaway venv that holds the three libraries (nothing goes into the project's venv):

    python3 -m venv /tmp/h9gen && /tmp/h9gen/bin/pip install fpdf2==2.8.9 python-docx==1.2.0 openpyxl==3.1.5
    /tmp/h9gen/bin/python eval/holdout9-de/make/org_documents.py

The PDF uses DejaVu Sans from /usr/share/fonts/truetype/dejavu (fonts-dejavu-core), embedded as a subset.
The output is deterministic: there is no random filler, the Office files carry fixed dates and fixed ZIP entry
times, and the PDF has a fixed creation date.
"""
from __future__ import annotations

import datetime as dt
import json
import re
import zipfile
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"
FIXED = dt.datetime(2027, 1, 15, 9, 0, 0)
STABI = "Stadtbibliothek Falkenried"
ADDRESS = "Zentralbibliothek im Kornspeicher · Kornmarkt 4 · Falkenried"
FONTS = Path("/usr/share/fonts/truetype/dejavu")
DOMAIN = "stadtbibliothek-falkenried.example"


# --------------------------------------------------------------------------------------------------------- JSON
def hours(mo=None, di=None, mi=None, do=None, fr=None, sa=None, so=None) -> dict:
    return {"montag": mo, "dienstag": di, "mittwoch": mi, "donnerstag": do, "freitag": fr, "samstag": sa,
            "sonntag": so}


LOCATIONS = {
    "bibliothekssystem": STABI,
    "traeger": "Stadt Falkenried, Fachbereich 4 – Kultur und Bildung",
    "stand": "2027-01-15",
    "kontakt_zentral": {"telefon": "05943 8820-0", "email": f"info@{DOMAIN}", "web": f"https://{DOMAIN}",
                        "telefonische_erreichbarkeit": "Di–Fr 10:00–18:00, Sa 10:00–13:00"},
    "standorte": [
        {"kuerzel": "ZB", "name": "Zentralbibliothek im Kornspeicher",
         "adresse": {"strasse": "Kornmarkt 4", "ort": "Falkenried", "lage": "Altstadt, gegenüber dem Rathaus"},
         "leitung": "Florian Aschenbrenner", "telefon": "05943 8820-10", "email": f"zentrale@{DOMAIN}",
         "oeffnungszeiten": hours(None, "10:00–19:00", "10:00–19:00", "10:00–19:00", "10:00–19:00", "10:00–14:00"),
         "rueckgabeautomat": {"ort": "Eingang Kornmarkt, links neben der Drehtür", "zeiten": "rund um die Uhr",
                              "hinweis": "keine Medien der Bibliothek der Dinge und keine Medienkisten einwerfen"},
         "selbstoeffnung": None, "sommerschliessung": None, "barrierefrei": True,
         "hinweise_barrierefreiheit": "Aufzug zu allen Etagen, rollstuhlgerechtes WC im Erdgeschoss, "
                                      "Leselupen und Vorlesegerät an der Infotheke",
         "parken": "Parkhaus Kornmarkt; die erste Stunde ist frei, wenn der Parkschein an der Theke entwertet wird",
         "ausstattung": ["Kinder- und Jugendbibliothek (1. OG)", "Lernwerkstatt (2. OG)", "Kornboden (Saal, 3. OG)",
                         "Bibliothek der Dinge", "3 Selbstverbuchungsterminals", "12 Internet-PCs",
                         "Leselounge im Erdgeschoss"],
         "wlan": "StaBi-Gast"},
        {"kuerzel": "BW", "name": "Stadtteilbibliothek Birkenweiler",
         "adresse": {"strasse": "Schulstraße 12", "ort": "Falkenried-Birkenweiler", "lage": "im Bürgerzentrum, 1. OG"},
         "leitung": "Sabine Okonkwo", "telefon": "05943 8820-50", "email": f"birkenweiler@{DOMAIN}",
         "oeffnungszeiten": hours(None, "14:00–18:00", "10:00–13:00", "14:00–18:00", "10:00–13:00 und 14:00–17:00"),
         "rueckgabeautomat": None, "selbstoeffnung": None,
         "sommerschliessung": {"von": "2027-07-19", "bis": "2027-08-06",
                               "grund": "Erneuerung der Heizungsanlage im Bürgerzentrum",
                               "ersatz": "Rückgabe und Abholung von Vormerkungen in der Zentralbibliothek"},
         "barrierefrei": True,
         "hinweise_barrierefreiheit": "Aufzug im Bürgerzentrum (Eingang Schulstraße)",
         "parken": "Parkplatz am Bürgerzentrum",
         "ausstattung": ["Kinderbereich mit Bilderbuchkino", "Saatgut-Bibliothek", "2 Internet-PCs",
                         "1 Selbstverbuchungsterminal"],
         "wlan": "StaBi-Gast"},
        {"kuerzel": "OF", "name": "Stadtteilbibliothek Ostfeld",
         "adresse": {"strasse": "Ostfelder Ring 40", "ort": "Falkenried-Ostfeld",
                     "lage": "Ostfeld-Passage, Ladenzeile im Erdgeschoss"},
         "leitung": "Mehmet Kaya", "telefon": "05943 8820-55", "email": f"ostfeld@{DOMAIN}",
         "oeffnungszeiten": hours("13:00–18:00", None, "13:00–18:00", None, "10:00–18:00", "10:00–13:00"),
         "rueckgabeautomat": {"ort": "in der Passage neben dem Haupteingang",
                              "zeiten": "während der Öffnungszeiten der Passage (Mo–Sa 8:00–20:00)",
                              "hinweis": None},
         "selbstoeffnung": None, "sommerschliessung": None, "barrierefrei": True,
         "hinweise_barrierefreiheit": "stufenloser Zugang von der Passage",
         "parken": "Parkdeck der Ostfeld-Passage, zwei Stunden kostenfrei",
         "ausstattung": ["mehrsprachiger Bestand", "Hausaufgabenhilfe", "4 Internet-PCs",
                         "1 Selbstverbuchungsterminal"],
         "sprachen_im_bestand": ["Deutsch", "Türkisch", "Russisch", "Arabisch", "Ukrainisch", "Polnisch"],
         "wlan": "StaBi-Gast"},
        {"kuerzel": "HM", "name": "Stadtteilbibliothek Hafenmühle",
         "adresse": {"strasse": "Mühlenkai 2", "ort": "Falkenried-Hafenmühle", "lage": "in der alten Hafenmühle"},
         "leitung": "Ilka Rosenbaum", "telefon": "05943 8820-58", "email": f"hafenmuehle@{DOMAIN}",
         "oeffnungszeiten": hours(None, "15:00–18:00", None, "15:00–18:00"),
         "rueckgabeautomat": None,
         "selbstoeffnung": {"bezeichnung": "Open Library", "taeglich": "08:00–22:00",
                            "voraussetzungen": "gültiger Bibliotheksausweis, Mindestalter 18 Jahre, einmalige "
                                               "Einweisung und unterschriebene Nutzungsvereinbarung",
                            "kinder": "Kinder und Jugendliche nur in Begleitung einer berechtigten Person",
                            "ausnahmen": ["01.01.", "24.12.", "25.12.", "26.12.", "31.12."]},
         "sommerschliessung": None, "barrierefrei": False,
         "hinweise_barrierefreiheit": "Eingang über drei Stufen; mobile Rampe auf Klingelzeichen, nur während "
                                      "der Servicezeiten",
         "parken": None,
         "ausstattung": ["Mühlenstube (Veranstaltungsraum)", "Gaming-Ecke", "2 Selbstverbuchungsterminals"],
         "wlan": "StaBi-Gast"},
    ],
    "fahrbibliothek": {"name": "Bücherbus „Falki“", "leitung": "Jens Harmsen", "fahrerin": "Anja Pietsch",
                       "telefon": "05943 8820-60", "mobil_waehrend_der_touren": "0171 5530 2219",
                       "haltestellen": 16, "medien_im_bus": 4200, "im_dienst_seit": "2026-09-14",
                       "fahrplan": "Fahrplan der Fahrbibliothek 2027 (Aushang an jeder Haltestelle)",
                       "barrierefrei": "Hublift an der hinteren Tür"},
    "zentrale_dienste": [
        {"bereich": "Leitung der Stadtbibliothek", "person": "Dr. Katharina Wendland", "telefon": "05943 8820-11",
         "zimmer": "ZB 2.01", "erreichbar": "nach Vereinbarung"},
        {"bereich": "Verwaltung, Kasse und Gebühren", "person": "Yvonne Lührs", "telefon": "05943 8820-20",
         "zimmer": "ZB 2.04", "erreichbar": "Di–Fr 9:00–12:00"},
        {"bereich": "Veranstaltungen und Öffentlichkeitsarbeit", "person": "Carla Mendes",
         "telefon": "05943 8820-30", "zimmer": "ZB 2.06", "erreichbar": None},
        {"bereich": "Kinder- und Jugendbibliothek, Schulbibliotheksdienst", "person": "Leonie Brandstätter",
         "telefon": "05943 8820-40", "zimmer": "ZB 1.10", "erreichbar": "Mo 13:00–15:00 (nur Schulen und Kitas)"},
        {"bereich": "IT und Bibliothekssystem", "person": "Piotr Zieliński", "telefon": "05943 8820-70",
         "zimmer": "ZB 2.09", "erreichbar": "Di–Fr 8:00–16:00"},
        {"bereich": "Bestand, Erwerbung und Anschaffungsvorschläge", "person": "Florian Aschenbrenner",
         "telefon": "05943 8820-10", "zimmer": "ZB 2.02", "erreichbar": None},
        {"bereich": "Haustechnik Kornspeicher", "person": "Gunnar Steffens", "telefon": "0160 4471 0938",
         "zimmer": None, "erreichbar": "Di–Sa während der Öffnungszeiten"},
    ],
    "schliesstage_2027": ["01.01.", "Karfreitag 26.03.", "Ostermontag 29.03.", "01.05.", "Christi Himmelfahrt 06.05.",
                          "Pfingstmontag 17.05.", "16.06. (Betriebsausflug)", "03.10.", "31.10.", "24.12.–01.01."],
}


def locations(path: Path) -> None:
    path.write_text(json.dumps(LOCATIONS, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------------------------------------------- XML
MEDIA = [
    # code, name, days, renewals, fee, per, reservable, places, hinweis, note
    ("BU", "Buch", 28, 3, "1.00", "woche", True, "ZB BW OF HM FB", None,
     "Includes graphic novels and large-print books."),
    ("ZS", "Zeitschrift", 14, 1, "1.00", "woche", False, "ZB BW OF HM",
     "Das jeweils neueste Heft ist nicht ausleihbar (Präsenz bis zum Erscheinen des nächsten Hefts).", None),
    ("HB", "Hörbuch (CD)", 28, 3, "1.00", "woche", True, "ZB BW OF HM FB", None, None),
    ("NO", "Noten", 28, 3, "1.00", "woche", True, "ZB", None, "Sheet music is kept on the 2nd floor."),
    ("DV", "DVD / Blu-ray", 7, 1, "2.00", "woche", True, "ZB BW OF HM FB",
     "Altersfreigabe nach FSK wird bei der Ausleihe geprüft.", None),
    ("KS", "Konsolenspiel", 7, 1, "2.00", "woche", True, "ZB OF HM",
     "Altersfreigabe nach USK wird bei der Ausleihe geprüft; höchstens 2 Konsolenspiele je Ausweis.",
     "Games rated USK 18 are only lent to adults; no exceptions with parental consent."),
    ("TO", "Tonie-Figur", 14, 2, "1.00", "woche", True, "ZB BW OF FB", None,
     "Damaged or chewed figures are charged at the replacement price of 16.99 EUR."),
    ("SP", "Gesellschaftsspiel", 28, 1, "1.00", "woche", True, "ZB BW OF HM",
     "Bei der Rückgabe wird die Vollständigkeit geprüft; fehlende Teile werden nach Aufwand berechnet.", None),
    ("BD", "Bibliothek der Dinge", 14, 0, "2.00", "oeffnungstag", False, "ZB",
     "Ausleihe nur an Erwachsene ab 18 Jahren; Rückgabe nur an der Infotheke der Zentralbibliothek, nicht am "
     "Rückgabeautomaten. Beispiele: Nähmaschine, Akkuschrauber, Wärmebildkamera, Laminiergerät, Beamer.",
     "Items are checked for completeness and function on return."),
    ("ML", "Medienkiste (Schulen und Kitas)", 42, 0, "1.00", "woche", False, "ZB FB",
     "Nur mit Lehrkräfte- oder Einrichtungsausweis; Lieferung und Abholung auch durch den Bücherbus.", None),
    ("EM", "E-Medium (FALKI digital)", 14, 0, "0.00", "woche", True, "online",
     "Rückgabe automatisch nach Ablauf der Leihfrist; höchstens 5 Titel gleichzeitig.",
     "No overdue fees: the licence simply expires."),
    ("FL", "Fernleihe", 0, 0, "1.00", "woche", False, "ZB",
     "Leihfrist nach Vorgabe der gebenden Bibliothek; Bestellung 2,00 € je Titel.", None),
    ("PR", "Präsenzbestand", 0, 0, "0.00", "woche", False, "ZB",
     "Nicht ausleihbar (Nachschlagewerke, Heimatsammlung, Rara); Nutzung im Lesesaal.", None),
]

READERS = [
    # code, name, fee, max items, hinweis
    ("E", "Erwachsene", "18.00", 40, None),
    ("ER", "Erwachsene, ermäßigt (Studierende, Auszubildende, Freiwilligendienst, Falkenried-Pass)", "9.00", 40,
     "Nachweis bei Ausstellung und Verlängerung vorlegen."),
    ("KJ", "Kinder und Jugendliche bis 17 Jahre", "0.00", 40,
     "Bis zum 16. Geburtstag mit Unterschrift einer erziehungsberechtigten Person."),
    ("KZ", "Kurzzeitausweis (3 Monate)", "7.00", 20, "Für Gäste und Urlauber; keine Fernleihe."),
    ("LK", "Lehrkräfte, Kitas und Schulen", "0.00", 60, "Leihfrist 6 Wochen für alle Medienarten außer DV und KS."),
]


def rules_xml(path: Path) -> None:
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           "<!-- Export der Ausleihregeln aus Katalogix 7.3 (Mandant 0412). Von Hand nachbearbeitet: Hinweise",
           "     für das Thekenpersonal ergänzt. Fragen an Piotr Zieliński, Durchwahl -70. -->",
           '<ausleihregeln xmlns="urn:example:stabi-falkenried:katalogix:ausleihregeln" version="2027.1" '
           'gueltigAb="2027-01-01">',
           "  <kopf>",
           "    <system>Katalogix 7.3</system>",
           f"    <mandant nummer=\"0412\">{STABI}</mandant>",
           "    <exportiert>2026-12-18T16:40:00</exportiert>",
           "    <verantwortlich>Piotr Zieliński</verantwortlich>",
           "    <grundlage>Benutzungs- und Entgeltordnung vom 24.09.2026, Anlage 1</grundlage>",
           "  </kopf>"]
    for code, name, days, renewals, fee, per, reservable, places, hint, note in MEDIA:
        out.append(f'  <medienart code="{code}" aktiv="true">')
        out.append(f"    <bezeichnung>{name}</bezeichnung>")
        out.append(f'    <leihfrist einheit="tage">{days}</leihfrist>')
        out.append(f'    <verlaengerungen max="{renewals}"/>')
        out.append(f'    <saeumnis betrag="{fee}" waehrung="EUR" je="{per}"/>')
        out.append(f"    <vormerkbar>{'true' if reservable else 'false'}</vormerkbar>")
        out.append(f"    <standorte>{places}</standorte>")
        if hint:
            out.append(f"    <hinweis>{hint}</hinweis>")
        if note:
            out.append(f'    <note xml:lang="en">{note}</note>')
        out.append("  </medienart>")
    for code, name, fee, most, hint in READERS:
        out.append(f'  <lesergruppe code="{code}">')
        out.append(f"    <bezeichnung>{name}</bezeichnung>")
        out.append(f'    <jahresentgelt waehrung="EUR">{fee}</jahresentgelt>')
        out.append(f'    <hoechstzahl medien="{most}"/>')
        if hint:
            out.append(f"    <hinweis>{hint}</hinweis>")
        out.append("  </lesergruppe>")
    out.append("</ausleihregeln>")
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


# --------------------------------------------------------------------------------------------------------- XLSX
D = dt.datetime
EVENTS = [
    # no, date, start, title, series, audience, place, room, people, fee, reduced, registration, remark
    (1, D(2027, 2, 4), "19:30", "„Tod am Kornmarkt“ – Krimilesung", "Lesung", "Erwachsene", "Zentralbibliothek",
     "Kornboden", "Hella Brookmann (Autorin)", 8, 5, "Vorverkauf an allen Theken", "Abendkasse zzgl. 2,00 €"),
    (2, D(2027, 2, 10), "15:00", "Bilderbuchkino: Der kleine Falke fliegt los", "Kinder", "Kinder ab 4 Jahren",
     "Birkenweiler", "Kinderbereich", "Sabine Okonkwo", "kostenfrei", None, "nicht nötig", None),
    (3, D(2027, 2, 17), "10:00", "Digitalsprechstunde: Fragen rund ums Smartphone", "Digital", "Seniorinnen und Senioren",
     "Zentralbibliothek", "Lernwerkstatt", "Piotr Zieliński und die Digitalpaten", "kostenfrei", None,
     "erforderlich, Tel. -30", "eigenes Gerät mitbringen; jeden dritten Mittwoch im Monat"),
    (4, D(2027, 2, 24), "17:00", "Reparieren statt wegwerfen – Werkzeuge aus der Bibliothek der Dinge", "Digital",
     "Erwachsene", "Ostfeld", "Aktionsfläche", "Mehmet Kaya", "kostenfrei", None, "nicht nötig", None),
    (5, D(2027, 3, 3), "19:00", "Vom Getreidelager zur Bibliothek – die Geschichte des Kornspeichers", "Vortrag",
     "Erwachsene", "Zentralbibliothek", "Kornboden", "Dr. Uwe Brünjes (Stadtarchiv)", 5, 3,
     "Vorverkauf an allen Theken", "mit Führung durch den Dachstuhl im Anschluss (max. 20 Personen)"),
    (6, D(2027, 3, 11), "16:00", "Gaming-Nachmittag „Switch & Snacks“", "Jugend", "Jugendliche ab 10 Jahren",
     "Hafenmühle", "Gaming-Ecke", "Ilka Rosenbaum", "kostenfrei", None, "nicht nötig", None),
    (7, D(2027, 3, 18), "19:30", "Book Club in English: “Small Things Like These”", "Lesekreis", "Erwachsene",
     "Zentralbibliothek", "Leselounge", "Fiona Gallagher", "kostenfrei", None, "nicht nötig",
     "held in English; please read the book beforehand, copies at the information desk"),
    (8, D(2027, 3, 24), "10:00", "Osterferien-Werkstatt: Comics zeichnen", "Kinder", "Kinder von 8 bis 12 Jahren",
     "Ostfeld", "Aktionsfläche", "Jana Wiechmann (Illustratorin)", 3, None, "bis 17.03.2027",
     "an zwei Tagen, 24. und 25. März, jeweils 10:00–13:00 Uhr; Betrag für Material"),
    (9, D(2027, 4, 15), "19:00", "Plattdüütsch Vörlesen", "Lesung", "Erwachsene", "Birkenweiler", "Kinderbereich",
     "Heimatverein Birkenweiler", "kostenfrei", None, "nicht nötig", "Spende für den Heimatverein erbeten"),
    (10, D(2027, 4, 23), "18:00", "Lange Lesenacht zum Welttag des Buches", "Kinder", "Kinder von 9 bis 12 Jahren",
     "Hafenmühle", "Mühlenstube", "Leonie Brandstätter, Ilka Rosenbaum", 12, None, "bis 09.04.2027",
     "mit Übernachtung bis 24.04., 9:00 Uhr; Schlafsack und Isomatte mitbringen"),
    (11, D(2027, 5, 6), "19:30", "Poetry Slam U20", "Jugend", "Jugendliche und Erwachsene", "Zentralbibliothek",
     "Kornboden", "Moderation: Tarek Ouali", 6, 3, "Vorverkauf an allen Theken", None),
    (12, D(2027, 5, 12), "17:00", "Saatgut-Tauschbörse", "Garten", "alle", "Birkenweiler", "Kinderbereich",
     "Saatgut-Bibliothek Birkenweiler", "kostenfrei", None, "nicht nötig", "nur samenfeste Sorten, keine Hybride"),
    (13, D(2027, 5, 20), "18:00", "Ahnenforschung: Kirchenbücher online finden", "Vortrag", "Erwachsene",
     "Zentralbibliothek", "Lernwerkstatt", "Dr. Uwe Brünjes (Stadtarchiv)", 5, 3, "erforderlich, Tel. -30",
     "höchstens 16 Teilnehmende (Laptops)"),
    (14, D(2027, 6, 2), "17:00", "Vorlesepaten gesucht – Infoabend", "Ehrenamt", "Erwachsene", "Zentralbibliothek",
     "Leselounge", "Carla Mendes", "kostenfrei", None, "nicht nötig", None),
    (15, D(2027, 6, 10), "21:30", "Open-Air-Kino im Innenhof: „Die Bücherdiebin“", "Film", "ab 12 Jahren",
     "Zentralbibliothek", "Innenhof", "Carla Mendes", 6, 4, "Vorverkauf an allen Theken",
     "bei Regen im Kornboden; Decken mitbringen"),
    (16, D(2027, 6, 24), "15:00", "Auftakt Falki-Lesesommer 2027", "Kinder", "Kinder von 6 bis 14 Jahren",
     "alle Standorte", None, "Leonie Brandstätter", "kostenfrei", None, "Anmeldung zum Lesesommer ab 01.06.2027",
     "Lesesommer vom 28.06. bis 20.08.2027; Abschlussparty am 27.08.2027"),
]

ROOMS = [
    # room, place, seats, equipment, hour, half day, day, deposit, remark
    ("Kornboden (Saal)", "Zentralbibliothek", "120 Reihe / 60 an Tischen", "Beamer, Mikrofonanlage, Flügel",
     45, 150, 260, 200, "Flügel nur nach Absprache, Stimmung zzgl. 95,00 €"),
    ("Lernwerkstatt", "Zentralbibliothek", 16, "16 Laptops, interaktive Tafel", 30, 100, 180, None,
     "Laptops nur nach Einweisung durch die IT"),
    ("Gruppenraum „Lesezeichen“", "Zentralbibliothek", 8, "Bildschirm 65 Zoll, Whiteboard", 10, 35, 60, None,
     "mit Bibliotheksausweis bis zu 3 Stunden am Tag kostenfrei"),
    ("Innenhof", "Zentralbibliothek", 150, "Stromanschluss, keine Bestuhlung", None, 120, 200, 200,
     "nur Mai bis September, Fremdnutzung bis 22:00 Uhr"),
    ("Veranstaltungsraum", "Birkenweiler", 40, "Beamer, Teeküche", 20, 70, 120, 100,
     "Schlüssel über das Bürgerzentrum"),
    ("Mühlenstube", "Hafenmühle", 24, "Beamer, Küchenzeile", 25, 80, 140, 100,
     "auch während der Open-Library-Zeiten buchbar"),
    ("Aktionsfläche", "Ostfeld", 30, "mobile Bühne, Stellwände", 15, 50, 90, None,
     "nur außerhalb der Öffnungszeiten"),
]


def events_sheet(path: Path) -> None:
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font

    euro = '#,##0.00 "€"'
    wb = Workbook()
    wb.properties.creator = "Carla Mendes"
    wb.properties.lastModifiedBy = "Carla Mendes"
    wb.properties.title = "Veranstaltungen Februar bis Juni 2027"
    wb.properties.created = wb.properties.modified = FIXED
    ws = wb.active
    ws.title = "Veranstaltungen"
    ws["A1"] = f"{STABI} – Veranstaltungen Februar bis Juni 2027 (Stand 15.01.2027)"
    ws["A1"].font = Font(bold=True, size=14)
    header = ["Nr.", "Datum", "Beginn", "Titel", "Reihe", "Zielgruppe", "Standort", "Raum", "Mitwirkende",
              "Eintritt", "ermäßigt", "Anmeldung", "Bemerkung"]
    ws.append([])
    ws.append(header)
    for cell in ws[3]:
        cell.font = Font(bold=True)
    for event in EVENTS:
        ws.append(list(event))
        row = ws.max_row
        ws.cell(row, 2).number_format = "DD.MM.YYYY"
        for column in (10, 11):
            if isinstance(ws.cell(row, column).value, (int, float)):
                ws.cell(row, column).number_format = euro
        ws.cell(row, 13).alignment = Alignment(wrap_text=True)
    ws.append([])
    ws.append(["Eintritt: Vorverkauf an allen Theken; mit Falkenried-Pass gilt der ermäßigte Preis. Kostenfreie "
               "Veranstaltungen für Kinder ohne Anmeldung, sofern nicht anders angegeben. Änderungen vorbehalten."])
    for column, width in zip("ABCDEFGHIJKLM", (5, 12, 8, 48, 11, 24, 18, 16, 30, 10, 10, 26, 50), strict=True):
        ws.column_dimensions[column].width = width

    rooms = wb.create_sheet("Raummiete")
    rooms["A1"] = "Anlage 2 zur Benutzungs- und Entgeltordnung: Raumentgelte ab 01.01.2027 (Beträge in Euro)"
    rooms["A1"].font = Font(bold=True, size=13)
    rooms.append(["Raum", "Standort", "Plätze", "Ausstattung", "je Stunde", "halber Tag (bis 4 Std.)", "ganzer Tag",
                  "Kaution", "Bemerkung"])
    for cell in rooms[2]:
        cell.font = Font(bold=True)
    for room in ROOMS:
        rooms.append(list(room))
        row = rooms.max_row
        for column in (5, 6, 7, 8):
            if rooms.cell(row, column).value is not None:
                rooms.cell(row, column).number_format = euro
    rooms.append([])
    rooms.append(["¹ Gemeinnützige Vereine mit Sitz in Falkenried zahlen die Hälfte; Schulen und Kitas aus "
                  "Falkenried nutzen alle Räume kostenfrei."])
    rooms.append(["² Alle Beträge inkl. 19 % USt.; bei Bewirtung wird eine Reinigungspauschale von 40,00 € "
                  "berechnet. Buchung bei Carla Mendes, Tel. 05943 8820-30."])
    for column, width in zip("ABCDEFGHI", (26, 18, 24, 34, 11, 12, 11, 10, 48), strict=True):
        rooms.column_dimensions[column].width = width
    wb.save(str(path))


# --------------------------------------------------------------------------------------------------------- DOCX
REGULATION = [
    ("h1", "1 Geltungsbereich"),
    ("p", "Diese Ordnung gilt für alle Standorte der Stadtbibliothek Falkenried: die Zentralbibliothek im "
          "Kornspeicher, die Stadtteilbibliotheken Birkenweiler, Ostfeld und Hafenmühle sowie die Fahrbibliothek "
          "(Bücherbus). Die Stadtbibliothek ist eine öffentliche Einrichtung der Stadt Falkenried; ihre Nutzung ist "
          "privatrechtlich geregelt."),
    ("h1", "2 Anmeldung und Bibliotheksausweis"),
    ("h2", "2.1 Anmeldung"),
    ("p", "Zur Anmeldung ist ein amtlicher Lichtbildausweis mit aktueller Anschrift vorzulegen. Kinder und "
          "Jugendliche können sich ab dem vollendeten 6. Lebensjahr anmelden; bis zum 16. Geburtstag ist die "
          "schriftliche Einwilligung mit Unterschrift einer erziehungsberechtigten Person erforderlich, die damit "
          "auch für entstehende Gebühren haftet."),
    ("h2", "2.2 Bibliotheksausweis"),
    ("p", "Der Bibliotheksausweis ist nicht übertragbar und gilt zwölf Monate ab Ausstellung. Ein Verlust ist "
          "unverzüglich zu melden; bis zur Meldung haftet die Inhaberin oder der Inhaber für alle mit dem Ausweis "
          "entliehenen Medien. Für einen Ersatzausweis wird ein Entgelt nach Anlage 1 erhoben."),
    ("p", "Lehrkräfte, Kindertagesstätten und Schulen erhalten einen kostenfreien Ausweis; Einzelheiten regelt der "
          "Schulbibliotheksdienst."),
    ("h1", "3 Ausleihe"),
    ("h2", "3.1 Leihfristen"),
    ("p", "Die Leihfrist beträgt für Bücher, Hörbücher, Noten und Gesellschaftsspiele 4 Wochen, für Zeitschriften "
          "und Tonie-Figuren 2 Wochen, für DVDs, Blu-rays und Konsolenspiele 1 Woche. Geräte der Bibliothek der "
          "Dinge werden für 2 Wochen und nur an Erwachsene verliehen. Das jeweils neueste Heft einer Zeitschrift "
          "sowie der Präsenzbestand sind von der Ausleihe ausgeschlossen."),
    ("h2", "3.2 Höchstzahl"),
    ("p", "Auf einen Ausweis können gleichzeitig höchstens 40 Medien entliehen werden, davon höchstens "
          "10 DVDs, Blu-rays und Konsolenspiele zusammen."),
    ("h2", "3.3 Verlängerung"),
    ("p", "Die Leihfrist kann vor ihrem Ablauf bis zu dreimal verlängert werden – im Online-Konto, telefonisch oder "
          "an jeder Theke –, sofern das Medium nicht vorgemerkt ist. DVDs, Blu-rays, Konsolenspiele, Zeitschriften "
          "und Gesellschaftsspiele können einmal, Tonie-Figuren zweimal verlängert werden, Geräte der Bibliothek der Dinge gar nicht."),
    ("h2", "3.4 Vormerkungen und Fernleihe"),
    ("p", "Entliehene Medien können gegen Entgelt vorgemerkt werden. Vorgemerkte Medien liegen sieben "
          "Öffnungstage zur Abholung bereit; danach geht das Medium an die nächste Person. Medien, die die "
          "Stadtbibliothek nicht besitzt, können über die Fernleihe aus anderen Bibliotheken bestellt werden."),
    ("h1", "4 Rückgabe und Versäumnisgebühren"),
    ("p", "Medien können an jedem Standort und im Bücherbus zurückgegeben werden; am Eingang der Zentralbibliothek "
          "steht dafür ein Rückgabeautomat rund um die Uhr zur Verfügung. Geräte der Bibliothek der Dinge und "
          "Medienkisten sind an der Infotheke der Zentralbibliothek zurückzugeben."),
    ("p", "Wird die Leihfrist überschritten, wird je Medium eine Versäumnisgebühr nach Anlage 1 fällig, auch wenn "
          "keine Erinnerung verschickt wurde. Eine Erinnerung per E-Mail drei Tage vor Fristablauf ist ein freiwilliger "
          "Dienst. Nach 14 Tagen Überschreitung folgt eine schriftliche Mahnung, nach weiteren 14 Tagen eine zweite. "
          "Ab offenen Gebühren von 10,00 € ist das Konto für weitere Ausleihen und Verlängerungen gesperrt, bis der "
          "Betrag bezahlt ist."),
    ("h1", "5 Beschädigung und Verlust"),
    ("p", "Medien sind sorgfältig zu behandeln. Für beschädigte oder verlorene Medien ist der Wiederbeschaffungswert "
          "zu ersetzen; zusätzlich wird eine Bearbeitungspauschale nach Anlage 1 erhoben. Eigene Reparaturen sind "
          "nicht erlaubt."),
    ("h1", "6 Internet-PCs, WLAN, Drucken"),
    ("p", "Die Internet-PCs stehen Personen ab 12 Jahren mit Bibliotheksausweis 60 Minuten am Tag kostenfrei zur "
          "Verfügung; ist kein anderer Wunsch vorgemerkt, kann die Zeit verlängert werden. Das WLAN „StaBi-Gast“ ist "
          "kostenfrei und ohne Ausweis nutzbar. Ausdrucke und Kopien werden nach Anlage 1 berechnet."),
    ("h1", "7 Verhalten in der Bibliothek"),
    ("p", "Rücksicht auf andere ist selbstverständlich. Getränke in verschließbaren Flaschen sind erlaubt, Speisen "
          "nur in der Leselounge im Erdgeschoss der Zentralbibliothek. Telefonieren ist in den Lesebereichen nicht "
          "gestattet. Das Hausrecht üben die Leitung und das diensthabende Personal aus."),
    ("h1", "8 Veranstaltungsräume"),
    ("p", "Die Räume der Stadtbibliothek können für nichtkommerzielle Veranstaltungen gemietet werden. Die Entgelte "
          "ergeben sich aus Anlage 2 (Raumentgelte); über die Vergabe entscheidet die Leitung der Stadtbibliothek."),
    ("h1", "9 Datenschutz"),
    ("p", "Die Stadtbibliothek speichert die zur Ausleihe nötigen Daten. Welche Medien entliehen wurden, wird nach "
          "der Rückgabe gelöscht, es sei denn, es sind noch Gebühren offen oder die Nutzerin oder der Nutzer hat die "
          "Leseliste im Online-Konto eingeschaltet. Konten, die drei Jahre nicht genutzt wurden, werden gelöscht."),
    ("h1", "10 Inkrafttreten"),
    ("p", "Diese Ordnung tritt am 1. Januar 2027 in Kraft. Gleichzeitig tritt die Benutzungsordnung vom "
          "12. März 2019 außer Kraft."),
]

FEES = [
    ("Leistung", "Entgelt", "Hinweis"),
    ("Jahresausweis Erwachsene", "18,00 €", "12 Monate ab Ausstellung"),
    ("Jahresausweis ermäßigt", "9,00 €", "Studierende, Auszubildende, Freiwilligendienst, Falkenried-Pass"),
    ("Kinder und Jugendliche bis 17 Jahre", "kostenfrei", "Einwilligung bis zum 16. Geburtstag"),
    ("Kurzzeitausweis (3 Monate)", "7,00 €", "für Gäste, keine Fernleihe"),
    ("Ersatzausweis", "5,00 €", "bei Verlust oder Beschädigung"),
    ("Vormerkung", "1,00 €", "je Medium, Kinderausweise frei"),
    ("Fernleihe", "2,00 €", "je bestellten Titel"),
    ("Versäumnisgebühr", "1,00 €", "je Medium und angefangene Woche"),
    ("Versäumnisgebühr DVD, Blu-ray, Konsolenspiel", "2,00 €", "je Medium und angefangene Woche"),
    ("Versäumnisgebühr Bibliothek der Dinge", "2,00 €", "je Gerät und Öffnungstag"),
    ("Schriftliche Mahnung", "3,00 €", "je Mahnschreiben, zusätzlich"),
    ("Bearbeitungspauschale bei Verlust oder Beschädigung", "5,00 €", "zuzüglich Wiederbeschaffungswert"),
    ("Ausdruck oder Kopie A4 schwarz-weiß", "0,10 €", "je Seite"),
    ("Ausdruck oder Kopie A4 farbig", "0,50 €", "je Seite"),
]


def _page_field(paragraph) -> None:
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    field = OxmlElement("w:fldSimple")
    field.set(qn("w:instr"), "PAGE")
    run = OxmlElement("w:r")
    text = OxmlElement("w:t")
    text.text = "1"
    run.append(text)
    field.append(run)
    paragraph._p.append(field)


def regulation_docx(path: Path) -> None:
    import docx
    from docx.enum.text import WD_ALIGN_PARAGRAPH
    from docx.shared import Pt

    document = docx.Document()
    props = document.core_properties
    props.author = props.last_modified_by = "Yvonne Lührs"
    props.title = "Benutzungs- und Entgeltordnung der Stadtbibliothek Falkenried"
    props.created = props.modified = FIXED
    props.revision = 7
    section = document.sections[0]
    head = section.header.paragraphs[0]
    head.text = f"{STABI} · Benutzungs- und Entgeltordnung · gültig ab 01.01.2027"
    head.alignment = WD_ALIGN_PARAGRAPH.RIGHT
    foot = section.footer.paragraphs[0]
    foot.text = "Beschluss des Rates der Stadt Falkenried vom 24.09.2026 · Seite "
    _page_field(foot)

    document.add_paragraph("Benutzungs- und Entgeltordnung der Stadtbibliothek Falkenried", style="Title")
    intro = document.add_paragraph("Aufgrund der §§ 10 und 58 des Niedersächsischen Kommunalverfassungsgesetzes hat "
                                   "der Rat der Stadt Falkenried in seiner Sitzung am 24.09.2026 folgende Ordnung "
                                   "beschlossen.")
    intro.runs[0].italic = True
    for kind, text in REGULATION:
        if kind == "h1":
            document.add_heading(text, level=1)
        elif kind == "h2":
            document.add_heading(text, level=2)
        else:
            document.add_paragraph(text)
    document.add_heading("Anlage 1: Entgelte", level=1)
    table = document.add_table(rows=0, cols=3)
    table.style = "Table Grid"
    for number, row in enumerate(FEES):
        cells = table.add_row().cells
        for cell, value in zip(cells, row, strict=True):
            cell.text = value
            if number == 0:
                cell.paragraphs[0].runs[0].bold = True
    document.add_paragraph("Anlage 2 (Raumentgelte) wird gesondert als Tabelle geführt.")
    closing = document.add_paragraph("Falkenried, den 25.09.2026 – Die Bürgermeisterin")
    closing.runs[0].font.size = Pt(10)
    document.save(str(path))


# ---------------------------------------------------------------------------------------------------------- PDF
REPORT_HEADER = f"{STABI} · Jahresbericht 2026"
REPORT_FOOTER = "Vorgelegt dem Ausschuss für Kultur und Bildung am 25.02.2027"
REPORT = [
    ("h", "1 Vorwort"),
    ("p", "2026 war für die Stadtbibliothek Falkenried ein Jahr des Aufbruchs: In der Hafenmühle haben wir am "
          "4. Mai 2026 den Open-Library-Betrieb gestartet, seit dem 14. September 2026 ist der neue Bücherbus "
          "„Falki“ unterwegs, und der Rat hat im September eine neue Benutzungs- und Entgeltordnung beschlossen. "
          "Mein Dank gilt dem ganzen Team, unseren 48 Ehrenamtlichen und dem Förderverein. – Dr. Katharina "
          "Wendland, Leiterin der Stadtbibliothek"),
    ("h", "2 Das Jahr in Zahlen"),
    ("p", "Die Zahl der Besuche ist gegenüber dem Vorjahr deutlich gestiegen, vor allem durch die längeren "
          "Zeiten in der Hafenmühle. Die Ausleihen physischer Medien sind leicht zurückgegangen, die digitalen "
          "Ausleihen über FALKI digital haben dagegen um fast ein Viertel zugenommen."),
    ("t", (70, 32, 32, 32), [
        ("Kennzahl", "2025", "2026", "Veränderung"),
        ("Besuche (alle Standorte)", "231.460", "258.930", "+11,9 %"),
        ("Ausleihen physisch", "418.215", "412.806", "−1,3 %"),
        ("Ausleihen digital (FALKI digital)", "52.370", "64.912", "+23,9 %"),
        ("aktive Nutzerinnen und Nutzer", "9.874", "10.412", "+5,4 %"),
        ("Medienbestand", "148.300", "151.020", "+1,8 %"),
        ("Veranstaltungen", "512", "587", "+14,6 %"),
        ("Teilnehmende an Veranstaltungen", "14.930", "17.245", "+15,5 %"),
    ]),
    ("h", "3 Die Standorte"),
    ("p", "Die Zentralbibliothek im Kornspeicher ist seit dem 1. März 2026 dienstags bis freitags bis 19:00 Uhr "
          "statt bis 18:00 Uhr geöffnet. Birkenweiler musste im Juni 2026 wegen eines Wasserschadens im "
          "Bürgerzentrum zwei Wochen schließen. Ostfeld hat den mehrsprachigen Bestand um Polnisch erweitert."),
    ("t", (54, 38, 38, 36), [
        ("Standort", "Besuche 2026", "Ausleihen 2026", "Stunden/Woche"),
        ("Zentralbibliothek", "162.410", "251.390", "40"),
        ("Birkenweiler", "21.360", "48.120", "17"),
        ("Ostfeld", "37.880", "61.054", "21"),
        ("Hafenmühle", "29.740", "30.918", "6 + Open Library"),
        ("Bücherbus", "7.540", "21.324", "24"),
    ]),
    ("p", "In der Hafenmühle entfielen 71 % der Besuche auf die Open-Library-Zeiten ohne Personal. Es gab im "
          "ganzen Jahr nur einen Fall von Sachbeschädigung; die Videoüberwachung des Eingangs hat sich bewährt."),
    ("h", "4 Fahrbibliothek"),
    ("p", "Der alte Bücherbus aus dem Jahr 2004 wurde nach 22 Jahren außer Dienst gestellt. Der neue Bus hat "
          "385.000 € gekostet, davon trug das Land 60 % aus dem Programm „Ländliche Räume lesen“. Er bietet Platz "
          "für 4.200 Medien, hat einen Hublift und fährt 16 Haltestellen in neun Ortsteilen und Dörfern an. Seit "
          "Januar 2027 gilt ein neuer Fahrplan im Zweiwochentakt."),
    ("h", "5 Veranstaltungen und Bildungspartnerschaften"),
    ("p", "Mit 23 Schulen und 31 Kitas bestehen Bildungspartnerschaften. Der Schulbibliotheksdienst hat 412 "
          "Klassenführungen und Bibliotheksrallyes durchgeführt und 286 Medienkisten verliehen. Am Falki-"
          "Lesesommer 2026 nahmen 684 Kinder teil, 402 von ihnen erhielten eine Urkunde für mindestens drei "
          "gelesene Bücher. Die Digitalsprechstunde für Seniorinnen und Senioren war mit durchschnittlich 14 "
          "Gästen je Termin so gefragt, dass sie 2027 monatlich angeboten wird."),
    ("h", "6 Personal"),
    ("p", "Zum Jahresende arbeiteten 27 Beschäftigte auf 19,5 Stellen in der Stadtbibliothek, darunter zwei "
          "Auszubildende zur Fachangestellten für Medien- und Informationsdienste. Frau Ilka Rosenbaum hat im "
          "April die Leitung der Stadtteilbibliothek Hafenmühle übernommen. Unterstützt wird das Team von 48 "
          "Ehrenamtlichen (Vorlesepaten, Digitalpaten, Hausaufgabenhilfe in Ostfeld)."),
    ("h", "7 Finanzen"),
    ("p", "Der Zuschuss der Stadt Falkenried betrug 2026 insgesamt 1.986.300 €. Die Einnahmen aus Entgelten "
          "und Gebühren lagen bei 61.870 €, davon 38.415 € aus Jahresausweisen."),
    ("t", (80, 40, 46), [
        ("Position", "Ansatz 2026", "Ergebnis 2026"),
        ("Personalkosten", "1.412.000 €", "1.398.650 €"),
        ("Medienetat", "212.400 €", "214.980 €"),
        ("Sach- und Betriebskosten", "386.500 €", "402.140 €"),
        ("Lizenzen FALKI digital", "28.000 €", "32.400 €"),
        ("Einnahmen Entgelte und Gebühren", "−58.000 €", "−61.870 €"),
    ]),
    ("h", "8 Ausblick 2027"),
    ("p", "Mit der neuen Benutzungs- und Entgeltordnung steigt der Jahresausweis für Erwachsene zum 1. Januar 2027 "
          "von 15,00 € auf 18,00 €; Kinder und Jugendliche bleiben kostenfrei. Im dritten Quartal 2027 wird das Dach "
          "des Kornspeichers saniert; der Kornboden steht dann von Juli bis Oktober nicht für Veranstaltungen zur "
          "Verfügung. Außerdem soll der Bücherbus ein eigenes Selbstverbuchungsterminal erhalten."),
]


def report_pdf(path: Path) -> None:
    from fpdf import FPDF

    class Document(FPDF):
        def header(self) -> None:
            if self.page_no() == 1:
                return
            self.set_font("dejavu", "", 8.5)
            self.set_y(10)
            self.cell(0, 5, REPORT_HEADER)
            self.set_x(self.l_margin)
            self.cell(0, 5, "Fachbereich 4 – Kultur und Bildung", align="R")
            self.line(self.l_margin, 16, self.w - self.r_margin, 16)
            self.set_y(24)

        def footer(self) -> None:
            if self.page_no() == 1:
                return
            self.set_y(-16)
            self.line(self.l_margin, self.get_y() - 1, self.w - self.r_margin, self.get_y() - 1)
            self.set_font("dejavu", "", 8.5)
            self.cell(0, 5, REPORT_FOOTER)
            self.set_x(self.l_margin)
            self.cell(0, 5, f"Seite {self.page_no()} von {{nb}}", align="R")

    pdf = Document(format="A4")
    pdf.set_creation_date(FIXED)
    pdf.set_title("Jahresbericht 2026")
    pdf.set_author(STABI)
    pdf.set_creator("eval/holdout9-de/make/org_documents.py")
    pdf.set_producer("fpdf2")
    pdf.add_font("dejavu", "", str(FONTS / "DejaVuSans.ttf"))
    pdf.add_font("dejavu", "B", str(FONTS / "DejaVuSans-Bold.ttf"))
    pdf.set_margins(22, 22, 22)
    pdf.set_auto_page_break(True, 24)

    pdf.add_page()
    pdf.set_font("dejavu", "B", 13)
    pdf.set_y(60)
    pdf.cell(0, 8, STABI, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("dejavu", "B", 28)
    pdf.ln(6)
    pdf.multi_cell(0, 12, "Jahresbericht 2026", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("dejavu", "", 13)
    pdf.ln(4)
    pdf.cell(0, 8, "Zentralbibliothek · Birkenweiler · Ostfeld · Hafenmühle · Bücherbus", new_x="LMARGIN",
             new_y="NEXT")
    pdf.line(22, pdf.get_y() + 4, 188, pdf.get_y() + 4)
    pdf.set_y(250)
    pdf.set_font("dejavu", "", 9)
    pdf.cell(0, 5, ADDRESS + f" · Telefon 05943 8820-0 · {DOMAIN}")

    def toc(pdf: FPDF, outline) -> None:
        pdf.set_xy(pdf.l_margin, 30)
        pdf.set_font("dejavu", "B", 16)
        pdf.cell(0, 10, "Inhalt", new_x="LMARGIN", new_y="NEXT")
        pdf.ln(4)
        pdf.set_font("dejavu", "", 11)
        width = pdf.w - pdf.l_margin - pdf.r_margin
        for section in outline:
            number = str(section.page_number)
            room = width - pdf.get_string_width(section.name) - pdf.get_string_width(number) - 4
            dots = "." * int(room / pdf.get_string_width("."))
            pdf.cell(0, 8, f"{section.name} {dots} {number}", new_x="LMARGIN", new_y="NEXT")

    pdf.add_page()
    pdf.insert_toc_placeholder(toc, pages=1)
    for kind, *content in REPORT:
        if kind == "h":
            if pdf.get_y() > 230:
                pdf.add_page()
            pdf.ln(3)
            pdf.start_section(content[0], level=0)
            pdf.set_font("dejavu", "B", 13)
            pdf.cell(0, 8, content[0], new_x="LMARGIN", new_y="NEXT")
        elif kind == "p":
            pdf.set_font("dejavu", "", 10.5)
            pdf.multi_cell(0, 5.6, content[0], align="J", new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2.5)
        else:
            widths, rows = content
            pdf.set_font("dejavu", "", 10)
            with pdf.table(col_widths=tuple(widths), text_align=("LEFT",) + ("RIGHT",) * (len(widths) - 1),
                           line_height=6) as table:
                for line in rows:
                    row = table.row()
                    for cell in line:
                        row.cell(cell)
            pdf.ln(3)
    pdf.output(str(path))


# ----------------------------------------------------------------------------------------------------- Markdown
WIKI_PAGE = """\
> Intranet › Bibliothekssystem › Theke und Selbstverbuchung

# Theke, Selbstverbuchung und Katalogix – Spickzettel

*Zuletzt bearbeitet am 11.01.2027 von Piotr Zieliński (IT und Bibliothekssystem)*

Diese Seite sammelt, was an der Theke immer wieder gefragt wird. Rechtliches (Leihfristen, Entgelte) steht in der
Benutzungs- und Entgeltordnung; hier geht es um Geräte, Handgriffe und Befehle.

## Geräte an den Standorten

| Gerät | Standort | Name im Netz | Bemerkung |
|---|---|---|---|
| Selbstverbuchung 1–3 | Zentralbibliothek, EG | `sv-zb-01` bis `sv-zb-03` | Terminal 3 nimmt auch Kartenzahlung |
| Rückgabeautomat mit Sortierung | Zentralbibliothek, Eingang Kornmarkt | `rga-zb` | 5 Sortierkisten, Kiste 5 = Fehlwürfe |
| Selbstverbuchung | Birkenweiler | `sv-bw-01` | |
| Selbstverbuchung | Ostfeld | `sv-of-01` | Rückgabeautomat in der Passage: `rga-of` |
| Selbstverbuchung 1–2 | Hafenmühle | `sv-hm-01`, `sv-hm-02` | `sv-hm-02` ist das Open-Library-Terminal |
| Kassenautomat | Zentralbibliothek, EG | `kasse-zb` | nimmt Münzen, Scheine bis 20 €, girocard |

## Drucken und Kopieren

| Was | Preis | Wie bezahlt |
|---|---|---|
| A4 schwarz-weiß | 0,10 € je Seite | Druckguthaben auf dem Ausweis |
| A4 farbig | 0,50 € je Seite | Druckguthaben auf dem Ausweis |
| A3 schwarz-weiß | 0,20 € je Seite | nur Zentralbibliothek |
| Scannen auf USB-Stick | kostenfrei | |

Druckguthaben wird am Kassenautomaten aufgeladen, mindestens 1,00 €. Gäste ohne Ausweis bekommen an der Theke eine
Gastkarte für das Drucken (Pfand 2,00 €).

## Häufige Handgriffe in Katalogix

1. Leserkonto am Thekenrechner aufrufen (Ausweisnummer scannen oder `Strg+L`).
2. Bei Sperren zuerst unter „Gebühren“ nachsehen, was offen ist; ab 10,00 € sperrt das System automatisch.
3. Ratenzahlung oder Erlass nur mit der Teamleitung oder mit Yvonne Lührs (Kasse, -20).
4. Nach jeder Änderung am Konto einen Vermerk unter „Notizen“ hinterlassen.

Für die Kommandozeile auf dem Thekenserver (`katx`, nur mit eurem persönlichen Konto, nicht als `root`):

```bash
# Leserkonto anzeigen (Ausweisnummern beginnen immer mit 2710)
katx leser zeige 2710045532

# PIN zurücksetzen; die neue PIN geht per E-Mail oder wird an der Theke ausgedruckt
katx leser pin-reset 2710045532 --per-mail
katx leser pin-reset 2710045532 --drucken

# Sperre aufheben, z. B. nach vereinbarter Ratenzahlung (nur Teamleitung!)
katx leser entsperren 2710045532 --grund "Ratenzahlung vereinbart"

# Medium als verloren markieren (löst Rechnung über Wiederbeschaffungswert + 5,00 € aus)
katx medium verloren F0038815 --konto 2710045532
```

> **Notiz (Piotr):** `katx` schreibt jede Aktion ins Protokoll. Bitte keine Testbuchungen auf echten Konten,
> dafür gibt es das Testkonto 2710000001.

## Digitale Ausleihe (FALKI digital)

- E-Books, E-Audios und E-Paper über die App „FALKI digital“ oder im Browser
- Anmeldung mit Ausweisnummer und derselben PIN wie im Online-Konto
- höchstens **5 Titel** gleichzeitig, Leihfrist 14 Tage, keine Versäumnisgebühren (die Lizenz läuft einfach ab)
- E-Reader verleihen wir nicht; Tolino-Geräte unterstützen die Ausleihe direkt

## Wenn etwas nicht geht

- *Selbstverbuchung erkennt ein Medium nicht:* höchstens fünf Medien auf einmal auflegen, DVDs einzeln;
  klappt es dann nicht, Etikett prüfen und Medium an der Theke verbuchen.
- *Rückgabeautomat meldet „Fach voll“:* die Kiste, die blinkt, leeren und an der Klappe hinten rechts quittieren;
  danach läuft der Automat von selbst weiter. Bei „Störung Förderband“ den Automaten **nicht** neu starten,
  sondern Gunnar Steffens (Haustechnik, 0160 4471 0938) anrufen.
- *Open-Library-Tür in der Hafenmühle öffnet nicht:* prüfen, ob das Konto für die Open Library freigeschaltet ist
  (Katalogix → Leser → Berechtigungen → „OL“); freischalten darf nur Ilka Rosenbaum oder ihre Vertretung.
- *Katalogix hängt an allen Thekenrechnern:* IT-Hotline -70 (Di–Fr 8:00–16:00); samstags die Rufbereitschaft
  der IT der Stadtverwaltung unter 05943 8800-999.

> **Notiz (Ilka):** Montags ist die IT der Stadt nicht für uns da – dann bis Dienstag mit Notverbuchung auf Papier
> arbeiten (Vordrucke liegen in der Schublade unter Terminal 1).
"""


# ---------------------------------------------------------------------------------------------------------- TXT
def _ascii_table(widths: list[int], rows: list[list[str]]) -> list[str]:
    rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    lines = [rule]
    for number, row in enumerate(rows):
        lines.append("| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) + " |")
        if number == 0:
            lines.append(rule)
    lines.append(rule)
    return lines


TOUR_A = [
    ["Tag", "Ortsteil / Dorf", "Haltestelle", "Zeit", "Bemerkung"],
    ["Mo", "Lindhövel", "Dorfplatz / Feuerwehr", "14:00 - 15:15", ""],
    ["Mo", "Sandhagen", "Grundschule Sandhagen", "15:45 - 17:30", "Schulhof, Eingang Lindenweg"],
    ["Di", "Wiesengrund", "Kita Pusteblume", "09:30 - 10:30", "nur für die Kita"],
    ["Di", "Wiesengrund", "Gasthaus Zur Linde", "10:45 - 12:00", ""],
    ["Di", "Falkenried-Nord", "Am Falkenhorst / Spielplatz", "15:00 - 18:00", ""],
    ["Mi", "Heidkamp", "Seniorenwohnanlage Eichenhof", "10:00 - 11:00", "Ausleihe auch im Haus"],
    ["Mi", "Heidkamp", "Bushaltestelle Kirche", "11:15 - 12:30", ""],
    ["Do", "Brookmoor", "Dorfgemeinschaftshaus", "14:30 - 16:00", ""],
]
TOUR_B = [
    ["Tag", "Ortsteil / Dorf", "Haltestelle", "Zeit", "Bemerkung"],
    ["Mo", "Lindhövel", "Dorfplatz / Feuerwehr", "16:00 - 17:30", "andere Zeit als Woche A!"],
    ["Di", "Oberrode", "Grundschule Oberrode", "08:30 - 11:30", "vormittags nur Schulklassen"],
    ["Di", "Niederrode", "Alte Molkerei", "14:00 - 15:30", ""],
    ["Mi", "Wiesengrund", "Dorfteich", "10:00 - 11:30", ""],
    ["Mi", "Sandhagen", "Edeka-Parkplatz", "15:00 - 17:00", ""],
    ["Do", "Falkenried-Nord", "Am Falkenhorst / Spielplatz", "15:00 - 18:00", ""],
    ["Do", "Brookmoor", "Schützenhalle", "09:00 - 10:30", ""],
    ["Fr", "Niederrode", "Grundschule Niederrode", "09:00 - 10:30", ""],
    ["Fr", "Kirchwalde", "Feuerwehrhaus", "14:00 - 15:30", ""],
    ["Fr", "Oberrode", "Sportplatz", "16:00 - 17:30", ""],
]


def timetable_text() -> str:
    lines = [
        "=" * 78,
        "  STADTBIBLIOTHEK FALKENRIED - FAHRBIBLIOTHEK",
        '  Fahrplan des Bücherbusses "Falki" 2027  -  gültig ab 11.01.2027',
        "=" * 78,
        "",
        "Der Bücherbus fährt im Zweiwochentakt: Woche A und Woche B wechseln sich ab.",
        "Woche A beginnt am Montag, 11.01.2027 (ungerade Kalenderwochen = Woche B,",
        "gerade Kalenderwochen = Woche A). An Feiertagen fällt die Haltestelle aus",
        "und wird nicht nachgeholt.",
        "",
        "Stand: 04.01.2027",
        "Ansprechpartner: Jens Harmsen, Tel. 05943 8820-60",
        "Mobil im Bus (nur während der Touren): 0171 5530 2219",
        "",
        "",
        "1. TOUR WOCHE A (gerade Kalenderwochen)",
        "",
        *_ascii_table([4, 16, 29, 13, 28], TOUR_A),
        "",
        "",
        "2. TOUR WOCHE B (ungerade Kalenderwochen)",
        "",
        *_ascii_table([4, 16, 29, 13, 28], TOUR_B),
        "",
        "Insgesamt 16 Haltestellen. Die Haltestellen 'Am Falkenhorst' und 'Lindhövel'",
        "werden in beiden Wochen angefahren.",
        "",
        "",
        "3. FERIEN UND AUSFALLTAGE 2027",
        "",
        "   Osterferien ............ 22.03. bis 02.04.2027: nur Haltestellen ohne Schule",
        "   Sommerferien ........... kein Busbetrieb vom 19.07. bis 27.08.2027",
        "   Herbstferien ........... 18.10. bis 29.10.2027: normaler Fahrplan",
        "   Werkstatt / TÜV ........ 15.03.2027 (Woche B fällt an diesem Tag aus)",
        "   Betriebsausflug ........ 16.06.2027",
        "   Weihnachtspause ........ 20.12.2027 bis 07.01.2028",
        "",
        "Bei Glatteis, Sturm oder Schnee kann eine Tour kurzfristig ausfallen. Ob der",
        "Bus fährt, steht ab 7:30 Uhr auf der Bandansage 05943 8820-66 und auf der",
        "Startseite der Bibliothek.",
        "",
        "",
        "4. WAS IM BUS GEHT",
        "",
        "+----------------------------+---------------------------------------------+",
        "| Dienst                     | im Bücherbus                                |",
        "+----------------------------+---------------------------------------------+",
        "| Ausleihe und Rückgabe      | ja, auch Medien aller anderen Standorte     |",
        "| Neuanmeldung               | ja, Jahresausweis 18,00 EUR, nur bar        |",
        "| Vormerkungen abholen       | ja, Bestellung bis Freitag der Vorwoche     |",
        "| Gebühren bezahlen          | ja, nur bar (kein Kartenterminal im Bus)    |",
        "| Medienkisten für Schulen   | Lieferung und Abholung nach Absprache       |",
        "| Bibliothek der Dinge       | nein (nur Zentralbibliothek)                |",
        "| Internet / Drucken         | nein                                        |",
        "+----------------------------+---------------------------------------------+",
        "",
        "Im Bus stehen rund 4.200 Medien: Bilderbücher, Kinder- und Jugendbücher,",
        "Romane, Hörbücher, DVDs und Tonies. Wer etwas Bestimmtes sucht, bestellt es",
        "bis Freitag der Vorwoche - der Bus bringt es zur nächsten Haltestelle mit.",
        "Der Bus hat an der hinteren Tür einen Hublift für Rollstühle und Rollatoren.",
        "",
        "Parken am Bus: Bitte nicht direkt vor dem Hublift halten.",
        "",
        "-" * 78,
        "Stadtbibliothek Falkenried, Kornmarkt 4, Falkenried - www." + DOMAIN,
        "",
    ]
    return "\r\n".join(lines)


# --------------------------------------------------------------------------------------------------------- HTML
OFFERS = [
    ("Bibliotheksführerschein „Falki-Pass“", "Kita, Vorschulkinder (5–6 Jahre)", "3 Termine à 45 Min.",
     "alle Standorte und Bücherbus", "bis 12 Kinder", "kostenfrei"),
    ("Bibliotheksrallye", "Klasse 3–4", "90 Min.", "Zentralbibliothek, Birkenweiler, Ostfeld",
     "eine Klasse", "kostenfrei"),
    ("Escape-Room „Das Geheimnis des Kornspeichers“", "Klasse 7–10", "90 Min.", "Zentralbibliothek",
     "bis 24 Schülerinnen und Schüler", "kostenfrei"),
    ("Recherchetraining „Fit für die Facharbeit“", "Klasse 11–13", "2 × 90 Min.", "Zentralbibliothek, Lernwerkstatt",
     "bis 16 (Laptops)", "kostenfrei"),
    ("Klassenlesung mit Autorin oder Autor", "Klasse 5–8", "60 Min.", "Zentralbibliothek, Kornboden",
     "bis zu drei Klassen", "2,00 € je Kind"),
    ("Coding mit dem Calliope mini", "Klasse 5–7", "2 × 90 Min.", "Hafenmühle, Mühlenstube", "bis 20",
     "1,50 € Material je Kind"),
    ("Medienkiste zu einem Unterrichtsthema", "Klasse 1–10", "Leihfrist 6 Wochen",
     "Abholung Zentralbibliothek oder Lieferung per Bücherbus", "rund 30 Medien je Kiste",
     "kostenfrei mit Lehrkräfteausweis"),
]


def school_page() -> str:
    rows = "\n".join(
        "        <tr>" + "".join(f"<td>{cell}</td>" for cell in offer) + "</tr>" for offer in OFFERS)
    return f"""<!DOCTYPE html>
<html lang="de">
<head>
  <meta charset="utf-8">
  <title>Angebote für Kitas und Schulen – Intranet der {STABI}</title>
  <link rel="stylesheet" href="/intranet/static/stabi.css">
</head>
<body>
  <a class="skip" href="#inhalt">Zum Inhalt springen</a>
  <header class="kopf">
    <a href="/intranet/" class="logo">StaBi Falkenried · Intranet</a>
    <nav class="hauptnavigation" aria-label="Hauptnavigation">
      <ul>
        <li><a href="/intranet/">Start</a></li>
        <li><a href="/intranet/teams/">Teams</a></li>
        <li><a href="/intranet/dienstplan/">Dienstplan</a></li>
        <li><a href="/intranet/bibliothekssystem/">Bibliothekssystem</a></li>
        <li><a href="/intranet/formulare/">Formulare</a></li>
        <li><a href="/intranet/telefonliste/">Telefonliste</a></li>
      </ul>
    </nav>
    <form class="suche" action="/intranet/suche" method="get">
      <label for="q">Intranet durchsuchen</label>
      <input id="q" name="q" type="search" placeholder="Suchbegriff">
      <button type="submit">Suchen</button>
    </form>
  </header>

  <nav class="brotkrumen" aria-label="Sie sind hier">
    <a href="/intranet/">Intranet</a> › <a href="/intranet/teams/">Teams</a> ›
    <a href="/intranet/teams/kinder-jugend/">Kinder- und Jugendbibliothek</a> › Angebote für Kitas und Schulen
  </nav>

  <div class="spalten">
    <main id="inhalt">
      <h1>Angebote für Kitas und Schulen</h1>
      <p class="einleitung">Was wir Kitas und Schulen anbieten, wie gebucht wird und was ihr am Telefon sagen
      könnt, wenn eine Lehrkraft anruft. Gebucht wird alles über den Schulbibliotheksdienst
      (Leonie Brandstätter, Durchwahl -40) – bitte nichts direkt im Dienstplan eintragen.</p>

      <nav class="inhaltsverzeichnis" aria-label="Auf dieser Seite">
        <ol>
          <li><a href="#angebote">Die Angebote im Überblick</a></li>
          <li><a href="#buchen">So wird gebucht</a></li>
          <li><a href="#ausweise">Lehrkräfte- und Klassenausweise</a></li>
          <li><a href="#absagen">Absagen und Ausfälle</a></li>
        </ol>
      </nav>

      <h2 id="angebote">Die Angebote im Überblick</h2>
      <table class="tabelle">
        <caption>Angebote des Schulbibliotheksdienstes, Schuljahr 2026/27</caption>
        <thead>
          <tr><th>Angebot</th><th>Für</th><th>Dauer</th><th>Wo</th><th>Gruppengröße</th><th>Kosten</th></tr>
        </thead>
        <tbody>
{rows}
        </tbody>
      </table>

      <div class="tipp">
        <strong>Tipp:</strong> Klassen mit mehr als 28 Kindern teilen wir für die Bibliotheksrallye in zwei Gruppen;
        die zweite Gruppe macht in der Zeit eine Vorlesestunde in der Leselounge. Dafür brauchen wir eine zweite
        Begleitperson der Schule.
      </div>

      <h2 id="buchen">So wird gebucht</h2>
      <ol>
        <li>Die Lehrkraft oder Kita füllt das Formular „Buchungsanfrage Kita/Schule“ aus oder ruft montags von
        13:00 bis 15:00 Uhr bei Leonie Brandstätter an.</li>
        <li>Anfragen müssen mindestens drei Wochen vor dem Wunschtermin bei uns sein; für Klassenlesungen mindestens
        acht Wochen, weil wir die Autorinnen und Autoren buchen müssen.</li>
        <li>Der Schulbibliotheksdienst bestätigt den Termin per E-Mail und trägt ihn in den Raumkalender ein.</li>
        <li>Am Termin meldet sich die Gruppe an der Infotheke; Jacken und Taschen bleiben in der Garderobe im
        Untergeschoss.</li>
      </ol>

      <h2 id="ausweise">Lehrkräfte- und Klassenausweise</h2>
      <p>Lehrkräfte bekommen gegen eine Bescheinigung der Schule einen kostenfreien <strong>Lehrkräfteausweis</strong>:
      bis zu 60 Medien, Leihfrist 6 Wochen (DVDs und Konsolenspiele wie üblich 1 Woche). Kitas erhalten einen
      Einrichtungsausweis zu denselben Bedingungen.</p>
      <p>Zusätzlich kann jede Klasse einen <strong>Klassenausweis</strong> bekommen. Damit leihen die Schülerinnen und
      Schüler gemeinsam bis zu 30 Medien; verantwortlich ist die Lehrkraft, die den Ausweis beantragt hat.</p>

      <h2 id="absagen">Absagen und Ausfälle</h2>
      <p>Schulen sagen bitte spätestens zwei Werktage vorher ab. Kommt eine Klasse zweimal ohne Absage nicht, bucht
      der Schulbibliotheksdienst für den Rest des Schuljahres nur noch nach Rücksprache mit der Schulleitung.
      Fällt bei uns ein Termin aus (Krankheit), ruft das Team die Schule bis 7:45 Uhr an.</p>
    </main>

    <aside class="seitenleiste" aria-label="Seitenleiste">
      <h2>Ansprechpersonen</h2>
      <ul>
        <li>Leonie Brandstätter – Schulbibliotheksdienst, -40</li>
        <li>Sabine Okonkwo – Kita-Angebote Birkenweiler, -50</li>
        <li>Jens Harmsen – Medienkisten per Bücherbus, -60</li>
      </ul>
      <h2>Termine</h2>
      <ul>
        <li>Falki-Lesesommer 2027: 28.06. bis 20.08.2027</li>
        <li>Lehrkräfte-Infonachmittag: 15.09.2027, 16:00 Uhr, Leselounge</li>
      </ul>
      <h2>Downloads</h2>
      <ul>
        <li><a href="/intranet/formulare/buchungsanfrage-kita-schule.pdf">Buchungsanfrage Kita/Schule (PDF)</a></li>
        <li><a href="/intranet/formulare/lehrkraefteausweis.pdf">Antrag Lehrkräfteausweis (PDF)</a></li>
        <li><a href="/intranet/formulare/medienkisten-liste.pdf">Liste der Medienkisten (PDF)</a></li>
      </ul>
    </aside>
  </div>

  <footer class="fuss">
    <p>{STABI} · Intranet · Seite gepflegt von Leonie Brandstätter · zuletzt geändert am 11.01.2027</p>
    <p><a href="/intranet/impressum/">Impressum</a> · <a href="/intranet/datenschutz/">Datenschutz</a> ·
    <a href="/intranet/barrierefreiheit/">Barrierefreiheit</a></p>
  </footer>
</body>
</html>
"""


# --------------------------------------------------------------------------------------------------------------
def fixed_zip_times(path: Path) -> None:
    """Rewrite an Office file (a ZIP package) with fixed entry times and a fixed modification date, so that a
    rebuild gives the same bytes."""
    with zipfile.ZipFile(path) as source:
        entries = [(info, source.read(info.filename)) for info in source.infolist()]
    with zipfile.ZipFile(path, "w") as target:
        for info, data in entries:
            if info.filename == "docProps/core.xml":  # stamped with the time of saving
                data = re.sub(rb"(<dcterms:modified[^>]*>)[^<]*", rb"\g<1>2027-01-15T09:00:00Z", data)
                data = re.sub(rb"(<dcterms:created[^>]*>)[^<]*", rb"\g<1>2027-01-15T09:00:00Z", data)
            fixed = zipfile.ZipInfo(info.filename, date_time=FIXED.timetuple()[:6])
            fixed.compress_type = zipfile.ZIP_DEFLATED
            fixed.external_attr = info.external_attr
            target.writestr(fixed, data)


def main() -> None:
    DOCS.mkdir(exist_ok=True)
    regulation_docx(DOCS / "benutzungsordnung-2027.docx")
    fixed_zip_times(DOCS / "benutzungsordnung-2027.docx")
    events_sheet(DOCS / "veranstaltungen-raeume-2027.xlsx")
    fixed_zip_times(DOCS / "veranstaltungen-raeume-2027.xlsx")
    locations(DOCS / "standorte.json")
    rules_xml(DOCS / "ausleihregeln-katalogix.xml")
    report_pdf(DOCS / "jahresbericht-2026.pdf")
    (DOCS / "wiki-theke-selbstverbuchung.md").write_text(WIKI_PAGE, encoding="utf-8")
    (DOCS / "fahrplan-buecherbus-2027.txt").write_bytes(timetable_text().encode("latin-1"))
    (DOCS / "schulen-kitas-angebote.html").write_text(school_page(), encoding="utf-8")


if __name__ == "__main__":
    main()
