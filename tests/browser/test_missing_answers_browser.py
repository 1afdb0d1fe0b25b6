"""The missing-answers tab in a real browser: open it from the tab bar, expand a group, go to the inspector."""
from datetime import timedelta

import pytest

from tests.browser.test_admin_flow import login
from tests.services import seed_library
from tests.web.test_missing_answers import KANTINE, logq

pytestmark = pytest.mark.browser


def test_browser_missing_answers_tab_groups_and_links_to_the_inspector(page, live_server, app, make_user):
    lib = seed_library(app)
    first = logq(app, lib.users["alice"], KANTINE[0], areas=[lib.alpha], age=timedelta(days=2))
    second = logq(app, lib.users["bob"], KANTINE[1], areas=[lib.beta], age=timedelta(hours=1))
    make_user("root", "rootpassword", admin=True)
    login(page, live_server, "/admin/login", "root", "rootpassword")
    page.wait_for_url(live_server + "/admin")

    page.click("#tab-missing")  # swapped in by htmx, the address follows
    page.wait_for_selector("#missing-h")
    page.wait_for_url(live_server + "/admin/missing")
    row = page.locator(f"#missing-g{first}")
    assert row.locator("td.count").inner_text() == "2" and "Alpha, Beta" in row.inner_text()
    member = page.locator(f"#missing-q{second}")
    assert not member.is_visible()  # the group is folded
    row.locator("summary").click()
    member.wait_for(state="visible")
    assert KANTINE[1] in member.inner_text() and "alice" not in row.inner_text()

    member.locator("a.inspect").click()
    page.wait_for_selector("#insp-question")
    assert page.input_value("#insp-question") == KANTINE[1]
    assert not [e for e in page.console_errors if "Content Security Policy" in e]
