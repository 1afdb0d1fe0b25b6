"""A how-to question's verbs are searched in the manual's third person too (issue 37: holdout-de tar-01)."""
from irisrag.rag import verbforms


def test_first_person_and_infinitive_give_the_t_form():
    assert verbforms.forms("Wie entpacke ich Dateien aus einem tar-Archiv?") == ["entpackt"]
    assert verbforms.forms("Wie kann ich Dateien aus einem tar-Archiv entpacken?") == ["entpackt"]
    assert verbforms.forms("Wie ändere ich mein Passwort?") == ["ändert"]
    assert verbforms.forms("Wie kann man Werte sammeln?") == ["sammelt"]


def test_a_d_or_t_stem_takes_et():
    assert verbforms.forms("Wie melde ich mich an?") == ["meldet"]


def test_stop_words_and_short_stems_are_left_alone():
    assert verbforms.forms("Wie gebe ich bei ssh einen anderen Port an?") == []


def test_only_how_to_questions_grow():
    assert verbforms.forms("Wann beginnt die Sitzung der Kommission?") == []
    assert verbforms.searched("Wann beginnt die Sitzung?", "Wann beginnt die Sitzung?") == "Wann beginnt die Sitzung?"


def test_the_query_keeps_the_text_and_adds_each_form_once():
    q = "Wie entpacke ich Dateien?"
    assert verbforms.searched(q, q) == "Wie entpacke ich Dateien? entpackt"
    assert verbforms.searched("x entpackt", q) == "x entpackt"


def test_hybrid_search_sends_the_forms_to_the_fulltext_leg_only():
    from irisrag.rag import retrieve

    seen = []

    class Store:
        def search(self, vector, areas, k):
            return []

        def search_fulltext(self, text, areas, k, *, vector=None):
            seen.append(text)
            return []

    class Embedder:
        def embed_query(self, text):
            seen.append(("embedded", text))
            return [1.0, 0.0]

    q = "Wie entpacke ich Dateien aus einem Archiv?"
    retrieve.build_context(q, [1], embedder=Embedder(), store=Store(),
                           settings=retrieve.RetrievalSettings.original(mode="hybrid"))
    assert ("embedded", q) in seen
    assert [t for t in seen if isinstance(t, str)][0].endswith(" entpackt")


VERB_LINES = [
    "betreiben {vt} | betreibend | betrieben | ich/er/sie betrieb :: to operate | operating | operated | "
    "I/he/she operated\n",
    "gewinnen; siegen {vi} | gewinnend; siegend | gewonnen; gesiegt | er/sie gewinnt; er/sie siegt | "
    "ich/er/sie gewann; ich/er/sie siegte | Sie haben 3:1 gewonnen. :: to win; to triumph | winning; triumphing | "
    "won; triumphed | he/she wins; he/she triumphs | I/he/she won; I/he/she triumphed | They won 3-1.\n",
    "Betrieb {m} :: operation\n",
]


def _words():
    from irisrag.rag.dictionary import Dictionary, parse, parse_verbs
    return Dictionary(parse(VERB_LINES), parse_verbs(VERB_LINES))


def test_verb_lines_give_each_verb_its_forms_synonyms_apart():
    words = _words()
    assert words.forms("betrieben") == {"betreiben", "betreibend", "betrieben", "betrieb"}
    assert words.forms("gewann") == {"gewinnen", "gewinnend", "gewonnen", "gewinnt", "gewann"}   # no example sentence
    assert words.forms("siegte") == {"siegen", "siegend", "gesiegt", "siegt", "siegte"}
    assert words.forms("Betrieb") == frozenset()   # a noun line


def test_a_question_s_strong_verbs_have_their_other_forms_as_alternates():
    words = _words()
    # "betrieb" is also the noun "Betrieb" of the list: left out
    assert verbforms.alternates("Wer betreibt die Kantine?", words) == {"betreiben": "betreibt", "betrieben": "betreibt"}
    assert set(verbforms.alternates("Wer gewinnt?", words)) == {"gewann", "gewinnen", "gewonnen"}   # no "gewinnend"
    q = "Wer betreibt die Kantine?"
    assert verbforms.searched(q, q) == q   # the full-text query does not grow with them


def test_the_extractive_answer_counts_another_form_as_the_question_s_verb():
    from irisrag.rag.extractive import lexical_share
    from irisrag.rag.lexical import terms
    q = "Wer betreibt die Kantine?"
    alternates = verbforms.alternates(q, _words())
    sentence = "Betrieben wird sie von der Firma Friesenküche Catering aus Aurich."
    assert lexical_share(terms(q), sentence) == 0.0
    assert 0.0 < lexical_share(terms(q), sentence, alternates) < 1.0   # "Kantine" is still missing
    # "betrieben" and the noun "Betrieb" share a normal form: forms are matched as written
    assert lexical_share(terms(q), "Erste Hilfe im Betrieb", alternates) == 0.0
    assert verbforms.alternates(q, None) == {}


def test_an_ieren_verb_searches_its_ation_noun():
    q = "Wie simuliere ich eine Installation mit apt-get?"
    assert verbforms.action_nouns(q) == ["simulation"]
    assert verbforms.action_nouns("Wie konfiguriert man das Netz?") == ["konfiguration"]
    assert verbforms.searched(q, q).endswith(" simulation")
    assert verbforms.action_nouns("Wo liegt die Konfiguration?") == []   # a noun is no verb
