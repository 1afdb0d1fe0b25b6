"""The web process's warm-up (issue 41, item 1): it runs in the background, readiness reports it.

Real parts: the app with SQLite or PostgreSQL, Redis, a LanceDB table with imported chunks
and its full-text index. A gate step placed before the real steps holds the warm-up open so
the "warming up" answer is seen without any timing.
"""
import threading

from tests.conftest import login
from tests.web.test_ops import seeded_app


def _checks(resp) -> dict:
    return {c["name"]: c for c in resp.json["checks"]}


def test_warmup_loads_embedder_table_and_indexes_and_readiness_reports_it(tmp_path, database_url, redis_url,
                                                                          monkeypatch):
    from irisrag import components
    from irisrag.services.operations import warmup

    app = seeded_app(tmp_path, database_url, redis_url)
    app.extensions["irisrag"] = components.Components(app.config)   # nothing loaded: a fresh process
    gate = threading.Event()
    monkeypatch.setattr(warmup, "STEPS", (("gate", gate.wait), *warmup.STEPS))
    thread = warmup.start(app)
    assert thread is not None and warmup.start(app) is None   # one warm-up per process

    resp = app.test_client().get("/readyz")
    assert resp.status_code == 503 and resp.json["status"] == "warming up", resp.json
    check = _checks(resp)["warmup"]
    assert check["ok"] is False and check["state"] == "warming_up" and check["detail"] == "warming up"
    assert all(c["ok"] for name, c in _checks(resp).items() if name != "warmup")

    gate.set()
    thread.join(timeout=60)
    assert not thread.is_alive()
    state = warmup.state_of(app)
    assert state.state == warmup.DONE and state.error is None
    assert set(state.steps) == {"gate", "embedder", "store", "question", "words", "synonyms"}
    comps = app.extensions["irisrag"]
    assert {"embedder", "store", "retriever"} <= set(vars(comps))        # built by the warm-up, not a question
    assert comps.store._table is not None                                 # the table handle is open
    common = warmup.common_words(comps.store.sample_texts(warmup.WARM_SAMPLE), warmup.WARM_WORDS)
    assert common and set(common) <= set(comps.retriever.words._cache)   # the bridge's commonest words are embedded

    resp = app.test_client().get("/readyz")
    assert resp.status_code == 200 and resp.json["status"] == "ready", resp.json
    assert _checks(resp)["warmup"]["ok"] is True and "question" in _checks(resp)["warmup"]["detail"]


def test_a_failed_warmup_is_reported_but_leaves_the_process_ready(tmp_path, database_url, redis_url, monkeypatch):
    from irisrag.services.operations import warmup

    app = seeded_app(tmp_path, database_url, redis_url)

    def broken() -> None:
        raise RuntimeError("embedder server down")

    monkeypatch.setattr(warmup, "STEPS", (("embedder", broken),))
    warmup.start(app).join(timeout=60)
    resp = app.test_client().get("/readyz")
    assert resp.status_code == 200 and resp.json["status"] == "ready", resp.json
    check = _checks(resp)["warmup"]
    assert check["ok"] is False and check["required"] is False and "embedder server down" in check["detail"]


def test_readiness_has_no_warmup_check_where_none_was_started(tmp_path, database_url, redis_url):
    app = seeded_app(tmp_path, database_url, redis_url)
    resp = app.test_client().get("/readyz")
    assert resp.status_code == 200 and "warmup" not in _checks(resp)


