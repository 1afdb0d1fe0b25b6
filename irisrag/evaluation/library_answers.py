"""Answers on a library of real documents, as a user of a fresh install gets them (no language model).

Protocol (``evaluate``): the library's documents are imported into a temporary instance
through the worker's import pipeline (``scratch_instance``); each question is asked through
``services.asking.ask_from_web``, the dashboard's entry point, by a user who reaches the
library's one area. A follow-up is asked in the conversation its first question started,
with the previous turns the dashboard passes (``conversations.previous_turns``). The answer
is read as the dashboard shows it (``clean.shown_text`` of the answer HTML).

Measures (``LibraryReport.to_json``), each a share of its question set:

``right``            an expected string is in the shown answer (case and white space ignored)
``clean``            an answer is shown and has no markup, tags, JSON syntax, ToC or navigation
                     lines, and at most 500 characters (``clean.problems``)
``right_and_clean``  both
``offtopic_refused`` an off-topic question got the no-information answer (no passage found)
``followups_right``  the follow-up's answer holds its expected string (``followup_firsts_right``:
                     the first question's answer holds its own, for diagnosis)
``median_answer_chars``  of the answerable questions' shown answers

Diagnostics: ``uncited_sources`` (the "Sources" list, as the dashboard shows it, names a document
the answer does not cite; the found sources it does not cite are listed apart as "Other matches",
``other_matches``: the share of answers that show such a list),
``duplicates`` (a line of the answer is shown twice), problem counts, and per kind of document.
"""
from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from flask import Flask

from irisrag.evaluation.answers import contains
from irisrag.evaluation.clean import problems, shown_text
from irisrag.evaluation.library import Library, Question
from irisrag.evaluation.scratch_instance import Instance, open_instance
from irisrag.rag.answer_types import NO_CONTEXT_FOUND, AskResult
from irisrag.rag.followup import PreviousTurn
from irisrag.services.asking import asking, conversations

Progress = Callable[[str], None]
ANSWERABLE, OFFTOPIC, FIRST, FOLLOWUP = "answerable", "offtopic", "followup-first", "followup"


@dataclass(frozen=True)
class Row:
    """One asked question: what the user was shown and how it scores (the per-question dump)."""

    id: str
    set: str
    question: str
    answer: str
    status: str
    right: bool
    problems: tuple[str, ...]
    document: str = ""
    kind: str = ""
    expected: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    cited: tuple[str, ...] = ()
    others: tuple[str, ...] = ()
    search_query: str = ""
    previous: str = ""

    @property
    def clean(self) -> bool:
        return bool(self.answer) and not self.problems

    @property
    def refused(self) -> bool:
        return self.status == NO_CONTEXT_FOUND

    @property
    def uncited_sources(self) -> bool:
        return bool(self.answer) and bool(set(self.sources) - set(self.cited))

    @property
    def duplicates(self) -> bool:
        lines = [line.strip().lower() for line in self.answer.splitlines() if len(line.strip()) > 20]
        return len(lines) != len(set(lines))

    def to_json(self) -> dict:
        """Return the row for the dump, with the derived flags."""
        return {**asdict(self), "clean": self.clean, "refused": self.refused, "other_matches": bool(self.others),
                "uncited_sources": self.uncited_sources, "duplicates": self.duplicates}


def _share(rows: list[Row], flag: Callable[[Row], bool]) -> float:
    return round(sum(map(flag, rows)) / len(rows), 4) if rows else 0.0


