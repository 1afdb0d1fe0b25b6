"""`make run` for a newcomer (issue 19): setup prepares the box, welcome.py prints it last, once the web answers."""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

from werkzeug.security import check_password_hash

ROOT = Path(__file__).resolve().parent.parent


class _Health(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's name
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b'{"status": "ok"}')

    def log_message(self, *args):
        pass


def test_setup_then_welcome_prints_the_password_and_urls_last_in_a_box(tmp_path):
    server = HTTPServer(("127.0.0.1", 0), _Health)  # the web server's stand-in
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_port
    env = {**os.environ, "IRISRAG_PORT": str(port), "IRISRAG_INSTANCE_PATH": str(tmp_path / "instance"),
           "IRISRAG_DATABASE_URL": f"sqlite:///{tmp_path}/irisrag.db", "IRISRAG_LLM": "none"}
    env.pop("IRISRAG_ADMIN_PASSWORD", None)
    env.pop("IRISRAG_SECRET_KEY", None)
    setup = subprocess.run([sys.executable, "scripts/setup_instance.py"], cwd=ROOT, env=env, capture_output=True,
                           text=True, timeout=120)
    assert setup.returncode == 0, setup.stderr
    assert "Password" not in setup.stdout  # not here, among the install output
    welcome_file = tmp_path / "instance" / "welcome.txt"
    assert welcome_file.stat().st_mode & 0o777 == 0o600

    proc = subprocess.Popen([sys.executable, "scripts/welcome.py"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, text=True)
    try:
        lines = []
        while len([line for line in lines if line.startswith("+-")]) < 2:
            lines.append(proc.stdout.readline().rstrip("\n"))
        assert proc.poll() is None  # it stays (honcho would stop everything when it ended)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
        server.shutdown()
    framed = [line for line in lines if line.startswith("|")]
    assert len({len(line) for line in framed + [lines[-1]]}) == 1  # one width: a box
    password = next(line for line in framed if "Password:" in line).split("Password:")[1].strip(" |")
    assert any(f"http://127.0.0.1:{port}/admin/login" in line for line in framed)
    assert any(line.strip(" |") == f"Users:         http://127.0.0.1:{port}/" for line in framed)
    assert not welcome_file.exists()  # the password is not left on disk
    with sqlite3.connect(tmp_path / "irisrag.db") as conn:
        (stored,) = conn.execute("SELECT password_hash FROM user WHERE username = 'admin'").fetchone()
    assert check_password_hash(stored, password)

    again = subprocess.run([sys.executable, "scripts/setup_instance.py"], cwd=ROOT, env=env, capture_output=True,
                           text=True, timeout=120)
    assert again.returncode == 0 and "Password" not in welcome_file.read_text()  # known only the first time


def test_setup_takes_the_admin_password_from_the_env_file(tmp_path, monkeypatch):
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import setup_instance
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    env_file = tmp_path / ".env"
    env_file.write_text("IRISRAG_ADMIN_PASSWORD=aus-der-env-datei-42\n")
    monkeypatch.setattr(setup_instance, "ENV_FILE", env_file)
    monkeypatch.delenv("IRISRAG_ADMIN_PASSWORD", raising=False)
    monkeypatch.delenv("IRISRAG_SECRET_KEY", raising=False)
    for key, value in {"IRISRAG_INSTANCE_PATH": str(tmp_path / "instance"), "IRISRAG_LLM": "none",
                       "IRISRAG_DATABASE_URL": f"sqlite:///{tmp_path}/irisrag.db"}.items():
        monkeypatch.setenv(key, value)
    try:
        assert setup_instance.main() == 0
    finally:
        os.environ.pop("IRISRAG_ADMIN_PASSWORD", None)  # set by the .env file, not by monkeypatch
    assert "(the one in IRISRAG_ADMIN_PASSWORD)" in (tmp_path / "instance" / "welcome.txt").read_text()
    with sqlite3.connect(tmp_path / "irisrag.db") as conn:
        (stored,) = conn.execute("SELECT password_hash FROM user WHERE username = 'admin'").fetchone()
    assert check_password_hash(stored, "aus-der-env-datei-42")
