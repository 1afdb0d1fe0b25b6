"""Actions on many documents at once (issue 19): delete, rebuild, move to another area.

Each document is handled on its own, so one refusal (a running import, a name taken in the
target area) leaves the others done; the result names what was refused and why.
Moving a document re-labels its chunks' area in LanceDB (one commit per document, through
the vector store) together with its row, so access rules apply at once.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from peewee import IntegrityError

from irisrag import components
from irisrag.errors import Conflict, IrisRagError, ValidationError
from irisrag.extensions import db
from irisrag.i18n import N_
from irisrag.ids import parse_ids as ids_in
from irisrag.ingest import stage
from irisrag.models import Document
from irisrag.models.documents import RUNNING
from irisrag.services.documents import documents as document_service
from irisrag.services.documents.registration import upload_root

log = logging.getLogger(__name__)
MAX_SELECTED = 1000
ACTIONS = ("delete", "rebuild", "move")


@dataclass(frozen=True)
class Refusal:
    """A selected document an action was refused for, with the typed error that says why."""

    name: str
    error: IrisRagError


@dataclass(frozen=True)
class BulkResult:
    """What an action on the selection did: how many documents it handled, and the refusals."""

    done: int = 0
    refused: list[Refusal] = field(default_factory=list)


def parse_ids(values: Iterable[str]) -> list[int]:
    """Return the selected document ids (positive ints, each once, at most MAX_SELECTED)."""
    ids = sorted(set(ids_in(values)))
    if not ids:
        raise ValidationError(N_("Please select at least one document."), field="ids")
    if len(ids) > MAX_SELECTED:
        raise ValidationError(N_("Please select at most %(num)d documents at once."), field="ids",
                              params={"num": MAX_SELECTED})
    return ids


def apply(action: str, ids: list[int], area_id: int | None = None) -> BulkResult:
    """Run ``action`` (delete, rebuild, move) on every selected document that still exists."""
    if action not in ACTIONS:
        raise ValidationError(N_("Please choose what to do with the selected documents."), field="action")
    if action == "move":
        target = document_service.area_of(area_id) if area_id else None
        if target is None:
            raise ValidationError(N_("Please choose the area to move the documents to."), field="target")
        return _each(ids, lambda doc_id: move_document(doc_id, target.id))
    call = document_service.delete_document if action == "delete" else document_service.rebuild
    return _each(ids, call)


def _each(ids: list[int], call: Callable[[int], object]) -> BulkResult:
    done, refused = 0, []
    names = {d.id: d.name for d in Document.select(Document.id, Document.name).where(Document.id.in_(ids))}
    for doc_id in ids:
        if doc_id not in names:
            continue  # deleted meanwhile: nothing left to do with it
        try:
            call(doc_id)
        except IrisRagError as exc:
            log.info("bulk_refused document_id=%s code=%s", doc_id, exc.code)
            refused.append(Refusal(names[doc_id], exc))
        else:
            done += 1
    return BulkResult(done, refused)


def move_document(document_id: int, area_id: int) -> Document:
    """Move a document (row, chunks and staged file) to another area; refused while its import runs."""
    doc = document_service.get_document(document_id)
    target = document_service.area_of(area_id)
    if doc.area_id == target.id:
        return doc
    directory = _moved_directory(Path(doc.directory), doc.area_id, target.id)
    try:
        with db.atomic():
            # Conditional: a job that starts meanwhile would write chunks under the old area. The
            # write lock held until commit keeps it from being queued before the chunks moved.
            moved = (Document.update(area=target.id, directory=str(directory))
                     .where((Document.id == doc.id) & Document.status.not_in(RUNNING)).execute())
            if not moved:
                raise Conflict(N_("“%(name)s” is being imported right now; wait until it has finished."),
                               params={"name": doc.name})
            _relabel(doc, target.id, Path(doc.directory) / doc.name, directory / doc.name)
    except IntegrityError as exc:
        raise Conflict(N_("The area “%(area)s” already has a document “%(name)s”."),
                       str(exc), params={"area": target.name, "name": doc.name}) from exc
    log.info("document_moved document_id=%s from_area=%s to_area=%s", doc.id, doc.area_id, target.id)
    return document_service.get_document(doc.id)


def _relabel(doc: Document, area_id: int, staged: Path, moved: Path) -> None:
    """Move the staged file and the chunks (one LanceDB commit); put the file back when the chunks fail."""
    _move_file(staged, moved)  # before the commit: a job queued right after it finds the file
    try:
        components.get().store.set_area(doc.id, area_id)
    except Exception:
        _move_file(moved, staged)
        raise


def _moved_directory(directory: Path, old_area: int, new_area: int) -> Path:
    """Return where a staged file of the new area lives (files outside the staging root stay put)."""
    root = upload_root()
    for subdir in stage.STAGING_DIRS:
        if directory == stage.staging_dir(root, subdir, old_area):
            return stage.staging_dir(root, subdir, new_area)
    return directory


def _move_file(source: Path, target: Path) -> None:
    if source == target or not source.is_file():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    source.replace(target)


def delete_area_with_documents(area_id: int, typed_name: str) -> int:
    """Delete an area with all its documents and their chunks, once its name is typed; return how many."""
    from irisrag.models import Area
    from irisrag.services.admin import admin as admin_service

    area = admin_service.get(Area, area_id)
    if (typed_name or "").strip() != area.name:
        raise ValidationError(N_("Type the area's name “%(name)s” to delete it with its documents."),
                              field="confirm", params={"name": area.name})
    ids = [d.id for d in Document.select(Document.id).where(Document.area == area.id)]
    result = _each(ids, document_service.delete_document)
    if result.refused:
        raise result.refused[0].error
    admin_service.delete_area(area.id)
    log.info("area_deleted_with_documents area_id=%s documents=%d", area.id, result.done)
    return result.done
