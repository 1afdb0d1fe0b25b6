"""Name a vector store write that failed for lack of permission, instead of "failed unexpectedly".

LanceDB reports a refused write in its own words (``LanceError(IO): ... Permission denied
(os error 13)``), sometimes as an OSError, sometimes not; both are recognised here.
"""
from __future__ import annotations

import errno
from collections.abc import Iterator
from contextlib import contextmanager

from irisrag.errors import VectorStoreUnwritable
from irisrag.i18n import N_

UNWRITABLE = N_("The vector store cannot be written (permission denied). Ask an administrator to check the "
                "rights on the LanceDB folder (IRISRAG_LANCEDB_URI).")
_MARKERS = ("permission denied", "os error 13", "read-only file system", "os error 30", "access denied")


@contextmanager
def unwritable_store_named() -> Iterator[None]:
    """Turn a permission failure of a vector store write into VectorStoreUnwritable (others pass)."""
    try:
        yield
    except Exception as exc:
        if not is_permission_error(exc):
            raise
        raise VectorStoreUnwritable(UNWRITABLE, f"{type(exc).__name__}: {exc}") from exc


def is_permission_error(exc: BaseException) -> bool:
    """Return True when an error (or its cause) is a refused write: EACCES, EPERM, EROFS, in any library's words."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return True
        text = str(seen).lower()
        if any(marker in text for marker in _MARKERS):
            return True
        seen = seen.__cause__ or seen.__context__
    return False
