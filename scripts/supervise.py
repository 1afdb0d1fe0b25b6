"""Keep one process running: restart it when it exits, stop it when stopped.

Procfile runners (honcho, foreman) stop every process when one exits, so a worker that
dies would take the web process down with it. ``python scripts/supervise.py CMD ARG...``
restarts CMD after it exits (waiting 1 s, doubling to 30 s while it keeps dying within a
minute) and passes SIGTERM/SIGINT on to it, exiting when it has stopped.
"""
from __future__ import annotations

import signal
import subprocess
import sys
import time

MAX_PAUSE = 30.0
STABLE_SECONDS = 60.0


def supervise(command: list[str]) -> int:
    """Run ``command`` until a stop signal arrives; return its last exit status."""
    stopping = False
    child: subprocess.Popen | None = None

    def stop(signum, _frame) -> None:
        nonlocal stopping
        stopping = True
        if child is not None and child.poll() is None:
            child.send_signal(signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    pause, status = 1.0, 0
    while not stopping:
        began = time.monotonic()
        child = subprocess.Popen(command)
        status = child.wait()
        if stopping:
            break
        pause = 1.0 if time.monotonic() - began > STABLE_SECONDS else min(pause * 2, MAX_PAUSE)
        print(f"supervise: {command[-1]} exited with status {status}; restarting in {pause:g} s", flush=True)
        deadline = time.monotonic() + pause
        while not stopping and time.monotonic() < deadline:
            time.sleep(0.1)
    return status


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: supervise.py COMMAND [ARG...]")
    sys.exit(supervise(sys.argv[1:]))
