"""A how-to question's words in English find the option a manual names in English (eval/holdout4-de um-03)."""
from irisrag.rag import option_names
from irisrag.rag.dictionary import Dictionary, parse

LINES = [
    "sperren {vt} :: to lock\n",
    "suchen {vt} :: to search; to look for\n",
    "Abhängigkeit {f}; Abhängigkeiten {pl} :: dependency; dependencies\n",
    "anhängen {vt} :: to append\n",
    "behalten {vt} :: to keep\n",
]


def _words():
    return Dictionary(parse(LINES))


def test_a_how_to_question_s_verbs_and_nouns_are_translated():
    asked = option_names.asked_words("Wie sperre ich ein Benutzerkonto mit usermod?", _words())
    assert "lock" in asked and "usermod" in asked
    assert "shell" in option_names.asked_words("Wie ändere ich die Login-Shell?", _words())   # the same word
    assert option_names.asked_words("Wann sperrt die Kantine?", _words()) == frozenset()      # not a how-to question
    assert option_names.asked_words("Wie sperre ich ein Konto?", None) == frozenset()


def test_the_names_a_unit_starts_with():
    assert option_names.names("-L, --lock Lock a user's password.") == ["lock"]
    assert option_names.names("-m, --create-home Create the home directory.") == ["create", "home"]
    assert option_names.names("search regulärer_Ausdruck... search führt eine Volltextsuche durch.") == ["search"]
    assert option_names.names("Die Option --lock sperrt das Konto.") == []   # named, not started with
    assert option_names.names("search führt eine Suche durch.") == []         # no entry: the word once


def test_an_option_named_by_a_translation_gains():
    asked = option_names.asked_words("Wie sperre ich ein Benutzerkonto mit usermod?", _words())
    assert option_names.bonus(asked, "-L, --lock Lock a user's password.") == option_names.BONUS
    assert option_names.bonus(asked, "-c, --comment COMMENT update the comment field.") == 0.0
    deps = option_names.asked_words("Wie zeige ich die Abhängigkeiten eines Pakets an?", _words())
    assert option_names.bonus(deps, "depends Paket... depends zeigt jede Abhängigkeit.") == option_names.BONUS
    assert option_names.bonus(frozenset(), "-L, --lock Lock.") == 0.0


def test_the_extractive_answer_puts_the_translated_option_first():
    from dataclasses import replace

    from irisrag.rag.extractive import compose
    from tests.rag.test_extractive import make_context
    q = "Wie sperre ich ein Benutzerkonto mit usermod?"
    text = ("-c, --comment COMMENT update the comment field of the user account.\n\n"
            "-L, --lock Lock a user's password.")
    context = replace(make_context(text, question=q), english=option_names.asked_words(q, _words()))
    assert compose(q, context, None).startswith("-L, --lock")
    assert compose(q, make_context(text, question=q), None).startswith("-c, --comment")   # without the words


def test_the_fulltext_query_gains_the_verb_s_first_translations_only():
    q = "Wie sperre ich ein Benutzerkonto mit usermod?"
    assert option_names.searched(q, q, _words()) == f"{q} lock"
    q = "Wie kann ich ein Konto sperren?"
    assert option_names.searched(q, q, _words()) == f"{q} lock"              # the closing infinitive
    q = "Wie entferne ich ein Paket samt seiner Abhängigkeiten?"
    assert "dependency" not in option_names.searched(q, q, _words())         # nouns and other words are not searched
    assert option_names.searched("Wann sperrt die Kantine?", "Wann sperrt die Kantine?", _words()) == "Wann sperrt die Kantine?"
    assert option_names.searched(q, q, None) == q


def test_a_separable_verb_is_translated_joined():
    q = "Ich leite die Ausgabe mit tee in eine Logdatei um. Wie hänge ich stattdessen hinten an?"
    asked = option_names.asked_words(q, _words())
    assert "append" in asked                                                  # "hänge ... an" -> "anhängen"
    assert option_names.bonus(asked, "-a, --append An existierende DATEIen anhängen") == option_names.BONUS


def test_a_question_naming_a_manual_asks_for_an_option_however_phrased():
    q = "Kann ich bei gzip die Originaldatei behalten?"
    assert option_names.asked_words(q, _words()) == frozenset()               # no how-to ...
    assert "keep" in option_names.asked_words(q, _words(), manual=True)       # ... but its manual is a candidate


def test_a_manual_s_name_line_and_synopsis_lose_in_a_how_to_answer():
    asked = frozenset({"keep"})
    for header in ("touch - Zeitstempel von Dateien ändern", "grep, egrep, fgrep - gibt Zeilen aus",
                   "split [OPTION]… [EINGABE [PRÄFIX]]"):
        assert option_names.header_penalty(asked, header) == option_names.HEADER_PENALTY, header
    assert option_names.header_penalty(asked, "-k --keep Eingabedateien behalten") == 0.0
    assert option_names.header_penalty(asked, "Die Datei - wie gesagt - bleibt.") == 0.0
    assert option_names.header_penalty(frozenset(), "touch - Zeitstempel ändern") == 0.0   # not a how-to question


def test_help_and_version_lose_unless_asked_for():
    asked = frozenset({"append", "version"})
    version = "--version gibt Versionsinformationen aus und beendet das Programm."
    assert option_names.header_penalty(asked, version, "Wie hänge ich die Ausgabe an?") == option_names.HEADER_PENALTY
    assert option_names.header_penalty(asked, "--help zeigt Hilfeinformationen an", "Wie hänge ich an?") > 0
    assert option_names.header_penalty(asked, version, "Wie zeige ich die Version an?") == 0.0
    assert option_names.header_penalty(asked, "--help zeigt Hilfe an", "Wo bekomme ich Hilfe?") == 0.0


def test_a_line_of_references_to_other_manuals_loses_in_a_manual_s_answer():
    from irisrag.rag.option_names import REFERENCES_PENALTY, header_penalty

    asked = frozenset({"stat"})
    assert header_penalty(asked, "stat(2), statfs(2), statx(2)") == REFERENCES_PENALTY
    assert header_penalty(asked, "systemd(1), systemd-journald.service(8), journalctl(1)") == REFERENCES_PENALTY
    assert header_penalty(asked, "%Y Zeit der letzten Datenänderung, siehe stat(2)") == 0.0
    assert header_penalty(frozenset(), "stat(2), statfs(2), statx(2)") == 0.0   # not a how-to or manual question