def test_the_system_page_says_warming_up_in_the_admins_language(tmp_path, database_url, redis_url, monkeypatch):
    from irisrag.extensions import db
    from irisrag.services.admin import admin as admin_service
    from irisrag.services.operations import warmup

    app = seeded_app(tmp_path, database_url, redis_url)
    with app.app_context(), db.connection_context():
        admin_service.create_user("root", "root-password-1", is_admin=True)
    gate = threading.Event()
    monkeypatch.setattr(warmup, "STEPS", (("gate", gate.wait),))
    thread = warmup.start(app)
    client = app.test_client()
    assert login(client, "root", "root-password-1", admin=True).status_code == 302
    html = client.get("/admin/system", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert 'id="warmup"' in html and "wärmt sich auf" in html
    gate.set()
    thread.join(timeout=60)
    html = client.get("/admin/system", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "loaded the embedder and the indexes in" in html and "warming up" not in html


def test_a_warmed_process_finds_what_a_cold_one_finds(tmp_path, database_url, redis_url):
    """Retrieval results are unchanged by the warm-up: same candidates, ranks and scores."""
    from irisrag import components
    from irisrag.models import Area
    from irisrag.services.operations import warmup

    app = seeded_app(tmp_path, database_url, redis_url)

    def found(question: str) -> list[tuple]:
        with app.app_context():
            area = Area.get(Area.name == "Handbook").id
            context = components.get().retriever.context(question, [area])
        return [(c.hit.document_id, c.hit.chunk_index, c.hit.rank, round(c.hit.score, 6), c.kept, c.gate)
                for c in context.candidates]

    questions = ["Zeitstempel und Pakete", "Kapitel 2 Inhalt", "nothing of this is there"]
    cold = [found(q) for q in questions]
    app.extensions["irisrag"] = components.Components(app.config)
    warmup.start(app).join(timeout=60)
    assert warmup.state_of(app).state == warmup.DONE
    assert [found(q) for q in questions] == cold and any(cold)


def test_wsgi_warms_up_a_served_process_but_not_a_cli_command(tmp_path, database_url, redis_url):
    """``gunicorn wsgi:app`` imports wsgi.py outside any click command; ``flask --app wsgi rag ...`` inside one."""
    import os
    import subprocess
    import sys

    from tests.conftest import make_app

    make_app(tmp_path, database_url, redis_url)   # the schema
    env = {**os.environ, "IRISRAG_SECRET_KEY": "x", "IRISRAG_LLM": "none", "IRISRAG_EMBEDDER": "fake",
           "IRISRAG_DATABASE_URL": database_url, "IRISRAG_REDIS_URL": redis_url,
           "IRISRAG_LANCEDB_URI": str(tmp_path / "lancedb"), "IRISRAG_INSTANCE_PATH": str(tmp_path)}
    probe = ("import click, sys\n"
             "def state():\n"
             "    import wsgi\n"
             "    from irisrag.services.operations import warmup\n"
             "    s = warmup.state_of(wsgi.app)\n"
             "    return s.state if s else 'none'\n"
             "if sys.argv[1] == 'cli':\n"
             "    with click.Context(click.Command('rag')):\n"
             "        print(state())\n"
             "else:\n"
             "    print(state())\n")
    for where, expected in (("served", "running"), ("cli", "none")):
        done = subprocess.run([sys.executable, "-c", probe, where], env=env, capture_output=True, text=True,
                              timeout=120, cwd=os.getcwd())
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.strip().splitlines()[-1] in ((expected, "done") if expected == "running" else (expected,))


def test_common_words_are_the_content_words_most_texts_hold():
    from irisrag.services.operations.warmup import common_words

    texts = ["Der Urlaubsantrag geht an die Personalabteilung.", "Urlaub beantragen Sie im Portal.",
             "Der Urlaubsantrag braucht zwei Wochen.", "Version 3 des Portals"]
    assert common_words(texts, 1) == ["Urlaubsantrag"]                  # in two texts, every other word in one
    words = common_words(texts, 50)
    assert "Portal" in words and "3" not in words and "Der" not in words and "die" not in words   # no numbers, no stop words


def test_an_exiting_process_runs_no_further_warm_up_step(app, monkeypatch):
    """At exit the step in progress may end and no other starts (a daemon thread stopped inside a native call aborted)."""
    import threading

    from irisrag.services.operations import warmup

    entered, release, ran = threading.Event(), threading.Event(), []
    slow = ("embedder", lambda: (entered.set(), release.wait(10), ran.append("embedder")))
    monkeypatch.setattr(warmup, "STEPS", (slow, ("store", lambda: ran.append("store"))))
    state = warmup.WarmupState()
    thread = threading.Thread(target=warmup._run, args=(app, state), daemon=True)
    thread.start()
    assert entered.wait(10)
    threading.Timer(0.2, release.set).start()
    warmup._stop(state, thread)            # what atexit runs: waits for the step in progress
    assert not thread.is_alive() and ran == ["embedder"] and state.state == warmup.RUNNING
