"""Staging of imported files (SPEC 3): safe names, atomic writes, source-volume lookups.

The staging root holds ``upload/<area id>/`` (browser uploads) and ``url/<area id>/``
(fetched pages): one folder per area, so a same-named file of another area never replaces
a staged file (older installations kept them flat in ``upload/`` and ``url/``). Paths into
the source volume are resolved with symlinks followed and must stay inside the volume.
"""
from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
import tempfile
import unicodedata
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import BinaryIO
from urllib.parse import unquote, urlsplit

from irisrag.errors import (
    ConfigurationError,
    FileTooLarge,
    InvalidFileName,
    NotFound,
    PathOutsideVolume,
    ValidationError,
)
from irisrag.i18n import N_

log = logging.getLogger(__name__)

STAGING_DIRS = ("upload", "url")
MAX_NAME_BYTES = 255
# Room for "_<8 hex>.md" and a readable stem, well under the 255-byte limit.
MAX_URL_STEM = 120
_UNSAFE_URL_CHARS = re.compile(r"[^A-Za-z0-9._-]")
_COPY_CHUNK = 1024 * 1024

Data = bytes | bytearray | memoryview | BinaryIO | Iterable[bytes]


URL_KINDS = {"html": ".md", "text": ".md", "pdf": ".pdf", "csv": ".csv", "docx": ".docx", "pptx": ".pptx",
             "xlsx": ".xlsx", "odt": ".odt", "ods": ".ods", "odp": ".odp", "epub": ".epub", "image": ".png"}


def url_file_name(url: str, kind: str = "html", extension: str | None = None) -> str:
    """Return the staging name of a URL: last path part (extension dropped) + '_' + 8-hex SHA256 + extension.

    ``https://host/csp/docbook/DocBook.UI.Page.cls?KEY=X`` -> ``DocBook.UI.Page_<8 hex>.md``;
    the hash covers the full URL, so URLs that differ only in the query never collide. Web
    pages and text are staged as Markdown (.md), other kinds keep their own extension.
    """
    if kind not in URL_KINDS:
        raise ValidationError(N_("Unknown document kind %(kind)s"), f"url={url!r}", "kind", params={"kind": repr(kind)})
    parts = [part for part in urlsplit(url).path.split("/") if part]
    last = unquote(parts[-1]) if parts else ""
    stem, _extension = os.path.splitext(last)
    stem = _UNSAFE_URL_CHARS.sub("_", stem).lstrip(".")[:MAX_URL_STEM] or "index"
    digest = hashlib.sha256(url.encode("utf-8")).hexdigest()[:8]
    return f"{stem}_{digest}{extension or URL_KINDS[kind]}"


