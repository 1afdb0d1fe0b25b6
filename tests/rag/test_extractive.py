"""The extractive answer: sentence units, the chosen sentences with citations, highlighting."""
from __future__ import annotations

from irisrag.embeddings import FakeEmbedder
from irisrag.rag.extractive import (
    BUDGET_CHARS,
    ELSEWHERE_GAP,
    FAR_GAP,
    SURE_CHARS,
    SURE_GAP,
    UNSURE_CHARS,
    Scored,
    adaptive_budget,
    adds_nothing,
    candidates,
    compose,
    highlighter,
    inflected,
    lexical_share,
    question_keys,
    row_key,
    score_units,
    select,
    shorten,
)
from irisrag.rag.lexical import LexicalMatch, terms
from irisrag.rag.retrieve import Context, ContextChunk
from irisrag.rag.sentences import UNIT_ITEM, UNIT_TABLE, Unit, split_sentences, units
from irisrag.vectors.store import Hit


def make_context(*texts: str, question: str) -> Context:
    chunks = tuple(ContextChunk(Hit(7, 1, i, None, text, 0.8, i), LexicalMatch(frozenset(), 2, 2.0), i + 1)
                   for i, text in enumerate(texts))
    return Context(question, (1,), chunks, (), (), {}, terms(question))


def test_abbreviations_initials_ordinals_and_decimals_do_not_split():
    text = ("Das Finale fand am 7. Februar 2016 statt, z. B. in Santa Clara, d.h. im Levi's Stadium. "
            "Es kostete ca. 1.2 Mio. Dollar bzw. 3.5 % mehr als im 19. Jahrhundert. "
            "J. R. R. Tolkien schrieb es, e.g. in the U.S. and Dr. Smith agreed. Danach war Schluss!")
    assert split_sentences(text) == [
        "Das Finale fand am 7. Februar 2016 statt, z. B. in Santa Clara, d.h. im Levi's Stadium.",
        "Es kostete ca. 1.2 Mio. Dollar bzw. 3.5 % mehr als im 19. Jahrhundert.",
        "J. R. R. Tolkien schrieb es, e.g. in the U.S. and Dr. Smith agreed.",
        "Danach war Schluss!",
    ]


def test_sentences_end_at_years_and_questions():
    assert split_sentences("Er kam 2016. Sie ging? Ja.") == ["Er kam 2016.", "Sie ging?", "Ja."]


def test_list_items_and_tables_are_units_and_cut_edges_are_partial():
    text = ("rest of a sentence from the previous chunk. Full sentence here.\n\n"
            "1. first item. Still item one\n2. second item\n\n| a | b |\n|---|---|\n| 1 | 2 |\nAnd a cut")
    found = units(text, starts_document=False)
    assert [u.kind for u in found] == ["sentence", "sentence", UNIT_ITEM, UNIT_ITEM, UNIT_TABLE, "sentence"]
    assert found[0].partial and not found[1].partial and found[-1].partial
    assert found[2].text == "1. first item. Still item one"
    assert found[4].text == "| a | b |\n|---|---|\n| 1 | 2 |"


def test_compose_picks_the_answering_sentence_with_its_citation():
    context = make_context(
        "Die Kantine öffnet um elf Uhr. Der Parkplatz ist hinten.",
        "Allgemeines zur Firma. OpenTelemetry wird über die Datei otel.yaml konfiguriert. Sonst nichts.",
        question="Wie wird OpenTelemetry konfiguriert?",
    )
    text = compose(context.question, context, FakeEmbedder())
    assert text.startswith("OpenTelemetry wird über die Datei otel.yaml konfiguriert. [2]")
    assert len(text) <= 300 and "Kantine" not in text.split("\n\n")[0]


def test_compose_keeps_a_table_as_a_table():
    context = make_context("| Dienst | Port |\n|---|---|\n| Collector | 4317 |", question="Welcher Port Collector Dienst?")
    text = compose(context.question, context, None)
    assert text.startswith("| Dienst | Port |\n|---|---|\n| Collector | 4317 |") and text.endswith("[1]")


