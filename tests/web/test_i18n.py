"""German and English UI: browser language, the header switch, and a complete German catalogue."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from tests.conftest import csrf_token, make_app

ROOT = Path(__file__).resolve().parents[2]
TRANSLATIONS = ROOT / "irisrag" / "translations"
GERMAN_PO = TRANSLATIONS / "de" / "LC_MESSAGES" / "messages.po"
# The command of `make translations-update`, run on the current code.
EXTRACT = ["extract", "-F", "babel.cfg", "-k", "N_", "-k", "_l", "-k", "lazy_gettext"]
SOURCES = ["irisrag", "templates"]


def read_catalog(path: Path):
    with path.open("rb") as f:
        return read_po(f, locale="de" if path.suffix == ".po" else None)


@pytest.fixture
def app(tmp_path, database_url, redis_url):
    """The suite's app, reading the German catalogue compiled from messages.po now (not a stale .mo)."""
    compiled = tmp_path / "translations"
    mo = compiled / "de" / "LC_MESSAGES" / "messages.mo"
    mo.parent.mkdir(parents=True)
    with mo.open("wb") as f:
        write_mo(f, read_catalog(GERMAN_PO))
    app = make_app(tmp_path, database_url, redis_url, LANGUAGE="", BABEL_TRANSLATION_DIRECTORIES=str(compiled))
    yield app
    from irisrag.extensions import db

    if not db.is_closed():
        db.close()


def page(client, path: str, lang: str | None = None) -> str:
    headers = {"Accept-Language": lang} if lang else {}
    resp = client.get(path, headers=headers)
    assert resp.status_code == 200, path
    return resp.get_data(as_text=True)


# --- the catalogue ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def extracted(tmp_path_factory):
    """messages.pot as `make translations-update` would write it from the current code."""
    pot = tmp_path_factory.mktemp("i18n") / "messages.pot"
    subprocess.run([sys.executable, "-m", "babel.messages.frontend", "--quiet", *EXTRACT, "-o", str(pot), *SOURCES],
                   cwd=ROOT, check=True, capture_output=True, text=True)
    return read_catalog(pot)


def test_i18n_extraction_finds_python_and_template_strings(extracted):
    ids = {m.id if isinstance(m.id, str) else m.id[0] for m in extracted if m.id}
    assert len(ids) > 200
    assert "Please enter a question." in ids  # N_ in irisrag/services
    assert "Username" in ids  # lazy_gettext (_l) in irisrag/web/forms.py
    assert "User created." in ids  # gettext (_) in irisrag/web
    assert "%(num)d import queued." in ids  # ngettext
    assert {"Log in", "Admin console", "Ask your documents"} <= ids  # {{ _('...') }} in templates


def test_i18n_every_message_has_a_german_translation(extracted):
    german = read_catalog(GERMAN_PO)
    untranslated, fuzzy = [], []
    for message in extracted:
        if not message.id:
            continue
        translated = german.get(message.id)
        strings = () if translated is None else (
            translated.string if isinstance(translated.string, tuple) else (translated.string,))
        if translated is None or not strings or not all(s and s.strip() for s in strings):
            untranslated.append(message.id)
        elif translated.fuzzy:
            fuzzy.append(message.id)
    hint = "run `make translations-update` and translate irisrag/translations/de/LC_MESSAGES/messages.po"
    assert not untranslated, f"{len(untranslated)} untranslated ({hint}): {untranslated}"
    assert not fuzzy, f"{len(fuzzy)} fuzzy, check and remove the flag ({hint}): {fuzzy}"


def test_i18n_german_catalogue_keeps_placeholders():
    german = read_catalog(GERMAN_PO)
    problems = [(message.id, [str(e) for e in errors]) for message, errors in german.check()]
    assert not problems, problems


def test_i18n_app_reads_the_catalogue_directory(tmp_path, database_url, redis_url):
    plain = make_app(tmp_path, database_url, redis_url)  # the conftest app, without this module's override
    dirs = {Path(plain.root_path, d).resolve() for d in plain.extensions["babel"].translation_directories}
    assert TRANSLATIONS.resolve() in dirs


# --- the pages -------------------------------------------------------------------------------------

def test_i18n_login_page_follows_the_browser_language(client):
    german = page(client, "/login", "de-DE,de;q=0.9,en;q=0.5")
    assert '<html lang="de">' in german
    for text in ("Anmelden", "Benutzername", "Passwort", "Administrator-Anmeldung", ">English<"):
        assert text in german, text
    assert "Log in" not in german and "Username" not in german

    english = page(client, "/login", "en-US,en;q=0.9")
    assert '<html lang="en">' in english
    for text in ("Log in", "Username", "Password", "Admin login", ">Deutsch<"):
        assert text in english, text
    assert "Anmelden" not in english and "Benutzername" not in english

    assert "Administrator-Anmeldung" in page(client, "/admin/login", "de")
    assert "Log in" in page(client, "/login", "fr")  # neither language: English


def test_i18n_failed_login_is_reported_in_german(client, make_user):
    make_user("alice", "alicepassword")
    token = csrf_token(client)
    resp = client.post("/login", data={"username": "alice", "password": "wrong-password", "csrf_token": token},
                       headers={"Accept-Language": "de"})
    assert resp.status_code == 401
    assert "Benutzername oder Passwort ist ungültig." in resp.get_data(as_text=True)


def test_i18n_header_switch_sets_the_language_for_the_session(client):
    assert "Log in" in page(client, "/login", "en")
    resp = client.post("/language/de", data={"csrf_token": csrf_token(client), "next": "/login"},
                       headers={"Accept-Language": "en"})
    assert resp.status_code == 302 and resp.headers["Location"] == "/login"
    german = page(client, "/login", "en")  # the session's choice beats the browser's
    assert "Anmelden" in german and "Log in" not in german

    client.post("/language/xx", data={"csrf_token": csrf_token(client), "next": "/login"})
    assert "Anmelden" in page(client, "/login", "en")  # unknown languages are ignored

    client.post("/language/en", data={"csrf_token": csrf_token(client), "next": "/login"})
    english = page(client, "/login", "de")
    assert "Log in" in english and "Anmelden" not in english


def test_i18n_header_switch_needs_a_csrf_token(client):
    assert client.post("/language/de", data={"next": "/login"}).status_code == 400
    assert "Log in" in page(client, "/login", "en")


def test_i18n_admin_console_tabs_in_german(admin_client):
    html = page(admin_client, "/admin", "de")
    for label in ("Benutzer</a>", "Gruppen</a>", "Bereiche</a>", "Zuordnungen</a>", "RAG-Dokumente</a>",
                  "Feedback</a>", "Suchanalyse</a>", "System</a>", 'aria-label="Administrationskonsole"'):
        assert label in html, label
    assert "RAG documents" not in html and "Groups</a>" not in html
    fragment = admin_client.get("/admin/tab/groups", headers={"HX-Request": "true", "Accept-Language": "de"})
    assert "Neue Gruppe" in fragment.get_data(as_text=True)
    assert "Groups</a>" in page(admin_client, "/admin", "en")
