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


def test_a_manual_s_name_line_and_synopsis_lose_against_a_how_to_question_only():
    from irisrag.rag.span_kinds import asked_kinds
    how = asked_kinds("Wie sperre ich ein Benutzerkonto mit usermod?")
    assert definitions.overview(how, "usermod - verändert ein Benutzerkonto") == -definitions.OVERVIEW_PENALTY
    assert definitions.overview(how, "usermod [Optionen] ANMELDENAME") == -definitions.OVERVIEW_PENALTY
    assert definitions.overview(how, "fuser [-fuv] [-a|-s] [-4|-6]") == -definitions.OVERVIEW_PENALTY
    assert definitions.overview(how, "-L, --lock Lock a user's password.") == 0.0
    assert definitions.overview(how, "Sie können - wenn nötig - mehr angeben.") == 0.0
    assert definitions.overview(asked_kinds("Was ist usermod?"), "usermod - verändert ein Benutzerkonto") == 0.0


def test_the_option_then_comes_before_the_name_line():
    from irisrag.rag.extractive import compose
    from tests.rag.test_extractive import make_context
    q = "Wie zeige ich bei pstree die PIDs der Prozesse an?"
    text = "pstree - Prozesse in einer Baumansicht anzeigen\n\n-p zeigt PIDs an."
    assert compose(q, make_context(text, question=q), None).startswith("-p zeigt PIDs")
    what = "Was ist pstree?"
    assert compose(what, make_context(text, question=what), None).startswith("pstree - Prozesse")
