"""Content sniffing at the door: refuse an upload whose first bytes do not match its extension.

Extraction would find out too, but only when the worker reaches the file, possibly minutes
later behind a large import; the first few kilobytes decide it at once.
"""
from __future__ import annotations

from typing import BinaryIO

from irisrag.errors import ValidationError
from irisrag.i18n import N_

SNIFF_BYTES = 8192
_ZIP = (b"PK\x03\x04",)
_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # an encrypted OOXML file, or an old .doc/.xls/.ppt
# kind -> signatures its content must start with (PDF: within the first kilobyte).
SIGNATURES: dict[str, tuple[bytes, ...]] = {
    "docx": _ZIP, "pptx": _ZIP, "xlsx": _ZIP, "odt": _ZIP, "ods": _ZIP, "odp": _ZIP, "epub": _ZIP,
    "image": (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"II*\x00", b"MM\x00*"),
}
TEXT_KINDS = frozenset({"text", "csv", "html"})
# What a file looks like, for the message: signature -> description.
LOOKS_LIKE = (
    (b"\x7fELF", "a Linux program (ELF)"), (b"MZ", "a Windows program"), (b"%PDF-", "a PDF"),
    (b"PK\x03\x04", "a ZIP archive or Office file"), (_OLE, "an encrypted or old-format Office file"),
    (b"\x89PNG", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"), (b"GIF8", "a GIF image"),
    (b"\x1f\x8b", "a gzip archive"), (b"II*\x00", "a TIFF image"), (b"MM\x00*", "a TIFF image"),
)

EMPTY = N_("The file is empty.")
MISMATCH = N_("The content of the file does not match its extension.")
ENCRYPTED_OFFICE = N_("The file is an encrypted (password-protected) or old-format Office file; "
                      "save it without a password in a current format (.docx, .xlsx, .pptx).")
BINARY_TEXT = N_("The file looks like a binary file, not text; check its type.")


def head_of(data: bytes | bytearray | memoryview | BinaryIO) -> bytes:
    """Return the first bytes of an upload, leaving a stream where it was."""
    if isinstance(data, bytes | bytearray | memoryview):
        return bytes(data[:SNIFF_BYTES])
    position = data.tell()
    head = data.read(SNIFF_BYTES)
    data.seek(position)
    return head


def looks_like(head: bytes) -> str:
    """Return what the first bytes of a file look like, for a message's detail."""
    for signature, description in LOOKS_LIKE:
        if head.startswith(signature) or (signature == b"%PDF-" and signature in head[:1024]):
            return description
    return "unknown content"


def check_content(name: str, kind: str, head: bytes) -> None:
    """Raise ValidationError when ``head`` (the file's first bytes) is empty or does not fit ``kind``."""
    if not head:
        raise ValidationError(EMPTY, f"{name}: 0 bytes", "files")
    if kind == "pdf":
        if b"%PDF-" not in head[:1024]:
            _mismatch(name, kind, head)
        return
    if kind in SIGNATURES:
        if head.startswith(_OLE) and kind in ("docx", "pptx", "xlsx"):
            raise ValidationError(ENCRYPTED_OFFICE, f"{name}: OLE2 compound file, not a ZIP package", "files")
        if not head.startswith(SIGNATURES[kind]):
            _mismatch(name, kind, head)
        return
    if kind in TEXT_KINDS:
        _check_text(name, head)


def _mismatch(name: str, kind: str, head: bytes) -> None:
    raise ValidationError(MISMATCH, f"{name}: expected {kind}, the content looks like {looks_like(head)}", "files")


def _check_text(name: str, head: bytes) -> None:
    """Refuse text kinds whose first bytes hold NUL bytes or many control characters (UTF-16 aside)."""
    from irisrag.errors import ExtractionError
    from irisrag.ingest.text_encoding import check_not_binary

    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return  # UTF-16 with a byte order mark: NUL bytes are expected
    try:
        check_not_binary(head, name)
    except ExtractionError as exc:
        raise ValidationError(BINARY_TEXT, f"{name}: looks like {looks_like(head)}; {exc.detail}", "files") from exc
