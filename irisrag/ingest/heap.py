"""Fixed glibc malloc thresholds for imports, so buffers of a few MiB go back to the system.

glibc raises its mmap threshold to the size of every mmapped block that is freed (up to
32 MiB) and its trim threshold to twice that. After LanceDB's first write of a 4,096-row batch
of 512-d vectors (8 MiB buffers) such buffers come from the malloc arenas instead, and each of
LanceDB's writer threads keeps its own arena whose free top is never trimmed (``malloc_trim``
trims only the main arena's top): the staged writes and the settling updates of a 100,000-row
import left a dozen resident 8 MiB arena tops behind (bench/README.md, "Records: import memory
and time"). Fixed thresholds keep blocks of ``MMAP_THRESHOLD`` and more in their own mappings,
returned when freed; ``TRIM_THRESHOLD`` is twice that, as glibc's own rule would set it, so
USE's ~2 MiB working arrays stay in the heap and cost no extra page faults.
"""
from __future__ import annotations

import ctypes
import logging

log = logging.getLogger(__name__)

M_TRIM_THRESHOLD = -1  # glibc's mallopt parameter numbers (malloc.h)
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 4 << 20
TRIM_THRESHOLD = 2 * MMAP_THRESHOLD

_fixed = False


def _libc():
    """Return glibc (with ``mallopt``), or None elsewhere (musl, macOS)."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        return libc if hasattr(libc, "mallopt") else None
    except OSError:
        return None


def fix_malloc_thresholds() -> bool:
    """Set the fixed thresholds once per process; return whether glibc took them."""
    global _fixed
    if not _fixed:
        libc = _libc()
        _fixed = bool(libc and libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
                      and libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
        log.debug("malloc_thresholds_fixed=%s", _fixed)
    return _fixed
