"""Reference card: package management and services on Debian (two columns, groff ms)."""

TITLE = "Kurzreferenz Paketverwaltung und Dienste unter Debian"
SUBTITLE = "Nordlicht Logistik GmbH, IT-Betrieb, Stand Mai 2024"

BLOCKS = [
    ("Paketlisten und Aktualisierung", [
        ("apt update", "Paketlisten von den Quellen neu einlesen"),
        ("apt upgrade", "installierte Pakete aktualisieren, ohne Pakete zu entfernen"),
        ("apt full-upgrade", "aktualisieren und dabei nötigenfalls Pakete entfernen"),
        ("apt list --upgradable", "Pakete zeigen, für die es eine neue Version gibt"),
    ]),
    ("Installieren und Entfernen", [
        ("apt install PAKET", "Paket mit Abhängigkeiten installieren"),
        ("apt remove PAKET", "Paket entfernen, Konfigurationsdateien bleiben"),
        ("apt purge PAKET", "Paket samt Konfigurationsdateien entfernen"),
        ("apt autoremove", "nicht mehr benötigte Abhängigkeiten entfernen"),
        ("dpkg -i DATEI.deb", "eine heruntergeladene .deb-Datei installieren"),
    ]),
    ("Suchen und Auskunft", [
        ("apt search BEGRIFF", "Pakete nach Name und Beschreibung suchen"),
        ("apt show PAKET", "Beschreibung, Version und Abhängigkeiten anzeigen"),
        ("apt-cache policy PAKET", "installierte und verfügbare Versionen mit Priorität"),
        ("dpkg -l", "alle installierten Pakete auflisten"),
        ("dpkg -L PAKET", "die Dateien eines installierten Pakets auflisten"),
        ("dpkg -S /pfad/datei", "herausfinden, zu welchem Paket eine Datei gehört"),
    ]),
    ("Versionen festhalten", [
        ("apt-mark hold PAKET", "Paket von Aktualisierungen ausnehmen"),
        ("apt-mark unhold PAKET", "Sperre wieder aufheben"),
        ("apt-mark showhold", "gesperrte Pakete anzeigen"),
    ]),
    ("Dienste mit systemd", [
        ("systemctl status DIENST", "Zustand und letzte Protokollzeilen eines Dienstes"),
        ("systemctl restart DIENST", "Dienst neu starten"),
        ("systemctl enable --now DIENST", "Dienst beim Booten starten und sofort starten"),
        ("systemctl list-units --failed", "fehlgeschlagene Units auflisten"),
        ("journalctl -u DIENST", "Protokoll eines Dienstes anzeigen"),
        ("journalctl -b -p err", "Fehlermeldungen seit dem letzten Start"),
        ("journalctl -f", "Protokoll fortlaufend verfolgen"),
    ]),
    ("Speicher und Prozesse", [
        ("free -h", "freien und belegten Arbeitsspeicher lesbar anzeigen"),
        ("df -h", "belegten Platz der Dateisysteme anzeigen"),
        ("du -sh VERZEICHNIS", "Größe eines Verzeichnisses"),
        ("kill -l", "die Namen aller Signale auflisten"),
        ("crontab -e", "die eigene Crontab bearbeiten"),
    ]),
]

NOTES = [
    "Wartungsfenster für Server-Aktualisierungen ist dienstags von 22:00 Uhr bis 23:30 Uhr.",
    "Vor einem full-upgrade auf Produktivservern wird immer ein Snapshot angelegt.",
    "Fragen an den IT-Betrieb: Durchwahl 4711, Bereitschaft 0421 555 4799.",
]
