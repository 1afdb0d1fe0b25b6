"""Conversations in a real browser: ask, follow up, reload, Back, the list on a phone in dark mode, owner only.

Screenshots (desktop and phone, light and dark) go to IRISRAG_SCREENSHOTS when it names a folder.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from irisrag.extensions import db
from irisrag.jobs.documents import import_document
from irisrag.models import Area, Group
from irisrag.services.admin import admin as admin_service
from irisrag.services.documents import documents
from tests.browser.test_admin_flow import login
from tests.conftest import make_app
from tests.support.http_stub import HttpStub, Reply
from tests.test_llm_stream import ollama_line

pytestmark = pytest.mark.browser
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
WORDS = ["Das ", "Debian-Projekt ", "ist ", "eine ", "**Vereinigung ", "von ", "Einzelpersonen** ", "[1]."]
FIRST, FOLLOW_UP = "Was ist das Debian-Projekt?", "Und wer gehört\nzum Debian-Projekt?"
SHOTS = os.environ.get("IRISRAG_SCREENSHOTS")
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}


@pytest.fixture
def stub():
    with HttpStub() as server:
        lines = [ollama_line(w) for w in WORDS] + [{"message": {"content": ""}, "done": True}]
        server.add("POST", "/api/chat", Reply(lines=lines, line_delay=0.05))
        yield server


@pytest.fixture
def app(tmp_path, database_url, redis_url, stub):
    app = make_app(tmp_path, database_url, redis_url, LLM="ollama", OLLAMA_URL=stub.url)
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, "Handbuch")
        admin_service.create_named(Group, "Leser")
        for name in ("erika", "bernd"):
            admin_service.create_user(name, f"{name}password")
            admin_service.link_user(name, "Leser")
        admin_service.link_area("Handbuch", "Leser")
        doc = documents.import_upload("Handbuch", "vorwort.md", (FIXTURES / "excerpt-de.md").read_bytes())
        assert import_document(doc.id)["status"] == "done"
    return app


def shot(page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=False)


def watch(page) -> list[str]:
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    return problems


def final_turns(page) -> list[str]:
    return page.locator("#turns li.turn:not(.pending) h2.question").all_inner_texts()


def ask_with_enter(page, question: str, count: int) -> None:
    """Type the question (a newline with Shift+Enter), send it with Enter, wait for the answered turn."""
    page.click("#question")
    for number, line in enumerate(question.split("\n")):
        if number:
            page.keyboard.press("Shift+Enter")
        page.keyboard.type(line)
    assert page.input_value("#question") == question  # Shift+Enter added a line and sent nothing
    page.keyboard.press("Enter")
    expect(page.locator("#turns li.turn:not(.pending)")).to_have_count(count)
    page.wait_for_selector(f"#turns li.turn:nth-child({count}) strong:has-text('Vereinigung von Einzelpersonen')")


def focused_on_question(page) -> None:
    """Wait until the question box has the focus (app.js sets it after load and swaps); fail if it never does.

    Not ``page.wait_for_function("...")``: when its first check fails it polls by evaluating the
    string in the page, which the app's Content-Security-Policy (no 'unsafe-eval') refuses.
    """
    expect(page.locator("#question")).to_be_focused(timeout=5000)


def test_browser_conversation_ask_follow_up_reload_back_phone_dark_and_owner_only(browser, live_server, stub):
    desktop = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="light")
    page = desktop.new_page()
    page.set_default_timeout(15000)
    problems = watch(page)
    login(page, live_server, "/login", "erika", "erikapassword")
    page.wait_for_selector("#question")
    focused_on_question(page)  # focus on load
    ask_with_enter(page, FIRST, 1)
    page.wait_for_url(re.compile(r"/c/\d+$"))  # the new conversation's URL was pushed
    url = page.url
    focused_on_question(page)  # ... and after each answer
    assert page.input_value("#question") == ""
    expect(page.locator("#conversation-list a", has_text=FIRST)).to_have_count(1)  # the sidebar has it
    ask_with_enter(page, FOLLOW_UP, 2)
    assert page.url == url and len(stub.requests) == 3  # the answer; then the follow-up's rewrite and answer
    prompt = " ".join(m["content"] for m in stub.last("POST", "/api/chat").json["messages"])
    assert FIRST in prompt  # the conversation's previous turn went with the follow-up
    expect(page.locator("button.copy-answer").first).to_be_visible()
    shot(page, "desktop-light")

    page.reload()
    assert final_turns(page) == [FIRST, FOLLOW_UP]
    page.locator("#turns li.turn").first.locator("details.chip summary").first.click()
    page.locator("#turns li.turn").first.get_by_role("link", name="Open in the document").click()
    page.wait_for_url(re.compile(r"/documents/\d+"))
    page.go_back()
    page.wait_for_url(url)
    assert final_turns(page) == [FIRST, FOLLOW_UP]  # Back shows the same thread

    page.click("#theme-toggle")  # dark mode, remembered
    page.reload()
    assert page.get_attribute("html", "data-theme") == "dark"
    shot(page, "desktop-dark")

    counter = page.locator("#question-count")
    page.fill("#question", "x" * 3600)
    page.dispatch_event("#question", "input")
    expect(counter).to_be_visible()
    expect(counter).to_contain_text("3600")

    # the session expires while a question is typed: it survives the login again
    desktop.clear_cookies()
    page.fill("#question", "Eine Frage nach dem Ablauf?")
    page.dispatch_event("#question", "input")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/login\?expired=1"))
    expect(page.locator("#session-expired")).to_be_visible()
    page.fill("#username", "erika")
    page.fill("#password", "erikapassword")
    page.click("#login-form button[type=submit]")
    page.wait_for_url(url)
    assert page.input_value("#question") == "Eine Frage nach dem Ablauf?"
    assert [p for p in problems if "401" not in p] == []  # no script error, nothing blocked by the CSP
    desktop.close()

    for scheme in ("dark", "light"):
        phone = browser.new_context(color_scheme=scheme, **PHONE)
        mobile = phone.new_page()
        mobile.set_default_timeout(15000)
        login(mobile, live_server, "/login", "erika", "erikapassword")
        mobile.wait_for_selector("#question")
        box = mobile.locator("#question").bounding_box()
        assert box and box["y"] + box["height"] <= 844  # the composer is on the first screen
        assert mobile.evaluate("document.documentElement.scrollWidth") <= 390  # nothing scrolls sideways
        expect(mobile.locator("#sidebar")).to_be_hidden()
        mobile.wait_for_load_state("load")  # app.js handles the toggle; before it runs, the link just opens /c
        mobile.click("#sidebar-toggle")  # the drawer
        expect(mobile.locator("#sidebar")).to_be_visible()
        shot(mobile, f"phone-{scheme}-drawer")
        mobile.locator("#conversation-list a", has_text=FIRST).click()
        mobile.wait_for_url(url)
        assert final_turns(mobile) == [FIRST, FOLLOW_UP]
        box = mobile.locator("#question").bounding_box()
        assert box and box["y"] + box["height"] <= 844  # sticky composer: reachable under a long thread
        if scheme == "dark":
            bg = mobile.evaluate("getComputedStyle(document.body).backgroundColor")
            assert bg == "rgb(18, 21, 27)", bg
        shot(mobile, f"phone-{scheme}")
        phone.close()

    other = browser.new_context()
    intruder = other.new_page()
    login(intruder, live_server, "/login", "bernd", "berndpassword")
    intruder.wait_for_selector("#question")
    response = intruder.goto(url)
    assert response.status == 404 and FIRST not in intruder.content()
    expect(intruder.locator("#conversation-list a", has_text=FIRST)).to_have_count(0)
    other.close()


def test_browser_conversation_without_streaming_htmx_appends_turns_and_pushes_the_url(page, live_server, stub):
    page.add_init_script("window.irisragStream = true")  # stream.js stands down: htmx posts the form
    answer = {"message": {"role": "assistant", "content": "".join(WORDS)}, "done": True}
    stub.add("POST", "/api/chat", Reply(json=answer))  # not streamed
    problems = watch(page)
    login(page, live_server, "/login", "erika", "erikapassword")
    page.wait_for_selector("#question")
    ask_with_enter(page, FIRST, 1)
    page.wait_for_url(re.compile(r"/c/\d+$"))
    url = page.url
    assert page.get_attribute("#composer", "action") == url.replace(live_server, "") + "/ask"  # now a follow-up
    ask_with_enter(page, FOLLOW_UP, 2)
    assert page.url == url
    focused_on_question(page)
    expect(page.locator("#conversation-list a", has_text=FIRST)).to_have_count(1)
    # the reloaded list still marks the open thread (the server rendered it without knowing it)
    expect(page.locator("#conversation-list a", has_text=FIRST)).to_have_attribute("aria-current", "page")
    page.reload()
    assert final_turns(page) == [FIRST, FOLLOW_UP] and problems == []