def test_scores_fall_back_to_lexical_and_rank_without_embedder():
    context = make_context("Nichts davon.", "OpenTelemetry konfiguriert man in otel.yaml.",
                           question="Wie wird OpenTelemetry konfiguriert?")
    best = score_units(context.question, context, None)[0]
    assert best.position == 2


def test_highlighter_marks_question_terms_outside_tags_and_links():
    mark = highlighter(terms("Wie wird OpenTelemetry konfiguriert?"))
    html = mark('<p>OpenTelemetry wird <a href="#cite-1">1</a> konfiguriert <code>OpenTelemetry</code></p>')
    assert html == ('<p><mark>OpenTelemetry</mark> wird <a href="#cite-1">1</a> <mark>konfiguriert</mark> '
                    '<code>OpenTelemetry</code></p>')


def test_a_sentence_cut_by_chunk_overlap_is_not_offered_twice():
    whole = "Beim nächsten Spielzug nahm Miller dem Quarterback Newton den Ball ab."
    context = make_context("Vorher passierte wenig. " + whole, "Quarterback Newton den Ball ab. Danach kam Denver.",
                           "dem Quarterback Newton den Ball ab.", question="Wer nahm Newton den Ball ab?")
    found = [u.text for u, _ in candidates(context)]
    assert whole in found and "Danach kam Denver." in found
    assert "dem Quarterback Newton den Ball ab." not in found  # partial, inside the whole sentence
    assert "Quarterback Newton den Ball ab." in found  # starts upper-case: a sentence of its own, kept


def test_the_room_left_is_filled_with_the_next_sentence_shortened():
    long_first = "Der Collector " + "sammelt Daten aus vielen Quellen und " * 5 + "leitet sie weiter."
    second = ("Die Konfiguration des Collectors liegt in otel.yaml und wird beim Start gelesen, "
              "danach nie wieder, außer man startet ihn neu.")
    scored = [Scored(Unit(long_first, "sentence", 0), 1, 2.0), Scored(Unit(second, "sentence", 1), 1, 1.5)]
    chosen = select(scored, 300)
    assert [s.unit.text for s, _ in chosen] == [long_first, second]
    first_size = len(long_first) + 5
    assert chosen[1][1] == 300 - first_size - 5 < len(second)
    text = shorten(second, terms("otel.yaml Konfiguration"), chosen[1][1])
    assert len(text) <= chosen[1][1] + 4 and "otel.yaml" in text


def test_headings_are_never_the_answer():
    context = make_context("## Konfiguration des OpenTelemetry Collectors\n\nSie steht in otel.yaml.",
                           "3.2 OpenTelemetry Collector konfigurieren\n\nDie Datei heißt otel.yaml.",
                           question="Wie konfiguriere ich den OpenTelemetry Collector?")
    assert [u.kind for u in units(context.chunks[1].hit.text)] == ["heading", "sentence"]
    text = compose(context.question, context, FakeEmbedder())
    assert "Collector" not in text and "otel.yaml" in text


def _scored(*scores: float) -> list[Scored]:
    return [Scored(Unit(f"Satz {i}.", "sentence", i), 1, score) for i, score in enumerate(scores)]


def test_the_answer_is_short_when_the_best_unit_clearly_wins_and_longer_when_it_does_not():
    sure, (low, high), gap = SURE_CHARS, UNSURE_CHARS, SURE_GAP
    assert adaptive_budget(_scored(1.5, 1.5 - gap)) == sure == 300
    assert adaptive_budget(_scored(1.5)) == sure  # nothing to compete with
    assert adaptive_budget(_scored(1.2, 1.2)) == high  # a tie shows the competitors
    assert adaptive_budget(_scored(1.2, 1.2 - gap / 2)) == (low + high) // 2
    assert adaptive_budget(_scored(1.2, 1.2 - gap * 0.999)) == low > sure
    assert adaptive_budget(_scored(1.2, 1.2), 200, (400, 600), 0.5) == 600


