"""The staged write of a long document on S3 (SeaweedFS): batches hidden, one metadata switch, settled."""
from __future__ import annotations

from irisrag.vectors.store import VectorStore
from tests.test_vector_staging import DIM, _chunks, _new, _old, _seen, _vectors


def test_staged_replacement_on_s3_hides_batches_until_the_switch(local_s3, s3_uri):
    options = local_s3.storage_options()
    writer = VectorStore(s3_uri, "fake-16", DIM, read_consistency_seconds=None, storage_options=options)
    reader = VectorStore(s3_uri, "fake-16", DIM, read_consistency_seconds=0, storage_options=options)
    writer.replace_document(1, 7, _chunks(5, "alt"), _vectors(5, 1))
    writer.replace_document(2, 7, _chunks(3, "nachbar"), _vectors(3, 2))
    writer.refresh_indexes()
    staged = writer.staged_replacement(1, 7, write_rows=5)
    for batch in range(3):
        staged.add(_chunks(4, "neu", start=4 * batch), _vectors(4, 10 + batch))
        assert _seen(reader) == _old(reader), batch
    assert staged.commit() == 12
    assert _seen(reader) == _new() and writer.table().count_rows() == 15
    assert writer.table().count_rows("area_id = 7") == 15  # settled: no staged rows left
