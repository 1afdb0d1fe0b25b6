from tests.conftest import free_port, make_app


def test_ops_healthz_answers_without_login(client):
    resp = client.get("/healthz")
    assert resp.status_code == 200 and resp.json == {"status": "ok"}


def test_ops_readyz_reports_each_dependency(client):
    resp = client.get("/readyz?deep=1")
    assert resp.status_code == 200, resp.json
    names = {c["name"]: c["ok"] for c in resp.json["checks"]}
    assert names == {"database": True, "redis": True, "lancedb": True, "embedder": True}


def test_ops_readyz_is_503_when_redis_is_down(tmp_path, database_url, redis_url):
    app = make_app(tmp_path, database_url, redis_url, REDIS_URL=f"redis://127.0.0.1:{free_port()}/0")
    resp = app.test_client().get("/readyz")
    assert resp.status_code == 503 and resp.json["status"] == "unavailable"
    failed = [c for c in resp.json["checks"] if not c["ok"]]
    assert [c["name"] for c in failed] == ["redis"] and "Connection" in failed[0]["detail"]


def seeded_app(tmp_path, database_url, redis_url):
    """An app with one imported document (three chunks, on record and in LanceDB)."""
    from irisrag.extensions import db
    from irisrag.jobs.documents import import_document
    from irisrag.models import Area
    from irisrag.services.admin import admin as admin_service
    from irisrag.services.documents import documents, registration

    app = make_app(tmp_path, database_url, redis_url, CHUNK_SIZE=200, CHUNK_OVERLAP=0)
    with app.app_context(), db.connection_context():
        admin_service.create_named(Area, "Handbook")
        for n in range(3):
            doc, _ = registration.register(documents.area_of("Handbook"), tmp_path, f"d{n}.md", "text")
            (tmp_path / f"d{n}.md").write_text(f"Kapitel {n}. " + "Inhalt über Zeitstempel und Pakete. " * 12)
            import_document(doc.id, use_lock=False)
    return app


def test_ops_readyz_is_503_when_the_document_table_cannot_be_read(tmp_path, database_url, redis_url):
    from irisrag.extensions import db

    app = seeded_app(tmp_path, database_url, redis_url)
    assert app.test_client().get("/readyz").status_code == 200
    with app.app_context(), db.connection_context():
        db.execute_sql("ALTER TABLE document RENAME TO document_damaged")
    resp = app.test_client().get("/readyz")
    failed = {c["name"]: c["detail"] for c in resp.json["checks"] if not c["ok"]}
    assert resp.status_code == 503 and list(failed) == ["database"], resp.json
    assert "document" in failed["database"]


def test_ops_readyz_is_503_when_the_vector_store_lost_its_chunks(tmp_path, database_url, redis_url):
    import shutil

    app = seeded_app(tmp_path, database_url, redis_url)
    resp = app.test_client().get("/readyz")
    lance = {c["name"]: c for c in resp.json["checks"]}["lancedb"]
    assert resp.status_code == 200 and lance["ok"] and lance["detail"].startswith("9 chunks (9 on record)"), lance
    with app.app_context():
        from irisrag import components

        for document_id in (1, 2):  # two of three documents' chunks gone from the store
            components.get().store.delete_document(document_id)
    resp = app.test_client().get("/readyz")
    failed = {c["name"]: c["detail"] for c in resp.json["checks"] if not c["ok"]}
    assert resp.status_code == 503 and list(failed) == ["lancedb"], resp.json
    assert "3 chunks stored, 9 on record" in failed["lancedb"]
    shutil.rmtree(app.config["LANCEDB_URI"])  # the LanceDB directory deleted under the running app
    for client in (app.test_client(), make_app_like(app).test_client()):  # this process, and a fresh one
        resp = client.get("/readyz")
        failed = {c["name"]: c["detail"] for c in resp.json["checks"] if not c["ok"]}
        assert resp.status_code == 503 and list(failed) == ["lancedb"], resp.json


def make_app_like(app):
    from irisrag import create_app

    return create_app({k: app.config[k] for k in ("TESTING", "SECRET_KEY", "DATABASE_URL", "REDIS_URL", "QUEUE_NAME",
                                                   "LANCEDB_URI", "UPLOAD_ROOT", "EMBEDDER", "LLM")})


def test_ops_healthz_is_logged_at_debug_only(client, caplog):
    import logging

    caplog.set_level(logging.DEBUG, logger="irisrag.request")
    client.get("/healthz")
    client.get("/readyz")
    levels = {r.getMessage().split(" path=")[1].split()[0]: r.levelno for r in caplog.records
              if r.name == "irisrag.request"}
    assert levels == {"/healthz": logging.DEBUG, "/readyz": logging.INFO}
