"""Document status transitions: the only writers of ``status``, each checked against the state it leaves."""
import pytest

from irisrag.errors import ImportStopped
from irisrag.jobs.progress import RowProgress
from irisrag.models import Area, Document


@pytest.fixture
def doc(dbconn):
    area = Area.create(name="Alpha")
    return Document.create(area=area, name="a.md", directory="/x")


def status(doc) -> str:
    return Document.get_by_id(doc.id).status


def test_document_state_runs_the_import_path_to_done_and_back_to_queued(doc):
    assert status(doc) == "queued"
    for stage in ("fetching", "extracting", "chunking", "embedding"):
        assert Document.mark_stage(doc.id, stage, 1, 2) and status(doc) == stage
    assert Document.mark_finished(doc.id, "done", chunk_count=2, sha256="ab") and status(doc) == "done"
    row = Document.get_by_id(doc.id)
    assert row.chunk_count == 2 and row.error is None
    assert Document.mark_queued(doc.id) and Document.get_by_id(doc.id).progress_done == 0


def test_document_state_refuses_transitions_out_of_order(doc):
    Document.mark_stage(doc.id, "embedding", 1, 5)
    assert not Document.mark_queued(doc.id) and status(doc) == "embedding"  # a job works on it
    Document.mark_finished(doc.id, "done")
    assert not Document.mark_stage(doc.id, "embedding", 2, 5) and status(doc) == "done"
    assert not Document.mark_failed(doc.id, "late") and status(doc) == "done"
    assert not Document.mark_cancelled(doc.id) and status(doc) == "done"
    assert not Document.mark_finished(doc.id, "unchanged")
    with pytest.raises(ValueError):
        Document.mark_stage(doc.id, "done")
    with pytest.raises(ValueError):
        Document.mark_finished(doc.id, "failed")


def test_document_state_a_cancelled_row_stays_cancelled_and_stops_its_job(doc):
    Document.mark_stage(doc.id, "chunking")
    assert Document.mark_cancelled(doc.id) and status(doc) == "cancelled"
    assert not Document.mark_failed(doc.id, "the job's own failure afterwards")
    assert not Document.mark_stage(doc.id, "fetching")  # a retried fetch does not resume it
    with pytest.raises(ImportStopped):
        RowProgress(doc.id)("embedding", 1, 10)
    assert status(doc) == "cancelled"


def test_document_state_a_retried_fetch_may_leave_failed(doc):
    Document.mark_stage(doc.id, "fetching")
    Document.mark_failed(doc.id, "timeout")
    assert Document.mark_stage(doc.id, "fetching") and status(doc) == "fetching"


def test_document_state_fail_where_touches_running_rows_only(doc, dbconn):
    done = Document.create(area=doc.area, name="b.md", directory="/x", status="done")
    assert Document.fail_where(Document.id.in_([doc.id, done.id]), "gone") == 1
    assert status(doc) == "failed" and status(done) == "done"
