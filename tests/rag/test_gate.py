"""The context gate: the original's lexical rule, ``ranked``, and the default ``evidence``."""
from __future__ import annotations

import pytest

from irisrag.config import DEFAULTS, PROFILES, load
from irisrag.rag.gate import UNKNOWN_NOUN_MARGIN, on_topic, term_weights
from irisrag.rag.lexical import match, terms
from irisrag.rag.retrieve import (
    GateSettings,
    RetrievalSettings,
    agreed_document,
    build_context,
    gate_candidates,
)
from irisrag.vectors.store import Hit, TextHit

from .fakes import unit

QUESTION = "Wer hat die Brücke über den Fluss entworfen?"       # German ...
ENGLISH = "The bridge across the river was designed by Gustave Eiffel in 1884."  # ... English answer: no shared term
OTHER = "Opening hours of the museum shop are listed on the website."

RANKED = RetrievalSettings.original(gate=GateSettings.of(rule="ranked", top_documents=2, min_similarity=0.3))
LEXICAL = RetrievalSettings.original(gate=GateSettings.of(rule="lexical"))
EVIDENCE = RetrievalSettings.original(gate=GateSettings.of(rule="evidence", top_documents=2, min_evidence=0.36,
                                               coverage_weight=0.65, missing_weight=0.4))

CLAIM = "Vitamin supplementation reduces fracture risk in elderly women."
SCATTERED = [  # each shares two of the claim's words with it, in unrelated places (a lexical pass each)
    "The elderly monks kept bees; women from the valley sold the honey.",
    "Insurance risk tables were printed for women traders in the port.",
    "The elderly king feared the risk of a revolt in the north.",
    "Supplementation of the garrison's rations reduces desertion, the elderly general wrote.",
]


def _ask(store, embedder, settings):
    return build_context(QUESTION, [1], embedder=embedder, store=store, settings=settings)


def test_gate_ranked_keeps_the_top_document_across_languages(store, embedder):
    store.add(1, 1, 0, ENGLISH, unit(0.45))
    store.add(2, 1, 0, OTHER, unit(0.2))
    ranked = _ask(store, embedder, RANKED)
    assert [c.hit.document_id for c in ranked.chunks] == [1]          # the sure one, not the weak second
    assert {c.hit.document_id: c.gate for c in ranked.candidates} == {1: None, 2: "lexical"}
    original = _ask(store, embedder, LEXICAL)
    assert original.chunks == () and all(c.gate == "lexical" for c in original.candidates)


def test_gate_ranked_only_trusts_the_first_documents(store, embedder):
    for doc in range(3):
        store.add(doc, 1, 0, f"{ENGLISH} ({doc})", unit(0.5 - doc * 0.01))
    ranked = _ask(store, embedder, RANKED)
    assert [c.hit.document_id for c in ranked.chunks] == [0, 1]  # the third is below GATE_TOP_DOCUMENTS


def test_gate_ranked_still_answers_an_off_topic_question_with_nothing(store, embedder):
    store.add(1, 1, 0, OTHER, unit(0.25))  # the nearest chunk, but not similar: below GATE_MIN_SIMILARITY
    assert _ask(store, embedder, RANKED).chunks == ()


def test_gate_settings_from_config_and_validation():
    gate = RetrievalSettings.from_config({"GATE_RULE": "Lexical", "GATE_TOP_DOCUMENTS": "5",
                                          "GATE_MIN_SIMILARITY": "0.4"}).gate
    assert gate == GateSettings.of(rule="lexical", top_documents=5, min_similarity=0.4)
    evidence = RetrievalSettings.from_config({"GATE_RULE": "evidence", "GATE_MIN_EVIDENCE": "0.5", "GATE_COVERAGE_WEIGHT": "1",
                                              "GATE_MISSING_WEIGHT": "0.1"}).gate
    assert (evidence.rule, evidence.min_evidence, evidence.coverage_weight, evidence.missing_weight) == \
        ("evidence", 0.5, 1.0, 0.1)
    assert RetrievalSettings.from_config(DEFAULTS).gate.rule == "evidence"  # the app's default
    assert RetrievalSettings.original().gate.rule == "lexical"  # the original's, for callers that pass nothing
    with pytest.raises(ValueError, match="unknown gate rule"):
        GateSettings.of(rule="semantic")


