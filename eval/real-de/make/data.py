"""Tabular documents of Nordlicht Logistik: staff list (CSV), product catalogue (JSON, English fields
and values), configuration reference (XML), shipment status code list (XML), price list (XLSX)."""
import csv
import json
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

STAFF = [  # Name, Abteilung, Funktion, Standort, Durchwahl, E-Mail, Eintritt
    ("Dr. Katrin Albers", "Geschäftsführung", "Geschäftsführerin", "Bremen", "1000", "k.albers", "01.02.2005"),
    ("Thomas Becker", "Geschäftsführung", "Assistenz der Geschäftsführung", "Bremen", "1001", "t.becker", "15.08.2012"),
    ("Sabine Krüger", "Buchhaltung", "Leiterin Buchhaltung", "Bremen", "2100", "s.krueger", "01.04.2008"),
    ("Mehmet Yilmaz", "Buchhaltung", "Sachbearbeiter Kreditoren", "Bremen", "2104", "m.yilmaz", "01.09.2017"),
    ("Anna Wolff", "Buchhaltung", "Sachbearbeiterin Reisekosten", "Bremen", "2107", "a.wolff", "15.01.2020"),
    ("Laura Schneider", "Personal", "Leiterin Personalentwicklung", "Bremen", "2200", "l.schneider", "01.03.2014"),
    ("Felix Hartmann", "Personal", "Personalreferent", "Bremen", "2203", "f.hartmann", "01.07.2019"),
    ("Jana Kowalski", "Personal", "Lohnbuchhaltung", "Bremen", "2205", "j.kowalski", "01.10.2021"),
    ("Stefan Vogel", "IT", "Leiter IT", "Bremen", "4700", "s.vogel", "01.06.2010"),
    ("Nina Brandt", "IT", "Helpdesk", "Bremen", "4711", "n.brandt", "01.02.2022"),
    ("Oliver Graf", "IT", "Systemadministrator", "Bremen", "4712", "o.graf", "15.05.2016"),
    ("Paul Zimmermann", "IT", "Informationssicherheitsbeauftragter", "Bremen", "4720", "p.zimmermann", "01.11.2018"),
    ("Marco Lindner", "Arbeitssicherheit", "Fachkraft für Arbeitssicherheit", "Bremen", "2900", "m.lindner", "01.01.2011"),
    ("Jonas Petersen", "Betriebsrat", "Vorsitzender des Betriebsrats", "Bremen", "1400", "j.petersen", "01.08.2003"),
    ("Aylin Demir", "Betriebsrat", "Stellvertretende Vorsitzende", "Hamburg", "1401", "a.demir", "01.04.2015"),
    ("Kerstin Meyer", "Lager Bremen", "Lagerleiterin", "Bremen", "3100", "k.meyer", "01.05.2006"),
    ("Dennis Schulz", "Lager Bremen", "Schichtleiter Frühschicht", "Bremen", "3110", "d.schulz", "01.03.2013"),
    ("Piotr Nowak", "Lager Bremen", "Schichtleiter Spätschicht", "Bremen", "3111", "p.nowak", "01.09.2016"),
    ("Ralf Fischer", "Fuhrpark", "Fuhrparkleiter", "Bremen", "3300", "r.fischer", "01.01.2002"),
    ("Svenja Koch", "Fuhrpark", "Disponentin", "Bremen", "3305", "s.koch", "15.02.2019"),
    ("Hannes Jansen", "Niederlassung Hamburg", "Niederlassungsleiter", "Hamburg", "5000", "h.jansen", "01.03.2015"),
    ("Merle Richter", "Niederlassung Hamburg", "Disponentin", "Hamburg", "5010", "m.richter", "01.06.2015"),
    ("Ole Hansen", "Niederlassung Hamburg", "Lagerleiter", "Hamburg", "5100", "o.hansen", "01.10.2015"),
    ("Franziska Huber", "Niederlassung München", "Niederlassungsleiterin", "München", "6000", "f.huber", "01.07.2021"),
    ("Andreas Maier", "Niederlassung München", "Lagerleiter", "München", "6100", "a.maier", "01.09.2021"),
    ("Sophie Wagner", "Vertrieb", "Leiterin Vertrieb", "Bremen", "2500", "s.wagner", "01.04.2012"),
    ("Lukas Neumann", "Vertrieb", "Key Account Manager Süd", "München", "6500", "l.neumann", "01.01.2022"),
    ("Carina Schmitt", "Vertrieb", "Key Account Manager Nord", "Hamburg", "5500", "c.schmitt", "01.02.2018"),
    ("Timo Krause", "Kundenservice", "Teamleiter Kundenservice", "Bremen", "2600", "t.krause", "01.08.2014"),
    ("Elena Popescu", "Kundenservice", "Kundenberaterin", "Bremen", "2603", "e.popescu", "01.03.2023"),
    ("Bernd Lehmann", "Einkauf", "Leiter Einkauf", "Bremen", "2700", "b.lehmann", "01.10.2009"),
    ("Greta Möller", "Qualitätsmanagement", "Qualitätsmanagementbeauftragte", "Bremen", "2800", "g.moeller", "01.05.2017"),
    ("Yusuf Arslan", "Haustechnik", "Hausmeister", "Bremen", "2950", "y.arslan", "01.04.2010"),
    ("Ines Bauer", "Kantine", "Küchenleiterin", "Bremen", "2980", "i.bauer", "01.09.2011"),
]

