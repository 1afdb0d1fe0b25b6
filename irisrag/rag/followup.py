"""Follow-up questions: what retrieval searches for, given the conversation's previous turns.

A follow-up ("und für Debian 12?", "Wann wurde sie gebaut?") means more than its words. The
retrieval query is chosen once per question (``search_query``):

No previous turns
    the question as asked.

A language model is available (rule ``rewritten``)
    one short model call rewrites the question into a standalone question from the last
    ``REWRITE_TURNS`` turns (each answer cut to ``REWRITE_ANSWER_CHARS``). The reply is read as
    a stream, asked for at most ``REWRITE_MAX_TOKENS`` tokens, and cut off at its first line
    break or ``REWRITE_MAX_CHARS`` characters (the stream is closed there, so the model stops
    writing); the call has
    ``FOLLOWUP_REWRITE_SECONDS`` seconds (run on a pool of four threads; a call past its time
    is left to end on the client's own timeout, its stream closed at the next piece). It is
    timed as the stage ``rewrite``. Its text is the
    query of both the full-text and the vector search.

No model, or the rewrite failed, timed out or was empty (rule ``key_terms``)
    when the question looks elliptic, the previous question's key terms are appended to it, and
    both the full-text and the vector search use that text; any other question is searched as
    asked (a change of topic must not drag the old one along). Elliptic: the question has a
    referring word (``REFERRING_WORDS``: "es", "sie", "dort", "dafür", "it", "they", "there",
    ...), starts with a continuation ("und", "oder", "aber", "auch", "and", "or", "but",
    "what about", "how about"), or has at most two terms of its own ("und für Debian 12?").
    Key terms: the words of the latest previous question whose
    normal form (``lexical.normal_form``: not a stop word, at least two characters) is not
    already among the follow-up's terms, each normal form once, in the order asked, at most
    ``MAX_KEY_TERMS`` (8). When the latest previous question gives fewer than two (it was an
    elliptic follow-up itself), the one before it is read too. The "es" of "gibt es" refers to
    nothing ("Wie oft gibt es einen neuen Schutzhelm?" is a whole question and the frame of
    "Und eine neue Warnschutzjacke?"). A failed rewrite never fails the
    question.
    A follow-up that names a new entity in place of an old one ("Und 4712?" after "Was kostet
    Artikel 4711?", "Und in Bremen?" after "... in Hamburg eröffnet?", "Und der Schreibtisch?"
    after "Was kostet der Bürostuhl?") is searched as the previous question's frame with the new
    entity in place of the old one (``framed``): a number replaces the previous question's
    number, a capitalised word its capitalised word; where the previous question has several,
    the one after the same word ("in Bremen" / "in Hamburg"), else nothing is replaced and the
    key terms are appended. Pronouns and words like "das" keep the previous subject through
    the key terms.

An elliptic follow-up is also searched with the previous turn's documents first (``preferred_documents``:
the documents the latest previous answer cited): their candidate chunks move ahead of the others
in the ranking before the gate and the caps (``retrieve.build_context``'s ``prefer``), so "Und wer
macht das?" is answered from the document the conversation is about when that document has it;
the gate still asks for evidence, so a preferred document without it gives way to the others.

The answer prompt gets the previous turns as earlier chat messages (``answer.build_messages``),
the newest that fit into ``budget.fit_turns``; citation numbers of old answers are removed, as
they point into contexts the model no longer sees.
"""
from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass

from irisrag.llm.auto import chat_model
from irisrag.rag import lexical

log = logging.getLogger(__name__)

ASKED, REWRITTEN, KEY_TERMS = "asked", "rewritten", "key_terms"  # SearchQuery.rule
MAX_KEY_TERMS = 8
REWRITE_TURNS = 3
REWRITE_ANSWER_CHARS = 600
REWRITE_MAX_CHARS = 300
REWRITE_MAX_TOKENS = 96  # the model's own bound on the rewrite (a question is far shorter)
REWRITE_PROMPT = (
    "You rewrite the user's last message into one standalone search question that can be "
    "understood without the conversation: replace pronouns and ellipses by what they refer to. "
    "Keep the language of the last message. Reply with the question only, on one line."
)

REFERRING_WORDS = frozenset("""
    es sie er ihn ihm ihnen ihr dies diese dieser dieses diesem diesen dort dorthin daher dafür
    dagegen davon damit dabei darauf daran darin darüber dazu derselbe dieselbe dasselbe
    it they them its their this these those there he she him her his same
""".split())
EXISTENTIAL_VERBS = frozenset({"gibt", "gab", "gäbe", "geben"})   # "Gibt es …?": an "es" that refers to nothing
CONTINUATIONS = ("und", "oder", "aber", "auch", "and", "or", "but", "also", "what about", "how about")
MAX_ELLIPTIC_TERMS = 2
MAX_FRAME_TERMS = 3  # a follow-up with more terms of its own is searched with the key terms

