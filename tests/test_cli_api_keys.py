"""`flask rag create-api-key / revoke-api-key / list-api-keys`."""
import json

from irisrag.extensions import db
from irisrag.services.admin import api_keys
from tests.services import seed_library


def test_cli_create_api_key_prints_the_key_once_and_revoke_ends_it(app):
    seed_library(app)
    runner = app.test_cli_runner()
    result = runner.invoke(args=["rag", "create-api-key", "carol", "--area", "Alpha", "--name", "nightly"])
    assert result.exit_code == 0, result.output
    key = result.stdout.strip()
    assert key.startswith("irk_") and "\n" not in key and "shown only once" in result.stderr
    client = app.test_client()
    areas = client.get("/api/v1/areas", headers={"X-API-Key": key}).get_json()["areas"]
    assert [a["name"] for a in areas] == ["Alpha"]
    listed = json.loads(runner.invoke(args=["rag", "list-api-keys", "--json"]).stdout)
    assert listed[0]["user"] == "carol" and listed[0]["areas"] == ["Alpha"] and listed[0]["name"] == "nightly"
    assert key not in json.dumps(listed)
    result = runner.invoke(args=["rag", "revoke-api-key", listed[0]["prefix"]])
    assert result.exit_code == 0 and "Revoked" in result.output
    assert client.get("/api/v1/areas", headers={"X-API-Key": key}).status_code == 401
    with app.app_context(), db.connection_context():
        assert api_keys.list_keys()[0].revoked


def test_cli_api_key_errors_are_clear(app):
    seed_library(app)
    runner = app.test_cli_runner()
    result = runner.invoke(args=["rag", "create-api-key", "alice", "--area", "Beta"])
    assert result.exit_code == 1 and "may not query" in result.output
    result = runner.invoke(args=["rag", "create-api-key", "ghost"])
    assert result.exit_code == 1 and "There is no user" in result.output
    result = runner.invoke(args=["rag", "revoke-api-key", "irk_42"])
    assert result.exit_code == 1 and "There is no API key" in result.output