def _gate(environ, overrides=None):
    gate = RetrievalSettings.from_config(load(environ, overrides)).gate
    return gate.min_evidence, gate.coverage_weight, gate.missing_weight


def test_the_evidence_rule_takes_the_values_calibrated_for_the_embedder_unless_overridden():
    use = (DEFAULTS["GATE_MIN_EVIDENCE"], DEFAULTS["GATE_COVERAGE_WEIGHT"], DEFAULTS["GATE_MISSING_WEIGHT"])
    e5 = tuple(PROFILES["e5"][k] for k in ("GATE_MIN_EVIDENCE", "GATE_COVERAGE_WEIGHT", "GATE_MISSING_WEIGHT"))
    assert e5 != use and e5[0] > use[0]                                # e5's cosines run higher
    assert _gate({}) == use and _gate({"IRISRAG_EMBEDDER": "ollama"}) == use
    assert _gate({"IRISRAG_EMBEDDER": "e5"}) == e5
    assert _gate({"IRISRAG_EMBEDDER": "E5"}, {"GATE_MIN_EVIDENCE": 0.9}) == (0.9, *e5[1:])
    assert _gate({"IRISRAG_EMBEDDER": "e5"}, {"GATE_MISSING_WEIGHT": use[2]}) == (*e5[:2], use[2])   # set: kept
    assert _gate({"IRISRAG_EMBEDDER": "e5", "IRISRAG_RETRIEVAL_PROFILE": "use"}) == use   # the profile named wins
    assert _gate({"IRISRAG_RETRIEVAL_PROFILE": "e5"}) == e5
    explicit = RetrievalSettings.from_config({**DEFAULTS, "EMBEDDER": "e5"}).gate   # a plain mapping: all set
    assert (explicit.min_evidence, explicit.coverage_weight, explicit.missing_weight) == use


def test_gate_evidence_keeps_a_cross_lingual_match_without_shared_words(store, embedder):
    store.add(1, 1, 0, ENGLISH, unit(0.45))   # no question term anywhere: nothing known, nothing missing
    store.add(2, 1, 0, OTHER, unit(0.2))
    context = _ask(store, embedder, EVIDENCE)
    assert [c.hit.document_id for c in context.chunks] == [1]     # on-topic, and the document with the evidence
    assert [round(c.evidence, 2) for c in context.candidates] == [0.45, 0.2]
    assert [c.gate for c in context.candidates] == [None, "lexical"]   # the weak second one: no evidence, no words
    assert _ask(store, embedder, LEXICAL).chunks == ()


def test_gate_evidence_answers_an_off_topic_question_with_nothing(store, embedder):
    for doc, text in enumerate(SCATTERED):  # as similar as a weak real match, and two shared words each
        store.add(doc, 1, 0, text, unit(0.34 - doc * 0.01))
    question = CLAIM
    original = build_context(question, [1], embedder=embedder, store=store, settings=LEXICAL)
    assert len(original.chunks) == 4 and original.sources  # the lexical rule lets every scattered pair through
    ranked = build_context(question, [1], embedder=embedder, store=store, settings=RANKED)
    assert ranked.chunks                         # and so does a cosine threshold of 0.3
    context = build_context(question, [1], embedder=embedder, store=store, settings=EVIDENCE)
    assert context.chunks == () and context.sources == ()   # "no information", and no found sources
    assert {c.gate for c in context.candidates} == {"evidence"}
    assert all(c.evidence < 0.36 for c in context.candidates if c.evidence is not None)


def test_gate_evidence_passes_a_chunk_that_holds_the_rare_words(store, embedder):
    for doc, text in enumerate(SCATTERED):
        store.add(doc, 1, 0, text, unit(0.38 - doc * 0.01))
    store.add(9, 1, 0, "Vitamin supplementation and fracture risk: a trial in elderly women.", unit(0.375))
    context = build_context(CLAIM, [1], embedder=embedder, store=store, settings=EVIDENCE)
    assert context.chunks and context.chunks[0].hit.document_id == 0  # on-topic: the ranking's order (vector)
    kept = {c.hit.document_id for c in context.chunks}
    assert 9 in kept                                                   # the one that covers the claim
    best = max(context.candidates, key=lambda c: c.evidence or 0)
    assert best.hit.document_id == 9 and best.evidence >= 0.36