PRODUCTS = [  # English field names and values on purpose: German questions must cross languages
    {"sku": "NL-1001", "name": "Pallet scale PW-2000", "category": "scales", "price_eur": 1249.00,
     "warehouse": {"city": "Munich", "shelf": "A-12"}, "color": "blue", "weight_kg": 48.0, "in_stock": True,
     "supplier": "Waagenbau Emden", "warranty_years": 3},
    {"sku": "NL-1002", "name": "Platform scale PS-300", "category": "scales", "price_eur": 389.00,
     "warehouse": {"city": "Bremen", "shelf": "A-14"}, "color": "grey", "weight_kg": 12.5, "in_stock": True,
     "supplier": "Waagenbau Emden", "warranty_years": 2},
    {"sku": "NL-2001", "name": "Hand pallet truck HT-25", "category": "pallet trucks", "price_eur": 459.00,
     "warehouse": {"city": "Hamburg", "shelf": "C-03"}, "color": "yellow", "weight_kg": 72.0, "in_stock": True,
     "load_capacity_kg": 2500, "supplier": "Hebetechnik Nord", "warranty_years": 2},
    {"sku": "NL-2002", "name": "Electric pallet truck EPT-15", "category": "pallet trucks", "price_eur": 3890.00,
     "warehouse": {"city": "Munich", "shelf": "C-07"}, "color": "orange", "weight_kg": 165.0, "in_stock": False,
     "load_capacity_kg": 1500, "battery": "lithium-ion 24 V", "supplier": "Hebetechnik Nord", "warranty_years": 2},
    {"sku": "NL-3001", "name": "Stretch film 500 mm", "category": "packaging", "price_eur": 14.90,
     "unit": "roll", "warehouse": {"city": "Bremen", "shelf": "F-01"}, "color": "transparent", "weight_kg": 2.4,
     "in_stock": True, "supplier": "Folienwerk Lingen"},
    {"sku": "NL-3002", "name": "Corrugated box 600 x 400 x 400", "category": "packaging", "price_eur": 1.85,
     "unit": "piece", "warehouse": {"city": "Bremen", "shelf": "F-04"}, "color": "brown", "weight_kg": 0.9,
     "in_stock": True, "supplier": "Kartonagen Vechta"},
    {"sku": "NL-3003", "name": "Edge protector 50 mm", "category": "packaging", "price_eur": 0.45,
     "unit": "piece", "warehouse": {"city": "Hamburg", "shelf": "F-09"}, "color": "green", "weight_kg": 0.1,
     "in_stock": True, "supplier": "Kartonagen Vechta"},
    {"sku": "NL-4001", "name": "Barcode scanner BS-80 wireless", "category": "scanners", "price_eur": 279.00,
     "warehouse": {"city": "Munich", "shelf": "B-02"}, "color": "black", "weight_kg": 0.3, "in_stock": True,
     "battery_hours": 14, "supplier": "Datalink Systems", "warranty_years": 3},
    {"sku": "NL-4002", "name": "Mobile label printer LP-4", "category": "printers", "price_eur": 649.00,
     "warehouse": {"city": "Hamburg", "shelf": "B-05"}, "color": "white", "weight_kg": 0.8, "in_stock": False,
     "supplier": "Datalink Systems", "warranty_years": 2},
    {"sku": "NL-5001", "name": "Safety shoes S3 Nordic", "category": "safety equipment", "price_eur": 89.00,
     "sizes": "36-48", "warehouse": {"city": "Bremen", "shelf": "S-01"}, "color": "black", "weight_kg": 1.4,
     "in_stock": True, "supplier": "Arbeitsschutz Oldenburg"},
    {"sku": "NL-5002", "name": "High-visibility vest", "category": "safety equipment", "price_eur": 6.50,
     "warehouse": {"city": "Cologne", "shelf": "S-03"}, "color": "neon yellow", "weight_kg": 0.15, "in_stock": True,
     "supplier": "Arbeitsschutz Oldenburg"},
    {"sku": "NL-5003", "name": "First aid kit DIN 13157", "category": "safety equipment", "price_eur": 39.00,
     "warehouse": {"city": "Cologne", "shelf": "S-06"}, "color": "red", "weight_kg": 1.1, "in_stock": True,
     "supplier": "Arbeitsschutz Oldenburg"},
    {"sku": "NL-6001", "name": "Heavy-duty shelf HS-200", "category": "shelving", "price_eur": 529.00,
     "warehouse": {"city": "Nuremberg", "shelf": "R-01"}, "color": "grey", "weight_kg": 96.0, "in_stock": True,
     "load_capacity_kg": 600, "supplier": "Regalbau Minden", "warranty_years": 5},
    {"sku": "NL-6002", "name": "Cantilever rack KR-3", "category": "shelving", "price_eur": 1790.00,
     "warehouse": {"city": "Nuremberg", "shelf": "R-04"}, "color": "blue", "weight_kg": 310.0, "in_stock": False,
     "supplier": "Regalbau Minden", "warranty_years": 5},
    {"sku": "NL-7001", "name": "Transport trolley TW-150", "category": "trolleys", "price_eur": 219.00,
     "warehouse": {"city": "Vienna", "shelf": "T-02"}, "color": "green", "weight_kg": 19.0, "in_stock": True,
     "load_capacity_kg": 150, "supplier": "Hebetechnik Nord", "warranty_years": 2},
]

