"""A vector store the worker may not write: the import says so, not "failed unexpectedly".

The test runs as root, which ignores file modes; the import runs in a child process whose
capability bounding set lacks CAP_DAC_OVERRIDE (``setpriv``), so LanceDB's write into the
read-only folder really fails with EACCES, as for a worker running as another user.
"""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from irisrag.extensions import db
from irisrag.models import Document
from tests.conftest import login
from tests.support.process_env import process_env
from tests.web.test_ops import seeded_app

ROOT = Path(__file__).resolve().parents[2]
CHILD = """
import sys
from irisrag import create_app
from irisrag.extensions import db
from irisrag.jobs.documents import import_document
app = create_app()
with app.app_context(), db.connection_context():
    try:
        import_document(int(sys.argv[1]), True, use_lock=False)
    except Exception as exc:
        print(type(exc).__name__, exc)
"""


def read_only(path: Path) -> None:
    for directory, _dirs, files in os.walk(path):
        for name in files:
            os.chmod(os.path.join(directory, name), stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
        os.chmod(directory, 0o555)


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="setpriv (util-linux) is not installed")
def test_import_into_an_unwritable_vector_store_says_so(tmp_path, database_url, redis_url, make_user):
    app = seeded_app(tmp_path, database_url, redis_url)
    with app.app_context(), db.connection_context():
        doc = Document.get(Document.name == "d0.md")
        assert Document.mark_queued(doc.id)  # as Rebuild marks it before its job runs
    (tmp_path / "d0.md").write_text("Neuer Inhalt über Zeitstempel. " * 20)
    read_only(Path(app.config["LANCEDB_URI"]))
    env = process_env({**os.environ, "IRISRAG_SECRET_KEY": "k", "IRISRAG_DATABASE_URL": app.config["DATABASE_URL"],
           "IRISRAG_REDIS_URL": app.config["REDIS_URL"], "IRISRAG_LANCEDB_URI": app.config["LANCEDB_URI"],
           "IRISRAG_UPLOAD_ROOT": app.config["UPLOAD_ROOT"], "IRISRAG_EMBEDDER": "fake", "IRISRAG_LLM": "none",
           "IRISRAG_CHUNK_SIZE": "200", "IRISRAG_CHUNK_OVERLAP": "0", "IRISRAG_MAINTENANCE_INTERVAL": "0"})
    out = subprocess.run(["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--", sys.executable, "-c",
                          CHILD, str(doc.id)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert "VectorStoreUnwritable" in out.stdout, (out.stdout, out.stderr[-2000:])
    with app.app_context(), db.connection_context():
        row = Document.get_by_id(doc.id)
    assert row.status == "failed" and row.error.startswith("The vector store cannot be written"), row.error
    assert "ermission denied" in row.error_detail or "os error 13" in row.error_detail
    make_user("root", "rootpassword", admin=True)
    client = app.test_client()
    assert login(client, "root", "rootpassword", admin=True).status_code == 302
    html = client.get(f"/admin/documents/{doc.id}/row", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "The vector store cannot be written" in html
