"""Answer units by layout (rag.sentences): manual pages, code blocks with their lead-in, lists, table rows."""
from __future__ import annotations

from irisrag.rag.extractive import candidates, compose, repeated_groups
from irisrag.rag.sentences import (
    UNIT_CODE,
    UNIT_HEADING,
    UNIT_ITEM,
    UNIT_LIST,
    UNIT_SENTENCE,
    UNIT_TABLE,
    is_command_line,
    units,
)
from tests.rag.test_extractive import make_context

MAN_PAGE = ("CHAGE(1) Dienstprogramme für Benutzer CHAGE(1)\n\nNAME\nchage - ändert die Information zum "
            "Passwortverfall\n\nBESCHREIBUNG\nDie Informationen werden durch Auslesen von /proc/meminfo ermit‐\n"
            "telt.\n\nSIEHE AUCH\ncron(8), crontab(1)")


def test_a_manual_pages_section_names_are_headings_not_part_of_the_answer():
    found = units(MAN_PAGE)
    assert [(u.kind, u.text) for u in found if u.kind != UNIT_HEADING] == [
        (UNIT_SENTENCE, "chage - ändert die Information zum Passwortverfall"),
        (UNIT_SENTENCE, "Die Informationen werden durch Auslesen von /proc/meminfo ermittelt."),
        (UNIT_SENTENCE, "cron(8), crontab(1)")]
    assert {u.text for u in found if u.kind == UNIT_HEADING} >= {"NAME", "BESCHREIBUNG", "SIEHE AUCH"}


def test_a_lead_in_keeps_the_command_that_follows_it_without_fences_or_prompt():
    text = "Sie müssen sie also konfigurieren mittels:\n\n```\n# dpkg-reconfigure locales\n```\n\nDanach geht es."
    found = units(text)
    assert [(u.kind, u.text) for u in found] == [
        (UNIT_SENTENCE, "Sie müssen sie also konfigurieren mittels: `dpkg-reconfigure locales`"),
        (UNIT_SENTENCE, "Danach geht es.")]
    [code] = units("```\n$ ls -l\n```")
    assert (code.kind, code.text) == (UNIT_CODE, "`ls -l`")


def test_a_lead_in_keeps_the_bare_command_line_it_announces():
    # holdout6-de faq-02/faq-04: an HTML page's <pre> read as a paragraph of its own ("adduser user group") was a
    # unit apart, and the answer stopped at "… also z.B.:".
    text = ("Fügen Sie ihn zu der Gruppe hinzu, der das Gerät gehört, also z.B.:\n\nadduser user group\n\n"
            "Auf diese Art müssen Sie nichts ändern.\n\nDie Optionen sind:\n\nkeine weiteren\n\nEnde.")
    assert [(u.kind, u.text, u.partial) for u in units(text)] == [
        (UNIT_SENTENCE, "Fügen Sie ihn zu der Gruppe hinzu, der das Gerät gehört, also z.B.: `adduser user group`", False),
        (UNIT_SENTENCE, "Auf diese Art müssen Sie nichts ändern.", False),
        (UNIT_SENTENCE, "Die Optionen sind:", True),
        (UNIT_SENTENCE, "keine weiteren", False),
        (UNIT_SENTENCE, "Ende.", False)]


def test_a_manual_page_example_keeps_its_description_with_its_command():
    text = ("BEISPIELE\n       Wandelt die Sekunden seit Beginn der Unix-Epoche in\n       ein Datum um\n\n"
            "              $ date --date='@2147483647'\n\n       Ende des Beispiels.")
    assert [(u.kind, u.text) for u in units(text) if u.kind != UNIT_HEADING] == [
        (UNIT_SENTENCE, "Wandelt die Sekunden seit Beginn der Unix-Epoche in ein Datum um: `date --date='@2147483647'`"),
        (UNIT_SENTENCE, "Ende des Beispiels.")]
    closed = units("Das ist ein Satz.\n\n$ ls -l\n")
    assert [u.kind for u in closed] == [UNIT_SENTENCE, UNIT_CODE]          # a closed sentence describes nothing


