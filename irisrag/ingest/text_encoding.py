"""Pick a text file's encoding without reading it whole, for extractors that stream it.

The same order as ``extract.decode_text``: a UTF-16 or UTF-8 byte order mark, then UTF-8,
then Windows-1252 (Latin-1 plus € and typographic quotes), then Latin-1, which decodes
anything. The file is read once in blocks through incremental decoders, so memory stays flat.
"""
from __future__ import annotations

import codecs
from pathlib import Path

from irisrag.errors import ExtractionError
from irisrag.i18n import N_

_BLOCK = 1 << 20
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
_CANDIDATES = ("utf-8", "cp1252")


def detect_encoding(path: Path) -> str:
    """Return the encoding to open ``path`` with; refuse a binary file as ``decode_text`` does."""
    from irisrag.ingest.extract import check_not_binary

    try:
        with path.open("rb") as handle:
            head = handle.read(8192)
            for bom, encoding in _BOMS:
                if head.startswith(bom):
                    return encoding
            check_not_binary(head, str(path))
            handle.seek(0)
            return _first_that_decodes(handle)
    except OSError as exc:
        raise ExtractionError(N_("The file could not be read"), f"{path}: {exc}") from exc


def _first_that_decodes(handle) -> str:
    decoders = {name: codecs.getincrementaldecoder(name)() for name in _CANDIDATES}
    for block in iter(lambda: handle.read(_BLOCK), b""):
        for name in list(decoders):
            try:
                decoders[name].decode(block)
            except UnicodeDecodeError:
                del decoders[name]
        if not decoders:
            return "latin-1"
    for name in _CANDIDATES:
        if name in decoders:
            try:
                decoders[name].decode(b"", final=True)
                return name
            except UnicodeDecodeError:
                continue
    return "latin-1"
