"""axe-core on every page in a real browser: no violation of impact serious or critical.

axe-core is vendored for the tests only (``tests/support/axe``: the pinned npm package's
``axe.min.js`` with its licence, version and SHA-256). It is run through ``page.evaluate``
(the DevTools protocol), which the page's CSP (``script-src 'self'``) does not govern; the
pages themselves keep their CSP, and a CSP error in the console fails the test too.

A page is one entry of ``PAGES``: a name, who is logged in (None, "user" or "admin"), the
URL (formatted with ``ids``: ``{document}``, ``{question}``), whether a question is asked
first, and the app's settings (``sso``: OpenID Connect and LDAP configured, so the login
page shows the provider's button and the directory hint). Add a page by adding an entry.
"""
from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from irisrag.extensions import db
from irisrag.jobs.documents import import_document
from irisrag.models import Area, Document, Group, QuestionLog, Source, SyncRun
from irisrag.models.base import utcnow
from irisrag.services.admin import admin as admin_service
from irisrag.services.documents import documents
from tests.browser.test_admin_flow import login
from tests.conftest import make_app

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parents[1] / "support" / "axe"
BLOCKING = ("serious", "critical")
QUESTION = "Wie wird der Collector für OpenTelemetry konfiguriert?"
OFF_TOPIC = "Wie beantrage ich Elternzeit bei meinem Arbeitgeber?"
MANUAL = ("# Betriebshandbuch\n\nDer Collector für OpenTelemetry wird über die Datei otel.yaml konfiguriert. "
          "Der Empfänger otlp lauscht auf Port 4317.\n\n## Neustart\n\nNach jeder Änderung wird der Collector "
          "neu gestartet und die Konfiguration geprüft.\n").encode()
SSO = {"OIDC_DISCOVERY_URL": "http://127.0.0.1:9/.well-known/openid-configuration", "OIDC_CLIENT_ID": "irisrag",
       "OIDC_CLIENT_SECRET": "secret", "OIDC_PROVIDER_NAME": "Test IdP", "LDAP_URL": "ldap://127.0.0.1:9"}


@dataclass(frozen=True)
class Page:
    name: str
    url: str
    who: str | None = None        # None, "user" or "admin"
    ask: bool = False             # ask QUESTION on the dashboard first (the answer, the history)
    settings: dict = field(default_factory=dict)
    status: str = "extractive"    # the answer's status after asking (LLM none: extractive)
    dark: bool = False            # shown in dark mode (prefers-color-scheme: dark)
    question: str = QUESTION      # what is asked when ``ask``
    width: int = 0                # a window this wide before axe runs (390: a phone; 0: the default)
    bulk: bool = False            # tick every document and move them in bulk (the result under the bar)
    then_admin: bool = False      # log in as the admin after asking (pages about the users' questions)


ADMIN_TABS = ("users", "groups", "areas", "links", "documents")
ADMIN_PAGES = ("feedback", "missing", "directory-groups", "inspector", "evaluations", "system", "sources")
PAGES = [
    Page("login", "/login"),
    Page("admin-login", "/admin/login"),
    Page("login-sso", "/login", settings=SSO),
    Page("admin-login-sso", "/admin/login", settings=SSO),
    Page("dashboard", "/", "user"),
    Page("answer", "", "user", ask=True),
    Page("answer-by-a-model", "", "user", ask=True, settings={"LLM": "fake"}, status="answered"),
    Page("answer-dark", "", "user", ask=True, dark=True),
    # off-topic: "no information", and the closest documents (NEAREST_DOCUMENTS) under it
    Page("answer-no-information", "", "user", ask=True, status="no_context", question=OFF_TOPIC),
    Page("answer-no-information-dark", "", "user", ask=True, status="no_context", question=OFF_TOPIC, dark=True,
         settings={"LANGUAGE": "de"}),  # and in German
    Page("conversation", "{here}", "user", ask=True),  # the thread, loaded as a page
    Page("conversation-list", "/c", "user", ask=True),
    Page("conversation-list-dark", "/c", "user", ask=True, dark=True),
    Page("document", "/documents/{document}?chunk=0", "user"),
    *(Page(f"admin-{tab}", f"/admin?tab={tab}", "admin") for tab in ADMIN_TABS),
    *(Page(f"admin-{name}", f"/admin/{name}", "admin") for name in ADMIN_PAGES),
    Page("admin-inspector-trace", "/admin/inspector?question=Collector&user={user}&document={document}", "admin"),
    Page("admin-source", "/admin/sources/{source}", "admin"),  # a source's page: its runs and documents
    # an English question over the German manual: the trace names the bridged words
    Page("admin-inspector-bridge", "/admin/inspector?question=How+is+the+collector+restarted+after+a+change"
         "&user={user}&document={document}", "admin"),
    Page("admin-inspector-bridge-dark", "/admin/inspector?question=How+is+the+collector+restarted+after+a+change"
         "&user={user}&document={document}", "admin", dark=True, settings={"LANGUAGE": "de"}),  # and in German
    # issue 39: the highlighted passage, the bulk result under the bar, admin tables stacked on a phone
    Page("document-cited-dark", "/documents/{document}?chunk=0", "user", dark=True, settings={"LANGUAGE": "de"}),
    Page("admin-documents-bulk-result", "/admin?tab=documents", "admin", bulk=True, settings={"LANGUAGE": "de"}),
    *(Page(f"admin-{tab}-phone", f"/admin?tab={tab}", "admin", width=390, settings={"LANGUAGE": "de"})
      for tab in ("users", "documents")),
    Page("admin-system-phone-dark", "/admin/system", "admin", width=390, dark=True, settings={"LANGUAGE": "de"}),
    Page("error-404-de", "/gibt-es-nicht", "user", settings={"LANGUAGE": "de"}),  # the reason named in German
    # issue 40: the off-topic question grouped on the missing-answers page, a group opened
    Page("admin-missing-group-dark", "/admin/missing", "user", ask=True, status="no_context", question=OFF_TOPIC,
         dark=True, then_admin=True, settings={"LANGUAGE": "de"}),
]


