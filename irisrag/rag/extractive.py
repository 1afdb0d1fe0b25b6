"""The extractive answer: the few sentences of the context that answer the question, each cited.

No model is downloaded or called besides what retrieval already loaded. Every unit
(sentence, list item, table; ``sentences.py``) of the context passages is scored by

    score = SEMANTIC * cosine(question, unit)            the loaded embedder
          + LEXICAL  * share of the question's weighted terms in the unit   (lexical.py)
          + RANK     / position of its passage            the fused rank (1 = best)

plus ``span_kinds.KIND_BONUS`` for a unit holding the kind of span the question asks for (a
date for "Wann", a number for "Wie viel", a command for "Welcher Befehl", a name for "Wer"),
plus ``KEY_BONUS`` for a table row keyed by a letter the question names ("Klasse C"),
minus ``PARTIAL_PENALTY`` for a unit cut by the passage's edge (chunk overlap); such a
unit is dropped when it lies inside another unit. The answer's length follows the
ranking's confidence (``adaptive_budget``): when the best unit leads the second by
``SURE_GAP`` or more, about 300 characters; when the lead is smaller, 450 growing to 500 on
a tie, so that an uncertain ranking shows its close competitors too while the whole answer
stays within 500 characters (the goal is a median of at most 300 characters; the cap was 800
before: docs/evaluation.md, real documents). The best units are taken whole, best first, while the answer
stays within that budget (the first one always; a unit longer than the whole budget is
shortened at a word boundary with an ellipsis, keeping the part around the question's
terms); the next unit that does not fit is shortened to the room
left when that is at least ``FILL_MIN_CHARS``. Each unit ends with its
citation ``[n]``; list items are kept as a list, a table as a table, a record of structured
data (``ingest.records``) as a small table of its fields. Units that are a table of contents,
navigation or a bare title (``navigation``) never become answer text. The weights were tuned
on the first half of the xquad/de and xquad/en questions (README: extractive answers) and
checked on the second half.

Without an embedder (or when it fails) the semantic part is left out.
"""
from __future__ import annotations

import html
import logging
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Protocol

import numpy as np

from irisrag.ingest.records import parse_records
from irisrag.rag import definitions, option_names, record_fields, span_kinds, unit_vectors
from irisrag.rag.lexical import fold_accents, normal_form, term_list, term_weight, terms
from irisrag.rag.months import month_terms
from irisrag.rag.sentences import UNIT_HEADING, UNIT_ITEM, UNIT_LIST, UNIT_TABLE, Unit, units

if TYPE_CHECKING:
    from irisrag.rag.retrieve import Context, ContextChunk

log = logging.getLogger(__name__)

SEMANTIC, LEXICAL, RANK, PARTIAL_PENALTY = 1.0, 1.0, 0.15, 0.25
BUDGET_CHARS = 300  # the budget of the earlier fixed-length answer (bench/tune_extractive.py's baseline)
SURE_CHARS, UNSURE_CHARS, SURE_GAP = 300, (450, 500), 0.3  # the answer's length from the ranking's confidence
MIN_UNIT_CHARS = 12
INFLECTION_MIN_CHARS, INFLECTION_CHARS = 5, 2  # "entpack"/"entpackt" (lexical_share)
FILL_MIN_CHARS = 60  # the least room worth filling with a shortened unit
KEY_BONUS = 0.2  # a table row whose key is the question's one-letter name ("Klasse C": row_key)
# A unit of the manual of a program the question names ("mit stat": Context.manuals): a neighbouring manual's
# option ("-n, --number=TEILE" of split for "die Zugriffsrechte als Zahl") came first (eval/holdout9-de stat-01).
MANUAL_BONUS = 0.15
ELSEWHERE_GAP = 0.5  # a unit from another document this far below the best adds nothing (adds_nothing)
FAR_GAP = 1.0  # any unit this far below the best adds nothing (adds_nothing): filler after a clear answer
NO_SHARED_SCORE = 0.6  # a best unit below this score that shares no question term answers nothing (unanswered)
INSIDE_MIN_CHARS = 5  # a question term this long found inside a unit's word counts as shared (unanswered)
HEAD_CREDIT = 0.5  # the share of a compound question term's weight its head earns in a unit (lexical_share)
_WORDS = re.compile(r"\w+")
WHOLE = (UNIT_TABLE, UNIT_LIST)  # units shown whole or not at all: a table, a lead-in with its list


