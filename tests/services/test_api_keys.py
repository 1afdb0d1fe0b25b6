"""API keys: shown once, stored hashed, limited to the user's areas, revocable, per-request areas."""
from __future__ import annotations

import hashlib

import pytest

from irisrag.errors import Conflict, Forbidden, NotFound, ValidationError
from irisrag.models import ApiKey, ApiKeyArea, Area, Group
from irisrag.services.admin import admin as admin_service
from irisrag.services.admin import api_keys


def test_api_keys_create_returns_the_key_once_and_stores_only_a_hash(library, ctx):
    created = api_keys.create_key("alice", name="script")
    plain = created.plain
    assert plain.startswith(f"irk_{created.key.id}_") and len(plain) > 40
    row = ApiKey.get_by_id(created.key.id)
    secret = plain.split("_", 2)[2]
    assert row.secret_hash == hashlib.sha256(secret.encode()).hexdigest()
    assert secret not in (row.prefix + row.name + row.secret_hash)
    assert plain.startswith(row.prefix) and len(row.prefix) < len(plain) - 20
    principal = api_keys.authenticate(plain)
    assert principal.user_id == library.users["alice"] and principal.area_limit is None
    assert api_keys.effective_area_ids(principal) == [library.alpha]
    assert ApiKey.get_by_id(row.id).last_used_at is not None


def test_api_keys_wrong_malformed_and_revoked_keys_do_not_authenticate(library, ctx):
    plain = api_keys.create_key("alice").plain
    tampered = plain[:-1] + ("A" if plain[-1] != "A" else "B")
    other_id = plain.replace(plain.split("_")[1], "999", 1)
    for raw in (None, "", "irk_", "nonsense", tampered, other_id, plain + "x", " "):
        assert api_keys.authenticate(raw) is None
    api_keys.revoke_key(plain)
    assert api_keys.authenticate(plain) is None
    first = ApiKey.get().revoked_at
    api_keys.revoke_key(ApiKey.get().id)
    assert ApiKey.get().revoked_at == first


def test_api_keys_a_deactivated_user_key_stops_working(library, ctx):
    plain = api_keys.create_key("alice").plain
    admin_service.set_active(library.users["alice"], False)
    assert api_keys.authenticate(plain) is None
    with pytest.raises(Conflict):
        api_keys.create_key("alice")
    admin_service.set_active(library.users["alice"], True)
    assert api_keys.authenticate(plain) is not None


def test_api_keys_limit_must_be_a_subset_of_the_users_areas(library, ctx):
    with pytest.raises(ValidationError) as caught:
        api_keys.create_key("alice", areas=["Beta"])
    assert caught.value.field == "areas"
    with pytest.raises(NotFound):
        api_keys.create_key("alice", areas=["Gamma"])
    with pytest.raises(NotFound):
        api_keys.create_key("ghost")
    assert ApiKey.select().count() == 0
    limited = api_keys.create_key("carol", areas=["Alpha"]).plain
    principal = api_keys.authenticate(limited)
    assert principal.area_limit == {library.alpha}
    assert api_keys.effective_area_ids(principal) == [library.alpha]
    assert api_keys.select_areas(principal, None) == [library.alpha]
    assert api_keys.select_areas(principal, ["alpha"]) == [library.alpha]
    for foreign in ([library.beta], ["Beta"], [library.alpha, library.beta], [424242], ["Gamma"]):
        with pytest.raises(Forbidden):
            api_keys.select_areas(principal, foreign)


def test_api_keys_areas_follow_the_users_groups_on_every_request(library, ctx):
    plain = api_keys.create_key("carol").plain
    assert api_keys.effective_area_ids(api_keys.authenticate(plain)) == [library.alpha, library.beta]
    admin_service.unlink_user("carol", "team-b")
    assert api_keys.effective_area_ids(api_keys.authenticate(plain)) == [library.alpha]
    limited = api_keys.create_key("carol", areas=["Alpha"]).plain
    admin_service.unlink_user("carol", "team-a")
    assert api_keys.effective_area_ids(api_keys.authenticate(limited)) == []


def test_api_keys_a_limited_key_whose_areas_are_deleted_reaches_nothing(library, ctx):
    admin_service.create_named(Area, "Empty")
    admin_service.create_named(Group, "team-e")
    admin_service.link_area("Empty", "team-e")
    admin_service.link_user("alice", "team-e")
    plain = api_keys.create_key("alice", areas=["Empty"]).plain
    admin_service.delete_area(admin_service.get(Area, "Empty").id)
    assert ApiKeyArea.select().count() == 0
    principal = api_keys.authenticate(plain)
    assert principal.area_limit == frozenset()
    assert api_keys.effective_area_ids(principal) == []


def test_api_keys_list_and_find_and_user_deletion(library, ctx):
    one = api_keys.create_key("alice", name="first")
    two = api_keys.create_key("carol", name="second", areas=["Beta", "Alpha"])
    views = api_keys.list_keys()
    assert [v.name for v in views] == ["second", "first"]
    assert views[0].areas == ("Alpha", "Beta") and views[0].limited and not views[1].limited
    assert [v.id for v in api_keys.list_keys(library.users["alice"])] == [one.key.id]
    assert api_keys.find_key(one.key.prefix).id == one.key.id
    assert api_keys.find_key(f"irk_{one.key.id}").id == one.key.id
    assert api_keys.find_key(str(two.key.id)).id == two.key.id
    with pytest.raises(NotFound):
        api_keys.find_key(f"irk_{one.key.id}_zzzzzz")
    with pytest.raises(ValidationError):
        api_keys.create_key("alice", name="<script>")
    admin_service.delete_user(library.users["carol"])
    assert ApiKey.select().count() == 1 and ApiKeyArea.select().count() == 0
