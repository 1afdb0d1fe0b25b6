"""The Nordlicht Logistik company handbook: one source, rendered as a two-column PDF (groff ms) and as HTML."""

TITLE = "Mitarbeiterhandbuch der Nordlicht Logistik GmbH"
VERSION = "Ausgabe 2024, gültig ab 1. März 2024"

SECTIONS = [
    ("1", "Über uns", [
        "Die Nordlicht Logistik GmbH wurde am 14. April 1998 von Heinrich Albers in Bremen gegründet. "
        "Aus einer Spedition mit drei Lastwagen ist ein Logistikdienstleister mit heute 146 Beschäftigten "
        "geworden. Geschäftsführerin ist seit 2016 Dr. Katrin Albers.",
        "Wichtige Stationen: 2009 zog die Zentrale in den Neubau in der Hafenstraße 12 in Bremen. "
        "2015 eröffnete die Niederlassung Hamburg im Stadtteil Billbrook, 2021 die Niederlassung München "
        "in Garching. Das Lager in Bremen hat 18.000 Quadratmeter Fläche und 22.000 Palettenstellplätze.",
        "Unser Leitbild in einem Satz: Wir liefern pünktlich, wir gehen sorgfältig mit fremdem Eigentum um, "
        "und wir sprechen offen über Fehler.",
    ]),
    ("2", "Arbeitszeit und Zeiterfassung", [
        "Die regelmäßige Arbeitszeit beträgt 38,5 Stunden pro Woche. Es gilt Gleitzeit im Rahmen von 6:30 Uhr "
        "bis 20:00 Uhr. Die Kernarbeitszeit liegt montags bis donnerstags von 9:30 Uhr bis 15:00 Uhr, freitags "
        "von 9:30 Uhr bis 13:00 Uhr. Im Lager und im Fuhrpark gilt stattdessen der Schichtplan.",
        "Die Arbeitszeit wird im Zeiterfassungsportal Zeitwerk erfasst, am Terminal am Eingang oder in der "
        "App. Das Gleitzeitkonto darf höchstens 40 Plusstunden und 20 Minusstunden aufweisen. "
        "Überstunden über 40 Stunden hinaus verfallen, wenn sie nicht bis zum Quartalsende beantragt werden.",
        "Pausen: Nach mehr als sechs Stunden Arbeit sind 30 Minuten Pause zu nehmen, nach mehr als neun "
        "Stunden 45 Minuten. Zeitwerk zieht die Pause automatisch ab, wenn sie nicht gebucht wurde.",
    ]),
    ("3", "Urlaub", [
        "Alle Beschäftigten in Vollzeit haben Anspruch auf 30 Arbeitstage Urlaub im Kalenderjahr; "
        "Auszubildende erhalten ebenfalls 30 Tage. Der 24. Dezember und der 31. Dezember sind zusätzlich "
        "arbeitsfrei.",
        "Urlaub wird in Zeitwerk beantragt, mindestens vier Wochen vor Beginn, wenn er länger als fünf "
        "Arbeitstage dauert. Die Teamleitung entscheidet innerhalb von fünf Arbeitstagen. "
        "Resturlaub kann bis zum 31. März des Folgejahres genommen werden; danach verfällt er.",
        "Im Lager gilt vom 15. November bis 31. Dezember eine Urlaubssperre wegen des Weihnachtsgeschäfts.",
    ]),
    ("4", "Krankheit", [
        "Wer krank ist, informiert die Teamleitung am ersten Tag bis 9:00 Uhr telefonisch oder per E-Mail. "
        "Eine Arbeitsunfähigkeitsbescheinigung ist ab dem dritten Kalendertag nötig; sie wird von der "
        "Krankenkasse elektronisch abgerufen (eAU), Sie müssen sie nicht einreichen.",
        "Bei Krankheit während des Urlaubs werden die Krankheitstage mit ärztlicher Bescheinigung "
        "nicht auf den Urlaub angerechnet.",
    ]),
    ("5", "Mobiles Arbeiten", [
        "Beschäftigte in der Verwaltung dürfen bis zu drei Tage pro Woche mobil arbeiten. Der Antrag "
        "geht über die Teamleitung an die Personalabteilung. Für Homeoffice zahlen wir eine Pauschale von "
        "40 Euro im Monat für Strom und Internet.",
        "Beim mobilen Arbeiten ist die Verbindung über das VPN (WireGuard) Pflicht. Vertrauliche "
        "Unterlagen werden nicht auf privaten Geräten gespeichert und nicht ausgedruckt.",
    ]),
    ("6", "Dienstreisen und Reisekosten", [
        "Dienstreisen genehmigt die Teamleitung vorab in Zeitwerk. Für Bahnfahrten gilt die 2. Klasse; "
        "ab einer Fahrzeit von vier Stunden darf die 1. Klasse gebucht werden. Flüge innerhalb Deutschlands "
        "sind nur mit Zustimmung der Geschäftsführung erlaubt.",
        "Hotelkosten werden bis 120 Euro pro Nacht erstattet, in München und Hamburg bis 150 Euro. "
        "Für Fahrten mit dem eigenen Auto zahlen wir 0,30 Euro pro Kilometer.",
        "Die Reisekostenabrechnung ist innerhalb von sechs Wochen nach der Reise mit allen Belegen "
        "in Zeitwerk einzureichen. Zuständig ist die Buchhaltung, Ansprechpartnerin ist Sabine Krüger.",
    ]),
    ("7", "IT und Informationssicherheit", [
        "Passwörter haben mindestens 14 Zeichen. Für E-Mail, VPN und Zeitwerk ist die Anmeldung mit "
        "zweitem Faktor (Authenticator-App) eingeschaltet. Passwörter werden nicht weitergegeben, auch nicht an "
        "den Helpdesk.",
        "Der IT-Helpdesk ist montags bis freitags von 7:00 Uhr bis 18:00 Uhr unter der Durchwahl 4711 "
        "oder per E-Mail an helpdesk@nordlicht-logistik.example erreichbar.",
        "Verdächtige E-Mails (Phishing) leiten Sie als Anhang an sicherheit@nordlicht-logistik.example weiter "
        "und löschen sie danach. Einen verlorenen Laptop oder ein verlorenes Diensthandy melden Sie "
        "sofort dem Helpdesk, auch nachts: Die Rufbereitschaft erreichen Sie unter 0421 555 4799.",
        "USB-Sticks aus unbekannter Quelle dürfen nicht angeschlossen werden. Software installiert nur die IT.",
    ]),
    ("8", "Arbeitssicherheit und Notfälle", [
        "Im Notfall wählen Sie zuerst 112 und danach die interne Notfallnummer 2222 (Pforte). "
        "Die Pforte weist den Rettungsdienst ein.",
        "Bei Feueralarm verlassen alle das Gebäude über die gekennzeichneten Fluchtwege. Der Sammelplatz "
        "in Bremen ist der Parkplatz Nord an der Hafenstraße. Aufzüge werden nicht benutzt.",
        "Im Lager sind Sicherheitsschuhe der Klasse S3 und eine Warnweste Pflicht. Gabelstapler fahren nur "
        "Beschäftigte mit gültigem Staplerschein. Die jährliche Sicherheitsunterweisung findet im Januar statt.",
        "Ersthelfer sind in jeder Abteilung benannt; die Liste hängt am Schwarzen Brett. Die Fachkraft für "
        "Arbeitssicherheit ist Marco Lindner.",
    ]),
    ("9", "Gehalt und Zusatzleistungen", [
        "Das Gehalt wird am letzten Bankarbeitstag des Monats überwiesen. Das Weihnachtsgeld in Höhe eines "
        "halben Monatsgehalts wird mit dem Novembergehalt ausgezahlt.",
        "Wir bezuschussen das Deutschlandticket als Jobticket mit 25 Euro im Monat. Für Fahrräder gibt es "
        "Dienstrad-Leasing über die Personalabteilung.",
        "Die betriebliche Altersvorsorge wird mit 20 Prozent des umgewandelten Betrags bezuschusst.",
    ]),
    ("10", "Weiterbildung", [
        "Jede und jeder Beschäftigte hat ein Weiterbildungsbudget von 1.500 Euro pro Jahr und fünf "
        "Bildungstage. Anträge gehen an die Personalentwicklung (Laura Schneider).",
        "Sprachkurse in Englisch und Polnisch finden dienstags ab 16:00 Uhr im Schulungsraum 2 statt.",
    ]),
    ("11", "Betriebsrat", [
        "Der Betriebsrat hat neun Mitglieder. Vorsitzender ist Jonas Petersen, seine Stellvertreterin "
        "Aylin Demir. Das Büro des Betriebsrats ist Raum 1.14; Sprechstunde ist mittwochs von 10:00 Uhr bis "
        "12:00 Uhr.",
        "Die Betriebsversammlung findet einmal im Quartal statt; die Teilnahme gilt als Arbeitszeit.",
    ]),
    ("12", "Kantine und Parken", [
        "Die Kantine ist montags bis freitags von 11:30 Uhr bis 14:00 Uhr geöffnet. Ein Mittagessen kostet "
        "für Beschäftigte 4,20 Euro, für Gäste 7,50 Euro. Bezahlt wird mit dem Dienstausweis.",
        "Parkplätze: Der Parkplatz Süd ist für Beschäftigte, der Parkplatz Nord für Besucher und Lieferanten. "
        "Ladesäulen für Elektroautos stehen auf dem Parkplatz Süd; Laden kostet 0,25 Euro pro kWh.",
    ]),
]
