"""Count the calls that cross between ``irisrag/services`` and ``irisrag/rag`` for one dashboard question.

    .venv/bin/python scripts/crossings.py [--redis redis://127.0.0.1:6379/15]

Run from anywhere: it imports the ``irisrag`` of the checkout it lies in, whatever that folder is called, and builds a throwaway app (SQLite, LanceDB in a temporary
folder, the fake embedder and a fake LLM), imports one document, logs a user in and asks
the same question through ``POST /ask`` (plain) and ``POST /ask/stream`` (streamed). A
crossing is a call whose caller is in one of the two packages and whose callee is in the
other; it prints the distinct call sites (caller -> callee) and how often they ran.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections import Counter
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the checkout this script belongs to, whatever its name
sys.path.insert(0, str(ROOT))
PACKAGE = ROOT / "irisrag"

QUESTION = "Wie wird OpenTelemetry konfiguriert?"
TEXT = "OpenTelemetry wird in der Datei otel.yaml konfiguriert. Der Collector liest sie beim Start."
PACKAGES = ("services", "rag")


@cache
def _package(filename: str) -> str | None:
    """Return ``services`` or ``rag`` for a file of those packages of this checkout, else None."""
    try:
        parts = Path(filename).resolve().relative_to(PACKAGE).parts
    except ValueError:  # outside this checkout's irisrag (the standard library, another checkout)
        return None
    return parts[0] if len(parts) > 1 and parts[0] in PACKAGES else None


def _where(frame) -> str:
    module = Path(frame.f_code.co_filename).stem
    return f"{_package(frame.f_code.co_filename)}/{module}.{frame.f_code.co_name}"


def traced(action) -> Counter:
    """Run ``action`` and count its services<->rag call sites."""
    edges: Counter = Counter()
    seen: dict[int, object] = {}  # a generator's frame sends "call" on every resumption: count its first only

    def profile(frame, event, arg):
        if event != "call" or frame.f_back is None or frame.f_code.co_name.startswith("<") or id(frame) in seen:
            return
        seen[id(frame)] = frame  # kept alive, so its id is not reused by a later frame
        callee, caller = _package(frame.f_code.co_filename), _package(frame.f_back.f_code.co_filename)
        if callee and caller and callee != caller:
            edges[f"{_where(frame.f_back)} -> {_where(frame)}"] += 1

    sys.setprofile(profile)
    try:
        action()
    finally:
        sys.setprofile(None)
    return edges


def _app(tmp: Path, redis_url: str):
    from irisrag import create_app
    from irisrag.extensions import db
    from irisrag.models.schema import upgrade

    app = create_app({"TESTING": True, "SECRET_KEY": "x", "DATABASE_URL": f"sqlite:///{tmp / 'db.sqlite'}",
                      "REDIS_URL": redis_url, "LANCEDB_URI": str(tmp / "lancedb"),
                      "UPLOAD_ROOT": str(tmp / "staging"), "EMBEDDER": "fake", "LLM": "fake",
                      "LANCEDB_READ_CONSISTENCY_SECONDS": 0.0, "WTF_CSRF_ENABLED": False})
    with app.app_context(), db.connection_context():
        upgrade()
    return app


def _seed(app) -> int:
    from irisrag import components
    from irisrag.extensions import db
    from irisrag.llm.clients import FakeLLM
    from irisrag.models import Area, Document, Group
    from irisrag.services.admin import admin
    from irisrag.vectors.store import ChunkIn

    with app.app_context(), db.connection_context():
        area = admin.create_named(Area, "Alpha")
        admin.create_named(Group, "team")
        admin.link_area("Alpha", "team")
        admin.create_user("alice", "password123")
        admin.link_user("alice", "team")
        doc = Document.create(area=area, name="otel.md", directory="x", sha256="0" * 64, status="done",
                              chunk_count=1)
        comps = components.get()
        comps.store.replace_document(doc.id, area.id, [ChunkIn(0, TEXT)], comps.embedder.embed_documents([TEXT]))
        comps.__dict__["llm"] = FakeLLM("OpenTelemetry wird in otel.yaml konfiguriert [1].")
        return area.id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis", default=os.environ.get("IRISRAG_TEST_REDIS_URL", "redis://127.0.0.1:6379/15"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        app = _app(Path(tmp), args.redis)
        area = _seed(app)
        client = app.test_client()
        client.post("/login", data={"username": "alice", "password": "password123"})
        form = {"question": QUESTION, "areas": [str(area)], "show_sources": "on"}
        plain = traced(lambda: client.post("/ask", data=form, headers={"HX-Request": "true"}).get_data())
        streamed = traced(lambda: client.post("/ask/stream", data=form).get_data())
        for name, edges in (("plain", plain), ("streamed", streamed)):
            print(f"{name}: {len(edges)} call sites cross services<->rag, {sum(edges.values())} calls")
            for edge, count in sorted(edges.items()):
                print(f"  {count:>4}  {edge}")


if __name__ == "__main__":
    main()
