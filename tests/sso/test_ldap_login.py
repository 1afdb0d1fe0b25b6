"""LDAP sign-in against a real, private slapd: accounts, groups, admin rights, TLS, outages, attacks."""
from __future__ import annotations

import pytest

from irisrag.errors import DirectoryUnavailable, SignInRefused
from irisrag.extensions import db
from irisrag.models import LoginAttempt, User
from irisrag.services.signin.ldap_directory import LdapDirectory
from tests.conftest import login, make_app
from tests.sso.conftest import account, area_names, grant_area, ldap_settings
from tests.support.http_stub import closed_port

REFUSED = "Invalid username or password."


def text(resp) -> str:
    return resp.get_data(as_text=True)


def test_ldap_first_login_creates_an_external_account_in_the_mapped_groups(ldap_app, directory):
    directory.add_user("alice", "alice-ldap-pw", groups=("staff", "unmapped"))
    grant_area(ldap_app, "Handbook", "Staff")
    client = ldap_app.test_client()
    resp = login(client, "alice", "alice-ldap-pw")
    assert resp.status_code == 302 and resp.headers["Location"] == "/"
    user = account(ldap_app, "alice")
    assert (user.auth_source, user.external_id, user.password_hash, user.is_admin) == ("ldap", "alice", "", False)
    assert area_names(ldap_app, "alice") == ["Handbook"]
    assert "Handbook" in text(client.get("/"))
    assert login(ldap_app.test_client(), "alice", "").status_code == 400  # the form wants a password


def test_ldap_group_removed_in_the_directory_removes_the_area_at_next_login(ldap_app, directory):
    directory.add_user("bob", "bob-ldap-pw", groups=("staff", "sales"))
    grant_area(ldap_app, "Handbook", "Staff")
    grant_area(ldap_app, "Pipeline", "Sales")
    assert login(ldap_app.test_client(), "bob", "bob-ldap-pw").status_code == 302
    assert area_names(ldap_app, "bob") == ["Handbook", "Pipeline"]
    directory.remove_member("sales", "bob")
    assert login(ldap_app.test_client(), "bob", "bob-ldap-pw").status_code == 302
    assert area_names(ldap_app, "bob") == ["Handbook"]


def test_ldap_manual_membership_in_an_unmapped_group_survives_the_sync(ldap_app, directory):
    from irisrag.models import Group
    from irisrag.services.admin import admin as admin_service

    directory.add_user("dora", "dora-ldap-pw", groups=("staff",))
    assert login(ldap_app.test_client(), "dora", "dora-ldap-pw").status_code == 302
    with ldap_app.app_context(), db.connection_context():
        admin_service.create_named(Group, "Project X")
        admin_service.link_user("dora", "Project X")
    grant_area(ldap_app, "X files", "Project X")
    assert login(ldap_app.test_client(), "dora", "dora-ldap-pw").status_code == 302
    assert area_names(ldap_app, "dora") == ["X files"]


def test_ldap_admin_rights_come_from_a_mapped_group_and_go_with_it(ldap_app, directory):
    directory.add_user("carla", "carla-ldap-pw", groups=("it-admins",))
    directory.add_user("dan", "dan-ldap-pw", groups=("staff",))
    admin = ldap_app.test_client()
    assert login(admin, "carla", "carla-ldap-pw", admin=True).status_code == 302
    assert admin.get("/admin").status_code == 200
    refused = login(ldap_app.test_client(), "dan", "dan-ldap-pw", admin=True)
    assert refused.status_code == 401 and REFUSED in text(refused)

    directory.remove_member("it-admins", "carla")
    assert login(ldap_app.test_client(), "carla", "carla-ldap-pw").status_code == 302  # user world: fine
    assert account(ldap_app, "carla").is_admin is False
    assert admin.get("/admin").status_code == 302  # the admin session ended with the right
    assert login(ldap_app.test_client(), "carla", "carla-ldap-pw", admin=True).status_code == 401


def test_ldap_wrong_password_is_refused_counted_and_rate_limited(ldap_app, directory, caplog):
    directory.add_user("erin", "erin-ldap-pw")
    client = ldap_app.test_client()
    for _ in range(ldap_app.config["LOGIN_RATE_LIMIT"]):
        resp = login(client, "erin", "wrong-password")
        assert resp.status_code == 401 and REFUSED in text(resp)
    assert login(client, "erin", "erin-ldap-pw").status_code == 429  # limited, even with the right one now
    assert account(ldap_app, "erin") is None
    assert "login_failed method=ldap user='erin'" in caplog.text
    assert "wrong-password" not in caplog.text
    unknown = login(ldap_app.test_client(), "nobody-here", "whatever-pw")
    assert unknown.status_code == 401 and REFUSED in text(unknown)


@pytest.mark.parametrize("name", ["*)(uid=*", "*", "fr*", "frank)(|(uid=*", "*)(objectClass=*"])
@pytest.mark.parametrize("people", [("frank",), ("frank", "gina")])
def test_ldap_filter_injection_logs_nobody_in(ldap_app, directory, name, people):
    for uid in people:  # alone, a wildcard would match frank's entry and his password would do
        directory.add_user(uid, "same-password-1")
    resp = login(ldap_app.test_client(), name, "same-password-1")
    assert resp.status_code == 401 and REFUSED in text(resp)
    with ldap_app.app_context(), db.connection_context():
        assert User.select().count() == 0


