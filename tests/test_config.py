import pytest

from irisrag import config, create_app


def test_config_defaults_are_the_originals():
    d = config.DEFAULTS
    assert (d["CHUNK_SIZE"], d["CHUNK_OVERLAP"], d["CONTEXT_CANDIDATES"], d["CONTEXT_CHUNKS"]) == (700, 150, 256, 9)
    assert (d["MAX_CHUNKS_PER_DOCUMENT"], d["MIN_MATCH_TERMS"], d["MIN_MATCH_SCORE"]) == (4, 2, 5)
    assert (d["MIN_SOURCE_SCORE"], d["FOUND_SOURCES_CHUNKS"], d["OLLAMA_TIMEOUT"]) == (1, 3, 20)
    assert d["OLLAMA_EMBED_MODEL"] == "nomic-embed-text" and d["OLLAMA_CHAT_MODEL"] == "llama3"


def test_config_factory_reads_environment_overrides(monkeypatch, tmp_path):
    monkeypatch.setenv("IRISRAG_CHUNK_SIZE", "512")
    monkeypatch.setenv("IRISRAG_URL_ALLOWLIST", "intranet.example, 10.0.0.0/8")
    monkeypatch.setenv("IRISRAG_SESSION_COOKIE_SECURE", "true")
    monkeypatch.setenv("IRISRAG_DATABASE_URL", f"sqlite:///{tmp_path / 'x.db'}")
    app = create_app({"SECRET_KEY": "k", "CONTEXT_CHUNKS": 3})
    assert app.config["CHUNK_SIZE"] == 512
    assert app.config["URL_ALLOWLIST"] == ["intranet.example", "10.0.0.0/8"]
    assert app.config["SESSION_COOKIE_SECURE"] is True
    assert app.config["CONTEXT_CHUNKS"] == 3  # overrides win over the environment


def test_config_bad_number_names_the_variable(monkeypatch):
    monkeypatch.setenv("IRISRAG_CHUNK_SIZE", "seven hundred")
    with pytest.raises(ValueError, match="IRISRAG_CHUNK_SIZE"):
        config.load()


def test_config_missing_secret_key_fails_fast(monkeypatch, tmp_path):
    monkeypatch.delenv("IRISRAG_SECRET_KEY", raising=False)
    monkeypatch.setenv("IRISRAG_INSTANCE_PATH", str(tmp_path / "empty-instance"))
    monkeypatch.setenv("IRISRAG_DATABASE_URL", f"sqlite:///{tmp_path / 'x.db'}")
    with pytest.raises(RuntimeError, match="IRISRAG_SECRET_KEY"):
        create_app()


def test_config_secret_key_file_is_used(monkeypatch, tmp_path):
    monkeypatch.delenv("IRISRAG_SECRET_KEY", raising=False)
    (tmp_path / "secret_key").write_text("from-file\n")
    app = create_app({"INSTANCE_PATH": str(tmp_path), "DATABASE_URL": f"sqlite:///{tmp_path / 'x.db'}"})
    assert app.config["SECRET_KEY"] == "from-file"


def test_config_every_setting_is_documented_in_the_configuration_page():
    from pathlib import Path

    page = (Path(__file__).resolve().parent.parent / "docs" / "configuration.md").read_text()
    undocumented = [s.key for s in config.SETTINGS if f"`IRISRAG_{s.key}`" not in page]
    assert not undocumented
