"""Attack suite, output: hostile document text, file names, URLs, paths and LLM answers render inert.

Already covered by single cases: a script in passage text and file name and an <img onerror>
answer on the dashboard (tests/web/test_dashboard.py), a script in a question and a comment in
the history and the admin feedback list (tests/web/test_history.py), file names, URLs and error
details in the admin documents tab (tests/web/test_admin_documents.py), the CSP header on the
login page (tests/web/test_auth.py).

Added here: one hostile library shown through every page that displays content, checked by
parsing the HTML (no foreign element, no event handler attribute, no script URL, scripts only
from /static/); the CSP on every kind of response; and a scan of the templates: no inline
script, handler or style, and ``|safe`` only on the sanitised answer HTML and the viewer's sanitised Markdown.
"""
from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

import lxml.html
import pytest
from flask import render_template

from irisrag import components
from irisrag.extensions import db
from irisrag.llm.clients import FakeLLM
from irisrag.models import Document, User
from irisrag.services.admin import admin as admin_service
from irisrag.services.admin import api_keys
from irisrag.services.operations.system import FailedJobView, IndexView, QueueView, SystemView
from tests.conftest import csrf_token, login
from tests.services import PASSWORD, QUESTION, add_document, seed_library

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
HX = {"HX-Request": "true"}
XSS = "<script>alert('x')</script><img src=x onerror=alert(1)><svg onload=alert(2)>"
HOSTILE_NAME = "<img src=x onerror=alert('name')>.md"
HOSTILE_TEXT = (f"OpenTelemetry wird konfiguriert {XSS} und <iframe src=javascript:alert(3)></iframe> "
                "<a href=\"javascript:alert(4)\">hier</a> konfiguriert.")
HOSTILE_ANSWER = ("Siehe [1]. <script>alert('llm')</script> <img src=x onerror=alert(5)> "
                  "[klick](javascript:alert(6)) <a href=\"javascript:alert(7)\" onclick=\"x()\">a</a> "
                  "<iframe src=\"https://evil.example\"></iframe> <svg><script>alert(8)</script></svg> "
                  "<style>body{display:none}</style> <form action=\"https://evil.example\"><input></form> "
                  "![bild](https://evil.example/x.png) [daten](data:text/html;base64,PHNjcmlwdD4=)")
FORBIDDEN_TAGS = {"iframe", "img", "svg", "object", "embed", "style", "math", "base", "frame", "frameset"}
URL_ATTRS = {"href", "src", "action", "formaction", "xlink:href", "data", "poster"}


def inert(html: str, where: str) -> None:
    """Fail if the HTML could run anything but the app's own static scripts."""
    tree = lxml.html.document_fromstring(html) if "<html" in html[:300].lower() else lxml.html.fragment_fromstring(
        html, create_parent="div")
    for el in tree.iter():
        if not isinstance(el.tag, str):
            continue
        tag = el.tag.lower()
        assert tag not in FORBIDDEN_TAGS, (where, lxml.html.tostring(el)[:200])
        if tag == "link" or tag == "script":
            src = el.get("src") or el.get("href") or ""
            assert src.startswith("/static/") and not (el.text or "").strip(), (where, lxml.html.tostring(el)[:200])
        for name, value in el.attrib.items():
            assert not name.lower().startswith("on"), (where, name, value)
            if name.lower() in URL_ATTRS:
                scheme = re.sub(r"[\s\x00-\x1f]", "", value).lower()
                assert not scheme.startswith(("javascript:", "data:", "vbscript:")), (where, name, value)
        if tag == "form":
            assert (el.get("action") or "/").startswith("/"), (where, el.get("action"))


@pytest.fixture
def hostile(app):
    library = seed_library(app)
    with app.app_context(), db.connection_context():
        doc = add_document(library.alpha, HOSTILE_NAME, [HOSTILE_TEXT], source_url="javascript:alert('url')",
                           original_path="/srv/\"><script>alert('path')</script>")
        add_document(library.alpha, "quelle.md", [f"OpenTelemetry wird über otel.yaml konfiguriert {XSS}."],
                     source_url="https://example.org/?q=\"><script>alert('u')</script>")
        Document.update(status="failed", error=f"Fehler {XSS}", error_detail=f"detail {XSS}").where(
            Document.id == doc).execute()
        admin_service.create_user("root", "rootpassword", is_admin=True)
        admin_service.link_user("root", "team-a")
        api_keys.create_key("alice", name="schlüssel \"x\" & 'y'")  # < > are refused in names
        components.get().__dict__["llm"] = FakeLLM(HOSTILE_ANSWER)
    return library, doc