def test_gate_evidence_lets_documents_without_evidence_in_on_the_lexical_rule_only(store, embedder):
    store.add(1, 1, 0, ENGLISH, unit(0.6))
    store.add(2, 1, 0, OTHER, unit(0.5))
    store.add(3, 1, 0, "Eine Museumsbrücke im Foyer.", unit(0.4))      # third document, no shared term
    store.add(4, 1, 0, "Die Brücke über den Fluss bei Nacht.", unit(0.3))  # fourth, two shared terms
    context = _ask(store, embedder, EVIDENCE)
    assert [c.hit.document_id for c in context.chunks] == [1, 4]
    gates = {c.hit.document_id: c.gate for c in context.candidates}
    assert gates[2] == gates[3] == "lexical"   # similar, but without the words the candidates hold; no shared term


def test_term_weights_count_rare_terms_more():
    question = terms("Brücke Fluss")
    texts = ["Die Brücke", "Die Brücke", "Die Brücke", "Der Fluss und die Brücke"]
    weights, found = term_weights(question, [match(question, t) for t in texts])
    assert weights["fluss"] > weights["bruck"] > 0 and found == {"fluss", "bruck"}
    weights, found = term_weights(terms("Eiffelturm"), [match(terms("Eiffelturm"), t) for t in texts])
    assert found == set() and weights["eiffelturm"] > 0          # in no candidate: counted, never missing


def test_gate_evidence_credits_a_term_for_its_share_only():
    from irisrag.rag.gate import document_evidence
    from irisrag.vectors.store import Hit

    question_terms = terms("bridge river")
    texts = ["The bridge across the river.", "A river in the north.", "Opening hours."]
    hits = [Hit(doc, 1, 0, None, text, 0.2, doc) for doc, text in enumerate(texts)]
    matches = [match(question_terms, h.text) for h in hits]
    settings = GateSettings.of(top_documents=3, coverage_weight=1.0, missing_weight=1.0)
    whole = document_evidence(hits, matches, [0, 1, 2], question_terms, settings)
    bridge = next(iter(terms("bridge")))
    halved = document_evidence(hits, matches, [0, 1, 2], question_terms, settings, {bridge: 0.5})
    weights, _ = term_weights(question_terms, matches)
    share = weights[bridge] / sum(weights.values())
    assert whole[0] == pytest.approx(0.2 + 1.0)                       # covers both terms
    assert halved[0] == pytest.approx(whole[0] - 0.5 * share)          # the bridged term counts half
    assert halved[1] == pytest.approx(whole[1] + 0.5 * share)          # ... and is missing for half
    assert whole[2] == pytest.approx(0.2 - 1.0)                        # lacks both, the others hold them
    assert halved[2] == pytest.approx(0.2 - (1.0 - 0.5 * share))


def test_gate_evidence_takes_a_documents_better_cosine_of_the_question_in_its_words():
    from irisrag.rag.gate import document_evidence
    from irisrag.vectors.store import Hit

    question_terms = terms("Brücke Fluss")
    hits = [Hit(doc, 1, 0, None, text, cosine, doc) for doc, (text, cosine) in
            enumerate([(ENGLISH, 0.25), (OTHER, 0.3), ("Dritter Text.", 0.1)])]
    matches = [match(question_terms, h.text) for h in hits]
    settings = GateSettings.of(top_documents=2)
    plain = document_evidence(hits, matches, [0, 1, 2], question_terms, settings)
    asked = document_evidence(hits, matches, [0, 1, 2], question_terms, settings, cosines={0: 0.45, 1: 0.1, 2: 0.9})
    assert set(plain) == set(asked) == {0, 1}                     # the third document is not a first one
    assert asked[0] == pytest.approx(plain[0] + 0.2)              # the better cosine counts
    assert asked[1] == pytest.approx(plain[1])                    # a worse one changes nothing