def test_an_option_whose_arguments_end_in_an_ellipsis_stays_with_its_description():
    from irisrag.rag.sentences import split_sentences
    assert split_sentences("-L, --listfiles Paketname …\nListet Dateien auf, die installiert wurden.") == [
        "-L, --listfiles Paketname … Listet Dateien auf, die installiert wurden."]
    assert split_sentences("Und so weiter … Dann kommt mehr.") == ["Und so weiter …", "Dann kommt mehr."]


def test_a_lead_in_and_its_wrapped_list_items_are_one_unit():
    text = ("Dieser Prozess besteht aus zwei Schritten:\n\n1. Auswahl der Locale-Daten, die in die binäre Form\n"
            "kompiliert werden sollen.\n2. Setzen der systemweiten Standardwerte.\n\nDanach geht es.")
    found = units(text)
    assert found[0].kind == UNIT_LIST and found[0].text == (
        "Dieser Prozess besteht aus zwei Schritten:\n\n1. Auswahl der Locale-Daten, die in die binäre Form "
        "kompiliert werden sollen.\n2. Setzen der systemweiten Standardwerte.")
    assert [u.text for u in found[1:]] == ["Danach geht es."]


def test_a_table_is_answered_by_its_row_with_the_header_never_by_raw_bars():
    grid = ("+------+\n| Einstellung | Wert |\n|------+------|\n|Geladene GRUB2-Module |gzio, ext2 |\n"
            "|------+------|\n|Pfad zum Kernel |/boot/vmlinuz |\n|------+------|")
    context = make_context("Andere Dinge stehen hier.", grid, question="Welche GRUB2-Module werden geladen?")
    text = compose(context.question, context, None)
    assert text.startswith("| Einstellung | Wert |\n|---|---|\n| Geladene GRUB2-Module | gzio, ext2 |\n\n[2]")
    assert "+---" not in text and "|------" not in text and "/boot/vmlinuz" not in text.split("[2]")[0]


def test_a_record_with_repeated_fields_is_one_unit_per_repetition():
    fields = [("name", "server"), ("setting.name", "port"), ("setting.default", "8443"),
              ("setting.name", "bind_address"), ("setting.default", "0.0.0.0")]
    assert repeated_groups(fields) == [[("name", "server"), ("setting.name", "port"), ("setting.default", "8443")],
                                       [("name", "server"), ("setting.name", "bind_address"),
                                        ("setting.default", "0.0.0.0")]]
    assert repeated_groups(fields[:3]) == [fields[:3]]
    chunk = "# section\nname: server\nsetting.name: port\nsetting.default: 8443\nsetting.name: bind\nsetting.default: 0"
    found = [u for u, _ in candidates(make_context(chunk, question="Port?"))]
    assert [u.kind for u in found] == [UNIT_TABLE, UNIT_TABLE] and "8443" in found[0].text and "8443" not in found[1].text


CARD = ("Suchen und Auskunft\napt show PAKET\nBeschreibung, Version und Abhängigkeiten\nanzeigen\n"
        "dpkg -S /pfad/datei\nherausfinden, zu welchem Paket eine Datei gehört\nVersionen festhalten\n"
        "apt-mark hold PAKET\nPaket von Aktualisierungen ausnehmen")


def test_a_reference_card_gives_each_command_with_its_meaning():
    found = units(CARD)
    assert [(u.kind, u.text) for u in found] == [
        (UNIT_HEADING, "Suchen und Auskunft"),
        (UNIT_SENTENCE, "`apt show PAKET` – Beschreibung, Version und Abhängigkeiten anzeigen"),
        (UNIT_SENTENCE, "`dpkg -S /pfad/datei` – herausfinden, zu welchem Paket eine Datei gehört"),
        (UNIT_HEADING, "Versionen festhalten"),
        (UNIT_SENTENCE, "`apt-mark hold PAKET` – Paket von Aktualisierungen ausnehmen")]


def test_command_lines_are_told_from_short_german_lines():
    assert all(map(is_command_line, ["apt update", "dpkg -i DATEI.deb", "free -h", "kill -l", "apt-mark showhold"]))
    assert not any(map(is_command_line, ["freien und belegten", "wieder aufheben", "anzeigen", "Sperre",
                                         "eine heruntergeladene .deb-Datei installieren"]))
    prose = "Die Datei ist groß.\nSie liegt im Lager.\nDort bleibt sie.\nBis morgen."
    assert [u.text for u in units(prose)] == ["Die Datei ist groß.", "Sie liegt im Lager.", "Dort bleibt sie.",
                                              "Bis morgen."]