def _two_long_answers(second_terms: str) -> Context:
    first = ("Der Collector der Firma liest seine Konfiguration beim Start aus der Datei otel.yaml im "
             "Verzeichnis etc, die der Betrieb pflegt; Änderungen gelten erst nach einem Neustart des Dienstes, "
             "den das Team jeden Montag früh plant, damit niemand gestört wird.")
    second = (f"{second_terms} stehen in der Datei collector.toml im Verzeichnis opt, die das Team "
              "für alle Umgebungen gemeinsam pflegt und vor jedem Release prüft; sie wird beim Start gelesen "
              "und danach nicht mehr, auch nicht nach einer Änderung der Umgebung.")
    return make_context(first, second, question="Wo steht die Konfiguration des Collectors?")


def test_an_uncertain_ranking_shows_both_close_sentences_within_500_characters():
    context = _two_long_answers("Die Konfiguration und der Collector")  # the same terms: a near tie
    text = compose(context.question, context, None)
    assert "[1]" in text and "[2]" in text and "otel.yaml" in text
    assert BUDGET_CHARS < len(text) <= UNSURE_CHARS[1] + 10  # both shown, the whole answer still at most 500


def test_tables_of_contents_navigation_and_bare_titles_never_become_answer_text():
    from irisrag.rag.extractive import navigation

    assert navigation("9 11 Betriebsrat ..................................")
    assert navigation("Handbuch Ausgabe 2024 Inhalt 1 Über uns 2 Arbeitszeit 3 Urlaub 4 Krankheit")
    assert navigation("« Zurück | Nach oben | Weiter »")
    assert navigation("Dienstreisen und Reisekosten")
    assert not navigation("Vorsitzender ist Jonas Petersen, seine Stellvertreterin Aylin Demir.")
    assert not navigation("apt-mark hold PAKET") and not navigation("Z50 Annahme verweigert")
    context = make_context("Inhalt 1 Über uns 2 Betriebsrat 3 Urlaub 4 Krankheit 5 Reisen",
                           "Der Betriebsrat hat neun Mitglieder und tagt jeden Dienstag.",
                           question="Wie viele Mitglieder hat der Betriebsrat?")
    text = compose(context.question, context, None)
    assert "neun Mitglieder" in text and "Inhalt" not in text


def test_a_clear_winner_keeps_the_answer_within_the_short_budget():
    context = _two_long_answers("Ganz andere Dinge")
    text = compose(context.question, context, None)
    assert text.startswith("Der Collector der Firma") and "collector.toml" not in text
    assert len(text) <= SURE_CHARS + 5


def test_a_record_is_answered_as_a_small_table_of_its_fields():
    records = ("# preisliste\nArtikel: 4711\nBezeichnung: Bürostuhl Ergo\nPreis: 199,00 €\n\n"
               "Artikel: 4712\nBezeichnung: Schreibtisch Hoch\nPreis: 349,00 €")
    context = make_context(records, question="Was kostet der Schreibtisch Hoch?")
    text = compose(context.question, context, None)
    assert text.startswith("| preisliste | |\n|---|---|\n| Artikel | 4712 |") and "| Preis | 349,00 € |" in text
    assert "Preis: " not in text  # never the chunk's raw field lines


def test_a_unit_repeating_a_chosen_one_is_passed_over():
    sentence = "Im Notfall wählen Sie zuerst 112 und danach die interne Notfallnummer 2222 (Pforte)."
    paragraph = "Arbeitssicherheit und Notfälle " + sentence + " Die Pforte weist den Rettungsdienst ein."
    other = "Bei Feueralarm verlassen alle das Gebäude über die Fluchtwege."
    scored = [Scored(Unit(sentence, "sentence", 0), 1, 1.5, 1), Scored(Unit(paragraph, "sentence", 0), 2, 1.4, 2),
              Scored(Unit(other, "sentence", 1), 1, 1.3, 1)]
    assert [s.unit.text for s, _ in select(scored, 500)] == [sentence, other]
    assert adds_nothing(scored[0], [scored[1]])  # the other way round too


