"""What counts as a clean answer: the text a reader sees, and each kind of problem."""
import pytest

from irisrag.evaluation.clean import MAX_CHARS, is_clean, problems, shown_text


@pytest.mark.parametrize("text, kind", [
    ("## 8.1. Das Gebietsschema (Locale)", "markup"),
    ("```\n# dpkg-reconfigure locales\n```", "markup"),
    ("Die Option **-h** skaliert die Felder.", "markup"),
    ("|grub-pc       |V:23, |534  |Unterstützt|GRUB 2    |", "markup"),
    ("+---------------------------------------------------------------+", "markup"),
    ("Siehe [Handbuch](https://example.org/handbuch).", "markup"),
    ('<setting name="port" type="integer"> <default>8443</default>', "tags"),
    ("ÜBERSICHT free [Optionen]", "markup"),
    ("Name;Abteilung;Funktion;Standort;Durchwahl;E-Mail;Eintritt Ines Bauer;Kantine", "table"),
    ("P-100 | Paket bis 5 kg, Inland | Stück | 6.9 | 01.01.2024", "table"),
    ("die Sendung geht zurück. ja <code …", "tags"),
    ('"city": "Munich", "shelf": "A-12"', "json"),
    ('"in_stock": true', "json"),
    ("{", "json"),
    ("3  Urlaub ............................................ 4", "navigation"),
    ("« Zurück: Organigramm | Nach oben | Weiter: Formulare »", "navigation"),
    ("Sie sind hier: Startseite > Intranet > Handbuch", "navigation"),
    ("4.1. Normale Unix-Authentifizierung 4.2. Verwalten von Konten- und Passwortinformationen 4.3. Ein gutes "
     "Passwort 4.4. Verschlüsselte Passwörter erstellen", "navigation"),
    ("Zurück\nKapitel 3. Die Systeminitialisierung", "navigation"),
    ("Mitarbeiterhandbuch der Nordlicht Logistik GmbH Inhalt 1 Über uns …", "navigation"),
])
def test_clean_problems_names_each_kind(text, kind):
    assert kind in problems(text)
    assert not is_clean(text)


@pytest.mark.parametrize("text", [
    "Die Kernarbeitszeit liegt montags bis donnerstags von 9:30 Uhr bis 15:00 Uhr.",
    "Mit dpkg -S /pfad/datei finden Sie heraus, zu welchem Paket eine Datei gehört.",
    "Die Nordlicht Logistik GmbH wurde am 14. April 1998 in Bremen gegründet; 2015 kam Hamburg dazu.",
    "Wir arbeiten weiter an Version 2.1 und 3.4 des Portals.",
    "Das Standardsignal für kill ist TERM.",
    "chage | Alterungsinformationen des Passworts verwalten",
    "Ein Mittagessen kostet 4,20 Euro; Gäste zahlen 7,50 Euro; bezahlt wird mit dem Ausweis.",
    "Der Name steht in der Übersicht; der Inhalt der Datei ist 3 Zeilen lang.",
])
def test_clean_problems_passes_plain_sentences(text):
    assert problems(text) == ()
    assert is_clean(text)


def test_clean_problems_counts_length_in_characters():
    sentence = "Die Kantine ist von 11:30 Uhr bis 14:00 Uhr geöffnet. "
    assert problems((sentence * 20)[:MAX_CHARS]) == ()
    assert problems(sentence * 20) == ("long",)


def test_clean_shown_text_is_what_the_html_shows():
    html = ('<p>Eins &amp; <mark>zwei</mark><br>drei <a href="#cite-1">[1]</a></p><ul><li>a</li><li>b</li></ul>'
            '<pre><code>&lt;default&gt;8443&lt;/default&gt;</code></pre>')
    assert shown_text(html) == "Eins & zwei\ndrei [1]\na\nb\n<default>8443</default>"
    assert "tags" in problems(shown_text(html))
