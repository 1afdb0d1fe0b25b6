"""The quality regression fails, instead of skipping, in CI when the shared sets are missing."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEST = "tests/evaluation/test_quality_regression.py"


def _run(tmp_path: Path, **variables: str) -> subprocess.CompletedProcess:
    keep = {k: v for k, v in os.environ.items() if k not in ("CI", "IRISRAG_TEST_REQUIRE_ALL")}
    env = {**keep, "IRISRAG_SHARED_EVAL": str(tmp_path), **variables}   # a folder without the sets
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", TEST], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("variables", [{"CI": "true"}, {"IRISRAG_TEST_REQUIRE_ALL": "1"}])
def test_missing_shared_sets_fail_in_ci(tmp_path, variables):
    result = _run(tmp_path, **variables)
    assert result.returncode == 1 and "2 failed" in result.stdout, result.stdout[-2000:]
    assert "the shared evaluation sets are not at" in result.stdout


def test_missing_shared_sets_skip_elsewhere(tmp_path):
    result = _run(tmp_path)
    assert result.returncode == 0 and "2 skipped" in result.stdout, result.stdout[-2000:]
