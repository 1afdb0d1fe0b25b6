"""A source-volume folder synced after files were added, changed and deleted; its checks at creation."""
from pathlib import Path

import pytest

from irisrag.errors import NotFound, ValidationError
from irisrag.extensions import db
from irisrag.models import Document
from irisrag.services.sources import sources
from irisrag.services.sources.sources import SourceInput
from irisrag.services.sources.sync import run_sync


def counts(run):
    return (run.new, run.changed, run.unchanged, run.removed, run.failed)


def test_a_folder_is_synced_with_added_changed_and_deleted_files(sync_app):
    volume = Path(sync_app.config["SRC_VOLUME_PATH"])
    folder = volume / "handbuch"
    (folder / "teil").mkdir(parents=True)
    (folder / "a.txt").write_text("Urlaub wird beim Sekretariat beantragt.")
    (folder / "b.md").write_text("# Reisekosten\n\nReisekosten werden monatlich abgerechnet.")
    (folder / "teil" / "c.txt").write_text("Die Kantine öffnet um acht Uhr.")
    (folder / "bild.gif").write_bytes(b"GIF89a")  # not a supported type: left alone
    (folder / ".versteckt.txt").write_text("hidden")
    (volume / "daneben.txt").write_text("outside the source's folder")
    with sync_app.app_context(), db.connection_context():
        source = sources.create_source("Handbuch", SourceInput("folder", folder_path="handbuch"))
        assert counts(run_sync(source.id)) == (3, 0, 0, 0, 0)
        first = {d.name: d for d in Document.select().where(Document.source == source.id)}
        assert set(first) == {"a.txt", "b.md", "c.txt"}

        (folder / "b.md").write_text("# Reisekosten\n\nReisekosten werden wöchentlich abgerechnet.")
        (folder / "teil" / "c.txt").unlink()
        (folder / "teil" / "d.txt").write_text("Der Parkplatz ist hinter dem Haus.")
        assert counts(run_sync(source.id)) == (1, 1, 1, 1, 0)
        second = {d.name: d for d in Document.select().where(Document.source == source.id)}
        assert second["b.md"].id == first["b.md"].id and second["b.md"].sha256 != first["b.md"].sha256
        assert second["c.txt"].removed_at is not None and second["a.txt"].removed_at is None

        (folder / "teil" / "c.txt").write_text("Die Kantine öffnet um acht Uhr.")  # back: no longer removed
        assert counts(run_sync(source.id)) == (0, 0, 4, 0, 0)
        assert Document.get_by_id(first["c.txt"].id).removed_at is None

        (folder).rename(volume / "umbenannt")  # the folder itself is gone: the run fails, nothing is removed
        with pytest.raises(NotFound):
            run_sync(source.id)
        assert Document.select().where(Document.removed_at.is_null(False)).count() == 0


@pytest.mark.parametrize("path", ["../etc", "/etc", "fehlt"])
def test_a_folder_outside_the_volume_or_missing_is_refused(sync_app, path):
    with sync_app.app_context(), db.connection_context(), pytest.raises(ValidationError) as caught:
        sources.create_source("Handbuch", SourceInput("folder", folder_path=path))
    assert caught.value.field == "folder_path"


@pytest.mark.parametrize("entered", [
    SourceInput("site", "http://169.254.169.254/latest/"),      # the address guard, at once
    SourceInput("site", "ftp://example.org/"),
    SourceInput("site", "http://127.0.0.1/docs/a", url_prefix="http://127.0.0.1/other/"),
    SourceInput("site", "http://127.0.0.1/docs/", depth=99),
    SourceInput("url", "http://127.0.0.1/", interval="sometimes"),
    SourceInput("mirror", "http://127.0.0.1/"),
])
def test_bad_sources_are_refused_before_anything_is_stored(sync_app, entered):
    from irisrag.errors import IrisRagError
    from irisrag.models import Source

    with sync_app.app_context(), db.connection_context():
        with pytest.raises(IrisRagError):
            sources.create_source("Handbuch", entered)
        assert Source.select().count() == 0


def test_the_cli_adds_syncs_edits_and_deletes_a_folder_source(sync_app):
    volume = Path(sync_app.config["SRC_VOLUME_PATH"])
    (volume / "ordner").mkdir()
    (volume / "ordner" / "a.txt").write_text("Die Bibliothek leiht Bücher für vier Wochen aus.")
    runner = sync_app.test_cli_runner()
    added = runner.invoke(args=["rag", "source", "add", "Handbuch", "folder", "ordner", "--interval", "weekly"])
    assert added.exit_code == 0, added.output
    source_id = added.output.split("\t")[0]
    synced = runner.invoke(args=["rag", "source", "sync", source_id, "--here"])
    assert synced.exit_code == 0 and "\tdone\t1\t0\t0\t0\t0\t0\t" in synced.output, synced.output
    again = runner.invoke(args=["rag", "source", "sync", source_id, "--here"])
    assert "\tdone\t0\t0\t1\t0\t0\t0\t" in again.output
    assert runner.invoke(args=["rag", "source", "edit", source_id, "--target", "../x"]).exit_code == 1
    edited = runner.invoke(args=["rag", "source", "edit", source_id, "--interval", "daily"])
    assert edited.exit_code == 0 and "\tdaily\t" in edited.output
    assert len(runner.invoke(args=["rag", "source", "runs", source_id]).output.splitlines()) == 3
    assert runner.invoke(args=["rag", "source", "delete", source_id]).exit_code == 0
    assert runner.invoke(args=["rag", "source", "runs", source_id]).exit_code == 1