class Embedder(Protocol):
    def embed_documents(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


@dataclass(frozen=True)
class Scored:
    """A unit of a context passage, its passage number ([n]) and its score."""

    unit: Unit
    position: int
    score: float
    document: int = 0
    kind_held: bool = False  # the unit holds the kind of span the question asks for (span_kinds)


def lexical_share(question_terms: frozenset[str], text: str, alternates: Mapping[str, str] | None = None,
                  heads: Mapping[str, str] | None = None) -> float:
    """Return the weighted share of the question's terms found in the text (0..1), inflected forms included,
    and a question verb's other forms (``alternates``: "betrieben" for "betreibt", ``verbforms.py``); a
    compound's head (``heads``: "Ausweis" for "Werksausweis", ``compounds.head_alternates``) counts HEAD_CREDIT."""
    if not question_terms:
        return 0.0
    found, headed = _found(question_terms, text, alternates, heads)
    return (sum(map(term_weight, found)) + HEAD_CREDIT * sum(term_weight(t) for t in headed if t in question_terms)) \
        / sum(map(term_weight, question_terms))


def shared_terms(question_terms: frozenset[str], text: str, alternates: Mapping[str, str] | None = None,
                 heads: Mapping[str, str] | None = None) -> frozenset[str]:
    """The question's terms the text holds, as ``lexical_share`` counts them (a compound's head too)."""
    if not question_terms:
        return frozenset()
    found, headed = _found(question_terms, text, alternates, heads)
    return frozenset(found | (headed & question_terms))


def _found(question_terms: frozenset[str], text: str, alternates: Mapping[str, str] | None,
           heads: Mapping[str, str] | None) -> tuple[set[str], set[str]]:
    words = terms(text) | month_terms(text)   # "im Juli" and 2027-07-03 (months.py)
    folded = _WORDS.findall(fold_accents(text.casefold())) if alternates or heads else []
    other = {alternates[w] for w in folded if w in alternates} if alternates else set()
    found = {t for t in question_terms if t in words or t in other or any(inflected(t, w) for w in words)}
    headed = {heads[w] for w in folded if w in heads} - found if heads else set()
    return found, headed


def inflected(term: str, word: str) -> bool:
    """Tell whether two normal forms are one word inflected: one the other plus at most ``INFLECTION_CHARS``.

    The stemmer leaves German "-t" verb forms apart ("entpacke" -> entpack, "entpackt" -> entpackt:
    lexical.py's known gaps), so "Wie entpacke ich ...?" did not find "-x, --extract entpackt Dateien".
    Both forms must have ``INFLECTION_MIN_CHARS``, so short words ("port", "tag") never match longer ones.
    """
    short, long = sorted((term, word), key=len)
    return (len(short) >= INFLECTION_MIN_CHARS and 0 < len(long) - len(short) <= INFLECTION_CHARS
            and long.startswith(short))


def semantic(question: str, texts: list[str], embedder: Embedder | None,
             query_vector: np.ndarray | None = None) -> np.ndarray:
    if embedder is None or not texts:
        return np.zeros(len(texts), dtype=np.float32)
    try:
        query = np.asarray(embedder.embed_query(question) if query_vector is None else query_vector, dtype=np.float32)
        return unit_vectors.embedded(texts, embedder) @ query
    except Exception as exc:  # the answer must not fail with its embedder: lexical and rank remain
        log.warning("extractive_embed_failed detail=%s", exc)
        return np.zeros(len(texts), dtype=np.float32)


def candidates(context: Context) -> list[tuple[Unit, int]]:
    """Return every distinct unit of the context passages but headings, with its passage number."""
    seen: set[str] = set()
    found: list[tuple[Unit, int]] = []
    for chunk in context.chunks:
        if marked_navigation(chunk):
            continue
        for unit in record_units(chunk.hit.text) or units(chunk.hit.text, starts_document=chunk.hit.chunk_index == 0):
            key = " ".join(unit.text.lower().split())
            if len(key) >= MIN_UNIT_CHARS and key not in seen and unit.kind != UNIT_HEADING \
                    and not navigation(unit.text):
                seen.add(key)
                found.append((unit, chunk.position))
    return _without_fragments(found)


def whole_records(context: Context) -> dict[tuple, str]:
    """The records split across the context's chunks, joined (``joined_records``), by ``record_key``."""
    documents = {chunk.position: chunk.hit.document_id for chunk in context.chunks}
    found = [(unit, chunk.position) for chunk in context.chunks for unit in record_units(chunk.hit.text)]
    wholes: dict[tuple, str] = {}
    for unit, position in joined_records(found, documents):
        wholes.setdefault(record_key(unit.text, documents.get(position, 0)), unit.text)
    return wholes


def record_key(text: str, document: int) -> tuple | None:
    """A record unit's document, table and key field; None for other text."""
    record = record_fields.parse(text)
    return (document, record[0], record[1][0]) if record and record[1] else None


def joined_records(found: list[tuple[Unit, int]], documents: Mapping[int, int]) -> list[tuple[Unit, int]]:
    """Join the pieces of a record split across chunks (``ingest.records.split_record``: each piece repeats the
    key) into the first piece's unit. The answer shows a chosen piece as the whole record it belongs to
    (``compose``), so its fields are chosen from all of them: a branch's "hinweise_barrierefreiheit" sat in the
    second piece, and the answer showed the first without it (eval/holdout9-de st-05). The pieces are scored
    apart: joined, a long record held more of the question's words than the sentence that answers (eval/
    holdout7-de ho-04). A piece joins when it comes from the same document and table, has the same key field
    and none of its other fields' names is the first piece's (another record of the table has the same names)."""
    joined: list[tuple[Unit, int]] = []
    first: dict[tuple, int] = {}
    for unit, position in found:
        record = record_fields.parse(unit.text) if unit.kind == UNIT_TABLE else None
        if record is None or not record[1]:
            joined.append((unit, position))
            continue
        title, fields = record
        key = (documents.get(position), title, fields[0])
        if key in first:
            earlier, at = joined[first[key]]
            known = record_fields.parse(earlier.text)[1]
            new = [field for field in fields if field not in known]
            if new and not {name for name, _ in new} & {name for name, _ in known}:
                joined[first[key]] = (replace(earlier, text=record_fields.table(title, [*known, *new])), at)
                continue
        first.setdefault(key, len(joined))
        joined.append((unit, position))
    return joined


def marked_navigation(chunk: ContextChunk) -> bool:
    """Tell whether a passage was marked navigation or a table of contents at import (``ingest.boilerplate``)."""
    return bool(getattr(chunk.hit, "boilerplate", False))


_DOT_LEADERS = re.compile(r"(?:\.\s?){4,}|…\s?…|(?:_\s?){4,}")
_SECTION_RUN = re.compile(r"(?:(?:^|\s)\d{1,2}(?:\.\d{1,2})*\.?\s+[A-ZÄÖÜ][^\d]{0,60}?){3,}")
_NAV_WORDS = frozenset("""zurück weiter vorwärts nach oben startseite home inhalt inhaltsverzeichnis übersicht
    navigation menü seite next previous prev back up contents index top""".split())
_CODE_MARKS = frozenset("-_/=$~|<>@")  # a command or a name with these is content, not a title
_CLOSED = re.compile(r"[.!?:;)\]\"»“]\s*$")


def navigation(text: str) -> bool:
    """Tell whether a unit is a table of contents, navigation or a bare title rather than answer text.

    Dot leaders ("Betriebsrat ....... 11"), a run of three or more numbered section titles
    ("Inhalt 1 Über uns 2 Arbeitszeit 3 Urlaub"), a line made mostly of navigation words
    ("« Zurück | Nach oben | Weiter »"), or a short title without a closing mark, a digit or a
    command's marks (at most four words, capitalised). Such units stay in the document and its viewer but
    never become answer text.
    """
    if _DOT_LEADERS.search(text) or _SECTION_RUN.search(text):
        return True
    words = re.findall(r"[^\W\d_]+", text.lower())
    if words and sum(w in _NAV_WORDS for w in words) * 2 >= len(words):
        return True
    return (len(words) <= 4 and text.strip()[:1].isupper() and not _CLOSED.search(text)
            and not any(c.isdigit() or c in _CODE_MARKS for c in text))


def record_units(text: str) -> list[Unit]:
    """Return each record of a record chunk (``ingest.records``) as a small two-column table; [] for other text."""
    chunk = parse_records(text)
    if chunk is None:
        return []
    records = [part for fields in chunk.records for part in repeated_groups(fields)]
    return [Unit(record_fields.table(chunk.table, fields), UNIT_TABLE, i) for i, fields in enumerate(records)]


def repeated_groups(fields: Sequence[tuple[str, str]]) -> list[Sequence[tuple[str, str]]]:
    """Split a record whose field names repeat into one record per repetition, each with the fields before them.

    An XML element holding a list of elements (``<section name="server">`` with its
    ``<setting>`` children) is one record whose fields ``setting.name``, ``setting.type``, ...
    repeat; each setting is its own answer unit, with the section's own fields first.
    """
    names = [name for name, _ in fields]
    first = next((n for n in names if names.count(n) > 1), None)
    if first is None:
        return [fields]
    starts = [i for i, name in enumerate(names) if name == first]
    head = list(fields[:starts[0]])
    return [head + list(fields[a:b]) for a, b in zip(starts, [*starts[1:], len(fields)], strict=True)]


def _without_fragments(found: list[tuple[Unit, int]]) -> list[tuple[Unit, int]]:
    """Drop partial units whose text lies inside another unit (the same sentence cut by chunk overlap)."""
    texts = [" ".join(u.text.lower().split()) for u, _ in found]

    def inside(i: int) -> bool:
        return any(len(other) > len(texts[i]) and texts[i] in other for other in texts)

    return [item for i, item in enumerate(found) if not (item[0].partial and inside(i))]


def score_units(question: str, context: Context, embedder: Embedder | None,
                query_vector: np.ndarray | None = None) -> list[Scored]:
    """Score every unit of the context for the question, best first (``query_vector``: the question's, if known)."""
    found = candidates(context)
    question_terms = context.terms or terms(question)
    similarity = semantic(question, [u.text for u, _ in found], embedder, query_vector)
    kinds, keys, defined = span_kinds.asked_kinds(question), question_keys(question), definitions.defined_term(question)
    documents = {chunk.position: chunk.hit.document_id for chunk in context.chunks}
    scored = [
        Scored(unit, position, float(SEMANTIC * sim + LEXICAL * lexical_share(question_terms, unit.text, context.alternates, context.heads)
                                     + RANK / position - (PARTIAL_PENALTY if unit.partial else 0.0)
                                     + span_kinds.bonus(kinds, unit.text) + definitions.bonus(defined, unit.text)
                                     + option_names.bonus(context.english, unit.text)
                                     - option_names.header_penalty(context.english, unit.text, question)
                                     + definitions.overview(kinds, unit.text)
                                     + (KEY_BONUS if row_key(unit) in keys else 0.0)
                                     + (MANUAL_BONUS if documents.get(position) in context.manuals else 0.0)),
               documents.get(position, 0),
               bool(kinds) and span_kinds.holds(kinds, unit.text))
        for (unit, position), sim in zip(found, similarity, strict=True)
    ]
    return sorted(scored, key=lambda s: -s.score)


def unanswered(question: str, context: Context, embedder: Embedder | None,
               query_vector: np.ndarray | None = None) -> bool:
    """Tell whether the context holds no answer: its best unit shares none of the question's terms and scores
    below NO_SHARED_SCORE (``score_units``). A term inside a longer word counts as shared (INSIDE_MIN_CHARS
    letters at least: "atlant" in "transatlantische Funkübertragung", the answer to "Wer schickte zuerst
    Funkwellen über den Atlantik?", xquad/de).

    Such a unit is all an extractive answer could show, and it answers something else: "Wie wandle ich
    ein Video in MP4 um?" got a table row about MIME tools, "Welche Drucker kann ich mit AirPrint vom
    iPhone aus nutzen?" a printer's record. On the nine libraries five off-topic questions had this shape
    and no answerable one; the nearest answer (a German question's English option line, the unit
    sharing no word with it) scored 0.67 (docs/evaluation.md). Without an embedder nothing is decided.
    """
    if embedder is None or not context.chunks:
        return False
    scored = score_units(question, context, embedder, query_vector)
    if not scored or scored[0].score >= NO_SHARED_SCORE:
        return False
    question_terms = context.terms or terms(question)
    folded = fold_accents(scored[0].unit.text.casefold())
    return lexical_share(question_terms, scored[0].unit.text, context.alternates, context.heads) == 0.0 \
        and not any(len(t) >= INSIDE_MIN_CHARS and t in folded for t in question_terms)


_ONE_LETTER = re.compile(r"(?<=\s)[A-Z](?=[\s?!.,;:]|$)")


def question_keys(question: str) -> frozenset[str]:
    """Return the capital letters that stand alone in the question ("Klasse C", "Typ B"), its first word aside.

    Single letters are no search words (too common in text), but in a table a row's key may be
    one: "Welche Netzmaske hat ein Netz der Klasse C?" asks for the row keyed "C" of a table whose
    rows A, B and C share every other word (eval/holdout-de net-02).
    """
    return frozenset(_ONE_LETTER.findall(question.strip()))


def row_key(unit: Unit) -> str | None:
    """Return the first cell of a table row unit (its last line: the header comes first), None for other units."""
    if unit.kind != UNIT_TABLE:
        return None
    cells = unit.text.rsplit("\n", 1)[-1].strip().strip("|").split("|")
    return cells[0].strip() if cells else None


def shorten(text: str, question_terms: frozenset[str], limit: int) -> str:
    """Cut a long unit to about ``limit`` characters around its first question term."""
    if len(text) <= limit:
        return text
    words = text.split()
    hits = [i for i, w in enumerate(words) if normal_form(w) in question_terms]
    start = max(0, (hits[0] if hits else 0) - 8)
    kept: list[str] = []
    for word in words[start:]:
        if sum(len(w) + 1 for w in kept) + len(word) > limit:
            break
        kept.append(word)
    return ("… " if start else "") + " ".join(kept) + " …"


def adaptive_budget(scored: Sequence[Scored], sure: int = SURE_CHARS, unsure: tuple[int, int] = UNSURE_CHARS,
                    gap: float = SURE_GAP) -> int:
    """Return the answer's length in characters from how clearly the best unit wins.

    The score lead of the best unit over the second is the confidence. With a lead of
    ``gap`` or more the best unit very likely holds the answer: ``sure`` characters. With a
    smaller lead the ranking is uncertain and the close competitors are shown too: the budget
    jumps to ``unsure[0]`` and grows linearly to ``unsure[1]`` as the lead shrinks to a tie.
    """
    lead = scored[0].score - scored[1].score if len(scored) > 1 else gap
    if lead >= gap:
        return sure
    low, high = unsure
    return int(low + (high - low) * (1.0 - max(0.0, lead) / gap))


def select(scored: Sequence[Scored], budget: int = BUDGET_CHARS) -> list[tuple[Scored, int]]:
    """Take the best units, each with the characters it may use, while the answer stays within the budget.

    The first unit is always taken (shortened to the budget if longer). Units that fit are
    taken whole; once the next one does not fit, it is taken shortened to what is left
    around the question's terms when at least ``FILL_MIN_CHARS`` remain, and selection ends.
    A unit that adds nothing is passed over (``adds_nothing``).
    """
    chosen: list[tuple[Scored, int]] = []
    used = 0
    for item in scored:
        if chosen and adds_nothing(item, [c for c, _ in chosen]):
            continue
        size = len(item.unit.text) + 5
        room = budget - used
        if chosen and size > room:
            if room - 5 >= FILL_MIN_CHARS and item.unit.kind not in WHOLE:
                chosen.append((item, room - 5))
                break
            continue
        chosen.append((item, budget))
        used += min(size, budget + 5)
        if used >= budget * 0.8 and budget - used < FILL_MIN_CHARS + 5:
            break
    return chosen


def _flat(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def adds_nothing(item: Scored, chosen: Sequence[Scored]) -> bool:
    """Tell whether a unit would add nothing to the units chosen so far.

    It repeats one of them (the one's words inside the other's: the same sentence alone and in
    its paragraph, from the PDF and the HTML copy of a handbook), or it comes from another
    document than the best unit and scores ``ELSEWHERE_GAP`` or more below it: the best unit clearly
    answers, and a much weaker unit from elsewhere only distracts (a ``journalctl -f`` line after
    the configuration record that names the log file, eval/real-de cfg-06, 0.83 below). A unit from
    elsewhere closer than that often says the same in other words (the handbook's "9:30 Uhr"
    after the configuration's "09:30", 0.36 below) and stays, unless the best unit holds the
    kind of span the question asks for and it does not: after the staff record that names who
    leads the Munich branch, the handbook's sentence on when the branches opened names no one
    (eval/real-de csv-05). Any unit, from the best unit's own document too, that scores ``FAR_GAP``
    or more below the best is filler: "Wann wird das Weihnachtsgeld ausgezahlt?" was followed by
    the safety briefing in January and the pay day (real-de hb-pdf-10). At 1.0 nineteen real-de
    answers lost such units and none of real-de, holdout-de or xquad/de (first 300) lost its
    right answer; at 0.8 real-de lost one (docs/evaluation.md).
    """
    best, words = chosen[0], _flat(item.unit.text)
    if any(words in _flat(c.unit.text) or _flat(c.unit.text) in words for c in chosen):
        return True
    if best.score - item.score >= FAR_GAP:
        return True
    return item.document != best.document and (best.score - item.score >= ELSEWHERE_GAP
                                               or (best.kind_held and not item.kind_held))


def _line(item: Scored, text: str) -> str:
    if item.unit.kind in WHOLE:
        return f"{text}\n\n[{item.position}]"
    return f"{text} [{item.position}]"


def compose(question: str, context: Context, embedder: Embedder | None, *, budget: int | None = None) -> str:
    """Return the extractive answer as Markdown: the chosen units, each with its citation.

    Without ``budget`` its length follows the ranking's confidence (``adaptive_budget``).
    """
    if not context.chunks:
        return ""
    scored = score_units(question, context, embedder)
    chosen = select(scored, adaptive_budget(scored) if budget is None else budget)
    question_terms = context.terms or terms(question)
    shown_fields = _record_view(question, question_terms, context, embedder)
    blocks: list[str] = []
    for item, limit, whole in _with_whole_records(chosen, context):
        text = shown_fields(whole) if item.unit.kind in WHOLE else shorten(item.unit.text, question_terms, limit)
        line = _line(item, text)
        if item.unit.kind == UNIT_ITEM and blocks and blocks[-1].lstrip().startswith(("-", "*", "+")) \
                and "\n" not in blocks[-1]:
            blocks[-1] += "\n" + line
        else:
            blocks.append(line)
    return "\n\n".join(blocks)


def _with_whole_records(chosen: Sequence[tuple[Scored, int]], context: Context) -> Iterator[tuple[Scored, int, str]]:
    """The chosen units with the text to show: a piece of a split record as the whole record (``joined_records``),
    once, however many of its pieces were chosen; any other unit as it is."""
    wholes, shown = whole_records(context), set()
    for item, limit in chosen:
        key = record_key(item.unit.text, item.document) if item.unit.kind == UNIT_TABLE else None
        whole = wholes.get(key, item.unit.text) if key is not None else item.unit.text
        whole = whole if _within(item.unit.text, whole) else item.unit.text
        if whole not in shown:
            shown.add(whole)
            yield item, limit, whole


def _within(piece: str, whole: str) -> bool:
    """Tell whether every field of a record piece is a field of the joined record (a piece of it, not another)."""
    return set(record_fields.parse(piece)[1]) <= set(record_fields.parse(whole)[1]) if piece != whole else True


def _record_view(question: str, question_terms: frozenset[str], context: Context,
                 embedder: Embedder | None = None) -> Callable[[str], str]:
    """Return how a table unit is shown: a long record as the fields that answer (``record_fields``), other text as is."""
    kinds = span_kinds.asked_kinds(question)
    named = record_fields.field_terms(question, question_terms)
    matches = lambda text: shared_terms(named, text, context.alternates, context.heads)  # noqa: E731
    similarity = partial(_field_similarity, question, embedder) if embedder is not None else None
    return lambda text: record_fields.shown(text, matches, kinds, similarity)


def _field_similarity(question: str, embedder: Embedder, texts: list[str], record: str) -> np.ndarray | None:
    """Each field's cosine to the question's words the record does not hold, not even inside a longer word
    ("Bibliothek" in "Stadtteilbibliothek"; ``record_fields``, step 3); None when the record holds every content
    word ("Bis wann hat die Bibliothek im Kornspeicher samstags auf?": the matching fields answer)."""
    held, folded = terms(record), fold_accents(record.casefold())
    folded += " " + _UMLAUT_SPELLED.sub(lambda m: m.group(1), folded)   # "stoerungen" of a key or path: "storungen"
    rest = " ".join(word for word in _QUESTION_WORDS.findall(question)
                    if not any(t in held or (len(t) >= INSIDE_MIN_CHARS and t in folded) for t in terms(word)))
    return semantic(rest, texts, embedder) if terms(rest) else None


_QUESTION_WORDS = re.compile(r"\w[\w-]*")
_UMLAUT_SPELLED = re.compile(r"([aou])e")
_TAG = re.compile(r"(<[^>]*>)")
_WORD = re.compile(r"(?<![&#\w])[^\W_]+")  # not the name of an entity (&amp; &#x27;)


def highlighter(question_terms: frozenset[str]) -> Callable[[str], str]:
    """Return a function that wraps the question's terms in ``<mark>`` in the text of sanitised HTML."""
    def mark(match: re.Match[str]) -> str:
        word = match.group(0)
        forms = term_list(word)
        return f"<mark>{word}</mark>" if forms and forms[0] in question_terms else word

    def apply(rendered: str) -> str:
        out, skip = [], 0
        for piece in _TAG.split(rendered):
            if piece.startswith("<"):
                name = piece[1:].lstrip("/").split(None, 1)[0].rstrip(">").lower() if len(piece) > 2 else ""
                if name in ("code", "pre", "a"):
                    skip += -1 if piece.startswith("</") else 1
                out.append(piece)
            else:
                out.append(piece if skip > 0 else _WORD.sub(mark, piece))
        return "".join(out)

    return apply


def render_html(to_html: Callable[[str], str], question_terms: frozenset[str]) -> Callable[[str], str]:
    """Return a Markdown renderer (``to_html``) that also highlights the question's terms."""
    mark = highlighter(frozenset(question_terms))
    return lambda markdown: mark(to_html(markdown))


def plain(text: str) -> str:
    """Return text with HTML entities resolved (for measuring containment)."""
    return html.unescape(text)