def logged_in(app, name: str, password: str, *, admin: bool = False):
    client = app.test_client()
    assert login(client, name, password, admin=admin).status_code == 302
    return client


def test_output_hostile_content_is_inert_on_every_page(app, hostile):
    library, doc = hostile
    user = logged_in(app, "alice", PASSWORD)
    token = csrf_token(user, "/")
    pages = {}
    for htmx in (True, False):
        resp = user.post("/ask", data={"question": f"{QUESTION} {XSS}", "areas": [str(library.alpha)],
                                       "show_sources": "on", "csrf_token": token}, headers=HX if htmx else {},
                         follow_redirects=not htmx)  # the thread it starts, without htmx
        pages[f"answer htmx={htmx}"] = resp.get_data(as_text=True)
    body = pages["answer htmx=True"]
    shown = re.sub(r"</?mark>", "", body)  # the question's terms (here "script", "alert") are marked
    assert "&lt;script&gt;alert(&#39;x&#39;)" in shown  # the passage text is shown, escaped
    assert "&lt;img src=x onerror=alert(&#39;name&#39;)&gt;.md" in body  # the file name, escaped
    qid = int(re.search(r'id="feedback-(\d+)"', body).group(1))
    user.post(f"/feedback/{qid}", data={"rating": "down", "comment": XSS, "csrf_token": token}, headers=HX)
    pages["history"] = user.get(re.search(r'data-conversation="(/c/\d+)"', body).group(1)).get_data(as_text=True)
    assert "&lt;script&gt;" in pages["history"]  # the thread again: the question and the comment, escaped
    pages["conversation list"] = user.get("/c").get_data(as_text=True)
    with app.app_context(), db.connection_context():  # the viewer renders .md files as (sanitised) Markdown
        viewable = [d.id for d in Document.select().where(Document.area == library.alpha)]
    for ident in viewable:
        resp = user.get(f"/documents/{ident}?chunk=0")
        assert resp.status_code == 200, ident
        pages[f"viewer {ident}"] = resp.get_data(as_text=True)
    assert 'class="document-text rendered"' in pages[f"viewer {doc}"]  # the hostile .md went through Markdown
    admin = logged_in(app, "root", "rootpassword", admin=True)
    for path in ("/admin?tab=documents", "/admin/tab/documents", f"/admin/documents/{doc}/row", "/admin/feedback",
                 "/admin?tab=users", "/admin/documents/coverage", "/admin/system"):
        resp = admin.get(path, headers=HX if path.endswith(("/row", "/coverage")) or "/tab/" in path else {})
        assert resp.status_code == 200, path
        pages[path] = resp.get_data(as_text=True)
    with app.app_context(), db.connection_context():
        alice = User.get(username="alice").id
    inspector = admin.get("/admin/inspector", query_string={"question": QUESTION, "document": doc, "user": alice})
    if inspector.status_code == 200:  # the retrieval inspector is being built; checked once it answers
        pages["inspector"] = inspector.get_data(as_text=True)
    for where, html in pages.items():
        inert(html, where)
    assert "Siehe" in body and "klick" in body  # the answer itself is shown, stripped of the hostile parts
    assert "schlüssel &#34;x&#34; &amp; &#39;y&#39;" in pages["/admin?tab=users"]


def test_output_admin_system_page_escapes_job_errors(app):
    view = SystemView(
        QueueView("q", True, failed_count=1, failed=(FailedJobView(
            "job-1", "import_document", 3, HOSTILE_NAME, datetime(2024, 1, 1), f"ExtractionError: {XSS}"),)),
        IndexView(f"/data/{XSS}", (), f"OSError: {XSS}"), ())
    with app.test_request_context("/admin/system"):
        html = render_template("admin/_system.html", view=view, tab="system", tabs=(), message=None, error=None)
    inert(html, "system page")
    assert "ExtractionError: &lt;script&gt;" in html


