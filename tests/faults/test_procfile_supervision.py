"""`make run` (honcho + the Procfile): a worker that exits is restarted and the web process stays up."""
from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HONCHO = Path(sys.executable).parent / "honcho"


def procfile_with(tmp_path: Path, web: str, worker: str) -> Path:
    """The real Procfile with the web and worker programs swapped for stand-ins (nothing else changed)."""
    lines = []
    for line in (ROOT / "Procfile").read_text().splitlines():
        name, _, command = line.partition(":")
        if name == "web":
            command = f" {web}"
        elif name == "worker":
            command = (command.replace(".venv/bin/python worker.py", "@WORKER@")
                       .replace(".venv/bin/python", sys.executable).replace("@WORKER@", worker))
        elif name in ("redis", "welcome"):
            continue  # not needed here (welcome only prints the start-up box)
        lines.append(f"{name}:{command}")
    path = tmp_path / "Procfile"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.skipif(not HONCHO.exists() and not shutil.which("honcho"), reason="honcho is not installed")
def test_a_worker_that_exits_is_restarted_and_the_web_process_stays_up(tmp_path):
    starts, beats = tmp_path / "starts", tmp_path / "beats"
    crash = tmp_path / "crash.py"
    crash.write_text(f"import sys\nopen({str(starts)!r}, 'a').write('x')\nsys.exit(3)\n")
    web = tmp_path / "web.py"
    web.write_text(f"import time\nwhile True:\n    open({str(beats)!r}, 'a').write('x')\n    time.sleep(0.2)\n")
    procfile = procfile_with(tmp_path, f"{sys.executable} {web}", f"{sys.executable} {crash}")
    honcho = str(HONCHO) if HONCHO.exists() else shutil.which("honcho")
    proc = subprocess.Popen([honcho, "start", "-f", str(procfile), "-d", str(ROOT)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        time.sleep(6)
        assert proc.poll() is None, proc.stdout.read().decode()[-2000:]  # honcho did not stop everything
        before = beats.stat().st_size
        time.sleep(1)
        assert beats.stat().st_size > before  # the web process is still serving
        assert len(starts.read_text()) >= 2  # the worker was started again after it exited
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
    assert proc.returncode is not None
