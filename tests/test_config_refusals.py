"""Settings the start refuses: unknown names (with the closest valid one), bad and out-of-range values (issue 38)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from irisrag import config, create_app
from irisrag.config import ConfigError, load

ROOT = Path(__file__).resolve().parent.parent


def test_a_mistyped_name_stops_the_start_naming_the_closest_setting():
    with pytest.raises(ConfigError, match=r"IRISRAG_CHUNK_SIZ is not an IrisRAG setting; did you mean IRISRAG_CHUNK_SIZE\?"):
        load({"IRISRAG_CHUNK_SIZ": "500"})
    with pytest.raises(ConfigError, match="did you mean IRISRAG_SESSION_COOKIE_SECURE"):
        load({"IRISRAG_SESION_COOKIE_SECURE": "true"})
    with pytest.raises(ConfigError, match="IRISRAG_ZZZ is not an IrisRAG setting; see docs/configuration.md"):
        load({"IRISRAG_ZZZ": "1"})


def test_a_former_setting_says_where_its_value_went():
    with pytest.raises(ConfigError, match=r"IRISRAG_GATE_MIN_EVIDENCE .*retrieval profile .*IRISRAG_RETRIEVAL_PROFILE"):
        load({"IRISRAG_GATE_MIN_EVIDENCE": "0.5"})
    with pytest.raises(ConfigError, match=r"IRISRAG_FAKE_EMBED_DELAY .*constant in code"):
        load({"IRISRAG_FAKE_EMBED_DELAY": "1"})


def test_the_tooling_variables_are_not_refused():
    tooling = {"IRISRAG_TEST_REDIS_URL": "redis://x", "IRISRAG_TEST_REQUIRE_ALL": "1", "IRISRAG_SCREENSHOTS": "/tmp",
               "IRISRAG_SHOTS": "/tmp", "IRISRAG_SHARED_EVAL": "/tmp", "IRISRAG_ADMIN_PASSWORD": "pw",
               "IRISRAG_BENCH_CORPUS": "/tmp", "IRISRAG_BENCH_REDIS_URL": "redis://x"}
    assert load(tooling)["CHUNK_SIZE"] == 700


def test_a_name_in_the_environment_file_is_checked_too(tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text("IRISRAG_LLM=none\nIRISRAG_OLAMA_URL=http://gpu:11434\n")
    with pytest.raises(ConfigError, match="IRISRAG_OLAMA_URL .*did you mean IRISRAG_OLLAMA_URL"):
        load({}, env_file=env_file)
    env_file.write_text("IRISRAG_LLM=none\n")
    assert load({}, env_file=env_file)["LLM"] == "auto"   # the file's names are checked; its values come via the environment


def test_a_login_rate_limit_of_zero_is_refused_it_would_lock_everyone_out():
    with pytest.raises(ConfigError, match=r"IRISRAG_LOGIN_RATE_LIMIT='0' is not valid: must be at least 1"):
        load({"IRISRAG_LOGIN_RATE_LIMIT": "0"})
    with pytest.raises(ConfigError, match="IRISRAG_LOGIN_RATE_LIMIT=0 is not valid: at least 1"):
        load({}, {"LOGIN_RATE_LIMIT": 0})
    assert load({"IRISRAG_LOGIN_RATE_LIMIT": "1"})["LOGIN_RATE_LIMIT"] == 1


@pytest.mark.parametrize("value", ["maybe", "ja", "2"])
def test_a_secure_cookie_flag_that_is_no_yes_or_no_is_refused(value):
    with pytest.raises(ConfigError, match=rf"IRISRAG_SESSION_COOKIE_SECURE='{value}' is not valid: true or false"):
        load({"IRISRAG_SESSION_COOKIE_SECURE": value})


@pytest.mark.parametrize(("value", "expected"), [("true", True), ("On", True), ("1", True), ("no", False), ("", False)])
def test_a_secure_cookie_flag_reads_the_usual_spellings(value, expected):
    assert load({"IRISRAG_SESSION_COOKIE_SECURE": value})["SESSION_COOKIE_SECURE"] is expected


def test_a_chunk_size_of_zero_or_within_the_overlap_is_refused():
    with pytest.raises(ConfigError, match=r"IRISRAG_CHUNK_SIZE='0' is not valid: must be at least 1"):
        load({"IRISRAG_CHUNK_SIZE": "0"})
    with pytest.raises(ConfigError, match=r"IRISRAG_CHUNK_SIZE=150 is not valid: more than the 150 characters"):
        load({"IRISRAG_CHUNK_SIZE": "150"})
    assert load({"IRISRAG_CHUNK_SIZE": "151"})["CHUNK_SIZE"] == 151
    assert load({}, {"CHUNK_SIZE": 40, "CHUNK_OVERLAP": 0})["CHUNK_SIZE"] == 40   # tests may shrink both


def test_create_app_refuses_the_same_way(monkeypatch):
    monkeypatch.setenv("IRISRAG_LOGIN_RATE_LIMIT", "0")
    with pytest.raises(ConfigError, match="IRISRAG_LOGIN_RATE_LIMIT"):
        create_app({"SECRET_KEY": "k", "TESTING": True})


def _start(command: list[str], tmp_path: Path, **variables: str) -> subprocess.CompletedProcess:
    keep = {k: v for k, v in os.environ.items() if not k.startswith("IRISRAG_")}
    env = {**keep, "PYTHONPATH": str(ROOT), "IRISRAG_SECRET_KEY": "k",
           "IRISRAG_DATABASE_URL": f"sqlite:///{tmp_path / 'x.db'}", "IRISRAG_INSTANCE_PATH": str(tmp_path),
           "IRISRAG_REDIS_URL": "redis://127.0.0.1:1/0", **variables}
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("process", ["worker", "flask", "setup"])
def test_every_process_refuses_a_mistyped_name_with_the_same_message(process, tmp_path):
    """The worker, the flask CLI (and gunicorn: wsgi.py) and `make run`'s setup all stop before doing anything."""
    command = {"worker": [sys.executable, "worker.py"],
               "flask": [sys.executable, "-m", "flask", "--app", "wsgi:app", "rag", "init-db"],
               "setup": [sys.executable, "scripts/setup_instance.py"]}[process]
    result = _start(command, tmp_path, IRISRAG_CHUNK_SIZ="500")
    assert result.returncode != 0
    assert "IRISRAG_CHUNK_SIZ is not an IrisRAG setting; did you mean IRISRAG_CHUNK_SIZE?" in result.stderr
    assert not (tmp_path / "x.db").exists() and not (tmp_path / "secret_key").exists()


