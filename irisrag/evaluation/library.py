"""An evaluation library of real documents with questions (``eval/real-de``): what is in it, and loading it.

Layout of a library folder::

    docs/              the documents, imported as they are (any supported type)
    questions.jsonl    {"id", "document", "kind", "question", "answers": [...]}   answerable
    offtopic.jsonl     {"id", "question"}                                       no document covers it
    followups.jsonl    {"id", "document", "first", "first_answers", "follow_up", "answers"}

``answers`` are short strings a right answer must contain (any one of them; compared
case- and white-space-insensitively). ``document`` names the file the question is about.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

QUESTIONS, OFFTOPIC, FOLLOWUPS, DOCS = "questions.jsonl", "offtopic.jsonl", "followups.jsonl", "docs"


@dataclass(frozen=True)
class Question:
    """An answerable question about one document, with the strings a right answer contains."""

    id: str
    question: str
    answers: tuple[str, ...] = ()
    document: str = ""
    kind: str = ""


@dataclass(frozen=True)
class FollowUp:
    """A first question and a short follow-up asked after it in the same conversation."""

    id: str
    first: Question
    follow_up: Question


@dataclass(frozen=True)
class Library:
    """The documents of a library and its three question sets."""

    name: str
    documents: tuple[Path, ...]
    questions: tuple[Question, ...]
    offtopic: tuple[Question, ...]
    followups: tuple[FollowUp, ...]

    def subset(self, ids: set[str]) -> Library:
        """Return the library with only the questions, off-topic questions and pairs whose id is in ``ids``."""
        return Library(self.name, self.documents, tuple(q for q in self.questions if q.id in ids),
                       tuple(q for q in self.offtopic if q.id in ids), tuple(f for f in self.followups if f.id in ids))

    def only_documents(self, names: set[str]) -> Library:
        """Return the library with only the named documents (the questions are kept as they are)."""
        return Library(self.name, tuple(d for d in self.documents if d.name in names), self.questions, self.offtopic,
                       self.followups)


def is_library(directory: Path) -> bool:
    """Tell whether a folder is a document library (``docs/`` and ``questions.jsonl``)."""
    return (Path(directory) / QUESTIONS).is_file() and (Path(directory) / DOCS).is_dir()


def _records(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _question(record: dict, text_key: str = "question", answers_key: str = "answers", suffix: str = "") -> Question:
    return Question(str(record["id"]) + suffix, str(record[text_key]), tuple(str(a) for a in record.get(answers_key)
                    or () if str(a).strip()), str(record.get("document", "")), str(record.get("kind", "")))


def load(directory: Path) -> Library:
    """Read a library folder (the layout in the module docstring)."""
    root = Path(directory)
    documents = tuple(sorted(p for p in (root / DOCS).iterdir() if p.is_file() and not p.name.startswith(".")))
    followups = tuple(FollowUp(str(r["id"]), _question(r, "first", "first_answers", "/first"),
                               _question(r, "follow_up", "answers")) for r in _records(root / FOLLOWUPS))
    return Library(root.resolve().name, documents, tuple(map(_question, _records(root / QUESTIONS))),
                   tuple(map(_question, _records(root / OFFTOPIC))), followups)
