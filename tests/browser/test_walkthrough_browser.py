"""What a new user and a new admin trip over in the browser (issue 39), in German, at 1366 and 390 px.

Screenshots of each state go to $IRISRAG_SCREENSHOTS when set (light and dark, both widths).
"""
from __future__ import annotations

import os

import pytest

from irisrag.extensions import db
from irisrag.jobs.documents import import_document
from irisrag.models import Area, Document, Group
from irisrag.services.admin import admin as admin_service
from irisrag.services.documents import documents
from tests.browser.test_admin_flow import login

pytestmark = pytest.mark.browser

SHOTS = os.environ.get("IRISRAG_SCREENSHOTS")
SECTIONS = 40  # a long manual: the cited passage is far below the top
MANUAL = "# Betriebshandbuch\n\n" + "\n\n".join(
    f"## Abschnitt {n}\n\nDer **Collector** prüft in Abschnitt {n} die Datei `otel-{n}.yaml` und meldet "
    f"den Zustand an den Empfänger. Weitere Hinweise stehen im [Handbuch](https://example.org/{n})." for n in range(SECTIONS))
PHONE, DESKTOP = {"width": 390, "height": 844}, {"width": 1366, "height": 900}


@pytest.fixture
def german(browser):
    context = browser.new_context(locale="de-DE", viewport=DESKTOP)
    page = context.new_page()
    page.set_default_timeout(20000)
    page.on("dialog", lambda dialog: dialog.accept())
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.console_errors = errors
    yield page
    context.close()


@pytest.fixture
def site(app):
    """One user (erika), one admin (root), an area with a long Markdown manual imported for real."""
    with app.app_context(), db.connection_context():
        area = admin_service.create_named(Area, "Betrieb")
        admin_service.create_named(Area, "Archiv")
        admin_service.create_named(Group, "Leser")
        admin_service.create_user("erika", "erikapassword")
        admin_service.create_user("root", "rootpassword", is_admin=True)
        admin_service.link_user("erika", "Leser")
        admin_service.link_area("Betrieb", "Leser")
        doc = documents.import_upload("Betrieb", "handbuch.md", MANUAL.encode())
        assert import_document(doc.id)["status"] == "done"
        chunks = Document.get_by_id(doc.id).chunk_count
    assert chunks > 3
    return {"document": doc.id, "last": chunks - 1, "area": area.id}


def shot(page, name: str, *, full_page: bool = True) -> None:
    """Keep a screenshot of each width (and dark mode) when $IRISRAG_SCREENSHOTS names a folder."""
    if not SHOTS:
        return
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        for size in (DESKTOP, PHONE):
            page.set_viewport_size(size)
            page.screenshot(path=f"{SHOTS}/{name}-{scheme}-{size['width']}.png", full_page=full_page)
    page.emulate_media(color_scheme="light")
    page.set_viewport_size(DESKTOP)


def in_view(page, selector: str) -> bool:
    return page.eval_on_selector(selector, """el => { const r = el.getBoundingClientRect();
        return r.height > 0 && r.top >= 0 && r.top < window.innerHeight; }""")


def test_browser_viewer_opens_at_the_cited_passage_rendered(german, live_server, site):
    page = german
    login(page, live_server, "/login", "erika", "erikapassword")
    page.wait_for_url(live_server + "/")
    for size in (DESKTOP, PHONE):
        page.set_viewport_size(size)
        page.goto(f"{live_server}/documents/{site['document']}?chunk={site['last']}")
        cited = f"#chunk-{site['last']}.cited"
        page.wait_for_function(f"document.activeElement && document.activeElement.matches('{cited}')")
        assert in_view(page, cited) and page.evaluate("window.scrollY") > 0  # scrolled down to it
        assert page.inner_text("#cited-label") == "Zitierte Stelle"
    assert page.locator("#viewer h2").count() >= SECTIONS // 2 and page.locator("#viewer strong").count() > 0
    assert "**" not in page.inner_text("#viewer") and "## Abschnitt" not in page.inner_text("#viewer")
    assert not page.console_errors
    shot(page, "viewer-cited", full_page=False)  # the window as it opens: at the passage


def test_browser_skip_link_and_a_theme_toggle_that_names_the_mode(german, live_server, site):
    page = german
    login(page, live_server, "/login", "erika", "erikapassword")
    page.wait_for_url(live_server + "/")
    page.goto(f"{live_server}/documents/{site['document']}")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Zum Hauptinhalt springen"
    assert in_view(page, "a.skip-link")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"
    toggle = page.locator("#theme-toggle")
    assert toggle.inner_text() == "Dunkler Modus: aus"
    toggle.click()
    assert toggle.inner_text() == "Dunkler Modus: an" and page.get_attribute("html", "data-theme") == "dark"
    page.reload()
    assert page.locator("#theme-toggle").inner_text() == "Dunkler Modus: an"


ADMIN_PAGES = ["/admin?tab=users", "/admin?tab=groups", "/admin?tab=areas", "/admin?tab=links",
               "/admin?tab=documents", "/admin/feedback", "/admin/directory-groups", "/admin/system",
               "/admin/evaluations"]


def test_browser_every_admin_table_fits_a_phone(german, live_server, site):
    page = german
    login(page, live_server, "/admin/login", "root", "rootpassword")
    page.wait_for_url(live_server + "/admin")
    page.set_viewport_size(PHONE)
    for path in ADMIN_PAGES:
        page.goto(live_server + path)
        page.wait_for_load_state("networkidle")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], (path, width)
        for table in page.locator("#console table").all():
            if table.locator("thead").count():  # a table of columns; a two-column key/value table fits as it is
                assert "stacked" in table.get_attribute("class"), path
            overflow = table.evaluate("t => t.scrollWidth - t.clientWidth")
            assert overflow <= 1, (path, overflow)  # nothing hidden to the right of a row
    page.goto(live_server + "/admin?tab=users")
    first = page.locator("#console table.stacked tbody tr").first.locator("td").nth(1)
    assert first.get_attribute("data-label") == "Rolle"
    assert first.evaluate("td => getComputedStyle(td, '::before').content") == '"Rolle"'
    shot(page, "admin-users-stacked")
    page.goto(live_server + "/admin?tab=documents")
    shot(page, "admin-documents-stacked")