SHOTS = os.environ.get("IRISRAG_SCREENSHOTS")


def test_the_vendored_axe_is_the_recorded_file():
    recorded = (AXE / "axe.min.js.sha256").read_text().split()[0]
    assert hashlib.sha256((AXE / "axe.min.js").read_bytes()).hexdigest() == recorded
    assert (AXE / "LICENSE").read_text().startswith("Mozilla Public License")


def axe_violations(page) -> list[dict]:
    """Run axe-core on the page; return its violations (id, impact, help, the first nodes)."""
    page.evaluate((AXE / "axe.min.js").read_text(encoding="utf-8"))
    return page.evaluate("""async () => {
        const result = await axe.run(document, {resultTypes: ['violations']});
        return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                                            nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}));
    }""")


def _site(tmp_path, database_url, redis_url, settings: dict):
    app = make_app(tmp_path, database_url, redis_url, **{"LLM": "none", **settings})
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, "Betrieb")
        admin_service.create_named(Area, "Archiv")
        admin_service.create_named(Group, "Leser")
        user = admin_service.create_user("erika", "erikapassword")
        admin_service.create_user("root", "rootpassword", is_admin=True)
        admin_service.link_user("erika", "Leser")
        admin_service.link_area("Betrieb", "Leser")
        doc = documents.import_upload("Betrieb", "handbuch.md", MANUAL)
        assert import_document(doc.id)["status"] == "done"
        source = Source.create(area=doc.area_id, kind="site", start_url="https://wiki.example.org/betrieb/",
                               url_prefix="https://wiki.example.org/betrieb/", interval="daily")
        SyncRun.create(source=source, state="done", new=1, unchanged=3, removed=1, requests=6, duration_ms=2400,
                       finished_at=utcnow())
        Document.update(source=source, source_url="https://wiki.example.org/betrieb/handbuch",
                        removed_at=utcnow()).where(Document.id == doc.id).execute()
    return app, {"document": doc.id, "user": user.id, "source": source.id}


@pytest.fixture
def site(request, tmp_path, database_url, redis_url):
    """A live app with the page's settings, one user, one admin and one imported document."""
    app, ids = _site(tmp_path, database_url, redis_url, request.param.settings)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", ids, app
    server.shutdown()
    thread.join(10)


def _open(page, base: str, ids: dict, spec: Page) -> None:
    if spec.who == "user":
        login(page, base, "/login", "erika", "erikapassword")
        page.wait_for_url(base + "/")
    elif spec.who == "admin":
        login(page, base, "/admin/login", "root", "rootpassword")
        page.wait_for_url(base + "/admin")
    if spec.dark:
        page.emulate_media(color_scheme="dark")
    if spec.ask:
        page.goto(base + "/")
        page.fill("#question", spec.question)
        page.click("#composer button[type=submit]")
        page.wait_for_selector(f"#turns .answer-card[data-status={spec.status}]")
    if spec.then_admin:
        login(page, base, "/admin/login", "root", "rootpassword")
        page.wait_for_url(base + "/admin")
    if spec.width:
        page.set_viewport_size({"width": spec.width, "height": 844})
    if spec.url:
        page.goto(spec.url.format(here=page.url) if spec.url == "{here}" else base + spec.url.format(**ids))
    page.wait_for_load_state("networkidle")
    if spec.then_admin:
        page.click("#missing tr.missing-group summary")
    if spec.bulk:
        page.check("#pick-all")
        page.select_option("#bulk-action", "move")
        page.select_option("#bulk-target", label="Archiv")
        page.click("#bulk-form button[type=submit]")
        page.wait_for_selector("#bulk-message")


@pytest.mark.parametrize("site", PAGES, ids=[p.name for p in PAGES], indirect=True)
def test_no_serious_or_critical_accessibility_violations(page, site, request):
    base, ids, app = site
    spec = request.node.callspec.params["site"]
    _open(page, base, ids, spec)
    if spec.ask:
        with app.app_context(), db.connection_context():
            assert QuestionLog.select().count() == 1
    violations = axe_violations(page)
    blocking = [v for v in violations if v["impact"] in BLOCKING]
    others = [f"{v['impact']} {v['id']}: {v['nodes']}" for v in violations if v["impact"] not in BLOCKING]
    if others:
        print(f"{spec.name}: " + "; ".join(others))  # moderate/minor: listed (pytest -s), not failed
    assert not blocking, blocking
    assert not [e for e in page.console_errors if "Content Security Policy" in e]
    for width, height in ((1366, 900), (390, 844)) if SHOTS else ():  # a folder: keep screenshots there
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=f"{SHOTS}/{spec.name}-{width}.png", full_page=True)