def safe_file_name(name: str) -> str:
    """Return a bare, NFC-normalised file name; refuse paths, control characters and dot names."""
    if not isinstance(name, str) or not name.strip():
        raise InvalidFileName(N_("The file name is empty"), repr(name))
    name = unicodedata.normalize("NFC", name.strip())
    if "/" in name or "\\" in name:
        raise InvalidFileName(
            N_("The file name must not contain a folder (/ or \\)"), f"{name!r} contains a path separator"
        )
    bad = [ch for ch in name if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")]
    if bad:
        # Cf covers invisible and bidi override characters that disguise an extension.
        raise InvalidFileName(
            N_("The file name contains control or invisible characters"), f"{name!r}: {[hex(ord(c)) for c in bad]}"
        )
    if set(name) == {"."}:
        raise InvalidFileName(N_("The file name must not consist of dots only"), repr(name))
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:
        raise InvalidFileName(
            N_("The file name is too long (more than %(num)d bytes)"), f"{len(name.encode('utf-8'))} bytes",
            params={"num": MAX_NAME_BYTES},
        )
    return name


def size_text(count: int) -> str:
    """Return a byte count as a short human-readable text."""
    return f"{count / (1024 * 1024):.1f} MB" if count >= 1024 * 1024 else f"{count} bytes"


def _chunks(data: Data) -> Iterable[bytes]:
    """Yield the data as byte blocks, whatever form it came in."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        yield bytes(data)
    elif hasattr(data, "read"):
        while block := data.read(_COPY_CHUNK):  # type: ignore[union-attr]
            yield block
    else:
        yield from data  # type: ignore[misc]


def _write_atomically(directory: Path, name: str, data: Data, max_bytes: int | None) -> Path:
    """Write data to directory/name via a temporary file and os.replace; enforce the size cap."""
    target = directory / name
    handle = tempfile.NamedTemporaryFile(dir=directory, prefix=".staging-", suffix=".part", delete=False)
    written = 0
    try:
        with handle:
            for block in _chunks(data):
                written += len(block)
                if max_bytes is not None and written > max_bytes:
                    raise FileTooLarge(
                        N_("The file is larger than the limit of %(size)s"),
                        f"{name}: more than {max_bytes} bytes", params={"size": size_text(max_bytes)},
                    )
                handle.write(block)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(handle.name, target)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
    log.info("staged path=%s bytes=%d", target, written)
    return target


def staging_dir(root: Path | str, subdir: str, area_id: int | None = None) -> Path:
    """Return root/subdir/<area id> (root/subdir without an area: the flat layout of older installations)."""
    if subdir not in STAGING_DIRS:
        raise ValidationError(N_("Unknown staging folder %(name)s"), f"expected one of {STAGING_DIRS}", "subdir",
                              params={"name": repr(subdir)})
    if area_id is not None and (not isinstance(area_id, int) or isinstance(area_id, bool) or area_id < 1):
        raise ValidationError(N_("Invalid area id %(id)s"), "expected a positive integer", "area",
                              params={"id": repr(area_id)})
    return Path(root) / subdir if area_id is None else Path(root) / subdir / str(area_id)


def stage_bytes(root: Path | str, subdir: str, name: str, data: Data, max_bytes: int | None = None,
                area_id: int | None = None) -> Path:
    """Store an upload or fetched body under root/subdir/<area id>/name atomically; return its path."""
    directory = staging_dir(root, subdir, area_id)
    name = safe_file_name(name)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        return _write_atomically(directory, name, data, max_bytes)
    except OSError as exc:
        raise ConfigurationError(
            N_("The file could not be saved in the staging folder (is it writable?)"), f"{directory}: {exc}"
        ) from exc


def volume_root(volume: str | Path | None) -> Path:
    """Return the real path of the configured source volume; refuse a missing setting or folder."""
    if volume is None or not str(volume).strip():
        raise ValidationError(
            N_("The source volume is not configured (IRISRAG_SRC_VOLUME_PATH)"), "SRC_VOLUME_PATH is empty"
        )
    path = Path(volume)
    if not path.is_dir():
        raise ValidationError(
            N_("The source volume %(path)s does not exist or is not a folder"), f"SRC_VOLUME_PATH={str(volume)!r}",
            params={"path": str(path)},
        )
    return path.resolve(strict=True)


def _inside(root: Path, candidate: Path, shown: str) -> Path:
    """Resolve symlinks of a candidate and refuse it when it leaves the volume root."""
    resolved = candidate.resolve(strict=False)
    if not resolved.is_relative_to(root):
        raise PathOutsideVolume(
            N_("The path leads outside the source volume"), f"{shown!r} resolves to {resolved}, volume {root}"
        )
    return resolved


def _regular_file(resolved: Path, shown: str, at: Path | None = None) -> Path:
    """Return the path when it is an existing regular file; raise NotFound/ValidationError otherwise.

    A missing file is reported "in the source volume", or ``at`` the path where it was expected.
    """
    try:
        exists = resolved.exists()
    except OSError as exc:  # a name too long for the file system: bad input, not a server error
        raise ValidationError(N_("The path %(path)s cannot be used"), f"{str(resolved)[:500]}: {exc.strerror}",
                              params={"path": shown[:200]}) from exc
    if not exists:
        if at is None:
            raise NotFound(N_("The file %(name)s was not found in the source volume"), str(resolved),
                           params={"name": shown})
        raise NotFound(N_("The file %(name)s was not found at %(path)s"), str(resolved),
                       params={"name": shown, "path": str(at)})
    if not resolved.is_file():
        raise ValidationError(N_("%(name)s is not a regular file"), str(resolved), params={"name": shown})
    return resolved


def resolve_in_volume(volume: str | Path | None, relpath: str) -> Path:
    """Return the real path of a file given relative to the source volume (ImportByPath)."""
    root = volume_root(volume)
    text = (relpath or "").strip()
    if not text:
        raise ValidationError(N_("Enter the path of the file inside the source volume"), repr(relpath), "path")
    if "\x00" in text:
        raise InvalidFileName(N_("The path contains a NUL character"), repr(relpath))
    rel = PurePosixPath(text.replace("\\", "/"))
    if rel.is_absolute() or re.match(r"^[A-Za-z]:", text):
        raise PathOutsideVolume(
            N_("Give the path relative to the source volume, not an absolute path"), f"{relpath!r}, volume {root}"
        )
    if ".." in rel.parts:
        raise PathOutsideVolume(N_("The path must not contain '..'"), repr(relpath))
    resolved = _inside(root, root.joinpath(*rel.parts), text)
    return _regular_file(resolved, text)


def recheck_in_volume(volume: str | Path | None, path: Path) -> Path:
    """Re-resolve a volume document's path right before it is read; refuse it when it now leads outside.

    The path was checked when it was submitted, but a symlink swapped in since (a file, or a
    folder on the way) must not be followed out of the volume on a Rebuild. Paths outside the
    configured volume (uploads, local files) are returned as they are.
    """
    if volume is None or not str(volume).strip() or not Path(volume).is_dir():
        return path
    root = Path(volume).resolve(strict=True)
    if not (path.is_relative_to(root) or path.is_relative_to(Path(volume).absolute())):
        return path
    shown = str(path.relative_to(root if path.is_relative_to(root) else Path(volume).absolute()))
    return _regular_file(_inside(root, path, shown), shown)


def original_file_name(original_path: str) -> str:
    """Return the file name part of a POSIX or Windows path."""
    name = re.split(r"[\\/]", (original_path or "").strip())[-1]
    if not name:
        raise ValidationError(N_("The path has no file name (it ends with a folder)"), repr(original_path), "path")
    return name


def find_by_original_path(volume: str | Path | None, original_path: str) -> Path:
    """Return the volume copy of a file by the name in its original path (ImportByAbsolutePath)."""
    root = volume_root(volume)
    name = safe_file_name(original_file_name(original_path))
    candidate = root / name
    if not os.path.lexists(candidate):
        raise NotFound(
            N_("The file %(name)s was not found in the source volume; copy it to %(path)s first"),
            f"original path {original_path!r}, expected {candidate}", params={"name": name, "path": str(candidate)},
        )
    resolved = _inside(root, candidate, name)
    return _regular_file(resolved, name, candidate)


def stage_into_volume(volume: str | Path | None, src: Path | str) -> tuple[Path, str]:
    """Copy a file into the source volume root; return (copy, original absolute path)."""
    root = volume_root(volume)
    source = Path(src)
    if not source.is_file():
        raise NotFound(N_("The file %(path)s was not found"), str(source), params={"path": str(source)})
    original = os.path.abspath(source)
    name = safe_file_name(source.name)
    try:
        with source.open("rb") as fh:
            dest = _write_atomically(root, name, fh, None)
        shutil.copystat(source, dest)
    except OSError as exc:
        raise ConfigurationError(
            N_("The file could not be copied into the source volume"), f"{source} -> {root}: {exc}"
        ) from exc
    return dest, original