def test_a_question_the_word_list_translated_needs_the_allowance_less_evidence():
    gate = GateSettings.of(min_evidence=0.45, translated_allowance=0.02)
    assert gate.threshold() == 0.45 and gate.threshold(translated=True) == pytest.approx(0.43)
    assert not on_topic({1: 0.44, 2: 0.3}, gate)                 # a question in the documents' language: off-topic
    assert on_topic({1: 0.44, 2: 0.3}, gate, translated=True)    # the same evidence across languages: on-topic
    assert not on_topic({1: 0.42}, gate, translated=True)
    config = RetrievalSettings.from_config({"GATE_TRANSLATED_ALLOWANCE": "0.05"}).gate
    assert config.translated_allowance == 0.05
    assert RetrievalSettings.from_config(load({})).gate.translated_allowance == DEFAULTS["GATE_TRANSLATED_ALLOWANCE"]
    assert RetrievalSettings.from_config(load({"IRISRAG_EMBEDDER": "e5"})).gate.translated_allowance == 0.0


def test_the_gate_passes_a_translated_question_s_document_on_the_lower_threshold():
    hits = [Hit(1, 1, 0, None, ENGLISH, 0.44, 0), Hit(2, 1, 0, None, OTHER, 0.2, 1)]
    question_terms = terms(QUESTION)
    matches = [match(question_terms, h.text) for h in hits]
    settings = RetrievalSettings.original(gate=GateSettings.of(min_evidence=0.45, translated_allowance=0.02))
    plain = gate_candidates(hits, matches, question_terms, settings)
    assert [c.gate for c in plain] == ["evidence", "evidence"]
    translated = gate_candidates(hits, matches, question_terms, settings, translated=True)
    assert [c.gate for c in translated] == [None, "lexical"]


def test_both_legs_ranking_a_translated_question_s_document_first_adds_the_agreement_bonus():
    hits = [Hit(1, 1, 0, None, ENGLISH, 0.33, 0), Hit(2, 1, 0, None, OTHER, 0.2, 1)]
    question_terms = terms(QUESTION)
    matches = [match(question_terms, h.text) for h in hits]
    settings = RetrievalSettings.original(gate=GateSettings.of(min_evidence=0.45, translated_allowance=0.02, agreement_bonus=0.11))
    alone = gate_candidates(hits, matches, question_terms, settings, translated=True)
    assert [c.gate for c in alone] == ["evidence", "evidence"]          # 0.33 < 0.43: off-topic
    agreed = gate_candidates(hits, matches, question_terms, settings, translated=True, agreed=1)
    assert [c.gate for c in agreed] == [None, "lexical"] and agreed[0].evidence == pytest.approx(0.44)
    other = gate_candidates(hits, matches, question_terms, settings, translated=True, agreed=2)
    assert [c.gate for c in other] == ["evidence", "evidence"]          # 0.2 + 0.11: still too little
    assert RetrievalSettings.from_config(load({})).gate.agreement_bonus == DEFAULTS["GATE_AGREEMENT_BONUS"]
    assert RetrievalSettings.from_config(load({"IRISRAG_EMBEDDER": "e5"})).gate.agreement_bonus == 0.0


def test_the_agreed_document_is_the_first_of_both_legs():
    first, second = Hit(7, 1, 0, None, ENGLISH, 0.4, 0), Hit(8, 1, 0, None, OTHER, 0.3, 1)
    assert agreed_document([first, second], [TextHit(first, 3.0), TextHit(second, 1.0)]) == 7
    assert agreed_document([first, second], [TextHit(second, 3.0), TextHit(first, 1.0)]) is None
    assert agreed_document([first], []) is None and agreed_document([], [TextHit(first, 1.0)]) is None


