"""Imports fix glibc's malloc thresholds, so LanceDB's freed write buffers leave the process."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from irisrag.embeddings import FakeEmbedder
from irisrag.ingest import heap, pipeline
from irisrag.ingest.pipeline import ImportJob, PipelineSettings, run_import

# In a fresh process: free one 8 MiB block (a 4,096-row batch of 512-d vectors), then allocate
# another and report whether it got its own mapping (mallinfo2's hblkhd) or came from the heap.
_PROBE = r"""
import ctypes, json, sys
from irisrag.ingest.heap import fix_malloc_thresholds
fixed = fix_malloc_thresholds() if sys.argv[1] == "fix" else False
libc = ctypes.CDLL("libc.so.6")
class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                "fsmblks", "uordblks", "fordblks", "keepcost")]
libc.mallinfo2.restype = Info
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
size = 8 << 20
libc.free(libc.malloc(size))  # glibc would now raise its mmap threshold to 8 MiB
before = libc.mallinfo2().hblkhd
block = libc.malloc(size)
mapped = libc.mallinfo2().hblkhd - before >= size
libc.free(block)
import resource
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(50):  # USE's working arrays: ~2 MiB, allocated, filled and freed per micro-batch
    block = libc.malloc(2 << 20)
    ctypes.memset(block, 1, 2 << 20)
    libc.free(block)
reused = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults < 10 * 512  # 512 pages a block
print(json.dumps({"fixed": fixed, "mapped": mapped, "reused": reused}))
"""


def _probe(mode: str) -> dict:
    done = subprocess.run([sys.executable, "-c", _PROBE, mode], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


@pytest.mark.skipif(heap._libc() is None, reason="glibc only")
def test_a_freed_8_mib_buffer_keeps_the_next_one_in_the_heap_unless_the_thresholds_are_fixed():
    assert _probe("default")["mapped"] is False  # the dynamic threshold: kept in an arena
    assert _probe("fix")["mapped"] is True  # its own mapping, returned when freed


@pytest.mark.skipif(heap._libc() is None, reason="glibc only")
def test_the_embedders_working_arrays_reuse_heap_pages_as_before():
    # a trim threshold left at glibc's 128 KiB would give back and fault in every 2 MiB array
    assert _probe("fix") == {"fixed": True, "mapped": True, "reused": True}
    assert _probe("default")["reused"] is True


def test_an_import_fixes_the_thresholds_before_it_reads(tmp_path, monkeypatch):
    calls: list[str] = []
    monkeypatch.setattr(pipeline, "fix_malloc_thresholds", lambda: calls.append("fixed"))

    class Store:
        def replace_document(self, document_id, area_id, rows, vectors):
            calls.append("written")

    path = tmp_path / "a.txt"
    path.write_text("Die Paketverwaltung übernimmt apt.", encoding="utf-8")
    run_import(ImportJob(1, 1, path, "text"), embedder=FakeEmbedder(16), store=Store(),
               settings=PipelineSettings(), progress=lambda *a: calls.append(a[0]))
    assert calls[:2] == ["extracting", "fixed"] and calls[-1] == "written"


def test_a_record_write_batch_of_use_vectors_is_mapped_and_no_larger_than_that():
    from irisrag.embeddings import UseEmbedder

    rows = PipelineSettings().write_rows * pipeline.RECORD_WRITE_FACTOR
    # its own mapping, returned when freed (>=); no more than that, copied several times a write (<=)
    assert rows * UseEmbedder.dim * 4 == heap.MMAP_THRESHOLD
