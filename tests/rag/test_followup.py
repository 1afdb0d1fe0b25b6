"""Follow-up questions: the rewrite, the key-terms rule, its fallbacks, the previous turns in the prompt."""
from __future__ import annotations

import threading

from irisrag.errors import LLMUnavailable
from irisrag.llm.clients import FakeLLM
from irisrag.rag import followup
from irisrag.rag.answer import build_messages
from irisrag.rag.budget import fit_turns
from irisrag.rag.followup import KEY_TERMS, REWRITTEN, PreviousTurn, clean_rewrite, framed
from tests.rag.test_extractive import make_context

FIRST = PreviousTurn("Wann wurde die Elbphilharmonie in Hamburg eröffnet?", "Im Januar 2017 [1].")


def test_no_previous_turn_searches_the_question_as_asked():
    query = followup.search_query("Wie hoch ist sie?", (), FakeLLM("nie"))
    assert query.text == "Wie hoch ist sie?" and query.rule == followup.ASKED and query.seconds is None


def test_without_a_model_the_previous_questions_key_terms_are_added():
    assert followup.key_terms("Wie hoch ist sie?", [FIRST]) == ["Elbphilharmonie", "Hamburg", "eröffnet"]
    query = followup.search_query("Und wie hoch ist die Elbphilharmonie?", [FIRST], None)
    assert query.rule == KEY_TERMS and query.text == "Und wie hoch ist die Elbphilharmonie? Hamburg eröffnet"


def test_an_elliptic_previous_question_also_reads_the_one_before():
    turns = [FIRST, PreviousTurn("Und in Köln?", "Nichts gefunden.")]
    assert followup.key_terms("Und in Bremen?", turns) == ["Köln", "Elbphilharmonie", "Hamburg", "eröffnet"]


def test_a_model_rewrites_the_follow_up_from_the_last_turns():
    llm = FakeLLM("„Wie hoch ist die Elbphilharmonie in Hamburg?“\nErklärung: ...")
    query = followup.search_query("Wie hoch ist sie?", [FIRST], llm)
    assert query.rule == REWRITTEN and query.text == "Wie hoch ist die Elbphilharmonie in Hamburg?"
    assert query.seconds is not None and query.failure is None
    messages = llm.calls[0]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[2]["content"] == "Im Januar 2017." and messages[-1]["content"] == "Wie hoch ist sie?"
    assert llm.closed == 1  # the stream was cut at the first line break and closed


def test_a_failed_or_empty_rewrite_falls_back_to_the_key_terms():
    def refuse(messages):
        raise LLMUnavailable("down", "test")

    for llm in (FakeLLM(refuse), FakeLLM("   ")):
        query = followup.search_query("Wie hoch ist sie?", [FIRST], llm)
        assert query.rule == KEY_TERMS and query.text.endswith("Elbphilharmonie Hamburg eröffnet")
        assert query.failure and query.seconds is not None


def test_a_slow_rewrite_is_abandoned_after_the_timeout():
    release = threading.Event()

    def slow(messages):
        release.wait(5)
        return "Zu spät?"

    query = followup.search_query("Wie hoch ist sie?", [FIRST], FakeLLM(slow), timeout=0.2)
    release.set()
    assert query.rule == KEY_TERMS and "0.2 s" in query.failure and query.seconds < 2


def test_the_answer_prompt_has_the_previous_turns_without_their_citation_numbers():
    context = make_context("Die Elbphilharmonie ist 110 Meter hoch.", question="Wie hoch ist sie?")
    messages = build_messages("Wie hoch ist sie?", context, [FIRST])
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[1]["content"] == FIRST.question and messages[2]["content"] == "Im Januar 2017."
    assert "[1]\nDie Elbphilharmonie" in messages[3]["content"]  # passages are labelled by their number only


def test_previous_turns_get_a_quarter_of_the_window_and_the_oldest_go_first():
    turns = [PreviousTurn(f"Frage {i}", "x" * 900) for i in range(5)]
    kept = fit_turns(turns, 4096)  # 1024 tokens: three turns of about 335
    assert [t.question for t in kept] == ["Frage 2", "Frage 3", "Frage 4"]
    assert fit_turns([PreviousTurn("q", "x" * 20000)], 4096) == ()


