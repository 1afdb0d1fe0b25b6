"""Procfile process: once the web server answers, print the box that setup left (password, URLs), then idle.

It never exits on its own (honcho would stop every process when one ends); SIGTERM ends it.
"""
from __future__ import annotations

import os
import signal
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from setup_instance import WELCOME, box, instance_path  # noqa: E402


def wait_for(url: str, seconds: float = 300.0) -> bool:
    """Return True once the URL answers (any HTTP status), False after ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2).close()
            return True
        except urllib.error.HTTPError:
            return True
        except OSError:
            time.sleep(0.5)
    return False


def main() -> None:
    port = os.environ.get("IRISRAG_PORT", "5000")
    welcome = instance_path() / WELCOME
    if wait_for(f"http://127.0.0.1:{port}/healthz"):
        text = welcome.read_text() if welcome.exists() else box(
            [f"Admin console: http://127.0.0.1:{port}/admin/login", f"Users:         http://127.0.0.1:{port}/"]) + "\n"
        welcome.unlink(missing_ok=True)
        print("\n" + text, flush=True)
    else:
        print(f"The web server did not answer on port {port}; see the web lines above.", flush=True)
    while True:
        signal.pause()


if __name__ == "__main__":
    main()