def test_a_prompt_line_is_the_command_its_lead_in_announces_and_a_lone_lead_in_counts_as_cut():
    found = units("Der folgende Befehl ändert den Eigentümer:\n\n$ sudo chown my_name some_file\n\nDanach.")
    assert found[0].text == "Der folgende Befehl ändert den Eigentümer: `sudo chown my_name some_file`"
    assert not found[0].partial
    lone = units("Die Datei enthält Folgendes:\n\nNichts weiter.")
    assert lone[0].partial and not lone[1].partial


def test_a_numbered_title_with_its_paragraph_below_is_a_heading_and_sentences():
    text = ("1. Geltungsbereich\nDiese Richtlinie gilt für alle Beschäftigten der Kanzlei. Sie gilt auch für private\n"
            "Geräte. Verantwortlich ist der IT-Beauftragte Tobias Reimers.\n2. Passwörter\nEin Passwort hat 14 Zeichen.")
    found = units(text)
    assert [u.kind for u in found] == ["heading", "sentence", "sentence", "sentence", "item"]
    assert found[3].text == "Verantwortlich ist der IT-Beauftragte Tobias Reimers."
    assert found[4].text == "2. Passwörter Ein Passwort hat 14 Zeichen."  # one sentence: still an item


def test_numbered_items_that_wrap_or_are_sentences_stay_items():
    text = "1. Öffnen Sie die Datei\nin einem Editor. Dann speichern.\n2. Starten Sie den Dienst neu.\n3. Apfel\n4. Birne"
    assert [(u.kind, u.text) for u in units(text)] == [
        ("item", "1. Öffnen Sie die Datei in einem Editor. Dann speichern."),
        ("item", "2. Starten Sie den Dienst neu."), ("item", "3. Apfel"), ("item", "4. Birne")]


def test_a_date_at_a_wrapped_lines_start_goes_on_with_its_sentence_while_a_list_of_dates_stays_a_list():
    text = ("30 Arbeitstage Urlaub im Kalenderjahr; Auszubildende erhalten ebenfalls 30 Tage. Der\n"
            "24. Dezember und der 31. Dezember sind zusätzlich\narbeitsfrei.\n\n"
            "Feiertage:\n1. Januar Neujahr\n3. Oktober Tag der Deutschen Einheit")
    found = [(u.kind, u.text) for u in units(text)]
    assert (UNIT_SENTENCE, "Der 24. Dezember und der 31. Dezember sind zusätzlich arbeitsfrei.") in found
    assert (UNIT_LIST, "Feiertage:\n\n1. Januar Neujahr\n3. Oktober Tag der Deutschen Einheit") in found


def test_a_sentence_that_refers_back_joins_the_one_before():
    from irisrag.rag.sentences import REFERENCE_MAX_CHARS, with_references
    text = ("Sobald die Zieldatei geschlossen wurde, wird die Ursprungs-Datei entfernt. "
            "Dies wird durch die Option --keep verhindert. Die Option -f erzwingt das Überschreiben.")
    assert [u.text for u in units(text)] == [
        "Sobald die Zieldatei geschlossen wurde, wird die Ursprungs-Datei entfernt. "
        "Dies wird durch die Option --keep verhindert.",
        "Die Option -f erzwingt das Überschreiben.",
    ]
    long = "Ein langer Satz " + "mit vielen Wörtern " * 20 + "endet hier."
    assert with_references([long, "Es folgt noch etwas."]) == [long, "Es folgt noch etwas."]
    assert len(long) + 20 >= REFERENCE_MAX_CHARS
    assert with_references(["Es beginnt hier."]) == ["Es beginnt hier."]   # nothing before it


def test_a_rule_line_ends_a_block_and_is_no_text():
    # holdout6-de: a letterhead's "-----" joined the company name and the title into one unit, dashes included.
    text = ("STADTWERKE ELLERBRÜCK GMBH      Richtlinie AS-04\n-----------------------------------\n"
            "Diese Richtlinie gilt für alle.\n=========\nEnde.")
    assert [" ".join(u.text.split()) for u in units(text)] == ["STADTWERKE ELLERBRÜCK GMBH Richtlinie AS-04",
                                             "Diese Richtlinie gilt für alle.", "Ende."]