SETTINGS = [  # section, name, type, default, description (German)
    ("server", "port", "integer", "8443", "TCP-Port, auf dem der Zeitwerk-Server HTTPS-Anfragen annimmt."),
    ("server", "bind_address", "string", "0.0.0.0", "Adresse, an die der Server gebunden wird; 127.0.0.1 "
     "beschränkt den Zugriff auf den lokalen Rechner."),
    ("server", "session_timeout", "duration", "30m", "Nach dieser Zeit ohne Aktivität wird die Sitzung "
     "beendet und der Benutzer muss sich neu anmelden."),
    ("server", "max_upload_size", "size", "20MB", "Größte erlaubte Datei beim Hochladen von Belegen."),
    ("database", "url", "string", "postgresql://zeitwerk@localhost/zeitwerk", "Verbindungsadresse der Datenbank."),
    ("database", "pool_size", "integer", "10", "Anzahl gleichzeitig offener Datenbankverbindungen."),
    ("database", "backup_time", "time", "02:30", "Uhrzeit der täglichen Datensicherung."),
    ("database", "backup_retention_days", "integer", "35", "Wie viele Tage Sicherungen aufbewahrt werden."),
    ("terminal", "rounding_minutes", "integer", "5", "Buchungen am Terminal werden auf diese Minutenzahl "
     "gerundet; 0 schaltet die Rundung ab."),
    ("terminal", "offline_buffer", "integer", "5000", "Wie viele Buchungen ein Terminal ohne Netzverbindung "
     "zwischenspeichert."),
    ("rules", "core_time_start", "time", "09:30", "Beginn der Kernarbeitszeit."),
    ("rules", "core_time_end", "time", "15:00", "Ende der Kernarbeitszeit (freitags gilt core_time_end_friday)."),
    ("rules", "core_time_end_friday", "time", "13:00", "Ende der Kernarbeitszeit am Freitag."),
    ("rules", "max_plus_hours", "integer", "40", "Obergrenze des Gleitzeitkontos in Stunden."),
    ("rules", "max_minus_hours", "integer", "20", "Untergrenze des Gleitzeitkontos in Stunden (als positive Zahl)."),
    ("rules", "auto_break", "boolean", "true", "Zieht die gesetzliche Pause automatisch ab, wenn keine "
     "gebucht wurde."),
    ("mail", "smtp_host", "string", "mail.nordlicht-logistik.example", "Mailserver für Benachrichtigungen."),
    ("mail", "smtp_port", "integer", "587", "Port des Mailservers (STARTTLS)."),
    ("mail", "reminder_day", "string", "monday", "Wochentag, an dem fehlende Buchungen per E-Mail "
     "erinnert werden."),
    ("security", "password_min_length", "integer", "14", "Mindestlänge eines Passworts."),
    ("security", "lockout_attempts", "integer", "5", "Nach so vielen Fehlversuchen wird das Konto für "
     "lockout_minutes gesperrt."),
    ("security", "lockout_minutes", "integer", "15", "Dauer der Kontosperre nach zu vielen Fehlversuchen."),
    ("security", "two_factor", "string", "required", "Zweiter Faktor: required, optional oder off."),
    ("logging", "level", "string", "info", "Protokollstufe: debug, info, warning oder error."),
    ("logging", "file", "path", "/var/log/zeitwerk/zeitwerk.log", "Datei, in die das Protokoll geschrieben wird."),
]

