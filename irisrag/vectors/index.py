"""Index upkeep of a chunk table: full-text index, vector index, optimize and version cleanup.

Flask- and Redis-free; ``VectorStore.refresh_indexes`` and ``VectorStore.maintain`` call it, and
``irisrag.jobs.maintenance`` makes sure only one process runs ``maintain`` at a time.

What LanceDB 0.40 does, measured here (README: index upkeep):

* ``optimize()`` compacts fragments, folds rows written after an index was built into every
  index and prunes versions older than ``cleanup_older_than``. For the vector index each
  fold-in adds a *segment* (a delta searched separately), and fragments covered by different
  segments are no longer compacted, so folds are batched (the periodic run) and the index is
  retrained once there are more than ``max_segments`` of them.
* Rows not yet in an index are still found: they are scanned flat, so correctness never
  depends on upkeep, only latency (vector) and BM25 term statistics (full text).
* Writers commit optimistically; ``optimize``/``create_index`` can lose with "Retryable commit
  conflict" against another writer and are retried with backoff.
* Readers keep working on the version they read; old versions are removed only when older
  than ``cleanup_older_than`` (never 0: that deletes files a reader may still use).

Vector index: IVF with 8-bit scalar quantisation (``IVF_SQ``, cosine). At k=256 with an area
prefilter it reaches recall >= 0.98 only with a refine step (the quantised distances re-ranked
on the full vectors), hence ``SEARCH_REFINE_FACTOR``. A query probes SEARCH_MIN_NPROBES partitions
and, under a filter, more up to ``SEARCH_MAX_NPROBES``. Unbounded (``maximum_nprobes(0)``, the
rule until 2026-12) it scanned nearly every partition at 1M rows with a 15 % area filter (119 of
122), the larger half of the hybrid context's time. Capped at 80, the final context (the prompt's
chunks) was the same for 599 of 600 SciFact questions (397 of the 398 with any context) and the
vector leg ~20 % faster; at 60 it was ~30 % faster but 5 of the 398 contexts changed, 3 losing
their first document and 1 emptied (bench/README.md, "Hybrid context at 1M chunks: stages and
the final context"). Up to ~650,000 rows (LanceDB's default partitioning: rows / 8,192) an
index has at most 80 partitions and the cap changes nothing. IVF_HNSW_SQ took ~15x longer to build with lower recall at k=256; PQ variants at default
settings reached ~0.45 (bench/index_bench.py).
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from lancedb.index import FTS, Bitmap, IvfHnswSq, IvfSq

from irisrag.vectors.tables import BOILERPLATE_COLUMN, SEARCH_COLUMN, has_boilerplate, has_search_text

log = logging.getLogger(__name__)

# Snowball stemmers of Lance's tokenizer; the index records the one it was built with.
FTS_LANGUAGES = ("Arabic", "Danish", "Dutch", "English", "Finnish", "French", "German", "Greek", "Hungarian",
                 "Italian", "Norwegian", "Portuguese", "Romanian", "Russian", "Spanish", "Swedish", "Tamil",
                 "Turkish")
VECTOR_COLUMN = "vector"
TEXT_COLUMN = "text"
AREA_COLUMN = "area_id"
VECTOR_INDEX_TYPES = ("IVF_SQ", "IVF_HNSW_SQ")
SEARCH_MIN_NPROBES = 20      # LanceDB's default; partitions probed on every query
SEARCH_MAX_NPROBES = 80      # partitions probed at most under a narrow filter (0: no limit, every partition)
SEARCH_REFINE_FACTOR = 2     # re-rank 2k quantised candidates on the full vectors
# Lance's words for a lost optimistic commit, and for giving up after its own retries ("Too many
# concurrent writers", seen on S3 while imports committed): both are worth another try later.
_CONFLICT = ("conflict", "retryable", "concurrent writers", "write contention")
T = TypeVar("T")


@dataclass(frozen=True)
class IndexPolicy:
    """When to build, retrain and clean (the defaults are the settings' defaults)."""

    min_rows: int = 50_000                               # VECTOR_INDEX_MIN_ROWS
    index_type: str = "IVF_SQ"                           # VECTOR_INDEX_TYPE
    cleanup_older_than: timedelta = timedelta(hours=1)   # LANCEDB_CLEANUP_OLDER_THAN
    retrain_share: float = 0.25   # unindexed rows / indexed rows above which the index is rebuilt
    max_segments: int = 8         # fold-ins (index deltas) above which the index is rebuilt

    def __post_init__(self) -> None:
        if self.index_type not in VECTOR_INDEX_TYPES:
            raise ValueError(f"unknown vector index type {self.index_type!r}; one of {', '.join(VECTOR_INDEX_TYPES)}")


@dataclass(frozen=True)
class Maintenance:
    """What one upkeep pass did.

    ``fulltext``: none | created | optimized | current | deferred.
    ``vector``: none | below_threshold | created | retrained | folded | current | deferred.
    ``area_index``: none | created | current.
    """

    rows: int
    fulltext: str
    vector: str
    optimized: bool
    versions_removed: int
    seconds: float
    area_index: str = "none"  # none | created | current: the BITMAP index on area_id

    def as_dict(self) -> dict[str, Any]:
        """Return the report as a plain dict (job results, CLI JSON)."""
        return asdict(self)


def fulltext_column(table: Any) -> str:
    """The column the full-text index reads: the search text, or ``text`` in a table made before it."""
    return SEARCH_COLUMN if has_search_text(table) else TEXT_COLUMN


def fts_index(table: Any, column: str | None = None) -> Any:
    """Return the table's full-text index description (on ``column``, else the one it reads), None without one."""
    return _find(table.list_indices(), "FTS", column or fulltext_column(table))


def vector_index(table: Any) -> Any:
    """Return the table's vector index description, None without one."""
    return _find(table.list_indices(), "IVF", VECTOR_COLUMN)


def area_index(table: Any) -> Any:
    """Return the table's scalar index on ``area_id``, None without one."""
    return _find(table.list_indices(), "BITMAP", AREA_COLUMN)


def _area_step(table: Any, rows: int, policy: IndexPolicy) -> str:
    """Create the BITMAP index on area_id once the table is as large as the vector index's threshold.

    Every search prefilters by area; without the index that filter scans the column on each
    query (about 12 ms a leg at 1M rows, bench/README.md). Rows written later are folded in
    by ``optimize`` and are found by a scan until then.
    """
    if rows < policy.min_rows:
        return "none"
    if area_index(table) is not None:
        return "current"
    retry(lambda: table.create_index(AREA_COLUMN, config=Bitmap(), replace=True))
    log.info("rows=%d event=area_index_created", rows)
    return "created"


def _find(indices: Any, kind: str, column: str) -> Any:
    return next((i for i in indices if str(i.index_type).upper().startswith(kind) and i.columns == [column]), None)


def retry(operation: Callable[[], T], attempts: int = 5, delay: float = 0.2) -> T:
    """Run a LanceDB write, retrying optimistic commit conflicts with exponential backoff."""
    for attempt in range(attempts):
        try:
            return operation()
        except Exception as exc:  # lance raises plain errors; only a conflict is worth a retry
            if not any(word in str(exc).lower() for word in _CONFLICT) or attempt == attempts - 1:
                raise
            log.info("event=commit_conflict attempt=%d error=%s", attempt + 1, str(exc)[:200])
            time.sleep(delay * 2 ** attempt)
    raise AssertionError("unreachable")


def tune_query(query: Any) -> Any:
    """Set the probe and refine parameters of a vector query (no effect without an index)."""
    return (query.minimum_nprobes(SEARCH_MIN_NPROBES).maximum_nprobes(SEARCH_MAX_NPROBES)
            .refine_factor(SEARCH_REFINE_FACTOR))


def fulltext_language(name: str) -> str:
    """Return the stemmer's canonical name for a language name (any case); ValueError if unknown."""
    language = next((known for known in FTS_LANGUAGES if known.lower() == str(name).strip().lower()), None)
    if language is None:
        raise ValueError(f"unknown full-text language {name!r}; one of {', '.join(FTS_LANGUAGES)}")
    return language


def _fulltext_current(index: Any, language: str) -> bool:
    return index is not None and (index.index_details or {}).get("language") == language


def create_fulltext(table: Any, language: str) -> None:
    """Build (or rebuild) the full-text index on the search text (``text``: older tables) with the language's stemmer."""
    config = FTS(language=language, stem=True, remove_stop_words=True, ascii_folding=True)
    retry(lambda: table.create_index(fulltext_column(table), config=config, replace=True))
    log.info("language=%s event=fulltext_index_created", language)


def refresh_fulltext(table: Any, language: str) -> str:
    """Create the full-text index or fold new rows into it; see ``VectorStore.refresh_indexes``."""
    if table is None or table.count_rows() == 0:
        return "none"
    index = fts_index(table)
    if not _fulltext_current(index, language):
        create_fulltext(table, language)
        return "created"
    if index.num_unindexed_rows:
        retry(table.optimize)
        log.info("rows=%d event=fulltext_index_updated", index.num_unindexed_rows)
        return "optimized"
    return "current"


def build_vector_index(table: Any, index_type: str) -> None:
    """Train the vector index on every row, replacing the old one (readers keep using it until the commit)."""
    config = IvfHnswSq(distance_type="cosine") if index_type == "IVF_HNSW_SQ" else IvfSq(distance_type="cosine")
    retry(lambda: table.create_index(VECTOR_COLUMN, config=config, replace=True))


def _vector_step(table: Any, index: Any, rows: int, policy: IndexPolicy, retrain: bool) -> str:
    """Create or retrain the vector index when due; return what was done or what is pending."""
    if index is None:
        if rows < policy.min_rows:
            return "below_threshold"
        build_vector_index(table, policy.index_type)
        return "created"
    kind = "IVF_HNSW_SQ" if "hnsw" in str(index.index_type).lower() else "IVF_SQ"
    stale = (index.num_unindexed_rows > policy.retrain_share * max(index.num_indexed_rows, 1)
             or (index.num_segments or 1) > policy.max_segments or kind != policy.index_type)
    if retrain or stale:
        build_vector_index(table, policy.index_type)
        return "retrained"
    return "folded" if index.num_unindexed_rows else "current"


def _prunable(table: Any, older_than: timedelta) -> bool:
    """Say whether a version other than the latest is older than the cleanup age."""
    versions = table.list_versions()
    if len(versions) < 2:
        return False
    cutoff = datetime.now(UTC) - older_than
    oldest = min(v["timestamp"] for v in versions)
    oldest = oldest if oldest.tzinfo else oldest.astimezone()  # lance reports naive local time
    return oldest < cutoff


def maintain(table: Any, language: str, policy: IndexPolicy, *, full: bool = True,
             retrain: bool = False) -> Maintenance:
    """Run one upkeep pass over a chunk table.

    ``full=False`` is the pass after an import: it builds missing indexes, retrains a vector
    index that has fallen behind (unindexed share, segments) and, as long as there is no vector
    index, folds new rows into the full-text index. With a vector index the fold-in waits for
    the next full pass (one segment per pass instead of one per import); the new rows are
    searchable meanwhile. ``full=True`` (periodic job, ``flask rag maintain``)
    also retrains a stale vector index, folds, compacts and removes versions older than the
    policy's cleanup age. ``retrain`` forces a new vector index.
    """
    start = time.monotonic()
    rows = 0 if table is None else table.count_rows()
    if rows == 0:
        return Maintenance(0, "none", "none", False, 0, time.monotonic() - start)
    fts, vec = fts_index(table), vector_index(table)
    fulltext = "current"
    if not _fulltext_current(fts, language):
        create_fulltext(table, language)
        fulltext = "created"
    elif fts.num_unindexed_rows:
        fulltext = "optimized"
    vector = _vector_step(table, vec, rows, policy, retrain)
    areas = _area_step(table, rows, policy)
    if full:
        optimize = fulltext == "optimized" or vector in ("folded", "retrained") or _prunable(
            table, policy.cleanup_older_than)
    else:
        optimize = fulltext == "optimized" and vector == "below_threshold"
        vector = "deferred" if vector == "folded" else vector
        fulltext = "deferred" if fulltext == "optimized" and not optimize else fulltext
    versions_before = len(table.list_versions()) if optimize and full else 0
    if optimize:
        retry(lambda: table.optimize(cleanup_older_than=policy.cleanup_older_than))
    removed = max(0, versions_before - len(table.list_versions())) if optimize and full else 0
    report = Maintenance(rows, fulltext, vector, optimize, removed, round(time.monotonic() - start, 3), areas)
    level = logging.INFO if report.optimized or fulltext == "created" or vector in ("created", "retrained") else logging.DEBUG
    log.log(level, "event=maintenance full=%s rows=%d fulltext=%s vector=%s optimized=%s removed=%d seconds=%.3f",
            full, rows, fulltext, vector, optimize, removed, report.seconds)
    return report


def add_search_text(table: Any, language: str) -> bool:
    """Give a chunk table made before the search text column that column and its full-text index; True if it did.

    The column starts as a copy of ``text`` (no titles, no compound parts: those come with the
    next import or ``flask rag rebuild``). ``flask rag init-db`` runs this before the new
    release's processes start, so no writer holds the table's old schema meanwhile.
    """
    if has_search_text(table):
        return False
    retry(lambda: table.add_columns({SEARCH_COLUMN: TEXT_COLUMN}))
    rows = table.count_rows()
    if rows:
        create_fulltext(table, language)
    log.info("event=search_text_added rows=%d", rows)
    return True


def add_boilerplate(table: Any) -> bool:
    """Give a chunk table made before the navigation mark that column, false for every row; True if it did.

    Its chunks stay body text until their document is imported again (``flask rag rebuild``).
    """
    if has_boilerplate(table):
        return False
    retry(lambda: table.add_columns({BOILERPLATE_COLUMN: "false"}))
    log.info("event=boilerplate_added rows=%d", table.count_rows())
    return True