def test_browser_bulk_result_shows_where_the_person_is(german, live_server, site, app):
    page = german
    with app.app_context(), db.connection_context():
        for n in range(3):
            doc = documents.import_upload("Betrieb", f"notiz-{n}.md", f"# Notiz {n}\n\nText der Notiz {n}.".encode())
            assert import_document(doc.id)["status"] == "done"
    login(page, live_server, "/admin/login", "root", "rootpassword")
    page.wait_for_url(live_server + "/admin")
    page.goto(live_server + "/admin?tab=documents&q=notiz")
    for box in page.locator("#document-rows input[name=ids]").all():
        box.check()
    page.select_option("#bulk-action", "move")
    page.select_option("#bulk-target", label="Archiv")
    page.locator("#bulk-form").scroll_into_view_if_needed()
    page.click("#bulk-form button[type=submit]")
    page.wait_for_selector("#bulk-message:has-text('3 Dokumente verschoben.')")
    assert in_view(page, "#bulk-message") and in_view(page, "#bulk-form")
    assert page.locator("#document-rows input[name=ids]:checked").count() == 3  # the selection stays
    shot(page, "admin-bulk-result")


def test_browser_feedback_shows_the_given_rating_after_a_reload(german, live_server, site):
    page = german
    login(page, live_server, "/login", "erika", "erikapassword")
    page.wait_for_url(live_server + "/")
    page.fill("#question", "Wie prüft der Collector die Datei?")
    page.click("#composer button[type=submit]")
    page.wait_for_selector("#turns .answer-card form.feedback")
    page.locator("form.feedback button[value=up]").click()
    page.wait_for_selector("form.feedback .message")
    page.reload()
    up, down = page.locator("form.feedback button[value=up]"), page.locator("form.feedback button[value=down]")
    assert up.get_attribute("aria-pressed") == "true" and down.get_attribute("aria-pressed") == "false"
    background = "b => getComputedStyle(b).backgroundColor"
    assert up.evaluate(background) != down.evaluate(background)  # seen, not only announced
    assert "Ihre Bewertung: hilfreich." in page.inner_text("form.feedback")
    down.click()  # changed
    page.wait_for_selector("form.feedback button[value=down][aria-pressed=true]")
    assert "Ihre Bewertung: nicht hilfreich." in page.inner_text("form.feedback")
    shot(page, "answer-feedback-given")


FOLDER = """async () => {
  const file = (name) => ({isFile: true, isDirectory: false, file: (ok) => ok(new File(["# " + name], name))});
  const folder = (children, batch) => ({isFile: false, isDirectory: true, createReader: () => {
    const batches = [];
    for (let i = 0; i < children.length; i += batch) { batches.push(children.slice(i, i + batch)); }
    batches.push([]);  // readEntries ends with an empty batch
    return {readEntries: (ok) => ok(batches.shift())};
  }});
  const tree = folder([file("a.md"), folder([file("b.md"), file("c.txt")], 1), file("d.pdf")], 2);
  const files = await window.irisragAdmin.collect([tree, file("e.md")]);
  return files.map((f) => f.name);
}"""


def test_browser_a_dropped_folder_gives_every_file_inside_it(german, live_server, site):
    page = german
    login(page, live_server, "/admin/login", "root", "rootpassword")
    page.wait_for_url(live_server + "/admin")
    page.goto(live_server + "/admin?tab=documents")
    assert page.evaluate(FOLDER) == ["a.md", "b.md", "c.txt", "d.pdf", "e.md"]  # subfolders, several batches


def test_browser_each_chosen_file_is_listed_with_its_upload_bar(german, live_server, site):
    page = german
    login(page, live_server, "/admin/login", "root", "rootpassword")
    page.wait_for_url(live_server + "/admin")
    page.goto(live_server + "/admin?tab=documents")
    page.set_input_files("#upload-files", [
        {"name": "eins.md", "mimeType": "text/markdown", "buffer": b"# Eins\n\n" + b"x" * 100},
        {"name": "zwei.md", "mimeType": "text/markdown", "buffer": b"# Zwei\n\n" + b"y" * 300},
        {"name": "drei.exe", "mimeType": "application/octet-stream", "buffer": b"MZ" + b"\0" * 98}])
    assert page.locator("#upload-drop .drop-files li").all_inner_texts() == ["eins.md", "zwei.md", "drei.exe"]
    bars = "() => [...document.querySelectorAll('#upload-drop .drop-files progress')].map(b => [b.value, b.max])"
    page.evaluate("""() => document.getElementById('upload-form').dispatchEvent(
        new CustomEvent('htmx:xhr:progress', {bubbles: true, detail: {loaded: 1, total: 2}}))""")
    assert page.evaluate(bars) == [[108, 108], [150, 308], [0, 100]]  # half of 516 bytes sent, in order
    page.select_option("#upload-area", label="Betrieb")
    page.click("#upload-form button[type=submit]")
    page.wait_for_selector("#import-outcomes li.refused:has-text('drei.exe')")  # refused by name, the others queued
    assert page.locator("#import-outcomes li.refused").count() == 1
    shot(page, "admin-upload-per-file")
