"""Shared fixtures: real SQLite/PostgreSQL databases, a real Redis, the app and logged-in clients."""
from __future__ import annotations

import copy
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import pytest
from redis import Redis
from redis.exceptions import RedisError

from irisrag import components, create_app
from irisrag.extensions import bind_database, db
from irisrag.models.schema import upgrade
from irisrag.services.signin import auth as auth_service

pytest_plugins = ["tests.support.http_stub"]

REQUIRE_ALL = os.environ.get("IRISRAG_TEST_REQUIRE_ALL") == "1"
PG_BASE = os.environ.get("IRISRAG_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")


def missing(reason: str):
    """Skip a test for a missing service, or fail in CI where everything must be present."""
    if REQUIRE_ALL:
        pytest.fail(f"required in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture
def tesseract():
    """Debian's tesseract with German and English data (installed by scripts/test.sh), or skip/fail."""
    import shutil

    program = shutil.which("tesseract")
    langs = subprocess.run([program, "--list-langs"], capture_output=True, text=True).stdout if program else ""
    if not {"deu", "eng"} <= set(langs.split()):
        missing("tesseract-ocr with tesseract-ocr-deu and tesseract-ocr-eng is not installed")
    return program


@pytest.fixture
def word_list(tmp_path):
    """Debian's trans-de-en, parsed (installed by scripts/test.sh), or skip/fail."""
    from irisrag.rag import dictionary

    if not dictionary.DEFAULT_PATH.is_file():
        missing("Debian's trans-de-en (the term bridge's word list) is not installed")
    return dictionary.load(dictionary.DEFAULT_PATH, tmp_path)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- Redis --------------------------------------------------------------------

@pytest.fixture(scope="session")
def redis_url():
    """A real Redis: the one at 127.0.0.1:6379 (db 15), else the bundled Valkey on a free port."""
    url = os.environ.get("IRISRAG_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
    try:
        Redis.from_url(url, socket_connect_timeout=1).ping()
        yield url
        return
    except RedisError:
        pass
    from irisrag.localredis import bundled_command

    port = free_port()
    proc = subprocess.Popen(bundled_command(port), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    for _ in range(100):
        try:
            Redis.from_url(url, socket_connect_timeout=1).ping()
            break
        except RedisError:
            time.sleep(0.05)
    yield url
    proc.terminate()
    proc.wait(10)


# --- databases ----------------------------------------------------------------

def _postgres_url() -> str:
    import psycopg2

    schema = "t_" + uuid.uuid4().hex[:12]
    try:
        conn = psycopg2.connect(PG_BASE, connect_timeout=3)
    except psycopg2.OperationalError as exc:
        missing(f"PostgreSQL not reachable at {PG_BASE}: {exc}")
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute(f'CREATE SCHEMA "{schema}"')
    conn.close()
    return f"{PG_BASE}?options=-csearch_path%3D{schema}", schema


def _drop_schema(schema: str) -> None:
    import psycopg2

    conn = psycopg2.connect(PG_BASE)
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    conn.close()


def _database(kind: str, tmp_path: Path):
    if kind == "postgres":
        url, schema = _postgres_url()
        return url, lambda: _drop_schema(schema)
    return f"sqlite:///{tmp_path / 'irisrag.db'}", lambda: None


@pytest.fixture
def database_url(tmp_path):
    """The suite's database: SQLite, or PostgreSQL with IRISRAG_TEST_DATABASE=postgres."""
    url, cleanup = _database(os.environ.get("IRISRAG_TEST_DATABASE", "sqlite"), tmp_path)
    yield url
    cleanup()


@pytest.fixture(params=["sqlite", "postgres"])
def any_database_url(request, tmp_path):
    """Each test using it runs on SQLite and on PostgreSQL."""
    url, cleanup = _database(request.param, tmp_path)
    yield url
    cleanup()


# --- the app ------------------------------------------------------------------

# Production hashes passwords with werkzeug's scrypt (n=32768, tens of ms each and more under
# load); the suite creates and logs in hundreds of accounts, so it uses a cheap scrypt.
PRODUCTION_HASH_METHOD = auth_service.HASH_METHOD
TEST_HASH_METHOD = "scrypt:256:8:1"  # OpenSSL refuses n below ~128 with r=8 (memory limit)


@pytest.fixture(autouse=True, scope="session")
def _cheap_password_hashes():
    auth_service.HASH_METHOD = TEST_HASH_METHOD
    yield
    auth_service.HASH_METHOD = PRODUCTION_HASH_METHOD


def _config(tmp_path: Path, database_url: str, redis_url: str, **overrides) -> dict:
    config = {
        "TESTING": True,
        "SECRET_KEY": "test-secret",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "QUEUE_NAME": "test-" + uuid.uuid4().hex[:8],
        "LANCEDB_URI": str(tmp_path / "lancedb"),
        "UPLOAD_ROOT": str(tmp_path / "staging"),
        "EMBEDDER": "fake",
        "LLM": "none",
        "LANCEDB_READ_CONSISTENCY_SECONDS": 0.0,
    }
    config.update(overrides)
    return config


_SQLITE_TEMPLATE: list[Path] = []  # a migrated SQLite file, copied for every new SQLite test database


def _prepare_schema(app) -> None:
    """Create the schema: copy the migrated SQLite template (made once), or run the migrations."""
    url = app.config["DATABASE_URL"]
    target = Path(url[len("sqlite:///"):]) if url.startswith("sqlite:///") else None
    if target is not None and _SQLITE_TEMPLATE and not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(_SQLITE_TEMPLATE[0], target)
    with app.app_context(), db.connection_context():
        upgrade()  # on a copy of the template: nothing to do but check
    if target is not None and not _SQLITE_TEMPLATE and target.exists():
        template = Path(tempfile.mkdtemp(prefix="irisrag-schema-")) / "template.db"
        shutil.copyfile(target, template)  # the connection is closed: the WAL is folded into the file
        _SQLITE_TEMPLATE.append(template)


def make_app(tmp_path: Path, database_url: str, redis_url: str, **overrides):
    """Create an app of its own (for tests that change settings the shared ``app`` keeps)."""
    app = create_app(_config(tmp_path, database_url, redis_url, **overrides))
    _prepare_schema(app)
    return app


_SHARED: dict = {}


def _shared_app(tmp_path: Path, database_url: str, redis_url: str):
    """Return the session's one default app, re-pointed at this test's database, LanceDB and staging.

    Everything a test may change is reset: the settings (restored from a copy), the database
    binding, and the components (embedder, LLM, store: built anew on first use).
    """
    config = _config(tmp_path, database_url, redis_url)
    app = _SHARED.get("app")
    if app is None:
        app = _SHARED["app"] = create_app(config)
        _SHARED["config"] = copy.deepcopy(dict(app.config))
    else:
        app.config.clear()
        app.config.update(copy.deepcopy(_SHARED["config"]))
        app.config.update({k: config[k] for k in ("DATABASE_URL", "QUEUE_NAME", "LANCEDB_URI", "UPLOAD_ROOT")})
        bind_database(database_url, app.config["IRISRAG_ROOT"])
        components.init_app(app)
    _prepare_schema(app)
    return app


@pytest.fixture
def app(tmp_path, database_url, redis_url):
    app = _shared_app(tmp_path, database_url, redis_url)
    yield app
    if not db.is_closed():
        db.close()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def dbconn(app):
    """An open database connection for tests that use services directly."""
    with app.app_context(), db.connection_context():
        yield db


CSRF_RE = re.compile(r'name="csrf_token" (?:type="hidden" )?value="([^"]+)"')


def csrf_token(client, path: str = "/login") -> str:
    """Read a CSRF token from a page, as a browser would."""
    html = client.get(path).get_data(as_text=True)
    match = CSRF_RE.search(html) or re.search(r'"X-CSRFToken": "([^"]+)"', html)
    assert match, f"no CSRF token on {path}"
    return match.group(1)


def login(client, username: str, password: str, *, admin: bool = False):
    path = "/admin/login" if admin else "/login"
    token = csrf_token(client, path)
    return client.post(path, data={"username": username, "password": password, "csrf_token": token})


def logout(client, *, admin: bool = False):
    """Log out with the POST form of the page header, as a browser would."""
    path = "/admin/logout" if admin else "/logout"
    return client.post(path, data={"csrf_token": csrf_token(client, path)})


@pytest.fixture
def make_user(app):
    """Create accounts through the service layer (password rules included)."""
    from irisrag.services.admin import admin as admin_service

    def make(name: str, password: str = "password123", *, admin: bool = False):
        with app.app_context(), db.connection_context():
            return admin_service.create_user(name, password, is_admin=admin)

    return make


@pytest.fixture
def admin_client(app, make_user):
    make_user("root", "rootpassword", admin=True)
    c = app.test_client()
    assert login(c, "root", "rootpassword", admin=True).status_code == 302
    return c


def post(client, path: str, data: dict | None = None, *, htmx: bool = True, page: str | None = None):
    """POST with the CSRF token taken from a page, as htmx would (header) or a form would (field)."""
    token = csrf_token(client, page or "/admin")
    headers = {"X-CSRFToken": token}
    if htmx:
        headers["HX-Request"] = "true"
    return client.post(path, data=data or {}, headers=headers)