def test_a_question_whose_nouns_no_candidate_holds_needs_more_evidence():
    gate = GateSettings.of(min_evidence=0.45, translated_allowance=0.01)
    assert on_topic({1: 0.52}, gate)                                        # "Wer war der erste Mensch auf dem Mond?"
    assert not on_topic({1: 0.52}, gate, unknown_nouns=0.5)                 # ... when no document holds "Mond"
    assert on_topic({1: 0.60}, gate, unknown_nouns=0.5)                     # a close enough document still passes
    assert not on_topic({1: 0.58}, gate, unknown_nouns=1.0)
    assert on_topic({1: 0.45 + UNKNOWN_NOUN_MARGIN}, gate, unknown_nouns=1.0)
    hits = [Hit(1, 1, 0, None, "Der erste Mensch im Betrieb ist der Pförtner.", 0.2, 0),   # evidence 0.48
            Hit(2, 1, 0, None, "Der erste Tag.", 0.1, 1)]
    question_terms = terms("Wer war der erste Mensch auf dem Mond?")
    matches = [match(question_terms, h.text) for h in hits]
    settings = RetrievalSettings.original(gate=gate)
    assert [c.kept for c in gate_candidates(hits, matches, question_terms, settings)] == [True, False]
    refused = gate_candidates(hits, matches, question_terms, settings, unknown_nouns=0.5)
    assert [(c.kept, c.gate) for c in refused] == [(False, "evidence")] * 2   # the no-information answer


def test_a_context_whose_best_unit_answers_something_else_is_off_topic(store, embedder):
    """The evidence gate passes the document on its cosine (the vectors here are set: the question is the first
    axis); its only unit shares no word with the question and the passage embedder finds it far: no
    information, not a stray sentence. A unit that shares the question's words is answered."""
    from irisrag.rag.gate import GATE_EVIDENCE

    from .fakes import HashEmbedder

    class Passages(HashEmbedder):   # the question as the store's axis, the units hashed
        def embed_query(self, text):
            return unit(1.0)

    question = "Wie wandle ich ein Video in MP4 um?"
    store.add(1, 1, 0, "Kodieren und Dekodieren von MIME-Nachrichten mit mpack und munpack.", unit(0.9))
    assert build_context(question, [1], embedder=embedder, store=store, settings=EVIDENCE).chunks  # no passage embedder
    context = build_context(question, [1], embedder=Passages(), store=store, settings=EVIDENCE)
    assert context.chunks == () and {c.gate for c in context.candidates} == {GATE_EVIDENCE}
    store.add(2, 1, 0, "Ein Video wandelt ffmpeg in MP4 um.", unit(0.85))
    answered = build_context(question, [1], embedder=Passages(), store=store, settings=EVIDENCE)
    assert 2 in {c.hit.document_id for c in answered.chunks}


def test_a_question_that_only_names_the_collection_gets_no_passages(tmp_path):
    """On a real LanceDB with its full-text index (the rule needs the full-text leg): the library's and the town's
    names are in every document, "gegründet" in none (eval/holdout9-de off-01); a question whose other words a
    document holds is answered as before."""
    from irisrag.vectors.store import ChunkIn, VectorStore

    from .fakes import DIM, HashEmbedder

    embedder = HashEmbedder()
    store = VectorStore(str(tmp_path / "lance"), embedder.key, DIM, read_consistency_seconds=None)
    texts = ["Die Stadtbibliothek Falkenried öffnet dienstags um zehn Uhr.",
             "Die Stadtbibliothek Falkenried verleiht Bücher für vier Wochen.",
             "Die Stadtbibliothek Falkenried hat einen Bücherbus mit Hublift.",
             "Die Stadtbibliothek Falkenried zieht im Jahresbericht Bilanz."]
    for document, text in enumerate(texts, start=1):
        store.replace_document(document, 1, [ChunkIn(0, text)], embedder.embed_documents([text]))
    store.refresh_indexes()
    settings = RetrievalSettings.from_config({"TERM_BRIDGE": "none", "BRIDGE_DICTIONARY": ""})
    for question, answered in (("Wann wurde die Stadtbibliothek Falkenried gegründet?", False),
                               ("Wie lange verleiht die Stadtbibliothek Falkenried Bücher?", True)):
        context = build_context(question, [1], embedder=embedder, store=store, settings=settings)
        assert bool(context.chunks) is answered, question
