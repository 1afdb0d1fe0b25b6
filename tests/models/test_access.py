"""Access rules on SQLite and on PostgreSQL (the same tests on both)."""
import pytest

from irisrag.errors import Conflict, Forbidden, NotFound, ValidationError
from irisrag.extensions import db
from irisrag.models import Area, Document, Group, User
from irisrag.services import access
from irisrag.services.admin import admin as svc
from tests.conftest import make_app


@pytest.fixture
def conn(tmp_path, any_database_url, redis_url):
    app = make_app(tmp_path, any_database_url, redis_url)
    with app.app_context(), db.connection_context():
        yield app
    # the schema or file is removed by the database fixture


def _setup():
    alice = svc.create_user("alice", "password123")
    g1, g2 = svc.create_named(Group, "G1"), svc.create_named(Group, "G2")
    a, b, c = (svc.create_named(Area, n) for n in ("A", "B", "C"))
    svc.link_user("alice", "G1")
    svc.link_area("A", "G1")
    svc.link_area("B", "G1")
    svc.link_area("C", "G2")
    return alice, (g1, g2), (a, b, c)


def test_access_user_sees_exactly_the_areas_of_their_groups(conn):
    alice, _, (a, b, c) = _setup()
    assert access.permitted_area_ids(alice.id) == sorted([a.id, b.id])
    assert [x.name for x in access.permitted_areas(alice.id)] == ["A", "B"]


def test_access_removing_a_link_removes_access_at_once(conn):
    alice, _, (a, b, _c) = _setup()
    svc.unlink_area("B", "G1")
    assert access.permitted_area_ids(alice.id) == [a.id]
    svc.unlink_user("alice", "G1")
    assert access.permitted_area_ids(alice.id) == []


def test_access_user_in_no_group_sees_none(conn):
    _setup()
    bob = svc.create_user("bob", "password123")
    assert access.permitted_area_ids(bob.id) == []


def test_access_deactivated_user_sees_none(conn):
    alice, _, _ = _setup()
    svc.set_active(alice.id, False)
    assert access.permitted_area_ids(alice.id) == []


def test_access_area_reached_through_two_groups_counts_once(conn):
    alice, _, (a, b, c) = _setup()
    svc.link_user("alice", "G2")
    svc.link_area("A", "G2")
    assert access.permitted_area_ids(alice.id) == sorted([a.id, b.id, c.id])


def test_access_select_areas_intersects_and_refuses_when_strict(conn):
    alice, _, (a, b, c) = _setup()
    assert access.select_areas(alice.id, [a.id, c.id]) == [a.id]
    assert access.select_areas(alice.id, None) == sorted([a.id, b.id])
    with pytest.raises(Forbidden):
        access.select_areas(alice.id, [c.id], strict=True)


def test_admin_duplicate_names_are_conflicts(conn):
    _setup()
    with pytest.raises(Conflict):
        svc.create_named(Group, "g1")  # case-insensitive
    with pytest.raises(Conflict):
        svc.create_user("ALICE", "password123")
    with pytest.raises(Conflict):
        svc.update_named(Area, Area.get(Area.name == "B").id, "a")


def test_admin_validation_and_unknown_names(conn):
    with pytest.raises(ValidationError) as err:
        svc.create_user("carol", "short")
    assert err.value.field == "password"
    with pytest.raises(ValidationError):
        svc.create_named(Area, "   ")
    with pytest.raises(NotFound):
        svc.link_user("nobody", "G1")


def test_admin_delete_area_with_documents_is_refused(conn):
    _setup()
    area = Area.get(Area.name == "A")
    Document.create(area=area, name="x.txt", directory="/staging/upload")
    with pytest.raises(Conflict, match="still has 1 document"):
        svc.delete_area(area.id)
    assert Area.get_or_none(Area.id == area.id) is not None
    svc.delete_area(Area.get(Area.name == "C").id)
    assert Area.get_or_none(Area.name == "C") is None


def test_admin_delete_user_and_group_remove_links(conn):
    alice, (g1, _), _ = _setup()
    svc.delete_group(g1.id)
    assert access.permitted_area_ids(alice.id) == []
    svc.delete_user(alice.id)
    assert User.get_or_none(User.username == "alice") is None


def test_admin_password_change_rotates_session_token(conn):
    alice, _, _ = _setup()
    before = (alice.session_token, alice.admin_session_token)
    svc.set_password(alice.id, "another-password")
    after = User.get_by_id(alice.id)
    assert (after.session_token, after.admin_session_token) != before
    assert after.session_token != before[0] and after.admin_session_token != before[1]


def test_schema_upgrade_is_idempotent(conn):
    from irisrag.models.schema import current_version, upgrade

    assert current_version() >= 1
    before, after = upgrade()
    assert before == after == current_version()