def test_ldap_empty_password_never_binds(ldap_app, directory):
    """An LDAP simple bind with an empty password is an anonymous bind that "succeeds"."""
    directory.add_user("hank", "hank-ldap-pw")
    with pytest.raises(SignInRefused):
        LdapDirectory(ldap_app.config).authenticate("hank", "")


def test_ldap_outage_gives_a_clear_message_and_no_fallback(tmp_path, database_url, redis_url, directory):
    app = make_app(tmp_path, database_url, redis_url, **ldap_settings(directory, LDAP_URL=f"ldap://127.0.0.1:{closed_port()}"))
    with app.app_context(), db.connection_context():  # an account from an earlier sign-in
        User.create(username="ivy", password_hash="", auth_source="ldap", external_id="ivy")
    for name in ("ivy", "newcomer"):
        resp = login(app.test_client(), name, "any-password")
        assert resp.status_code == 503
        assert "directory service (LDAP) cannot be reached" in text(resp)
    with app.app_context(), db.connection_context():
        assert LoginAttempt.select().count() == 0 and User.select().count() == 1


def test_ldap_stopped_server_is_an_outage_not_a_wrong_password(tmp_path, database_url, redis_url):
    from tests.support.slapd import Directory, start_slapd

    server = start_slapd(tmp_path / "own-slapd")
    try:
        directory = Directory(server)
        directory.add_user("jack", "jack-ldap-pw")
        app = make_app(tmp_path, database_url, redis_url, **ldap_settings(directory))
        assert login(app.test_client(), "jack", "jack-ldap-pw").status_code == 302
        directory.close()
    finally:
        server.stop()
    resp = login(app.test_client(), "jack", "jack-ldap-pw")
    assert resp.status_code == 503 and "cannot be reached" in text(resp)


def test_ldap_ldaps_and_starttls_verify_the_server_certificate(ldap_app, directory, slapd_server):
    directory.add_user("kim", "kim-ldap-pw", groups=("staff",))
    secure = [{"LDAP_URL": slapd_server.ldaps_url, "LDAP_CA_FILE": slapd_server.ca_file},
              {"LDAP_START_TLS": True, "LDAP_CA_FILE": slapd_server.ca_file}]
    for extra in secure:
        identity = LdapDirectory(ldap_settings(directory, **extra)).authenticate("kim", "kim-ldap-pw")
        assert identity.username == "kim" and directory.group_dn("staff") in identity.groups
    # without the CA the certificate is not trusted: refused as unreachable, never sent in clear
    for extra in ({"LDAP_URL": slapd_server.ldaps_url}, {"LDAP_START_TLS": True}):
        with pytest.raises(DirectoryUnavailable):
            LdapDirectory(ldap_settings(directory, **extra)).authenticate("kim", "kim-ldap-pw")


def test_ldap_direct_bind_with_escaped_user_dn(tmp_path, database_url, redis_url, directory):
    directory.add_user("lena", "lena-ldap-pw", groups=("staff",))
    settings = ldap_settings(directory, LDAP_BIND_DN="", LDAP_BIND_PASSWORD="",
                             LDAP_USER_DN_TEMPLATE=f"uid={{username}},{directory.people}")
    app = make_app(tmp_path, database_url, redis_url, **settings)
    grant_area(app, "Handbook", "Staff")
    assert login(app.test_client(), "lena", "lena-ldap-pw").status_code == 302
    assert area_names(app, "lena") == ["Handbook"]
    forged = f"lena,{directory.people}"  # a DN injection must not change which entry binds
    assert login(app.test_client(), forged, "lena-ldap-pw").status_code == 401


def test_ldap_member_of_attribute_when_no_group_base(tmp_path, database_url, redis_url, directory):
    """Active Directory style: groups from the user's memberOf (slapd's memberof overlay keeps it)."""
    directory.add_user("mona", "mona-ldap-pw", groups=("staff",))
    shouting = {directory.group_dn("staff").upper().replace(",", ", "): ["Staff"]}
    settings = ldap_settings(directory, LDAP_GROUP_BASE="", LDAP_GROUP_MAP=shouting)
    assert LdapDirectory(settings).authenticate("mona", "mona-ldap-pw").groups == (directory.group_dn("staff"),)
    app = make_app(tmp_path, database_url, redis_url, **settings)
    grant_area(app, "Handbook", "Staff")
    assert login(app.test_client(), "mona", "mona-ldap-pw").status_code == 302
    assert area_names(app, "mona") == ["Handbook"]  # DNs compared without regard to case and spaces


def test_ldap_never_takes_over_a_local_account_with_the_same_name(ldap_app, directory, make_user):
    make_user("nora", "local-password-1")
    directory.add_user("nora", "directory-pw-1", groups=("it-admins",))
    assert login(ldap_app.test_client(), "nora", "directory-pw-1").status_code == 401
    user = account(ldap_app, "nora")
    assert (user.auth_source, user.is_admin) == ("local", False)
    assert login(ldap_app.test_client(), "nora", "local-password-1").status_code == 302


def test_ldap_deactivated_account_is_refused(ldap_app, directory):
    from irisrag.services.admin import admin as admin_service

    directory.add_user("olga", "olga-ldap-pw")
    assert login(ldap_app.test_client(), "olga", "olga-ldap-pw").status_code == 302
    with ldap_app.app_context(), db.connection_context():
        admin_service.set_active(account(ldap_app, "olga").id, False)
    resp = login(ldap_app.test_client(), "olga", "olga-ldap-pw")
    assert resp.status_code == 401 and "deactivated" in text(resp)
