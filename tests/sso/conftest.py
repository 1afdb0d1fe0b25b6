"""Real directory servers for the SSO tests: a private slapd and npm's oidc-provider on 127.0.0.1."""
from __future__ import annotations

import pytest

from irisrag.extensions import db
from irisrag.services.admin import admin as admin_service
from tests.conftest import make_app, missing
from tests.support.oidc_provider import client as oidc_client
from tests.support.oidc_provider import start_provider
from tests.support.slapd import SERVICE_DN, SERVICE_PW, Directory, start_slapd

CLIENT_ID, CLIENT_SECRET = "irisrag", "irisrag-client-secret"


@pytest.fixture(scope="session")
def slapd_server(tmp_path_factory):
    try:
        server = start_slapd(tmp_path_factory.mktemp("slapd"))
    except FileNotFoundError as exc:
        missing(str(exc))
    yield server
    server.stop()


@pytest.fixture
def directory(slapd_server):
    d = Directory(slapd_server)
    yield d
    d.close()


def ldap_settings(directory: Directory, **extra) -> dict:
    """Search-then-bind settings for this test's part of the directory (OpenLDAP style)."""
    settings = {
        "LDAP_URL": directory.server.url, "LDAP_BIND_DN": SERVICE_DN, "LDAP_BIND_PASSWORD": SERVICE_PW,
        "LDAP_USER_BASE": directory.people, "LDAP_USER_FILTER": "(objectClass=inetOrgPerson)",
        "LDAP_USERNAME_ATTRIBUTE": "uid", "LDAP_GROUP_BASE": directory.groups,
        "LDAP_GROUP_MAP": {directory.group_dn("staff"): ["Staff"], directory.group_dn("sales"): ["Sales"]},
        "LDAP_ADMIN_GROUPS": [directory.group_dn("it-admins")],
    }
    settings.update(extra)
    return settings


@pytest.fixture
def ldap_app(tmp_path, database_url, redis_url, directory):
    app = make_app(tmp_path, database_url, redis_url, **ldap_settings(directory))
    yield app
    if not db.is_closed():
        db.close()


@pytest.fixture(scope="session")
def oidc_provider(tmp_path_factory):
    clients = [oidc_client(CLIENT_ID, CLIENT_SECRET, ["http://localhost/sso/oidc/callback"],
                           logout_uris=["http://localhost/login", "http://localhost/admin/login"])]
    try:
        provider = start_provider(tmp_path_factory.mktemp("oidc"), clients)
    except FileNotFoundError as exc:
        missing(str(exc))
    yield provider
    provider.stop()


def oidc_settings(provider, **extra) -> dict:
    settings = {
        "OIDC_DISCOVERY_URL": provider.discovery_url, "OIDC_CLIENT_ID": CLIENT_ID,
        "OIDC_CLIENT_SECRET": CLIENT_SECRET, "OIDC_SCOPES": "openid profile email groups",
        "OIDC_GROUP_MAP": {"staff": ["Staff"], "sales": ["Sales"]}, "OIDC_ADMIN_GROUPS": ["it-admins"],
        "OIDC_PROVIDER_NAME": "Test IdP",
    }
    settings.update(extra)
    return settings


@pytest.fixture
def oidc_app(tmp_path, database_url, redis_url, oidc_provider):
    app = make_app(tmp_path, database_url, redis_url, **oidc_settings(oidc_provider))
    yield app
    if not db.is_closed():
        db.close()


def grant_area(app, area: str, group: str) -> None:
    """Create an area and a group (if missing) and grant the area to the group."""
    from irisrag.models import Group

    with app.app_context(), db.connection_context():
        if not Group.select().where(Group.name == group).exists():
            admin_service.create_named(Group, group)
        from irisrag.models import Area

        admin_service.create_named(Area, area)
        admin_service.link_area(area, group)


def area_names(app, username: str) -> list[str]:
    from irisrag.models import User
    from irisrag.services.access import permitted_areas

    with app.app_context(), db.connection_context():
        user = User.get(User.username == username)
        return sorted(a.name for a in permitted_areas(user.id))


def account(app, username: str):
    from irisrag.models import User

    with app.app_context(), db.connection_context():
        return User.get_or_none(User.username == username)


def admin_client_of(app):
    """A client logged in to the admin world of this app with a local admin account."""
    from tests.conftest import login

    with app.app_context(), db.connection_context():
        admin_service.create_user("root", "rootpassword", is_admin=True)
    client = app.test_client()
    assert login(client, "root", "rootpassword", admin=True).status_code == 302
    return client
