"""Object-store settings: LANCEDB_STORAGE_OPTIONS parsing and the backup's view of the same store."""
from __future__ import annotations

import pyarrow.fs as pafs
import pytest

from irisrag import config
from irisrag.vectors.objectstore import _options, location


def test_storage_options_setting_parses_a_json_object_into_strings():
    values = config.load({"IRISRAG_LANCEDB_STORAGE_OPTIONS": '{"aws_endpoint": "http://s3:8333", "allow_http": true}'})
    assert values["LANCEDB_STORAGE_OPTIONS"] == {"aws_endpoint": "http://s3:8333", "allow_http": "true"}
    assert config.load({})["LANCEDB_STORAGE_OPTIONS"] == {}
    for bad in ('["x"]', "aws_endpoint=x"):
        with pytest.raises(ValueError, match="IRISRAG_LANCEDB_STORAGE_OPTIONS"):
            config.load({"IRISRAG_LANCEDB_STORAGE_OPTIONS": bad})


def test_storage_options_override_aws_variables_as_lancedb_does():
    env = {"AWS_ACCESS_KEY_ID": "env-key", "AWS_SECRET_ACCESS_KEY": "env-secret", "AWS_ENDPOINT": "http://a:1",
           "HOME": "/root"}
    merged = _options({"aws_endpoint": "http://b:2", "region": "eu-central-1"}, env)
    assert merged == {"key": "env-key", "secret": "env-secret", "endpoint": "http://b:2", "region": "eu-central-1"}


def test_location_of_local_and_s3_uris(tmp_path):
    local = location(str(tmp_path / "lancedb"))
    assert local.local and local.root == str((tmp_path / "lancedb").resolve()) and local.is_empty()
    remote = location("s3://bucket/irisrag/lancedb/", {"aws_endpoint": "http://127.0.0.1:9", "aws_access_key_id": "k",
                                                        "aws_secret_access_key": "s"}, environ={})
    assert isinstance(remote.fs, pafs.S3FileSystem) and remote.root == "bucket/irisrag/lancedb"
    with pytest.raises(ValueError, match="gs://"):
        location("gs://bucket/x")