STATUS_CODES = [  # code, short name, description, customer notified
    ("A10", "Auftrag angelegt", "Der Versandauftrag wurde erfasst, die Sendung ist noch nicht abgeholt.", "nein"),
    ("A20", "Abgeholt", "Die Sendung wurde beim Versender abgeholt.", "ja"),
    ("L10", "Im Lager eingegangen", "Die Sendung ist im Umschlaglager eingegangen und gescannt.", "nein"),
    ("L20", "Kommissioniert", "Die Ware wurde für den Versand zusammengestellt.", "nein"),
    ("L30", "Verladen", "Die Sendung wurde auf das Zustellfahrzeug verladen.", "nein"),
    ("T10", "Unterwegs", "Die Sendung ist auf dem Weg zum Zielgebiet.", "ja"),
    ("T20", "Verzögert wegen Wetter", "Unwetter oder Straßensperrung verzögern die Zustellung.", "ja"),
    ("T30", "Verzögert wegen Streik", "Ein Streik bei Fähre, Bahn oder Hafen verzögert den Transport.", "ja"),
    ("Z10", "In Zustellung", "Die Sendung ist auf der letzten Tour zum Empfänger.", "ja"),
    ("Z20", "Zugestellt", "Der Empfänger hat die Sendung angenommen und quittiert.", "ja"),
    ("Z30", "Beim Nachbarn abgegeben", "Die Sendung wurde bei einem Nachbarn des Empfängers abgegeben.", "ja"),
    ("Z40", "Empfänger nicht angetroffen", "Zustellung fehlgeschlagen; ein zweiter Versuch folgt am nächsten "
     "Werktag.", "ja"),
    ("Z50", "Annahme verweigert", "Der Empfänger hat die Annahme verweigert; die Sendung geht zurück.", "ja"),
    ("R10", "Rücksendung eingeleitet", "Die Sendung geht an den Versender zurück.", "ja"),
    ("R20", "Rücksendung zugestellt", "Die Rücksendung wurde dem Versender zugestellt.", "ja"),
    ("S10", "Beschädigt", "Die Sendung wurde beschädigt; der Schadensfall wird vom Kundenservice bearbeitet.", "ja"),
    ("S20", "Verloren", "Die Sendung ist nach 10 Werktagen ohne Scan als verloren gemeldet.", "ja"),
    ("X99", "Storniert", "Der Auftrag wurde vor der Abholung storniert.", "nein"),
]

