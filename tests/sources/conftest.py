"""Sources: an app that may reach the local website (127.0.0.1) without pauses, and its admin and area."""
import pytest

from irisrag.extensions import db
from irisrag.models import Area
from irisrag.services.admin import admin as admin_service
from tests.conftest import make_app
from tests.support.website import Website


@pytest.fixture
def site():
    with Website(pages=40) as website:
        yield website


@pytest.fixture
def sync_app(tmp_path, database_url, redis_url):
    volume = tmp_path / "volume"
    volume.mkdir()
    app = make_app(tmp_path, database_url, redis_url, URL_ALLOWLIST=["127.0.0.1"], CRAWL_DELAY=0.0,
                   SRC_VOLUME_PATH=str(volume))
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, "Handbuch")
        admin_service.create_user("root", "rootpassword", is_admin=True)
    return app