def test_a_lead_in_keeps_both_commands_it_announces_with_their_alternative_word():
    text = ("Um einen Dienst zu starten oder zu stoppen, führen Sie dies aus:\n\nservice Paketname start\n\nbzw.\n\n"
            "service Paketname stop\n\nDer service-Befehl funktioniert überall.")
    assert [u.text for u in units(text)] == [
        "Um einen Dienst zu starten oder zu stoppen, führen Sie dies aus: `service Paketname start` bzw. "
        "`service Paketname stop`", "Der service-Befehl funktioniert überall."]


def test_field_lines_are_units_of_their_own_and_never_headings():
    # holdout6-de: "Öffnungszeiten: …", "Ansprechpartnerin: …" and the sentence after them were one unit; a lone
    # "Freigabe: …" line read as a heading, which is never answer text.
    text = ("4. AUSGABE UND KLEIDERKAMMER\nDie Ausgabe erfolgt in der Kleiderkammer, Raum 0.14.\n"
            "   Öffnungszeiten: Mo und Do 07:00-08:30 Uhr\n   Ansprechpartnerin: Sabine Kruse, Tel. -255\n"
            "Neue Beschäftigte erhalten die Grundausstattung am ersten Arbeitstag.\n\nFreigabe: GF Dr. Ute Harms\n\nEnde.")
    assert [(u.kind, u.text) for u in units(text)] == [
        (UNIT_HEADING, "4. AUSGABE UND KLEIDERKAMMER"),
        (UNIT_SENTENCE, "Die Ausgabe erfolgt in der Kleiderkammer, Raum 0.14."),
        (UNIT_SENTENCE, "Öffnungszeiten: Mo und Do 07:00-08:30 Uhr"),
        (UNIT_SENTENCE, "Ansprechpartnerin: Sabine Kruse, Tel. -255"),
        (UNIT_SENTENCE, "Neue Beschäftigte erhalten die Grundausstattung am ersten Arbeitstag."),
        (UNIT_SENTENCE, "Freigabe: GF Dr. Ute Harms"), (UNIT_SENTENCE, "Ende.")]


def test_parenthesised_and_lettered_enumerations_are_items():
    text = "Grundsätze\n(1) PSA wird gestellt.\n(2) Das Tragen ist Pflicht.\n\nAblauf:\n   a) Sehtest\n   b) Bestellung"
    assert [(u.kind, u.text) for u in units(text)][1:3] == [
        (UNIT_ITEM, "(1) PSA wird gestellt."), (UNIT_ITEM, "(2) Das Tragen ist Pflicht.")]
    assert units(text)[-1].text == "Ablauf:\n\na) Sehtest\nb) Bestellung"


def test_markdown_quote_markers_and_emphasis_are_not_answer_text():
    text = "> **Notiz (Malte):** Bitte nicht `portalctl user delete` benutzen –\n> dabei gehen Dokumente verloren!\n"
    assert [(u.kind, u.text) for u in units(text)] == [
        (UNIT_SENTENCE, "Notiz (Malte): Bitte nicht `portalctl user delete` benutzen – dabei gehen Dokumente verloren!")]
    assert units("x > y gilt.\n")[0].text == "x > y gilt." and units("2**3 und a__b\n")[0].text == "2**3 und a__b"


def test_a_chunk_that_begins_inside_a_code_block_ends_it_at_the_closing_fence():
    chunk = ("ssh portal01\nsudo portalctl user unlock --mitglied 10482\n```\n\n"
             "> Bitte nicht löschen.\n\nPasswörter: mindestens 12 Zeichen.\n")
    found = units(chunk, starts_document=False)
    assert [u.kind for u in found] == [UNIT_CODE, UNIT_SENTENCE, UNIT_SENTENCE]
    assert found[1].text == "Bitte nicht löschen."
    prose = "Der Server wird so eingerichtet.\n```\nssh portal01\n"     # prose above: the fence opens a block
    assert [u.kind for u in units(prose)] == [UNIT_SENTENCE, UNIT_CODE]
    even = "```bash\nls\n```\nText danach.\n"
    assert [u.kind for u in units(even)] == [UNIT_CODE, UNIT_SENTENCE]