_CITATION = re.compile(r"\s*\[\d+\]")
_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="rewrite")


@dataclass(frozen=True)
class PreviousTurn:
    """A turn of the conversation before the current question: what was asked and answered, the documents it cited."""

    question: str
    answer: str
    documents: tuple[int, ...] = ()


def preferred_documents(question: str, previous: Sequence[PreviousTurn]) -> frozenset[int]:
    """Return the documents an elliptic follow-up is searched in first: those the latest previous answer cited.

    A question that does not lean on the previous one (a change of topic) prefers none.
    """
    if not previous or not is_elliptic(question):
        return frozenset()
    return frozenset(previous[-1].documents)


@dataclass(frozen=True)
class SearchQuery:
    """What retrieval searches for, by which rule, the rewrite's seconds (None: no call) and why it failed."""

    text: str
    rule: str = ASKED
    seconds: float | None = None
    failure: str | None = None


def key_terms(question: str, previous: Sequence[PreviousTurn]) -> list[str]:
    """Return the previous questions' key terms the follow-up lacks (the documented rule, module docstring)."""
    seen = set(lexical.terms(question))
    found: list[str] = []
    for turn in reversed(previous[-2:]):
        for match in lexical.tokens(turn.question):
            form = lexical.normal_form(match.group())
            if form and form not in seen and len(found) < MAX_KEY_TERMS:
                seen.add(form)
                found.append(match.group())
        if len(found) >= 2:
            break
    return found


def is_elliptic(question: str) -> bool:
    """Tell whether a question leans on the previous one: a referring word, a continuation, or few terms."""
    return _leans(question) or len(lexical.terms(question)) <= MAX_ELLIPTIC_TERMS


def _leans(question: str) -> bool:
    """Tell whether a question has a referring word or opens with a continuation ("und", "what about")."""
    words = [m.group().casefold() for m in lexical.tokens(question)]
    opening = " ".join(words[:2])
    return any(w in REFERRING_WORDS and not _expletive(words, n) for n, w in enumerate(words)) \
        or any(opening == c or opening.startswith(c + " ") for c in CONTINUATIONS)


def _expletive(words: list[str], n: int) -> bool:
    """Tell whether the word at ``n`` is the "es" of "gibt es" / "es gibt", which refers to nothing."""
    return words[n] == "es" and bool({*words[max(0, n - 1):n], *words[n + 1:n + 2]} & EXISTENTIAL_VERBS)


def with_key_terms(question: str, previous: Sequence[PreviousTurn], failure: str | None = None) -> SearchQuery:
    """Return an elliptic question in the previous one's frame, or with its key terms appended (rule ``key_terms``)."""
    if not is_elliptic(question):
        return SearchQuery(question, KEY_TERMS, None, failure)
    frame = framed(question, previous)
    terms = [] if frame else key_terms(question, previous)
    text = frame or (" ".join([question, *terms]) if terms else question)
    return SearchQuery(text, KEY_TERMS, None, failure)


def framed(question: str, previous: Sequence[PreviousTurn]) -> str | None:
    """Return the previous full question with the follow-up's one new entity in place of its old one, or None."""
    base = _frame_of(previous)
    own = [m for m in lexical.tokens(question) if lexical.normal_form(m.group())]
    if base is None or not own or len(own) > MAX_FRAME_TERMS:
        return None
    known = {lexical.normal_form(m.group()) for m in lexical.tokens(base)}
    new = [m for m in own if lexical.normal_form(m.group()) not in known]
    if len(new) != 1:
        return None
    old = _replaced(base, question, new[0])
    return None if old is None else base[:old.start()] + new[0].group() + base[old.end():]


def _frame_of(previous: Sequence[PreviousTurn]) -> str | None:
    """Return the latest previous question that does not lean on another (the frame a follow-up leans on)."""
    return next((t.question for t in reversed(previous[-2:]) if not _leans(t.question)), None)


def _replaced(base: str, question: str, new: re.Match[str]) -> re.Match[str] | None:
    """Return the entity of ``base`` that ``new`` replaces: same kind, not in the follow-up, unambiguous.

    Of several, the one after the same word as in the follow-up ("in Wien" for "in Graz"), else the
    one that names another ("Gästewohnung Mühlenfeld": "Und im Sonnenhang?" replaces "Mühlenfeld"),
    unless the follow-up refers back ("Und welche Durchwahl hat er?" asks more of the same).
    """
    asked = {lexical.normal_form(m.group()) for m in lexical.tokens(question)}
    found = [m for m in lexical.tokens(base)
             if _kind(m, base) and _kind(m, base) == _kind(new, question) and lexical.normal_form(m.group()) not in asked]
    if len(found) > 1:
        before = _word_before(question, new)
        matched = [m for m in found if before and _word_before(base, m) == before]
        names = {m.group().casefold() for m in found}
        refers = any(m.group().casefold() in REFERRING_WORDS for m in lexical.tokens(question))
        found = matched or ([] if refers else [m for m in found if _word_before(base, m) in names])
    return found[0] if len(found) == 1 else None


