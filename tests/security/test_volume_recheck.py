"""Attack suite, source volume: a symlink swapped in after the path was checked is not followed on Rebuild."""
from __future__ import annotations

import shutil

import pytest

from irisrag import components
from irisrag.errors import PathOutsideVolume
from irisrag.extensions import db
from irisrag.ingest.stage import recheck_in_volume
from irisrag.models import Document
from tests.conftest import make_app

SECRET = "OUTSIDE-SECRET-9917"


@pytest.fixture
def volume_app(tmp_path, database_url, redis_url):
    volume = tmp_path / "volume"
    (volume / "sub").mkdir(parents=True)
    (volume / "report.md").write_text("# Bericht\n\nDer Bericht im Volume beschreibt die Paketverwaltung.\n")
    (volume / "sub" / "notes.md").write_text("# Notizen\n\nNotizen im Volume zur Paketverwaltung.\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "report.md").write_text(f"# Geheim\n\nDas liegt ausserhalb: {SECRET}.\n")
    (outside / "notes.md").write_text(f"# Geheim\n\nAuch ausserhalb: {SECRET}.\n")
    app = make_app(tmp_path, database_url, redis_url, SRC_VOLUME_PATH=str(volume))
    assert app.test_cli_runner().invoke(args=["rag", "create-area", "Handbook"]).exit_code == 0
    return app, volume, outside


def rag(app, *args):
    return app.test_cli_runner().invoke(args=["rag", *map(str, args)])


def chunks_text(app, document_id: int) -> str:
    with app.app_context():
        return " ".join(r.text for r in components.get().store.chunks_of(document_id))


@pytest.mark.parametrize("swap", ["file", "folder"])
def test_rebuild_after_a_symlink_swap_is_refused_and_reads_nothing_outside(volume_app, swap):
    app, volume, outside = volume_app
    rel = "report.md" if swap == "file" else "sub/notes.md"
    assert rag(app, "import-path", rel, "--area", "Handbook", "--sync").exit_code == 0
    with app.app_context(), db.connection_context():
        doc = Document.get(Document.name == rel.split("/")[-1])
    assert doc.status == "done" and "Paketverwaltung" in chunks_text(app, doc.id)
    if swap == "file":
        (volume / "report.md").unlink()
        (volume / "report.md").symlink_to(outside / "report.md")
    else:
        shutil.rmtree(volume / "sub")
        (volume / "sub").symlink_to(outside)
    result = rag(app, "rebuild", doc.id, "--sync")
    assert result.exit_code == 1 and "outside the source volume" in result.output
    with app.app_context(), db.connection_context():
        failed = Document.get_by_id(doc.id)
    assert failed.status == "failed" and SECRET not in chunks_text(app, doc.id)
    assert "Paketverwaltung" in chunks_text(app, doc.id)  # the old chunks stay


def test_recheck_passes_files_inside_and_leaves_other_paths_alone(tmp_path):
    volume = tmp_path / "volume"
    volume.mkdir()
    (volume / "a.md").write_text("a")
    (tmp_path / "b.md").write_text("b")
    (volume / "link.md").symlink_to(volume / "a.md")  # a link that stays inside is fine
    assert recheck_in_volume(str(volume), volume / "a.md") == (volume / "a.md").resolve()
    assert recheck_in_volume(str(volume), volume / "link.md") == (volume / "a.md").resolve()
    assert recheck_in_volume(str(volume), tmp_path / "b.md") == tmp_path / "b.md"  # an upload or local file
    assert recheck_in_volume("", volume / "a.md") == volume / "a.md"
    (volume / "out.md").symlink_to(tmp_path / "b.md")
    with pytest.raises(PathOutsideVolume):
        recheck_in_volume(str(volume), volume / "out.md")