def test_a_question_that_does_not_lean_on_the_previous_one_is_searched_as_asked():
    expletive = "Welche Konzerthäuser gibt es in München seit 1985?"
    assert not followup.is_elliptic("Welche Konzerthäuser stehen in München seit 1985?")
    assert followup.search_query("Welche Konzerthäuser stehen in München seit 1985?", [FIRST], None).text == \
        "Welche Konzerthäuser stehen in München seit 1985?"
    assert not followup.is_elliptic(expletive)  # "gibt es" refers to nothing
    assert followup.is_elliptic("Wann gibt es sie?") and followup.is_elliptic("Wie viel kostet es?")
    for elliptic in ("und für Debian 12?", "What about Debian?", "Aber wie hoch?", "Wo steht sie?"):
        assert followup.is_elliptic(elliptic), elliptic


def test_a_question_with_gibt_es_is_the_frame_of_the_next_follow_up():
    # holdout6-de fu-03: "es" made the first question lean, so the follow-up got "oft Schutzhelm" appended.
    turns = [PreviousTurn("Wie oft gibt es einen neuen Schutzhelm?", "alle 4 Jahre")]
    assert followup.search_query("Und eine neue Warnschutzjacke?", turns, None).text == \
        "Wie oft gibt es einen neuen Warnschutzjacke?"


def test_a_rewrite_that_answers_instead_of_asking_is_not_searched_for():
    assert clean_rewrite("Das Debian-Projekt ist eine **Vereinigung von Einzelpersonen** [1].") == ""
    assert clean_rewrite('Frage: "Wer gehört zum **Debian-Projekt**?"') == "Wer gehört zum Debian-Projekt?"


def test_a_new_number_replaces_the_previous_questions_number_in_its_frame():
    turns = [PreviousTurn("Was kostet Artikel 4711?", "12,90 €")]
    assert followup.search_query("Und 4712?", turns, None).text == "Was kostet Artikel 4712?"
    debian = [PreviousTurn("Wie installiere ich nginx unter Debian 11?", "apt install nginx")]
    assert followup.search_query("Und für Debian 12?", debian, None).text == "Wie installiere ich nginx unter Debian 12?"


def test_a_new_name_replaces_the_one_after_the_same_word():
    assert followup.search_query("Und in Bremen?", [FIRST], None).text == (
        "Wann wurde die Elbphilharmonie in Bremen eröffnet?")
    turns = [PreviousTurn("Was kostet der Bürostuhl?", "199 €")]
    assert followup.search_query("Und der Schreibtisch?", turns, None).text == "Was kostet der Schreibtisch?"


def test_an_ambiguous_or_pronoun_follow_up_keeps_the_key_terms():
    turns = [PreviousTurn("Wann hat Anna Schmidt die Abteilung Vertrieb übernommen?", "2021")]
    # two names and no shared word before the new one: nothing is replaced, the key terms are appended
    assert followup.search_query("Und Berger?", turns, None).text == (
        "Und Berger? Anna Schmidt Abteilung Vertrieb übernommen")
    assert followup.search_query("Und wer macht das?", turns, None).text.startswith("Und wer macht das? Anna Schmidt")


def test_an_elliptic_follow_up_prefers_the_documents_the_previous_answer_cited():
    from irisrag.rag.followup import preferred_documents
    previous = [PreviousTurn("Wer leitet die IT?", "Jan Berger [1]", (3, 7)),
                PreviousTurn("Wer leitet das Lager?", "Andreas Maier [1]", (5,))]
    assert preferred_documents("Und wer macht den Helpdesk?", previous) == {5}
    assert preferred_documents("Welche Farbe hat die Warnweste im Lager Bremen?", previous) == frozenset()
    assert preferred_documents("Und dort?", []) == frozenset()


def test_of_several_names_the_follow_up_replaces_the_one_that_names_another():
    previous = [PreviousTurn("Was kostet eine Nacht in der Gästewohnung Mühlenfeld?", "42,00 €")]
    assert framed("Und im Sonnenhang?", previous) == "Was kostet eine Nacht in der Gästewohnung Sonnenhang?"
    leader = [PreviousTurn("Wer leitet die Niederlassung Hamburg?", "Hannes Jansen")]
    assert framed("Und welche Durchwahl hat er?", leader) is None      # "er": more of the same, nothing replaced
