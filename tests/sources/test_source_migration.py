"""Schema version 6: documents name their source; an existing database gains the columns and tables."""
import pytest
from playhouse.migrate import SchemaMigrator, SqliteMigrator, migrate

from irisrag.extensions import db
from irisrag.models import Area, Document, Source, SyncRun
from irisrag.models.schema import SchemaVersion, current_version, upgrade
from tests.conftest import make_app

NEW_COLUMNS = {"source_id", "etag", "last_modified", "links", "removed_at"}


@pytest.fixture
def conn(tmp_path, any_database_url, redis_url):
    app = make_app(tmp_path, any_database_url, redis_url)
    with app.app_context(), db.connection_context():
        yield


def test_upgrade_adds_sources_to_a_version_5_database(conn):
    area = Area.create(name="Web")
    kept = Document.create(area=area, name="a.md", directory="/s")
    migrator = SchemaMigrator.from_database(db.obj)  # SQLite drops a foreign key column by rebuilding the table
    legacy = {"legacy": True} if isinstance(migrator, SqliteMigrator) else {}
    migrate(*(migrator.drop_column("document", column, **legacy) for column in sorted(NEW_COLUMNS)))
    db.drop_tables([SyncRun, Source])
    SchemaVersion.delete().where(SchemaVersion.version >= 6).execute()
    assert current_version() == 5 and not NEW_COLUMNS & {c.name for c in db.get_columns("document")}
    before, after = upgrade()
    assert (before, after) == (5, 6) and NEW_COLUMNS <= {c.name for c in db.get_columns("document")}
    source = Source.create(area=area, kind="site", start_url="http://h/a/", url_prefix="http://h/a/")
    Document.update(source=source).where(Document.id == kept.id).execute()
    assert [d.id for d in source.documents] == [kept.id]
    source.delete_instance()  # the documents stay, no longer synced
    assert Document.get_by_id(kept.id).source_id is None


def test_an_area_deleted_with_its_documents_takes_its_sources_along(conn):
    from irisrag.services.documents.document_bulk import delete_area_with_documents

    area = Area.create(name="Weg")
    source = Source.create(area=area, kind="url", start_url="http://h/a")
    SyncRun.create(source=source)
    delete_area_with_documents(area.id, "Weg")
    assert Source.select().count() == 0 and SyncRun.select().count() == 0