@dataclass(frozen=True)
class LibraryReport:
    library: str
    documents: dict[str, str]
    chunks: int
    rows: list[Row] = field(default_factory=list)

    def of(self, name: str) -> list[Row]:
        return [r for r in self.rows if r.set == name]

    def to_json(self) -> dict:
        """Return the ``--json`` document (without the per-question rows)."""
        answerable, offtopic, follow = self.of(ANSWERABLE), self.of(OFFTOPIC), self.of(FOLLOWUP)
        return {
            "library": self.library, "documents": len(self.documents), "chunks": self.chunks,
            "failed_imports": sorted(n for n, s in self.documents.items() if s != "done"),
            "questions": len(answerable), "offtopic_questions": len(offtopic), "followups": len(follow),
            "llm": "extractive",
            "right": _share(answerable, lambda r: r.right), "clean": _share(answerable, lambda r: r.clean),
            "right_and_clean": _share(answerable, lambda r: r.right and r.clean),
            "offtopic_refused": _share(offtopic, lambda r: r.refused),
            "followups_right": _share(follow, lambda r: r.right),
            "followup_firsts_right": _share(self.of(FIRST), lambda r: r.right),
            "median_answer_chars": int(statistics.median(len(r.answer) for r in answerable)) if answerable else 0,
            "uncited_sources": _share(answerable, lambda r: r.uncited_sources),
            "other_matches": _share(answerable, lambda r: bool(r.answer) and bool(r.others)),
            "duplicates": _share(answerable, lambda r: r.duplicates),
            "problems": dict(sorted(Counter(p for r in answerable for p in r.problems).items())),
            "by_kind": self._by_kind(answerable),
        }

    @staticmethod
    def _by_kind(rows: list[Row]) -> dict[str, dict]:
        kinds = sorted({r.kind for r in rows})
        return {k: {"questions": len(of), "right": _share(of, lambda r: r.right),
                    "right_and_clean": _share(of, lambda r: r.right and r.clean)}
                for k in kinds for of in [[r for r in rows if r.kind == k]]}

    def lines(self) -> list[str]:
        """Return the text report."""
        data = self.to_json()
        out = [f"{data['library']}: {data['documents']} documents ({data['chunks']} chunks), answers by "
               f"{data['llm']}; failed imports: {', '.join(data['failed_imports']) or 'none'}",
               f"right                    {data['right']:.3f}  ({data['questions']} answerable questions)",
               f"clean                    {data['clean']:.3f}",
               f"right and clean          {data['right_and_clean']:.3f}",
               f"off-topic refused        {data['offtopic_refused']:.3f}  ({data['offtopic_questions']} questions)",
               f"follow-ups right         {data['followups_right']:.3f}  ({data['followups']} pairs; their first "
               f"questions right {data['followup_firsts_right']:.3f})",
               f"median answer length     {data['median_answer_chars']} characters",
               f"sources not cited        {data['uncited_sources']:.3f}  (the Sources list; other matches "
               f"listed apart in {data['other_matches']:.3f})",
               f"duplicate lines          {data['duplicates']:.3f}",
               "problems: " + (", ".join(f"{k} {v}" for k, v in data["problems"].items()) or "none")]
        out += [f"  {kind:<20} {v['questions']:>3}  right {v['right']:.3f}  right and clean {v['right_and_clean']:.3f}"
                for kind, v in data["by_kind"].items()]
        return out


def score_result(result: AskResult, question: Question, set_name: str, previous: str = "") -> Row:
    """Score one result as the dashboard shows it."""
    shown = shown_text(result.answer_html)
    names = lambda listed: tuple(sorted({s.name for s in listed}))  # noqa: E731
    return Row(question.id, set_name, question.question, shown, result.status,
               bool(question.answers) and contains(shown, question.answers), problems(shown) if shown else (),
               question.document, question.kind, question.answers, names(result.listed_sources),
               tuple(sorted({c.document_name for c in result.citations})), names(result.other_matches),
               result.search_query, previous)


def _ask(instance: Instance, question: Question, previous: list[PreviousTurn] = (),
         conversation_id: int | None = None) -> AskResult:
    return asking.ask_from_web(instance.user_id, question.question, [instance.area_id], previous=previous,
                               conversation_id=conversation_id)


def _follow_up(instance: Instance, first: Question, second: Question) -> list[Row]:
    """Ask the first question, then the follow-up in its conversation with the dashboard's previous turns."""
    result = _ask(instance, first)
    conversation = conversations.conversation_of(instance.user_id, result.question_id)
    previous = conversations.previous_turns(instance.user_id, conversation)
    return [score_result(result, first, FIRST),
            score_result(_ask(instance, second, previous, conversation), second, FOLLOWUP, first.question)]


def ask_all(instance: Instance, library: Library, progress: Progress | None = None) -> list[Row]:
    """Ask every question of the library in the instance; return the rows in set order."""
    rows = [score_result(_ask(instance, q), q, ANSWERABLE) for q in library.questions]
    rows += [score_result(_ask(instance, q), q, OFFTOPIC) for q in library.offtopic]
    if progress:
        progress(f"asked {len(rows)} questions")
    rows += [row for f in library.followups for row in _follow_up(instance, f.first, f.follow_up)]
    return rows


def evaluate(running: Flask, library: Library, scratch: Path, progress: Progress | None = None) -> LibraryReport:
    """Import the library into a temporary instance, ask every question, and return the report."""
    with open_instance(running, library.documents, scratch, progress) as instance:
        rows = ask_all(instance, library, progress)
    return LibraryReport(library.name, instance.imported, instance.chunks, rows)