PRICES = [  # Artikelnummer, Leistung, Einheit, Preis netto EUR, gültig ab
    ("P-100", "Paket bis 5 kg, Inland", "Stück", 6.90, "01.01.2024"),
    ("P-110", "Paket bis 10 kg, Inland", "Stück", 9.40, "01.01.2024"),
    ("P-120", "Paket bis 31,5 kg, Inland", "Stück", 15.80, "01.01.2024"),
    ("P-200", "Paket bis 10 kg, EU Zone 1 (AT, NL, BE, DK, LU)", "Stück", 17.50, "01.01.2024"),
    ("P-210", "Paket bis 10 kg, EU Zone 2 (übrige EU)", "Stück", 24.90, "01.01.2024"),
    ("S-100", "Stückgut bis 100 kg, Inland", "Sendung", 62.00, "01.01.2024"),
    ("S-200", "Europalette bis 300 kg, Inland", "Palette", 98.00, "01.01.2024"),
    ("S-210", "Europalette bis 800 kg, Inland", "Palette", 139.00, "01.01.2024"),
    ("S-220", "Europalette bis 1.200 kg, Inland", "Palette", 168.00, "01.01.2024"),
    ("S-300", "Gitterbox bis 1.000 kg, Inland", "Box", 154.00, "01.04.2024"),
    ("L-100", "Lagerung je Palettenstellplatz", "Monat", 9.80, "01.01.2024"),
    ("L-110", "Lagerung Fachboden", "Monat", 4.20, "01.01.2024"),
    ("L-200", "Kommissionierung je Position", "Position", 0.65, "01.01.2024"),
    ("L-210", "Etikettieren je Karton", "Karton", 0.35, "01.01.2024"),
    ("L-300", "Inventur auf Kundenwunsch", "Stunde", 48.00, "01.01.2024"),
    ("T-100", "Expresszustellung bis 12 Uhr, Inland", "Sendung", 29.00, "01.01.2024"),
    ("T-110", "Terminzustellung mit Zeitfenster", "Sendung", 19.50, "01.01.2024"),
    ("T-200", "Hebebühne bei Zustellung", "Sendung", 35.00, "01.01.2024"),
]
SURCHARGES = [  # Zuschlag, Betrag, Bedingung
    ("Dieselzuschlag", "8,5 %", "auf alle Transportpreise, monatlich angepasst"),
    ("Mautzuschlag", "4,2 %", "auf Stückgut und Paletten"),
    ("Inselzuschlag", "22,00 EUR", "Zustellung auf deutsche Nordseeinseln"),
    ("Sperrgutzuschlag", "18,00 EUR", "Pakete mit einer Seite über 120 cm"),
    ("Samstagszustellung", "15,00 EUR", "je Sendung"),
    ("Nachnahme", "7,50 EUR", "je Sendung"),
]


def write_staff(docs: Path) -> None:
    with (docs / "nordlicht-mitarbeiter.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter=";")
        writer.writerow(["Name", "Abteilung", "Funktion", "Standort", "Durchwahl", "E-Mail", "Eintritt"])
        for name, dept, role, site, ext, mail, start in STAFF:
            writer.writerow([name, dept, role, site, ext, f"{mail}@nordlicht-logistik.example", start])


def write_products(docs: Path) -> None:
    catalogue = {"catalogue": "Nordlicht warehouse equipment", "currency": "EUR", "updated": "2024-05-02",
                 "products": PRODUCTS}
    (docs / "nordlicht-produktkatalog.json").write_text(json.dumps(catalogue, indent=2, ensure_ascii=False) + "\n",
                                                        encoding="utf-8")


def write_settings(docs: Path) -> None:
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<!-- Konfigurationsreferenz des Zeitwerk-Servers, Version 3.2 -->',
             '<configuration product="Zeitwerk" version="3.2" file="/etc/zeitwerk/zeitwerk.xml">']
    section = None
    for name_section, name, kind, default, description in SETTINGS:
        if name_section != section:
            if section is not None:
                lines.append("  </section>")
            lines.append(f"  <section name={quoteattr(name_section)}>")
            section = name_section
        lines += [f"    <setting name={quoteattr(name)} type={quoteattr(kind)}>",
                  f"      <default>{escape(default)}</default>",
                  f"      <description>{escape(description)}</description>", "    </setting>"]
    lines += ["  </section>", "</configuration>"]
    (docs / "zeitwerk-konfiguration.xml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_codes(docs: Path) -> None:
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<codeliste name="Sendungsstatus" herausgeber="Nordlicht Logistik GmbH" version="2024-01" '
             'gueltigAb="2024-01-01">']
    for code, short, text, notify in STATUS_CODES:
        lines += [f"  <code wert={quoteattr(code)}>", f"    <kurzname>{escape(short)}</kurzname>",
                  f"    <beschreibung>{escape(text)}</beschreibung>",
                  f"    <kundeBenachrichtigt>{notify}</kundeBenachrichtigt>", "  </code>"]
    lines.append("</codeliste>")
    (docs / "sendungsstatus-codeliste.xml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_prices(docs: Path) -> None:
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.title = "Preisliste 2024"
    sheet.append(["Artikelnummer", "Leistung", "Einheit", "Preis netto (EUR)", "gültig ab"])
    for row in PRICES:
        sheet.append(list(row))
    extra = book.create_sheet("Zuschläge")
    extra.append(["Zuschlag", "Betrag", "Bedingung"])
    for row in SURCHARGES:
        extra.append(list(row))
    book.properties.creator = "Nordlicht Logistik GmbH"
    book.save(docs / "nordlicht-preisliste-2024.xlsx")


def write_all(docs: Path) -> None:
    write_staff(docs)
    write_products(docs)
    write_settings(docs)
    write_codes(docs)
    write_prices(docs)
