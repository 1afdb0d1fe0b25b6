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
