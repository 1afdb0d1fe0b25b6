"""`flask rag` setup commands, in-process and as an operator runs them from a shell."""
import json
import os
import subprocess
import sys
from pathlib import Path

from irisrag.extensions import db
from irisrag.models import User
from irisrag.services import access

ROOT = Path(__file__).resolve().parent.parent


def test_cli_sets_up_a_system(app):
    runner = app.test_cli_runner()
    assert runner.invoke(args=["rag", "create-user", "alice", "--password-stdin"], input="alicepassword\n").exit_code == 0
    assert runner.invoke(args=["rag", "create-user", "boss", "--admin", "--password-stdin"], input="bosspassword\n").exit_code == 0
    for args in (["create-group", "Sales"], ["create-area", "Handbook"], ["link-user", "alice", "Sales"],
                 ["link-area", "Handbook", "Sales"]):
        result = runner.invoke(args=["rag", *args])
        assert result.exit_code == 0, result.output
    out = json.loads(runner.invoke(args=["rag", "list", "--json"]).output)
    assert {u["name"]: u["admin"] for u in out["users"]} == {"alice": False, "boss": True}
    assert out["area_groups"] == [{"area": "Handbook", "group": "Sales"}]
    with app.app_context(), db.connection_context():
        alice = User.get(username="alice")
        assert len(access.permitted_area_ids(alice.id)) == 1


def test_cli_unknown_names_fail_with_a_clear_message(app):
    runner = app.test_cli_runner()
    result = runner.invoke(args=["rag", "link-user", "ghost", "Nobody"])
    assert result.exit_code == 1 and "There is no user “ghost”" in result.output
    result = runner.invoke(args=["rag", "create-user", "x", "--password-stdin"], input="short\n")
    assert result.exit_code == 1 and "at least 8 characters" in result.output
    runner.invoke(args=["rag", "create-area", "A"])
    result = runner.invoke(args=["rag", "create-area", "a"])
    assert result.exit_code == 1 and "already exists" in result.output


def test_cli_ensure_admin_prints_password_once(app):
    runner = app.test_cli_runner()
    first = runner.invoke(args=["rag", "ensure-admin"])
    assert first.exit_code == 0 and "password:" in first.output
    second = runner.invoke(args=["rag", "ensure-admin"])
    assert second.exit_code == 0 and second.output == ""


def test_cli_runs_from_the_repository_root_without_flags(tmp_path):
    env = {**os.environ, "IRISRAG_SECRET_KEY": "k", "IRISRAG_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}",
           "IRISRAG_LANCEDB_URI": str(tmp_path / "lancedb")}
    flask = [str(Path(sys.executable).parent / "flask"), "rag"]
    run = lambda *args, **kw: subprocess.run(flask + list(args), cwd=ROOT, env=env, capture_output=True, text=True, **kw)  # noqa: E731
    assert run("init-db").returncode == 0
    assert run("create-area", "Intranet").returncode == 0
    listed = run("list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout)["areas"][0]["name"] == "Intranet"
    failed = run("link-area", "Intranet", "NoSuchGroup")
    assert failed.returncode == 1 and "There is no group" in failed.stderr


def test_init_db_gives_an_older_chunk_table_its_search_text(app):
    from irisrag.vectors.index import fts_index
    from irisrag.vectors.tables import SEARCH_COLUMN, chunk_schema, connect, table_name

    connection = connect(app.config["LANCEDB_URI"])
    old = connection.create_table(table_name("older-8"), schema=chunk_schema(8, "older-8", search_text=False))
    old.add([{"id": "1:0", "document_id": 1, "area_id": 1, "chunk_index": 0, "page": None,
              "text": "Die Nationalhymne", "vector": [0.5] * 8}])
    runner = app.test_cli_runner()
    first = runner.invoke(args=["rag", "init-db"])
    assert first.exit_code == 0 and "chunks_older_8: search text column added" in first.output
    table = connection.open_table(table_name("older-8"))
    assert SEARCH_COLUMN in table.schema.names and fts_index(table) is not None
    assert table.to_arrow().column(SEARCH_COLUMN).to_pylist() == ["Die Nationalhymne"]
    second = runner.invoke(args=["rag", "init-db"])
    assert second.exit_code == 0 and "search text" not in second.output
