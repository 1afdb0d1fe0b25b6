"""Citation numbers 1..n without gaps: the one renumbering of a decided answer (issue 37 item 8).

The model and the extractive answer cite passages by their number in the prompt ([2], [5]);
the reader should see [1], [2]. ``renumber`` maps the numbers the answer cites, in the order of
their first appearance, to 1..n and the passages it does not cite to n+1.. (in prompt order),
and rewrites everything that names a number: the answer text (as written and as shown), its citations, the unsupported
flags and the context entries. ``outcome.decide`` calls it last, so the page, the htmx
fragment, the end of a stream, the API, the CLI and the history all get the same numbers.
Numbers the answer cited that were not in the context (``invalid_citations``) were already
removed from the text and keep the number the model wrote. A streamed answer's text so far is
renumbered the same way as it grows (``partial``; the dashboard's ``token`` events); the API's
``token`` events carry the model's pieces as written, its ``done`` event the final numbers.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from irisrag.rag.answer_types import AskResult
from irisrag.rag.citations import Unsupported, markers, numbers


def new_numbers(cited: list[int], positions: list[int]) -> dict[int, int]:
    """Return old -> new: the cited numbers in first-appearance order, then the others in prompt order."""
    order = cited + [p for p in sorted(positions) if p not in cited]
    return {old: new for new, old in enumerate(order, start=1)}


def rewrite(text: str, mapping: Mapping[int, int]) -> str:
    """Return the text with every citation group's numbers mapped (a number not in ``mapping`` stays)."""
    out, last = [], 0
    for marker in markers(text):
        mapped = [mapping.get(n, n) for n in marker.numbers]
        out.append(text[last:marker.start] + "[" + ", ".join(map(str, mapped)) + "]")
        last = marker.end
    out.append(text[last:])
    return "".join(out)


def partial(text: str, positions: list[int]) -> str:
    """Return a streamed answer's text so far with its citations numbered as the finished answer will be.

    First appearance is stable as the text grows, so the numbers seen so far already have their final value.
    """
    return rewrite(text, new_numbers([n for n in numbers(text) if n in positions], positions))


def renumber(result: AskResult) -> AskResult:
    """Return the result with its citations numbered 1..n in reading order (see the module docstring)."""
    positions = [c.position for c in result.context] or [c.number for c in result.citations]
    mapping = new_numbers([n for n in numbers(result.shown_text) if n in positions], positions)
    if all(old == new for old, new in mapping.items()):
        return result
    return replace(
        result,
        answer_text=rewrite(result.answer_text, mapping),
        shown_text=rewrite(result.shown_text, mapping),
        citations=tuple(sorted((replace(c, number=mapping.get(c.number, c.number)) for c in result.citations),
                               key=lambda c: c.number)),
        unsupported=tuple(Unsupported(u.sentence, mapping.get(u.number, u.number)) for u in result.unsupported),
        context=tuple(sorted((replace(c, position=mapping.get(c.position, c.position)) for c in result.context),
                             key=lambda c: c.position)),
    )