def test_output_every_response_carries_the_content_security_policy(app, hostile):
    user = logged_in(app, "alice", PASSWORD)
    admin = logged_in(app, "root", "rootpassword", admin=True)
    anonymous = app.test_client()
    responses = {
        "login": anonymous.get("/login"), "dashboard": user.get("/"), "history": user.get("/c"),
        "admin": admin.get("/admin"), "system": admin.get("/admin/system"), "404": anonymous.get("/nothing"),
        "405": anonymous.put("/login"), "csrf 400": user.post("/ask", data={}), "api 401": anonymous.get("/api/v1/areas"),
        "api json": anonymous.get("/api/v1/openapi.json"), "readyz": anonymous.get("/readyz"),
    }
    for name, resp in responses.items():
        policy = resp.headers.get("Content-Security-Policy", "")
        directives = {d.split()[0]: d.split()[1:] for d in policy.split(";") if d.strip()}
        assert directives.get("script-src") == ["'self'"], (name, policy)
        assert directives.get("default-src") == ["'self'"] and directives.get("object-src") == ["'none'"], name
        assert directives.get("frame-ancestors") == ["'none'"] and directives.get("base-uri") == ["'self'"], name
        assert "unsafe-inline" not in policy and "unsafe-eval" not in policy and "*" not in policy, name
        assert resp.headers["X-Content-Type-Options"] == "nosniff", name


def test_output_htmx_runs_without_eval(app, hostile):
    html = logged_in(app, "alice", PASSWORD).get("/").get_data(as_text=True)
    config = re.search(r'<meta name="htmx-config" content=\'([^\']+)\'>', html).group(1)
    assert '"allowEval": false' in config and '"includeIndicatorStyles": false' in config


# --- the templates -----------------------------------------------------------------------

def template_files() -> list[Path]:
    return sorted(TEMPLATES.rglob("*.html"))


def test_output_templates_use_safe_only_on_the_sanitised_answer_html():
    uses = []
    for path in template_files():
        for number, line in enumerate(path.read_text().splitlines(), 1):
            for expression in re.findall(r"\{\{([^}]*)\|\s*safe\b", line):
                uses.append((path.relative_to(TEMPLATES).as_posix(), number, expression.strip()))
    # the answer (rag.answer.to_html) and a document's Markdown in the viewer (web/document_markdown.render,
    # raw HTML off, then nh3) are the two places that render HTML, both through a sanitiser
    offending = [u for u in uses if not re.fullmatch(r"[\w.]*answer_html|[\w.]+\|document_markdown", u[2])]
    assert not offending, offending
    assert uses and "viewer/document.html" in {u[0] for u in uses}


def test_output_templates_have_no_inline_scripts_handlers_or_styles():
    for path in template_files():
        text = re.sub(r"\{#.*?#\}", "", path.read_text(), flags=re.S)
        where = path.relative_to(TEMPLATES).as_posix()
        for script in re.findall(r"<script\b[^>]*>", text, re.I):
            assert "src=" in script, (where, script)  # the CSP blocks inline scripts; none may be needed
        assert not re.search(r"<script\b[^>]*>\s*[^<\s]", text, re.I), where
        assert not re.search(r"\son[a-z]+\s*=", text, re.I), where
        assert not re.search(r"\shx-on[:-]", text, re.I), where  # htmx's inline handlers would need eval
        assert not re.search(r"\sstyle\s*=", text, re.I), where  # style-src 'self' would block it
        assert "autoescape false" not in text, where


def test_output_python_never_marks_strings_safe_outside_the_answer_sanitiser():
    root = Path(__file__).resolve().parents[2] / "irisrag"
    hits = [(p.relative_to(root).as_posix(), n) for p in root.rglob("*.py")
            for n, line in enumerate(p.read_text().splitlines(), 1) if re.search(r"\bMarkup\(|\|safe", line)]
    assert hits == [], hits
