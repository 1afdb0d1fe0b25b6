"""Content of it-richtlinie.pdf: the IT policy of a fictitious tax office (CC-BY-SA 4.0)."""

TITLE = "IT-Richtlinie der Hansa Steuerberatung Partnerschaft mbB"
VERSION = "Version 3.2, gültig ab 1. Juli 2025"
HEADER = "Hansa Steuerberatung – IT-Richtlinie"

SECTIONS = [
    ("1", "Geltungsbereich", [
        "Diese Richtlinie gilt für alle Beschäftigten, Auszubildenden und Praktikanten der Hansa "
        "Steuerberatung an den Standorten Lübeck und Kiel. Sie gilt für alle Geräte der Kanzlei und für "
        "private Geräte, mit denen auf Mandantendaten zugegriffen wird.",
        "Verantwortlich für die Richtlinie ist der IT-Beauftragte Tobias Reimers. Verstöße können "
        "arbeitsrechtliche Folgen haben.",
    ]),
    ("2", "Passwörter", [
        "Ein Passwort muss mindestens 14 Zeichen lang sein und darf keinen Namen, kein Geburtsdatum und "
        "keinen Begriff aus dem Wörterbuch enthalten.",
        "Passwörter werden nicht mehr regelmäßig gewechselt. Ein Passwort ist sofort zu ändern, wenn der "
        "Verdacht besteht, dass es anderen bekannt geworden ist.",
        "Für die Anmeldung an DATEV und am VPN ist die Zwei-Faktor-Anmeldung mit dem DATEV SmartLogin oder "
        "einem Hardware-Token Pflicht.",
        "Passwörter werden ausschließlich im Passwortmanager KeePassXC gespeichert. Die Datenbank liegt "
        "auf dem Laufwerk H: und wird täglich gesichert.",
    ]),
    ("3", "Bildschirmsperre und Arbeitsplatz", [
        "Wer den Arbeitsplatz verlässt, sperrt den Bildschirm mit der Tastenkombination Windows-Taste + L. "
        "Nach 5 Minuten ohne Eingabe sperrt sich der Rechner automatisch.",
        "Mandantenunterlagen auf Papier werden nach Dienstschluss im Schrank verschlossen (Clean Desk).",
    ]),
    ("4", "E-Mail und Phishing", [
        "E-Mails mit Mandantendaten an externe Empfänger werden nur verschlüsselt versendet, über das "
        "DATEV-Postfach oder als passwortgeschütztes PDF. Das Passwort wird auf einem anderen Weg "
        "mitgeteilt, zum Beispiel telefonisch.",
        "Verdächtige E-Mails werden nicht geöffnet, sondern mit der Schaltfläche „Phishing melden“ in "
        "Outlook an die IT weitergeleitet.",
        "Anhänge mit den Endungen .exe, .js, .vbs und .iso werden vom Mailserver automatisch entfernt.",
    ]),
    ("5", "Homeoffice und VPN", [
        "Im Homeoffice wird ausschließlich mit dem Kanzlei-Notebook gearbeitet. Der Zugriff auf das "
        "Kanzleinetz erfolgt nur über das VPN (WireGuard).",
        "Die VPN-Verbindung trennt sich nach 10 Stunden automatisch und muss dann neu aufgebaut werden.",
        "Das Arbeiten in öffentlichen WLANs ist nur mit aktivem VPN erlaubt. Ausdrucke von "
        "Mandantendaten im Homeoffice sind nicht gestattet.",
    ]),
    ("6", "Datensicherung", [
        "Die Server werden jede Nacht um 23:00 Uhr vollständig gesichert. Die Sicherungen werden 90 Tage "
        "aufbewahrt, die Monatssicherungen zehn Jahre.",
        "Eine Kopie der Sicherung wird wöchentlich außer Haus im Bankschließfach in Lübeck gelagert.",
        "Dateien dürfen nur auf den Netzlaufwerken gespeichert werden, nicht auf dem Desktop; nur die "
        "Netzlaufwerke werden gesichert.",
    ]),
    ("7", "Software und Geräte", [
        "Software darf nur von der IT installiert werden. Anträge auf neue Software stellen Sie über das "
        "Ticketsystem unter helpdesk.hansa-stb.example.",
        "USB-Sticks sind gesperrt. Für den Datenaustausch mit Mandanten wird die DATEV-Dokumentenablage "
        "oder der Austauschordner in der Cloud verwendet.",
        "Dienstliche Smartphones werden mit Microsoft Intune verwaltet. Ein Verlust ist innerhalb von "
        "zwei Stunden zu melden, damit das Gerät gelöscht werden kann.",
    ]),
    ("8", "Sicherheitsvorfälle", [
        "Ein Sicherheitsvorfall (verlorenes Gerät, Virenfund, versehentlich versandte Daten) wird "
        "sofort der IT-Hotline unter der Durchwahl 444 gemeldet, außerhalb der Bürozeiten unter "
        "0451 998877-0.",
        "Bei einem Verdacht auf Schadsoftware ziehen Sie das Netzwerkkabel und schalten das WLAN ab, "
        "lassen den Rechner aber eingeschaltet.",
        "Datenschutzverletzungen werden von der Datenschutzbeauftragten Dr. Ilka Sommer innerhalb von "
        "72 Stunden an die Aufsichtsbehörde gemeldet.",
    ]),
]
FOOTER = "Hansa Steuerberatung Partnerschaft mbB · Breite Straße 40 · 23552 Lübeck · Nur für den internen Gebrauch"
