"""The foundation's end-to-end story in a real browser."""
import pytest

pytestmark = pytest.mark.browser


def login(page, base: str, path: str, username: str, password: str) -> None:
    page.goto(base + path)
    page.fill("#username", username)
    page.fill("#password", password)
    page.click("#login-form button[type=submit]")


def test_browser_admin_sets_up_a_user_who_then_sees_the_area(page, live_server, make_user):
    make_user("root", "rootpassword", admin=True)
    login(page, live_server, "/admin/login", "root", "rootpassword")
    page.wait_for_url(live_server + "/admin")

    page.fill("#new-user-name", "alice")
    page.fill("#new-user-password", "alicepassword")
    page.click("#new-user button[type=submit]")
    page.wait_for_selector("#message:has-text('User created.')")

    page.click("#tab-groups")
    page.wait_for_selector("#new-group-name")
    page.fill("#new-group-name", "Sales")
    page.click("#new-group button[type=submit]")
    page.wait_for_selector("#message:has-text('Group created.')")

    page.click("#tab-areas")
    page.wait_for_selector("#new-area-name")
    page.fill("#new-area-name", "Handbook")
    page.click("#new-area button[type=submit]")
    page.wait_for_selector("#message:has-text('Area created.')")
    # a duplicate is refused next to the field, through htmx, without losing the page
    page.fill("#new-area-name", "handbook")
    page.click("#new-area button[type=submit]")
    page.wait_for_selector("#new-area-name-error:has-text('already exists')")

    page.click("#tab-links")
    page.wait_for_selector("#link-user-user")
    page.select_option("#link-user-user", label="alice")
    page.select_option("#link-user-group", label="Sales")
    page.click("#link-user button[type=submit]")
    page.wait_for_selector("text=alice → Sales")
    page.select_option("#link-area-area", label="Handbook")
    page.select_option("#link-area-group", label="Sales")
    page.click("#link-area button[type=submit]")
    page.wait_for_selector("text=Handbook → Sales")
    assert page.url.endswith("/admin?tab=links")

    login(page, live_server, "/login", "alice", "alicepassword")
    page.wait_for_url(live_server + "/")
    assert page.is_visible("label:has-text('Handbook') input[name=areas]")
    assert page.is_checked("label:has-text('Handbook') input[name=areas]")
    assert not [e for e in page.console_errors if "Content Security Policy" in e]


def test_browser_user_without_areas_gets_a_friendly_explanation(page, live_server, make_user):
    make_user("lonely", "lonelypassword")
    login(page, live_server, "/login", "lonely", "lonelypassword")
    page.wait_for_selector("#no-areas")
    assert "do not have access to any area" in page.inner_text("#no-areas")
