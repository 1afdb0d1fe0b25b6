"""Schema version 4: documents keep a fetched page's title; an existing database gains the column."""
import pytest

from irisrag.extensions import db
from irisrag.ingest.extract_html import html_title
from irisrag.models import Area, Document
from irisrag.models.schema import SchemaVersion, current_version, upgrade
from tests.conftest import make_app


@pytest.fixture
def conn(tmp_path, any_database_url, redis_url):
    app = make_app(tmp_path, any_database_url, redis_url)
    with app.app_context(), db.connection_context():
        yield


def test_upgrade_adds_the_title_column_to_a_version_3_database(conn):
    db.execute_sql("ALTER TABLE document DROP COLUMN title")
    SchemaVersion.delete().where(SchemaVersion.version >= 4).execute()
    assert current_version() == 3 and "title" not in {c.name for c in db.get_columns("document")}
    before, after = upgrade()
    assert before == 3 and after >= 4 and "title" in {c.name for c in db.get_columns("document")}
    area = Area.create(name="Web")
    doc = Document.create(area=area, name="Page_1234abcd.md", directory="/s/url/1", title="Paketverwaltung")
    assert Document.get_by_id(doc.id).display_name == "Paketverwaltung"
    assert Document.create(area=area, name="a.md", directory="/s").display_name == "a.md"


def test_html_title_prefers_the_title_then_the_first_heading():
    page = "<html><head><title>  Kapitel 2.\n Paketverwaltung </title></head><body><h1>Anders</h1></body></html>"
    assert html_title(page.encode()) == "Kapitel 2. Paketverwaltung"
    assert html_title(b"<html><body><h1>Nur \xc3\xbcberschrift</h1></body></html>") == "Nur überschrift"
    assert html_title(b"<p>nichts</p>") == ""
    assert len(html_title(b"<title>" + b"x" * 1000 + b"</title>")) == 255
