"""Import registration (SPEC 3): one ``register`` per kind of source, used by web, API, CLI and benchmarks.

Each function validates its input, stages what needs staging and returns the document of
(area, directory, file name) with whether it was created now. Identity includes the area: a
same-named file imported into another area is another document, and no registration ever
changes a document's area. Queueing (or running in-process) is the caller's next step.
"""
from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

from irisrag import components
from irisrag.errors import Conflict, NotFound, ValidationError
from irisrag.extensions import db
from irisrag.i18n import N_
from irisrag.ingest import stage
from irisrag.ingest.extract import kind_for
from irisrag.ingest.fetch import precheck_url
from irisrag.ingest.sniff import check_content, head_of
from irisrag.models import Area, Document

Registered = tuple[Document, bool]
MAX_URL_LENGTH = 2048


def _config():
    return components.get().config


def upload_root() -> Path:
    """Return the staging root with a relative path resolved against the project root."""
    root = Path(_config()["UPLOAD_ROOT"])
    return root if root.is_absolute() else _config()["IRISRAG_ROOT"] / root


def _identified(area: Area, directory: Path | str, name: str):
    return (Document.area == area.id) & (Document.directory == str(directory)) & (Document.name == name)


def _refuse_running(doc: Document) -> None:
    if doc.is_running and doc.status != "queued":
        raise Conflict(N_("“%(name)s” is being imported right now; wait until it has finished."), params={"name": doc.name})


def register(area: Area, directory: Path | str, name: str, kind: str, **extra) -> Registered:
    """Create or find the document of (area, directory, name); never one of another area."""
    with db.atomic():
        doc = Document.get_or_none(_identified(area, directory, name))
        if doc is None:
            return Document.create(area=area, directory=str(directory), name=name, kind=kind, **extra), True
        _refuse_running(doc)
        doc.kind = kind
        for key, value in extra.items():
            setattr(doc, key, value)
        doc.save()
    return doc, False


def upload(area: Area, filename: str, data: bytes | BinaryIO) -> Registered:
    """Stage an uploaded file under <upload root>/upload/<area id>/ and register it."""
    name = stage.safe_file_name(filename)
    kind = kind_for(name)
    check_content(name, kind, head_of(data))  # refused here, not minutes later in the queue
    path = stage.stage_bytes(upload_root(), "upload", name, data, _config()["MAX_UPLOAD_BYTES"], area_id=area.id)
    _adopt_flat_upload(area, name, path.parent)
    return register(area, path.parent, name, kind)


def _adopt_flat_upload(area: Area, name: str, directory: Path) -> None:
    """Move this area's document staged flat by an older version (``upload/name``) to the area's folder."""
    flat = upload_root() / "upload"
    doc = Document.get_or_none(_identified(area, flat, name))
    if doc is None:
        return
    _refuse_running(doc)
    Document.update(directory=str(directory)).where(Document.id == doc.id).execute()
    (flat / name).unlink(missing_ok=True)


def local_file(area: Area, path: str | Path) -> Registered:
    """Register a file from anywhere on this machine (operators: CLI and benchmarks only)."""
    resolved = Path(path).expanduser().resolve()
    if not resolved.is_file():
        raise NotFound(N_("There is no file at %(path)s."), params={"path": str(resolved)})
    return register(area, resolved.parent, resolved.name, kind_for(resolved.name))


def _is_absolute(text: str) -> bool:
    return text.startswith(("/", "\\")) or (len(text) > 2 and text[1] == ":" and text[2] in "\\/")


def volume_path(area: Area, text: str | None) -> Registered:
    """Register a path relative to the source volume, or the original absolute path of a file copied there."""
    text = (text or "").strip()
    if not text:
        raise ValidationError(N_("Please enter a path."), field="path")
    volume = _config()["SRC_VOLUME_PATH"]
    if _is_absolute(text):
        path = stage.find_by_original_path(volume, text)
        return register(area, path.parent, path.name, kind_for(path.name), original_path=text)
    path = stage.resolve_in_volume(volume, text)
    return register(area, path.parent, path.name, kind_for(path.name))


def url(area: Area, address: str | None) -> Registered:
    """Register a web address (fetched by its job into <upload root>/url/<area id>/)."""
    address = (address or "").strip()
    if not address.lower().startswith(("http://", "https://")) or len(address) > MAX_URL_LENGTH:
        raise ValidationError(N_("Please enter a web address starting with http:// or https://."), field="url")
    # Refused at once by the worker's own rules (the worker checks again: DNS may change).
    precheck_url(address, components.get().config["URL_ALLOWLIST"])
    # A fetched PDF was renamed to .pdf by its job: find the area's row by its address, not its name.
    known = (Document.select().where((Document.area == area.id) & (Document.source_url == address))
             .order_by(Document.id).first())
    if known is not None:
        return register(area, known.directory, known.name, known.kind, source_url=address)
    directory = stage.staging_dir(upload_root(), "url", area.id)
    return register(area, directory, stage.url_file_name(address, "html"), "html", source_url=address)


def existing(document_id: int) -> Registered:
    """Return a known document for a rebuild (refused while its import runs)."""
    doc = Document.get_or_none(Document.id == document_id)
    if doc is None:
        raise NotFound(N_("There is no document with id %(id)s."), params={"id": document_id})
    if doc.is_running and doc.status != "queued":
        raise Conflict(N_("“%(name)s” is being imported right now."), params={"name": doc.name})
    return doc, False