def test_a_clearly_weaker_unit_from_another_document_is_not_appended():
    best = Scored(Unit("Das Protokoll steht in /var/log/zeitwerk/zeitwerk.log.", "sentence", 0), 1, 1.5, 1)
    same_document = Scored(Unit("Es wird täglich rotiert.", "sentence", 1), 1, 1.0, 1)
    elsewhere_weak = Scored(Unit("journalctl -f verfolgt das Protokoll.", "sentence", 0), 2, 1.5 - ELSEWHERE_GAP, 2)
    elsewhere_close = Scored(Unit("Das Protokoll liegt auch im Journal.", "sentence", 0), 3, 1.4, 3)
    chosen = [s for s, _ in select([best, elsewhere_close, same_document, elsewhere_weak], 500)]
    assert chosen == [best, elsewhere_close, same_document]


def test_a_unit_far_below_the_best_is_filler_even_from_the_same_document():
    best = Scored(Unit("Das Weihnachtsgeld wird mit dem Novembergehalt ausgezahlt.", "sentence", 0), 1, 2.1, 1)
    close = Scored(Unit("Es beträgt ein halbes Monatsgehalt.", "sentence", 1), 1, 2.1 - FAR_GAP + 0.1, 1)
    filler = Scored(Unit("Die Sicherheitsunterweisung findet im Januar statt.", "sentence", 2), 1, 2.1 - FAR_GAP, 1)
    chosen = [s for s, _ in select([best, close, filler], 500)]
    assert chosen == [best, close]


def test_a_unit_from_another_document_without_the_asked_kind_is_not_appended():
    record = Scored(Unit("| Name | Franziska Huber |", "table", 0), 1, 1.32, 1, kind_held=True)
    same_document = Scored(Unit("| Name | Andreas Maier |", "table", 0), 2, 1.1, 1, kind_held=True)
    elsewhere = Scored(Unit("2021 eröffnete die Niederlassung München.", "sentence", 0), 3, 1.06, 2)
    elsewhere_holding = Scored(Unit("Die Niederlassung leitet Franziska Huber.", "sentence", 0), 4, 1.05, 3,
                               kind_held=True)
    chosen = [s for s, _ in select([record, same_document, elsewhere, elsewhere_holding], 500)]
    assert chosen == [record, same_document, elsewhere_holding]


def test_inflected_forms_of_one_word_count_as_the_question_term():
    question = terms("Wie entpacke ich Dateien aus einem Archiv?")
    assert lexical_share(question, "-x, --extract entpackt Dateien aus einem Archiv.") == 1.0
    assert inflected("entpack", "entpackt") and inflected("speichert", "speicher")
    assert not inflected("port", "ports")  # too short to tell
    assert not inflected("passwort", "passwortmanag")  # a compound, not an inflection


def test_the_row_keyed_by_the_letter_the_question_names_wins():
    header = "| Klasse | Netzwerkadressen | Netzmaske |\n|---|---|---|\n"
    rows = [Unit(header + f"| {key} | {net} | {mask} |", "table", i) for i, (key, net, mask) in
            enumerate([("A", "10.x.x.x", "255.0.0.0"), ("B", "172.16.x.x", "255.255.0.0"),
                       ("C", "192.168.0.x", "255.255.255.0")])]
    question = "Welche Netzmaske hat ein Netz der Klasse C?"
    assert question_keys(question) == {"C"} and question_keys("A und B? Wie viel kostet es?") == {"B"}
    assert [row_key(u) for u in rows] == ["A", "B", "C"] and row_key(Unit("C ist gut.", "sentence", 0)) is None
    table = "Klasse | Netzwerkadressen | Netzmaske\n\n" + "\n\n".join(
        f"{key} | {net} | {mask}" for key, net, mask in [("A", "10.x.x.x", "255.0.0.0"),
                                                          ("B", "172.16.x.x", "255.255.0.0"),
                                                          ("C", "192.168.0.x", "255.255.255.0")])
    best = score_units(question, make_context(table, question=question), None)[0]
    assert "192.168.0.x" in best.unit.text


