"""Sync of a source-volume folder: files added are imported, changed ones replaced, removed ones marked.

The folder is walked below the source volume only (a symlink leading out is skipped), hidden
files and unsupported types are left. A file's SHA-256 decides changed or unchanged.
"""
from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Iterator
from pathlib import Path

from irisrag import components
from irisrag.errors import IrisRagError, NotFound
from irisrag.i18n import N_
from irisrag.ingest.extract import SUPPORTED
from irisrag.ingest.stage import volume_root
from irisrag.models import Document, Source
from irisrag.services.documents import registration
from irisrag.services.sources import documents as sync_docs
from irisrag.services.sources.ledger import Ledger

log = logging.getLogger(__name__)
MAX_FILES = 100_000


def folder_of(source: Source) -> tuple[Path, Path]:
    """Return the source volume's root and the source's folder in it (both resolved).

    A folder that is gone fails the run: its files are not all marked removed at once (a
    renamed or unmounted folder is more likely than an emptied one; the sync says so instead).
    """
    root = volume_root(components.get().config["SRC_VOLUME_PATH"])
    folder = (root / source.folder_path).resolve()
    if not folder.is_relative_to(root) or not folder.is_dir():
        raise NotFound(N_("There is no folder %(path)s in the source volume."), str(folder),
                       params={"path": source.folder_path or "/"})
    return root, folder


def files_in(root: Path, folder: Path) -> Iterator[Path]:
    """Yield the supported files below the folder, in order, that resolve inside the volume."""
    count = 0
    for directory, subdirs, names in os.walk(folder):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
        for name in sorted(names):
            path = Path(directory) / name
            if name.startswith(".") or path.suffix.lower() not in SUPPORTED:
                continue
            if not path.resolve().is_relative_to(root) or not path.is_file():
                continue
            count += 1
            if count > MAX_FILES:
                return
            yield path


def sync_folder(source: Source, ledger: Ledger) -> str:
    """Settle every file of the folder and every document whose file is gone; return '' (no limits)."""
    root, folder = folder_of(source)
    known = {Path(d.directory) / d.name: d for d in Document.select().where(Document.source == source.id)}
    present = set()
    for path in files_in(root, folder):
        present.add(path)
        ledger.at(str(path.relative_to(root)))
        _settle_file(source, ledger, path, known.get(path), str(path.relative_to(root)))
    for path, doc in known.items():
        if path not in present and sync_docs.mark_removed(doc):
            ledger.count("removed", str(path))
    return ""


def _settle_file(source: Source, ledger: Ledger, path: Path, doc: Document | None, shown: str) -> None:
    try:
        if sync_docs.is_current(doc, _sha256(path)):
            sync_docs.keep(doc.id)
            ledger.count("unchanged", shown)
            return
        new = doc is None or not doc.sha256
        doc, _created = registration.register(source.area, path.parent, path.name, SUPPORTED[path.suffix.lower()],
                                              source=source.id)
        sync_docs.import_now(doc.id)
        sync_docs.keep(doc.id)
        ledger.count("new" if new else "changed", shown)
    except (IrisRagError, OSError) as exc:
        log.info("sync_file_failed path=%s error=%s", path, exc)
        ledger.count("failed", shown)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
