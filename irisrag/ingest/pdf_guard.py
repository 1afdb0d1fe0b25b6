"""Refuse PDF decompression bombs before PDFium inflates them.

PDFium inflates a page's content stream whole, with no cap: a 1 MB file whose stream
inflates to 1 GiB costs 2 GiB of memory and 15 s. So every Flate stream of the file is
inflated here first, chunk by chunk into nothing, and counted: a stream (or the file's
streams together) past the caps is a bomb. Streams are always top-level objects, so a
scan of the raw bytes finds them all. An encrypted file's streams cannot be inflated
without its key, so there pypdf (which decrypts and caps inflation itself) checks each
page. Only when a bomb is found is pypdf asked which page holds it, for the detail.
"""
from __future__ import annotations

import logging
import mmap
import re
import zlib
from pathlib import Path

from irisrag.errors import ExtractionError
from irisrag.i18n import N_

log = logging.getLogger(__name__)

BOMB_MESSAGE = N_("A page of the PDF expands to far more data than a document page holds; it was not read")
# A text page's content stream is kilobytes; an uncompressed 600-dpi A4 colour scan ~100 MiB.
MAX_STREAM_BYTES = 64 << 20
MAX_IMAGE_BYTES = 256 << 20
MAX_TOTAL_BYTES = 1 << 30
_DICT_WINDOW = 4096
_FEED = 1 << 16
_STREAM = re.compile(rb"stream\r?\n")
_OBJECT = re.compile(rb"(\d+)\s+\d+\s+obj\b")


def check_pdf_streams(path: Path, encrypted: bool) -> None:
    """Raise ExtractionError(BOMB_MESSAGE) when a stream of the PDF inflates past the caps."""
    if encrypted:
        _check_encrypted(path)
        return
    try:
        with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            _scan(path, data)
    except (OSError, ValueError) as exc:  # an empty file cannot be mapped; PDFium reports it
        log.debug("pdf_guard_skipped path=%s error=%s", path, exc)


def _scan(path: Path, data: mmap.mmap) -> None:
    """Inflate every Flate stream of ``data`` into nothing and enforce the caps."""
    total = 0
    for match in _STREAM.finditer(data):
        head = data[max(0, match.start() - _DICT_WINDOW):match.start()]
        if not head.rstrip().endswith(b">>") or b"/FlateDecode" not in _last_dict(head):
            continue
        limit = MAX_IMAGE_BYTES if b"/Image" in _last_dict(head) else MAX_STREAM_BYTES
        end = data.find(b"endstream", match.end())
        size = _inflated_size(data, match.end(), len(data) if end == -1 else end, limit + 1)
        total += size
        if size > limit or total > MAX_TOTAL_BYTES:
            objects = _OBJECT.findall(head)
            number = int(objects[-1]) if objects else None
            raise ExtractionError(BOMB_MESSAGE, _bomb_detail(path, number, size))


def _last_dict(head: bytes) -> bytes:
    """Return the tail of ``head`` from its last 'obj' keyword: the stream's dictionary."""
    at = head.rfind(b"obj")
    return head[at:] if at != -1 else head


def _inflated_size(data: mmap.mmap, start: int, end: int, cap: int) -> int:
    """Return how many bytes the zlib stream in data[start:end] inflates to, stopping past ``cap``."""
    inflater = zlib.decompressobj()
    size = 0
    try:
        for offset in range(start, end, _FEED):
            pending = data[offset:min(offset + _FEED, end)]
            while pending:
                size += len(inflater.decompress(pending, _FEED))
                pending = inflater.unconsumed_tail
                if size >= cap or inflater.eof:
                    return size
    except zlib.error:
        return size  # not valid zlib: PDFium will make what it can of it, and it is small
    return size


def _bomb_detail(path: Path, number: int | None, size: int) -> str:
    """Name the page holding object ``number`` (asked of pypdf, only for a bomb), or the object."""
    page = _page_of_object(path, number) if number is not None else None
    where = f"page {page}" if page else f"object {number}"
    return f"{path}: {where}: a stream inflates past {size >> 20} MiB"


def _page_of_object(path: Path, number: int) -> int | None:
    """Return the 1-based page whose content refers to object ``number``, or None."""
    from pypdf import PdfReader

    try:
        reader = PdfReader(path, strict=False)
        for index, page in enumerate(reader.pages):
            refs = page.get("/Contents")
            refs = refs if isinstance(refs, list) else [refs]
            if any(getattr(ref, "idnum", None) == number for ref in refs):
                return index + 1
    except Exception as exc:  # the detail is a courtesy; the bomb is refused either way
        log.debug("pdf_bomb_page_unknown path=%s error=%s", path, exc)
    return None


def _check_encrypted(path: Path) -> None:
    """Check each page's content of an encrypted PDF with pypdf, which decrypts and caps inflation."""
    from pypdf import PdfReader
    from pypdf.errors import LimitReachedError

    try:
        reader = PdfReader(path, strict=False)
        if reader.is_encrypted:
            reader.decrypt("")
        for index, page in enumerate(reader.pages):
            try:
                contents = page.get_contents()
                size = len(contents.get_data()) if contents is not None else 0
            except LimitReachedError as exc:
                raise ExtractionError(BOMB_MESSAGE, f"{path}: page {index + 1}: {exc}") from exc
            if size > MAX_STREAM_BYTES:
                raise ExtractionError(BOMB_MESSAGE, f"{path}: page {index + 1}: content of {size >> 20} MiB")
    except ExtractionError:
        raise
    except Exception as exc:  # PDFium decides what is damaged; this check only looks for bombs
        log.debug("pdf_guard_encrypted_skipped path=%s error=%s", path, exc)
