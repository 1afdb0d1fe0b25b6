"""A question what a thing is or does prefers the unit that starts with the thing (eval/holdout2-de ag-04)."""
from irisrag.rag import definitions


def test_the_asked_thing_is_the_question_s_last_term():
    assert definitions.defined_term("Was macht apt-get clean?") == "clean"
    assert definitions.defined_term("Was ist ein Dienstrad?") == "dienstrad"
    assert definitions.defined_term("What does --keep do?") == "keep"
    assert definitions.defined_term("Was kostet ein Ticket?") is None
    assert definitions.defined_term("Wie installiere ich apt?") is None


def test_only_a_unit_that_starts_with_the_thing_gains():
    term = definitions.defined_term("Was macht apt-get clean?")
    assert definitions.bonus(term, "clean bereinigt das lokale Depot von heruntergeladenen Paketdateien.") == definitions.BONUS
    assert definitions.bonus(term, "Wie clean bereinigt autoclean das lokale Depot.") == 0.0
    assert definitions.bonus(None, "clean bereinigt") == 0.0


def test_the_extractive_answer_puts_the_entry_first():
    from irisrag.rag.extractive import compose
    from tests.rag.test_extractive import make_context
    text = ("Die Konfigurationsoption Clean-Installed bewahrt installierte Pakete vor der Löschung.\n\n"
            "clean bereinigt das lokale Depot von heruntergeladenen Paketdateien.")
    q = "Was macht apt-get clean?"
    answer = compose(q, make_context(text, question=q), None)
    assert answer.startswith("clean bereinigt")