def test_test_overrides_reach_the_processes_tests_start():
    values = load({config.TEST_OVERRIDES: json.dumps({"FAKE_EMBED_DELAY": 0.5, "MAINTENANCE_INTERVAL": 0})})
    assert (values["FAKE_EMBED_DELAY"], values["MAINTENANCE_INTERVAL"]) == (0.5, 0)
    with pytest.raises(ConfigError, match="JSON object"):
        load({config.TEST_OVERRIDES: "[1]"})


def test_test_only_values_are_not_in_the_operator_table():
    operator = {s.key for s in config.SETTINGS}
    assert "FAKE_EMBED_DELAY" not in operator and "FAKE_EMBED_DELAY" in config.DEFAULTS
    assert len(config.SETTINGS) <= 53  # 50, and issue 40: MISSING_ANSWERS_SHOW_USERS, CRAWL_DELAY, SYNC_REMOVED_GRACE
    assert not operator & set(config.PROFILES["use"]) and not operator & config.INTERNAL_DEFAULTS.keys()


@pytest.mark.parametrize(("name", "value", "accepts"), [
    ("IRISRAG_EMBEDDER", "usee", "one of use, e5, ollama, openai, fake"),
    ("IRISRAG_FTS_LANGUAGE", "Deutsch", "one of Arabic, Danish"),
    ("IRISRAG_EMBEDDING_DIM", "768d", "a whole number"),
    ("IRISRAG_RETRIEVAL_PROFILE", "bm25", r"use, e5 or generic \(empty: the EMBEDDER's\)"),
])
def test_a_value_the_setting_does_not_take_names_what_it_takes(name, value, accepts):
    with pytest.raises(ConfigError, match=f"{name}='{value}' is not valid: {accepts}"):
        load({name: value})


def test_a_language_is_taken_in_any_case_and_kept_as_the_index_spells_it():
    assert load({"IRISRAG_FTS_LANGUAGE": "english"})["FTS_LANGUAGE"] == "English"


def test_every_profile_can_be_named_and_each_embedder_has_one():
    assert all(load({"IRISRAG_RETRIEVAL_PROFILE": name})["RETRIEVAL_PROFILE"] == name for name in config.PROFILES)
    assert set(config.PROFILE_OF_EMBEDDER.values()) <= set(config.PROFILES) and "generic" in config.PROFILES
    assert config.PROFILES["use"] == {s.key: s.default for s in config.PROFILE_FIELDS}   # the table's own values


def test_a_renamed_setting_names_its_new_name():
    from irisrag.config import unknown_message

    assert unknown_message("IRISRAG_OLLAMA_EMBED_DIM") == (
        "IRISRAG_OLLAMA_EMBED_DIM is not a setting any more: set IRISRAG_EMBEDDING_DIM instead")
