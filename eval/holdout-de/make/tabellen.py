"""Content of fuhrpark-2025.ods, raumbuchungen-maerz-2025.csv and backup-konfiguration.json (CC-BY-SA 4.0)."""

FLEET_HEADER = ("Kennzeichen", "Fahrzeug", "Kraftstoff", "Standort", "Verantwortlich", "Kilometerstand",
                "Nächste HU", "Tankkarte")
FLEET = [
    ("HL-HS 101", "VW Golf Variant", "Diesel", "Lübeck", "Anke Möller", 84210, "03/2026", "DKV 7001"),
    ("HL-HS 102", "VW ID.3", "Elektro", "Lübeck", "Jan Petersen", 31877, "11/2026", "keine"),
    ("HL-HS 103", "Skoda Octavia Combi", "Benzin", "Lübeck", "Sabine Lorenz", 122560, "06/2025", "DKV 7003"),
    ("KI-HS 201", "Opel Vivaro Kastenwagen", "Diesel", "Kiel", "Mehmet Yilmaz", 98044, "09/2025", "DKV 7004"),
    ("KI-HS 202", "Renault Zoe", "Elektro", "Kiel", "Friederike Hansen", 45310, "01/2027", "keine"),
    ("KI-HS 203", "Toyota Corolla Hybrid", "Hybrid", "Kiel", "Lars Jensen", 67905, "04/2026", "DKV 7006"),
    ("HL-HS 104", "Mercedes-Benz Vito", "Diesel", "Lübeck", "Tobias Reimers", 143870, "08/2025", "DKV 7007"),
]
WORKSHOP_HEADER = ("Werkstatt", "Ort", "Telefon", "Zuständig für")
WORKSHOPS = [
    ("Autohaus Trave GmbH", "Lübeck", "0451 300400", "VW, Skoda"),
    ("Förde Kfz-Service", "Kiel", "0431 552211", "Opel, Renault, Toyota"),
    ("Sternpartner Nord", "Lübeck", "0451 780090", "Mercedes-Benz"),
]

ROOM_HEADER = ("Datum", "Beginn", "Ende", "Raum", "Gebucht von", "Anlass", "Teilnehmer", "Ausstattung")
ROOMS = [
    ("03.03.2025", "09:00", "10:30", "Besprechungsraum Holstentor", "Anke Möller", "Jahresgespräch, Mandant Krüger",
     "3", "Bildschirm"),
    ("04.03.2025", "14:00", "16:00", "Schulungsraum Trave", "Tobias Reimers", "Schulung: Phishing erkennen",
     "12", "Beamer, Flipchart, Mikrofon"),
    ("06.03.2025", "10:00", "11:00", "Besprechungsraum Holstentor", "Jan Petersen", "Erstgespräch, Bäckerei Hansen",
     "2", "keine"),
    ("11.03.2025", "08:30", "12:30", "Schulungsraum Trave", "Sabine Lorenz", "Azubi-Workshop \"Buchführung\"",
     "6", "Beamer, Laptops"),
    ("13.03.2025", "15:00", "17:00", "Konferenzraum Kiel", "Friederike Hansen", "Teambesprechung Standort Kiel",
     "9", "Videokonferenz, Whiteboard"),
    ("18.03.2025", "09:30", "11:30", "Besprechungsraum Holstentor", "Dr. Ilka Sommer", "Datenschutz-Audit",
     "4", "Bildschirm, Flipchart"),
    ("20.03.2025", "13:00", "14:00", "Konferenzraum Kiel", "Mehmet Yilmaz", "Übergabe Firmenwagen, Vivaro",
     "2", "keine"),
    ("25.03.2025", "10:00", "15:00", "Schulungsraum Trave", "Lars Jensen", "DATEV-Schulung, Lohn und Gehalt",
     "10", "Beamer, Laptops, Catering"),
    ("27.03.2025", "16:00", "18:00", "Besprechungsraum Holstentor", "Anke Möller", "Partnersitzung",
     "5", "Bildschirm, Getränke"),
]

BACKUP = {
    "version": 3,
    "server": {
        "hostname": "backup01.hansa-stb.example",
        "ip": "10.20.0.15",
        "storage": {"path": "/srv/backup", "filesystem": "zfs", "capacity_tb": 24, "warn_at_percent": 85},
    },
    "jobs": [
        {"name": "datev-datenbank", "source": "sql01:/var/opt/datev", "schedule": "täglich 23:00",
         "type": "full", "retention_days": 90, "encryption": "AES-256", "compression": "zstd"},
        {"name": "netzlaufwerke", "source": "fs01:/daten", "schedule": "täglich 23:30", "type": "incremental",
         "retention_days": 90, "encryption": "AES-256", "compression": "zstd"},
        {"name": "monatssicherung", "source": "backup01:/srv/backup", "schedule": "am 1. des Monats 03:00",
         "type": "full", "retention_days": 3650, "encryption": "AES-256", "offsite": "Bankschließfach Lübeck"},
        {"name": "exchange-postfaecher", "source": "mail01", "schedule": "täglich 01:00", "type": "incremental",
         "retention_days": 30, "encryption": "AES-256", "compression": "lz4"},
    ],
    "notifications": {
        "email": {"to": "it@hansa-stb.example", "on": ["failure", "warning"], "smtp_host": "mail01", "smtp_port": 587},
        "sms": {"to": "+49 451 998877-44", "on": ["failure"]},
    },
    "restore_test": {"interval": "quarterly", "last": "2025-04-14", "responsible": "Tobias Reimers"},
}
