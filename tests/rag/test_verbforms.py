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