def _kind(match: re.Match[str], text: str) -> str | None:
    """Return an entity's kind: ``number`` (has a digit), ``name`` (capitalised, not the first word), else None."""
    word = match.group()
    if any(c.isdigit() for c in word):
        return "number"
    first = next(lexical.tokens(text)).start() == match.start()
    if word[:1].isupper() and not first and lexical.normal_form(word):
        return "name"
    return None


def _word_before(text: str, match: re.Match[str]) -> str:
    """Return the word just before a match, casefolded ("" at the start)."""
    words = [m.group().casefold() for m in lexical.tokens(text[:match.start()])]
    return words[-1] if words else ""


def search_query(question: str, previous: Sequence[PreviousTurn], llm: object | None,
                 timeout: float = 10.0) -> SearchQuery:
    """Return what retrieval searches for: the question, its rewrite by ``llm``, or it with key terms."""
    if not previous:
        return SearchQuery(question)
    model = chat_model(llm)
    if model is None:
        return with_key_terms(question, previous)
    return rewrite(question, previous, model, timeout)


def rewrite(question: str, previous: Sequence[PreviousTurn], llm: object, timeout: float) -> SearchQuery:
    """Ask the model for a standalone question; on any failure fall back to the key terms (never raise)."""
    start = time.perf_counter()
    stop = threading.Event()
    future = _POOL.submit(_rewrite_text, llm, rewrite_messages(question, previous), stop)
    try:
        text = clean_rewrite(future.result(timeout=timeout))
        failure = None if text else "empty rewrite"
    except FutureTimeout:
        stop.set()  # the worker closes the model's stream at its next piece
        future.cancel()  # still queued behind other stalled rewrites: never sent
        text, failure = "", f"no rewrite within {timeout:g} s"
    except Exception as exc:  # a failed rewrite must not fail the question
        text, failure = "", f"{type(exc).__name__}: {exc}"
    seconds = time.perf_counter() - start
    if not text:
        log.warning("followup_rewrite_failed detail=%s", failure)
        return SearchQuery(with_key_terms(question, previous).text, KEY_TERMS, seconds, failure)
    return SearchQuery(text, REWRITTEN, seconds)


def rewrite_messages(question: str, previous: Sequence[PreviousTurn]) -> list[dict[str, str]]:
    """Return the rewrite call's messages: the prompt, the last turns (answers shortened), the question."""
    messages = [{"role": "system", "content": REWRITE_PROMPT}]
    for turn in previous[-REWRITE_TURNS:]:
        messages.append({"role": "user", "content": turn.question})
        messages.append({"role": "assistant", "content": plain_answer(turn.answer)[:REWRITE_ANSWER_CHARS]})
    messages.append({"role": "user", "content": question})
    return messages


def _rewrite_text(llm: object, messages: list[dict[str, str]], stop: threading.Event) -> str:
    """Read the model's reply up to its first line break or REWRITE_MAX_CHARS, then close its stream."""
    pieces = _pieces(llm, messages)
    text = ""
    try:
        for piece in pieces:
            text += piece
            if stop.is_set() or "\n" in text.strip() or len(text) >= REWRITE_MAX_CHARS:
                break
    finally:
        close = getattr(pieces, "close", None)
        if close is not None:
            close()
    return text


def _pieces(llm: object, messages: list[dict[str, str]]) -> Iterator[str]:
    if callable(getattr(llm, "stream", None)):
        return iter(llm.stream(messages, max_tokens=REWRITE_MAX_TOKENS))  # type: ignore[attr-defined]
    return iter([str(llm.chat(messages, max_tokens=REWRITE_MAX_TOKENS))])  # type: ignore[attr-defined]


def clean_rewrite(reply: str) -> str:
    """Return the rewrite's first line without quotes, a label or emphasis, at most REWRITE_MAX_CHARS.

    A reply with citation numbers is an answer, not a question: it counts as no rewrite.
    """
    line = next((part for part in (reply or "").strip().splitlines() if part.strip()), "")
    if _CITATION.search(line):
        return ""
    line = re.sub(r"^(?:standalone question|question|frage)\s*:\s*", "", line.strip(), flags=re.I)
    return line.replace("**", "").replace("__", "").strip().strip("\"'„“”»«").strip()[:REWRITE_MAX_CHARS]


def plain_answer(answer: str) -> str:
    """Return an earlier answer without its citation numbers (they point into an old context)."""
    return _CITATION.sub("", answer or "").strip()
