"""What the library lacks: recent questions that got the no-information answer or a thumbs-down, grouped.

A question counts when its answer had status ``no_context`` (the user read "No information
was found") or its asker rated it with a thumbs-down, within the last ``DAYS`` days. The
questions are grouped by the embedder's vectors of what was searched (``question_groups``),
so "Wie beantrage ich Urlaub?" and "Wo kann ich Urlaub beantragen?" are one line. Users'
names are read only when MISSING_ANSWERS_SHOW_USERS allows it (default: not at all). This
is for admins: the views and the API check that before they call ``missing_answers``.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np
from peewee import JOIN

from irisrag import components
from irisrag.models import Area, Feedback, QuestionLog, User
from irisrag.models.base import utcnow
from irisrag.rag.answer_types import NO_CONTEXT_FOUND
from irisrag.services.admin.question_groups import group_vectors, representative, threshold_for

DAYS = 30
MAX_QUESTIONS = 2000  # the newest; older ones of the window are left out (``Report.truncated``)
NO_INFORMATION, THUMBS_DOWN = "no_information", "thumbs_down"
_CACHE_LIMIT = 10_000
_vector_cache: dict[tuple[str, str], np.ndarray] = {}
_cache_lock = threading.Lock()


@dataclass(frozen=True)
class Miss:
    """One question that the library did not answer well."""

    question_id: int
    question: str
    searched: str  # the retrieval query (a follow-up's rewritten question), grouped and inspected
    asked_at: datetime
    area_ids: tuple[int, ...]
    reasons: tuple[str, ...]
    comment: str
    username: str | None  # None unless the privacy setting shows names


@dataclass(frozen=True)
class MissGroup:
    """Similar questions: the representative first, then the members newest first."""

    representative: Miss
    members: tuple[Miss, ...]
    areas: tuple[tuple[int, str], ...]  # (id, name) of the areas searched, areas deleted since left out

    @property
    def count(self) -> int:
        return len(self.members)

    @property
    def last_asked(self) -> datetime:
        return self.members[0].asked_at

    def reason_count(self, reason: str) -> int:
        return sum(reason in m.reasons for m in self.members)


@dataclass(frozen=True)
class Report:
    groups: list[MissGroup]
    questions: int
    truncated: bool
    show_users: bool
    days: int = DAYS


def show_users() -> bool:
    """Return MISSING_ANSWERS_SHOW_USERS: may admins see who asked?"""
    return bool(components.get().config.get("MISSING_ANSWERS_SHOW_USERS", False))


def missing_answers(*, now: datetime | None = None, days: int = DAYS) -> Report:
    """Return the grouped questions of the last ``days`` days, the largest group first."""
    names = show_users()
    misses = recent_misses((now or utcnow()) - timedelta(days=days), names)
    truncated = len(misses) > MAX_QUESTIONS
    misses = misses[-MAX_QUESTIONS:]
    groups = _groups(misses) if misses else []
    return Report(groups, len(misses), truncated, names, days)


def recent_misses(since: datetime, with_names: bool) -> list[Miss]:
    """Return the questions asked since ``since`` with no information or a thumbs-down, oldest first."""
    down = (Feedback.question == QuestionLog.id) & (Feedback.rating < 0)
    fields = [QuestionLog.id, QuestionLog.question, QuestionLog.search_query, QuestionLog.created_at,
              QuestionLog.area_ids, QuestionLog.status, Feedback.id, Feedback.comment]
    query = QuestionLog.select(*fields).join(Feedback, JOIN.LEFT_OUTER, on=down)
    if with_names:
        query = query.select_extend(User.username).switch(QuestionLog).join(User)
    query = query.where((QuestionLog.created_at >= since)
                        & ((QuestionLog.status == NO_CONTEXT_FOUND) | Feedback.id.is_null(False)))
    rows = query.order_by(QuestionLog.created_at.desc(), QuestionLog.id.desc()).limit(MAX_QUESTIONS + 1).tuples()
    return [_miss(row, with_names) for row in reversed(list(rows))]


def _miss(row: tuple, with_names: bool) -> Miss:
    qid, question, searched, asked_at, area_ids, status, feedback_id, comment = row[:8]
    reasons = ((NO_INFORMATION,) if status == NO_CONTEXT_FOUND else ()) + ((THUMBS_DOWN,) if feedback_id else ())
    return Miss(qid, question, searched or question, asked_at, tuple(int(a) for a in area_ids or ()), reasons,
                comment or "", row[8] if with_names else None)


def _groups(misses: list[Miss]) -> list[MissGroup]:
    embedder = components.get().embedder
    vectors = _vectors(embedder, [m.searched for m in misses])
    area_names = {a.id: a.name for a in Area.select(Area.id, Area.name)}
    groups = [_group(misses, vectors, members, area_names)
              for members in group_vectors(vectors, threshold_for(embedder.key))]
    return sorted(groups, key=lambda g: (-g.count, -g.last_asked.timestamp(), g.representative.question_id))


def _group(misses: list[Miss], vectors: np.ndarray, members: list[int], area_names: dict[int, str]) -> MissGroup:
    chosen = misses[representative(vectors, members)]
    newest_first = sorted((misses[i] for i in members), key=lambda m: (m.asked_at, m.question_id), reverse=True)
    area_ids = sorted({a for m in newest_first for a in m.area_ids if a in area_names}, key=area_names.get)
    return MissGroup(chosen, tuple(newest_first), tuple((a, area_names[a]) for a in area_ids))


def _vectors(embedder, texts: list[str]) -> np.ndarray:
    """Embed the texts, reusing the vectors of texts embedded before (the same questions come back)."""
    with _cache_lock:  # web threads share the cache; clearing it must not race a reader
        missing = sorted({t for t in texts if (embedder.key, t) not in _vector_cache})
        if missing:
            if len(_vector_cache) + len(missing) > _CACHE_LIMIT:
                _vector_cache.clear()
            for text, vector in zip(missing, embedder.embed_documents(missing), strict=True):
                _vector_cache[(embedder.key, text)] = vector
        return np.stack([_vector_cache[(embedder.key, t)] for t in texts])
