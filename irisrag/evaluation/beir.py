"""Load a retrieval test set in BEIR layout.

A dataset directory holds ``corpus.jsonl`` (``{"_id", "title"?, "text"}``), ``queries.jsonl``
(``{"_id", "text"}``) and ``qrels/<split>.tsv`` (query id, corpus id, score; a header line).
The queries of a split are those with at least one judgement above 0 that also appear in
``queries.jsonl``, in the order of ``queries.jsonl``.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from irisrag.errors import ValidationError
from irisrag.i18n import N_


@dataclass(frozen=True)
class Dataset:
    """A corpus, the queries of one split and their relevance judgements."""

    name: str
    split: str
    corpus: dict[str, str]               # corpus id -> the text imported as one document
    queries: dict[str, str]              # query id -> question (this split only)
    qrels: dict[str, dict[str, int]]     # query id -> corpus id -> relevance (> 0)
    fingerprint: str                     # sha256 of corpus.jsonl (keys caches)
    titles: dict[str, str] = field(default_factory=dict)   # corpus id -> title (in its chunks' search text)


GENERIC_NAMES = frozenset({"beir", "data", "dataset", "corpus", "eval", "test", "latest"})


def dataset_name(path: Path) -> str:
    """Name a dataset by its path: its folder, prefixed by the parent's name when that is a family.

    A generic folder name (``beir``, ``data``) is skipped for its parent's; the parent is a
    family when it holds other datasets too (``xquad/de-en``).
    """
    path = path.resolve()
    while path.name.lower() in GENERIC_NAMES and path.parent != path:
        path = path.parent
    siblings = [p for p in path.parent.iterdir() if p != path and (p / "corpus.jsonl").is_file()] \
        if path.parent.is_dir() else []
    return f"{path.parent.name}/{path.name}" if siblings and path.parent.name else path.name


def _jsonl(path: Path) -> Iterator[dict]:
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValidationError(N_("The dataset is not valid JSON Lines"), f"{path}:{number}: {exc}") from exc


def document_text(record: dict) -> str:
    """Return the text imported for a corpus record: title, blank line, text (as a page would read)."""
    title, text = str(record.get("title") or "").strip(), str(record.get("text") or "").strip()
    return f"{title}\n\n{text}" if title else text


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    """Read a qrels TSV (header line) into query id -> corpus id -> relevance, dropping scores <= 0."""
    qrels: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            parts = line.rstrip("\n").split("\t")
            if number == 1 and not parts[-1].lstrip("-").isdigit():
                continue  # the header
            if len(parts) < 3:
                if line.strip():
                    raise ValidationError(N_("The qrels file is malformed"), f"{path}:{number}: {line.strip()!r}")
                continue
            if int(parts[2]) > 0:
                qrels.setdefault(parts[0], {})[parts[1]] = int(parts[2])
    return qrels


def load(directory: str | Path, split: str = "test", limit: int | None = None, *, name: str | None = None) -> Dataset:
    """Load a BEIR dataset directory; ``limit`` keeps the first N queries of the split."""
    path = Path(directory)
    files = [path / "corpus.jsonl", path / "queries.jsonl", path / "qrels" / f"{split}.tsv"]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise ValidationError(N_("This is not a BEIR dataset directory (or the split does not exist)"),
                              f"missing: {', '.join(missing)}")
    records = list(_jsonl(files[0]))
    corpus = {str(r["_id"]): document_text(r) for r in records}
    titles = {str(r["_id"]): str(r.get("title") or "").strip() for r in records}
    qrels = read_qrels(files[2])
    queries = {str(r["_id"]): str(r["text"]) for r in _jsonl(files[1]) if str(r["_id"]) in qrels}
    if limit is not None:
        queries = dict(list(queries.items())[: max(int(limit), 0)])
    qrels = {q: {d: rel for d, rel in qrels[q].items() if d in corpus} for q in queries}
    digest = hashlib.sha256(files[0].read_bytes()).hexdigest()
    return Dataset(name or dataset_name(path), split, corpus, queries, qrels, digest, titles)
