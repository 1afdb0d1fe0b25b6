"""Checked citations: parsing, mapping to context chunks, the invalid and unsupported flags, linked HTML."""
from __future__ import annotations

import pytest

from irisrag.rag.answer import answer
from irisrag.rag.citations import Citation, Unsupported, check, chunk_id, linked_html, markers, numbers
from irisrag.rag.lexical import LexicalMatch
from irisrag.rag.render import to_html
from irisrag.rag.retrieve import Context, ContextChunk
from irisrag.vectors.store import Hit

TEXTS = (
    "OpenTelemetry wird über die Datei otel.yaml konfiguriert.",   # [1] document 10, chunk 4, page 2
    "Die Kantine öffnet um elf Uhr.",                              # [2] document 11, chunk 0
    "Der Collector exportiert Traces an Jaeger.",                  # [3] document 10, chunk 5
)
HASHES = {10: "a" * 52 + "0123456789ab", 11: "f00d" * 16}


def chunks() -> tuple[ContextChunk, ...]:
    where = [(10, 4, 2), (11, 0, None), (10, 5, None)]
    return tuple(
        ContextChunk(Hit(doc, 1, index, page, text, 0.9 - n / 10, n), LexicalMatch(frozenset(), 2, 2.0), n + 1)
        for n, ((doc, index, page), text) in enumerate(zip(where, TEXTS, strict=True))
    )


def test_citations_map_numbers_to_chunks_with_deterministic_ids():
    checked = check("Die Konfiguration steht in otel.yaml [1]. Die Kantine öffnet um elf [2].", chunks(), HASHES)
    assert checked.citations == (
        Citation(1, 10, 4, HASHES[10], 2),
        Citation(2, 11, 0, HASHES[11], None),
    )
    assert checked.citations[0].chunk_id == "10:4:aaaaaaaaaaaa" == chunk_id(10, 4, HASHES[10])
    assert checked.citations[1].chunk_id == "11:0:f00df00df00d"
    assert (checked.invalid, checked.unsupported) == ((), ())
    assert checked.text == "Die Konfiguration steht in otel.yaml [1]. Die Kantine öffnet um elf [2]."


def test_citations_without_a_hash_keep_an_id_without_version():
    checked = check("otel.yaml [1].", chunks())
    assert checked.citations[0].document_sha256 == "" and checked.citations[0].chunk_id == "10:4:"


def test_citations_invalid_numbers_are_removed_and_flagged():
    checked = check("Die Datei heißt otel.yaml [1, 7]. Die Kantine öffnet um elf [9]. Zwei Quellen [0][2].",
                    chunks(), HASHES)
    assert checked.invalid == (0, 7, 9)
    assert checked.text == "Die Datei heißt otel.yaml [1]. Die Kantine öffnet um elf. Zwei Quellen [2]."
    assert [c.number for c in checked.citations] == [1, 2]
    assert "[7]" not in checked.text and "[9]" not in checked.text and "[0]" not in checked.text


def test_citations_invalid_number_opening_a_line_leaves_no_gap():
    checked = check("[4] Nichts davon.\nDie Kantine öffnet um elf [2].", chunks())
    assert checked.text == "Nichts davon.\nDie Kantine öffnet um elf [2]."
    assert checked.invalid == (4,)


def test_citations_unsupported_sentence_is_flagged():
    text = "Die Kantine öffnet um elf Uhr [1]. OpenTelemetry liest otel.yaml [1]."
    checked = check(text, chunks(), HASHES)
    assert checked.unsupported == (Unsupported("Die Kantine öffnet um elf Uhr.", 1),)
    assert checked.unsupported_numbers == {1}
    assert checked.text == text  # flagged, not removed
    assert checked.flagged(0, 1) and not checked.flagged(1, 1)


def test_citations_supported_sentences_are_not_flagged():
    text = ("Die Konfiguration steht in otel.yaml [1]. Die Kantine öffnet um elf [2]. "
            "Der Collector wird in otel.yaml konfiguriert und exportiert an Jaeger [1][3].")
    assert check(text, chunks(), HASHES).unsupported == ()


def test_citations_sentence_without_content_terms_is_not_flagged():
    assert check("Ja [2].", chunks()).unsupported == ()


