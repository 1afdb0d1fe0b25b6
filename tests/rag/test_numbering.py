"""Citation numbers 1..n without gaps in reading order (issue 37 item 8): rag.numbering."""
from __future__ import annotations

from irisrag.rag.answer_types import ANSWERED, AskResult, CitationView, ContextEntry, SourceView
from irisrag.rag.citations import Unsupported, numbers
from irisrag.rag.numbering import new_numbers, partial, renumber, rewrite


def _entry(position: int, document_id: int) -> ContextEntry:
    return ContextEntry(position, document_id, 1, position, None, 0.5, 1.0)


def _citation(number: int, document_id: int) -> CitationView:
    return CitationView(number, f"{document_id}:{number}:", document_id, number, "", None, 1, f"d{document_id}", "t")


def _source(document_id: int) -> SourceView:
    return SourceView(document_id, f"d{document_id}.md", 1, "A", None, None, 1.0, ())


def test_cited_numbers_come_first_in_reading_order_then_the_rest_in_prompt_order():
    assert new_numbers([4, 2], [1, 2, 3, 4]) == {4: 1, 2: 2, 1: 3, 3: 4}
    assert new_numbers([], [2, 1]) == {1: 1, 2: 2}


def test_rewrite_maps_every_group_and_leaves_code_and_unknown_numbers():
    text = "A [4]. B [2, 4]. C [1-2]. `x[4]` D [9]."
    assert rewrite(text, {4: 1, 2: 2, 1: 3}) == "A [1]. B [2, 1]. C [3, 2]. `x[4]` D [9]."


def test_renumber_rewrites_text_citations_flags_and_context_consistently():
    result = AskResult(
        "?", (1,), ANSWERED, answer_text="Erst [3]. Dann [1] und [3].", shown_text="Erst [3]. Dann [1] und [3].",
        citations=(_citation(1, 10), _citation(3, 30)), unsupported=(Unsupported("Dann und", 1),),
        context=(_entry(1, 10), _entry(2, 20), _entry(3, 30)), invalid_citations=(7,))
    out = renumber(result)
    assert out.shown_text == out.answer_text == "Erst [1]. Dann [2] und [1]."
    assert [(c.number, c.document_id) for c in out.citations] == [(1, 30), (2, 10)]
    assert out.unsupported == (Unsupported("Dann und", 2),)
    assert [(c.position, c.document_id) for c in out.context] == [(1, 30), (2, 10), (3, 20)]
    assert out.invalid_citations == (7,)   # removed numbers keep the number the model wrote
    assert sorted(numbers(out.shown_text)) == list(range(1, len(out.citations) + 1))


def test_renumber_keeps_an_answer_already_in_order_as_it_is():
    result = AskResult("?", (1,), ANSWERED, shown_text="A [1]. B [2].", citations=(_citation(1, 1), _citation(2, 2)),
                       context=(_entry(1, 1), _entry(2, 2)))
    assert renumber(result) is result


def test_sources_follow_the_first_citation_of_each_document():
    result = renumber(AskResult(
        "?", (1,), ANSWERED, shown_text="X [2]. Y [1].", citations=(_citation(1, 10), _citation(2, 20)),
        context=(_entry(1, 10), _entry(2, 20)), sources=(_source(10), _source(20), _source(30))))
    assert [s.document_id for s in result.cited_sources] == [20, 10]
    assert [s.document_id for s in result.other_sources] == [30]


def test_a_streamed_prefix_already_carries_its_final_numbers():
    final = "Erst [3]. Dann [1] und [3]."
    done = rewrite(final, new_numbers([3, 1], [1, 2, 3]))
    for cut in range(len(final) + 1):
        shown = partial(final[:cut], [1, 2, 3])
        if numbers(shown):
            assert done.startswith(shown[: shown.rindex("]") + 1])
