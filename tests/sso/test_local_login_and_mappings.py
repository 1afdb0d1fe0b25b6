"""IRISRAG_LOCAL_LOGIN, the console's *Directory groups* tab, and the schema upgrade for external accounts."""
from __future__ import annotations

import pytest

from irisrag.extensions import db
from irisrag.models import DirectoryGroupMapping, Group
from irisrag.services.admin import admin as admin_service
from tests.conftest import login, make_app, post
from tests.sso.conftest import admin_client_of, area_names, grant_area, ldap_settings


def text(resp) -> str:
    return resp.get_data(as_text=True)


@pytest.mark.parametrize(("policy", "user_ok", "admin_ok"), [("on", True, True), ("admins", False, True),
                                                            ("off", False, False)])
def test_local_login_policy(tmp_path, database_url, redis_url, policy, user_ok, admin_ok):
    app = make_app(tmp_path, database_url, redis_url, LOCAL_LOGIN=policy)
    with app.app_context(), db.connection_context():
        admin_service.create_user("plain", "plain-password-1")
        admin_service.create_user("breakglass", "breakglass-pw-1", is_admin=True)
    assert (login(app.test_client(), "plain", "plain-password-1").status_code == 302) is user_ok
    assert (login(app.test_client(), "breakglass", "breakglass-pw-1", admin=True).status_code == 302) is admin_ok
    assert (login(app.test_client(), "breakglass", "breakglass-pw-1").status_code == 302) is admin_ok
    refused = login(app.test_client(), "plain", "plain-password-1")
    if not user_ok:  # refused like a wrong password: the policy does not tell who exists
        assert refused.status_code == 401 and "Invalid username or password." in text(refused)


def test_local_login_off_hides_the_password_form_unless_ldap_needs_it(tmp_path, database_url, redis_url,
                                                                      oidc_provider, directory):
    from tests.sso.conftest import oidc_settings

    app = make_app(tmp_path, database_url, redis_url, LOCAL_LOGIN="off", **oidc_settings(oidc_provider))
    page = text(app.test_client().get("/login"))
    assert 'id="login-form"' not in page and 'id="sso-login"' in page and "Log in with Test IdP" in page
    app = make_app(tmp_path / "2", database_url, redis_url, LOCAL_LOGIN="off", **ldap_settings(directory))
    page = text(app.test_client().get("/admin/login"))
    assert 'id="login-form"' in page and 'id="ldap-hint"' in page and 'id="sso-login"' not in page


def test_console_mapping_puts_directory_members_into_the_group(ldap_app, directory):
    admin_client = admin_client_of(ldap_app)
    directory.add_user("paula", "paula-ldap-pw", groups=("projects",))
    grant_area(ldap_app, "Roadmap", "Projects")
    with ldap_app.app_context(), db.connection_context():
        group_id = Group.get(Group.name == "Projects").id
    page = text(admin_client.get("/admin/directory-groups"))
    assert directory.group_dn("staff") in page and "from the settings" in page  # read-only rows
    resp = post(admin_client, "/admin/directory-groups",
                {"provider": "ldap", "external_group": directory.group_dn("projects"), "group": group_id})
    assert resp.status_code == 200 and "Mapping saved" in text(resp)
    assert login(ldap_app.test_client(), "paula", "paula-ldap-pw").status_code == 302
    assert area_names(ldap_app, "paula") == ["Roadmap"]

    with ldap_app.app_context(), db.connection_context():
        mapping = DirectoryGroupMapping.get()
    assert post(admin_client, f"/admin/directory-groups/{mapping.id}/delete").status_code == 200
    assert login(ldap_app.test_client(), "paula", "paula-ldap-pw").status_code == 302
    assert area_names(ldap_app, "paula") == []


def test_console_mapping_can_grant_admin_and_refuses_nonsense(ldap_app, directory):
    admin_client = admin_client_of(ldap_app)
    directory.add_user("quinn", "quinn-ldap-pw", groups=("ops",))
    bad = post(admin_client, "/admin/directory-groups", {"provider": "ldap", "external_group": "cn=x"})
    assert bad.status_code == 400 and "Please choose a group or the admin right." in text(bad)
    assert post(admin_client, "/admin/directory-groups", {"provider": "smtp", "external_group": "x",
                                                          "grants_admin": "y"}).status_code == 400
    post(admin_client, "/admin/directory-groups",
         {"provider": "ldap", "external_group": directory.group_dn("ops"), "grants_admin": "y"})
    assert login(ldap_app.test_client(), "quinn", "quinn-ldap-pw", admin=True).status_code == 302


def test_directory_groups_tab_is_for_admins_only(ldap_app, directory):
    anonymous = ldap_app.test_client()
    assert anonymous.get("/admin/directory-groups").status_code == 302
    directory.add_user("rita", "rita-ldap-pw", groups=("staff",))
    user = ldap_app.test_client()
    assert login(user, "rita", "rita-ldap-pw").status_code == 302
    assert user.get("/admin/directory-groups").status_code == 302
    resp = post(user, "/admin/directory-groups", {"provider": "ldap", "external_group": "cn=x", "grants_admin": "y"},
                page="/")
    assert resp.status_code == 401
    with ldap_app.app_context(), db.connection_context():
        assert DirectoryGroupMapping.select().count() == 0


def test_schema_upgrade_adds_the_external_account_columns(app):
    from playhouse.migrate import SchemaMigrator, migrate

    from irisrag.models import SchemaVersion, User
    from irisrag.models.schema import current_version, upgrade

    with app.app_context(), db.connection_context():
        User.create(username="old", password_hash="x")
        migrator = SchemaMigrator.from_database(db.obj)
        migrate(migrator.drop_index("user", "user_external_id"), migrator.drop_column("user", "auth_source"),
                migrator.drop_column("user", "external_id"), migrator.drop_column("user_group", "via_directory"))
        SchemaVersion.delete().where(SchemaVersion.version > 1).execute()
        assert "auth_source" not in {c.name for c in db.get_columns("user")}
        before, after = upgrade()
        assert before == 1 and after == current_version() >= 2
        assert User.get(User.username == "old").auth_source == "local"