def test_citations_one_unsupported_number_in_a_group_is_flagged_alone():
    checked = check("Traces gehen an Jaeger [2, 3].", chunks())
    assert checked.unsupported == (Unsupported("Traces gehen an Jaeger.", 2),)


@pytest.mark.parametrize(("text", "expected"), [
    ("otel.yaml [1]", [(1,)]),
    ("otel.yaml [1, 3]", [(1, 3)]),
    ("otel.yaml [1,3] und [ 2 ]", [(1, 3), (2,)]),
    ("otel.yaml [1; 2]", [(1, 2)]),
    ("otel.yaml [1][2]", [(1,), (2,)]),
    ("otel.yaml [1] [3]", [(1,), (3,)]),
    ("otel.yaml [1-3]", [(1, 2, 3)]),
    ("otel.yaml [1, 1]", [(1,)]),
])
def test_citations_forms_are_parsed(text, expected):
    assert [m.numbers for m in markers(text)] == expected


@pytest.mark.parametrize("text", [
    "im Jahr [2024]",                 # not a citation number
    "siehe [Handbuch](https://x.example/1)",
    "[1](https://x.example/1) ist ein Link",
    "[1]: https://x.example/ref",
    "Code `a[1]` hier",
    "```\nx = a[2]\n```",
    "Bereich [3-1] und [1-99]",      # backwards or too long a range
    "Text [a] und [1a]",
])
def test_citations_non_citations_are_left_alone(text):
    assert markers(text) == []
    assert check(text, chunks()).text == text


def test_citations_numbers_in_order_of_first_appearance():
    assert numbers("b [3] a [1][3] c [2, 1]") == [3, 1, 2]


def test_citations_placement_after_the_period_belongs_to_the_sentence_before():
    checked = check("Die Kantine öffnet um elf. [1] OpenTelemetry nutzt otel.yaml [1].", chunks())
    assert checked.unsupported == (Unsupported("Die Kantine öffnet um elf.", 1),)


def test_citations_at_the_start_of_a_line_belong_to_the_text_after_them():
    text = "Die Kantine öffnet um elf [2].\n\n[1] OpenTelemetry wird über otel.yaml konfiguriert."
    assert check(text, chunks()).unsupported == ()


def test_citations_linked_html_links_each_number_and_marks_flags():
    checked = check("Die Kantine öffnet um elf **Uhr** [1, 2]. Siehe [9].", chunks())
    html = linked_html(checked, to_html)
    assert ('[<a class="cite unsupported" href="#cite-1" aria-describedby="unsupported-note">1</a>'
            '<sup class="cite-flag" aria-hidden="true">?</sup>, <a class="cite" href="#cite-2">2</a>]') in html
    assert "<strong>Uhr</strong>" in html and "[9]" not in html and "Siehe." in html


def test_citations_linked_html_stays_sanitised_and_skips_code_and_links():
    checked = check('Siehe <img src=x onerror="alert(1)"> [1] und `a[1]` und [Link [1]](https://x.example/).',
                    chunks())
    html = linked_html(checked, lambda md: to_html(md, {"https://x.example/"}), href=lambda n: f"#q5-cite-{n}",
                       note_id="q5-note")
    assert "onerror" not in html and "<img" not in html
    assert '<a class="cite unsupported" href="#q5-cite-1" aria-describedby="q5-note">1</a>' in html
    assert "<code>a[1]</code>" in html
    assert '<a href="https://x.example/" rel="noopener noreferrer">Link [1]</a>' in html  # no nested link
    assert "\ue000" not in html and "\ue001" not in html


def test_citations_answer_checks_the_model_text():
    class Model:
        name = "fake"

        def chat(self, messages, max_tokens=None):
            return "Die Datei ist otel.yaml [1][4]."

    context = Context("Wie?", (1,), chunks(), (), (), {})
    result = answer("Wie wird OpenTelemetry konfiguriert?", context, Model(), hashes=HASHES)
    assert result.text == "Die Datei ist otel.yaml [1]."
    assert result.checked.invalid == (4,) and [c.chunk_id for c in result.checked.citations] == ["10:4:aaaaaaaaaaaa"]