class _Counting(FakeEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.passages: list[str] = []

    def embed_documents(self, texts):
        self.passages.extend(texts)
        return super().embed_documents(texts)


def test_a_context_whose_best_unit_shares_no_question_word_and_scores_low_holds_no_answer():
    from irisrag.rag.extractive import NO_SHARED_SCORE, unanswered

    question = "Wie wandle ich ein Video in MP4 um?"
    unrelated = make_context("Kodieren und Dekodieren von MIME-Nachrichten mit mpack und munpack.", question=question)
    best = score_units(question, unrelated, FakeEmbedder())[0]
    assert best.score < NO_SHARED_SCORE and lexical_share(terms(question), best.unit.text) == 0.0
    assert unanswered(question, unrelated, FakeEmbedder())
    # one shared word, and the unit may answer: the answer decides
    assert not unanswered(question, make_context("Ein Video wandelt ffmpeg um.", question=question), FakeEmbedder())
    assert not unanswered(question, unrelated, None)   # without an embedder nothing is decided
    assert not unanswered(question, make_context(question=question), FakeEmbedder())


def test_a_units_vector_is_embedded_once_per_embedder():
    embedder, question = _Counting(), "Wie wandle ich ein Video um?"
    context = make_context("Ein Video wandelt ffmpeg um. Es dauert lange.", question=question)
    first = score_units(question, context, embedder)
    again = score_units(question, context, embedder)
    assert [t for t in embedder.passages if t != question] == [u.text for u, _ in candidates(context)]
    assert [s.score for s in first] == [s.score for s in again]
    other = _Counting()
    score_units(question, context, other)
    assert [t for t in other.passages if t != question] == [u.text for u, _ in candidates(context)]  # its own


def test_a_question_term_inside_a_compound_of_the_unit_counts_as_shared():
    from irisrag.rag.extractive import NO_SHARED_SCORE, unanswered

    question = "Wer schickte zuerst Funkwellen über den Atlantik?"
    context = make_context("Guglielmo Marconi strahlte 1901 die erste transatlantische Funkübertragung aus.",
                           question=question)
    best = score_units(question, context, FakeEmbedder())[0]
    assert best.score < NO_SHARED_SCORE and lexical_share(terms(question), best.unit.text) == 0.0
    assert not unanswered(question, context, FakeEmbedder())   # "atlant" inside "transatlantische"


def test_the_manual_of_a_program_the_question_names_holds_an_answer_and_its_units_come_first():
    # eval/holdout9-de stat-01: "%a Rechte-Bits in Oktaldarstellung" shares no word with the question, and a
    # neighbouring manual's "-n, --number=TEILE" (split) came first.
    from dataclasses import replace as changed

    import pytest

    from irisrag.rag.extractive import MANUAL_BONUS, unanswered
    from irisrag.rag.retrieve import RetrievalSettings, holds_answer

    question = "Wie lasse ich mir mit stat die Zugriffsrechte als Zahl ausgeben, also so etwas wie 644?"
    chunks = (ContextChunk(Hit(6, 1, 0, None, "-n, --number=TEILE Erstellen von TEILE Ausgabedateien.", 0.8, 0),
                           LexicalMatch(frozenset(), 0, 0.0), 1),
              ContextChunk(Hit(7, 1, 0, None, "%a Rechte-Bits in Oktaldarstellung", 0.8, 1),
                           LexicalMatch(frozenset(), 0, 0.0), 2))
    context = Context(question, (1,), chunks, (), (), {}, terms(question))
    settings = RetrievalSettings.from_config({})
    embedder = FakeEmbedder()
    assert unanswered(question, context, embedder) and not holds_answer(context, embedder, None, settings)
    manual = changed(context, manuals=frozenset({7}))
    assert holds_answer(manual, embedder, None, settings)
    with_manual = {s.unit.text: s.score for s in score_units(question, manual, embedder)}
    without = {s.unit.text: s.score for s in score_units(question, context, embedder)}
    assert with_manual["%a Rechte-Bits in Oktaldarstellung"] == \
        pytest.approx(without["%a Rechte-Bits in Oktaldarstellung"] + MANUAL_BONUS)
    assert with_manual["-n, --number=TEILE Erstellen von TEILE Ausgabedateien."] == \
        pytest.approx(without["-n, --number=TEILE Erstellen von TEILE Ausgabedateien."])
