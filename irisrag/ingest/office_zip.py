"""Open Office and OpenDocument files safely: ZIP packages checked for bombs before a library reads them.

DOCX/PPTX/XLSX (Office Open XML), ODT/ODS/ODP (OpenDocument) and EPUB are ZIP packages. A
library reads their parts whole, so a part that inflates to gigabytes would take the
worker's memory. The declared sizes are checked first; Python's zipfile never inflates a
member past its declared size (a lying header ends in a CRC error: damaged).
"""
from __future__ import annotations

import zipfile
from pathlib import Path

from irisrag.errors import ExtractionError
from irisrag.i18n import N_

MAX_MEMBER_BYTES = 128 << 20
MAX_TOTAL_BYTES = 512 << 20
MAX_MEMBERS = 20_000
MAX_RATIO = 200  # deflate reaches ~1000:1 only on degenerate input such as a bomb's zeros
_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"

BOMB = N_("The file expands to far more data than a document holds (a ZIP bomb?); it was not read.")
DAMAGED = N_("The file is damaged and cannot be read.")
TOO_LARGE = N_("The file is too large to read: one of its parts holds far more data than a document does.")
ENCRYPTED = N_("The file is encrypted and needs a password; save it without a password and import it again.")


def check_package(path: Path) -> None:
    """Refuse an encrypted, damaged or bomb-like ZIP package before any library opens it."""
    try:
        with path.open("rb") as handle:
            head = handle.read(8)
    except OSError as exc:
        raise ExtractionError(N_("The file could not be read"), f"{path}: {exc}") from exc
    if head.startswith(_OLE):  # Office keeps a password-protected DOCX/XLSX/PPTX in an OLE2 container
        raise ExtractionError(ENCRYPTED, f"{path}: OLE2 compound file (an encrypted Office package)")
    try:
        with zipfile.ZipFile(path) as package:
            members = package.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise ExtractionError(DAMAGED, f"{path}: not a readable ZIP package: {exc}") from exc
    _check_sizes(path, members)
    if any(member.flag_bits & 0x1 for member in members):
        raise ExtractionError(ENCRYPTED, f"{path}: ZIP members are encrypted")


def _check_sizes(path: Path, members: list[zipfile.ZipInfo]) -> None:
    if len(members) > MAX_MEMBERS:
        raise ExtractionError(BOMB, f"{path}: {len(members)} members, limit {MAX_MEMBERS}")
    total = 0
    for member in members:
        total += member.file_size
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > MAX_MEMBER_BYTES or (member.file_size > (1 << 20) and ratio > MAX_RATIO):
            raise ExtractionError(BOMB, f"{path}: {member.filename} inflates to {member.file_size} bytes "
                                        f"from {member.compress_size}")
    if total > MAX_TOTAL_BYTES:
        raise ExtractionError(BOMB, f"{path}: members inflate to {total} bytes, limit {MAX_TOTAL_BYTES}")


# What the XML parsers (lxml, with huge_tree off) say when a part is past their size limits.
_SIZE_LIMIT_WORDS = ("resource limit exceeded", "huge text node", "huge input lookup", "try xml_parse_huge",
                     "excessive depth")


def damaged(path: Path, exc: Exception) -> ExtractionError:
    """Return the error for a package a library could not read: too large when a size limit stopped it."""
    detail = f"{path}: {type(exc).__name__}: {exc}"
    text = str(exc).lower()
    if isinstance(exc, (MemoryError, RecursionError)) or any(word in text for word in _SIZE_LIMIT_WORDS):
        return ExtractionError(TOO_LARGE, detail)
    return ExtractionError(DAMAGED, detail)
