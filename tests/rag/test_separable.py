"""A split separable verb is searched and credited whole ("fährt ... herunter" -> "herunterfahren")."""
from irisrag.rag import separable
from irisrag.rag.extractive import lexical_share
from irisrag.rag.lexical import terms


def test_the_finite_verb_and_the_closing_particle_give_the_joined_stem():
    assert separable.split_verb("Welcher Befehl fährt das System herunter?") == ("fährt", "herunter", "herunterfahr")
    assert separable.split_verb("Wie zeige ich mit ps alle Prozesse an?") == ("zeige", "an", "anzeig")
    assert separable.split_verb("Wie melde ich mich beim VPN an?") == ("melde", "an", "anmeld")


def test_only_the_last_sentence_splits_a_verb():
    q = "Ich leite die Ausgabe mit tee in eine Logdatei um, aber sie wird überschrieben. Wie hänge ich hinten an?"
    assert separable.split_verb(q) == ("hänge", "an", "anhang")        # not "leite", the first sentence's verb
    assert separable.last_sentence(q) == "Wie hänge ich hinten an?"
    assert separable.last_sentence("Wie geht das?") == "Wie geht das?"


def test_the_infinitives_keep_the_umlaut_and_fold_it():
    assert separable.infinitives("Wie hänge ich hinten an?") == ("anhängen", "anhangen")
    assert separable.infinitives("Welcher Befehl fährt das System herunter?") == ("herunterfähren", "herunterfahren")
    assert separable.infinitives("Wie zeige ich alle Prozesse an?") == ("anzeigen",)
    assert separable.infinitives("Wer ist da?") == ()


def test_a_question_without_a_closing_particle_or_verb_has_none():
    assert separable.split_verb("Wie kann ich das System herunterfahren?") is None
    assert separable.split_verb("Wer ist der Ansprechpartner?") is None
    assert separable.split_verb("Wie viele Tage an?") is None   # "viele" is no verb


def test_the_fulltext_query_gains_the_infinitive_once():
    q = "Welcher Befehl fährt das System herunter?"
    assert separable.searched(q, q) == f"{q} herunterfahren"
    assert separable.searched("x herunterfahren", q) == "x herunterfahren"
    assert separable.searched("Wer ist da?", "Wer ist da?") == "Wer ist da?"


def test_the_answer_counts_the_joined_verb_as_the_question_s_verb():
    q = "Welcher Befehl fährt das System herunter?"
    alternates = separable.alternates(q)
    assert {"herunterfahren", "heruntergefahren", "herunterzufahren"} <= set(alternates)
    row = "System herunterfahren | systemctl poweroff"
    assert lexical_share(terms(q), row, alternates) > lexical_share(terms(q), row)
    q = "Wie zeige ich mit ps alle Prozesse an?"
    example = "Alle Prozesse im System in der Standard-Syntax anzeigen: ps -e"
    assert lexical_share(terms(q), example, separable.alternates(q)) == 1.0
    assert lexical_share(terms(q), "Die Auswahl der Prozesse", separable.alternates(q)) < 1.0


def test_umlauts_of_the_document_are_folded_as_the_stem_is():
    q = "Wie wähle ich den Drucker aus?"
    assert lexical_share(terms(q), "Drucker auswählen", separable.alternates(q)) == 1.0
