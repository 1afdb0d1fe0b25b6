"""First-start setup for `make run`: secret key, schema, first admin account; then a box with what to open.

The box (admin name and password on the first start, the URLs always) is printed last by
``scripts/welcome.py`` (a Procfile process) once the web server answers, so it is not lost
among the install and start-up output. It waits for it in ``instance/welcome.txt`` (0600),
which welcome.py deletes after printing. Settings come from the environment, then the project's
``.env`` (as for ``flask``), so an admin password set there is the first admin's.
"""
from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

from dotenv import load_dotenv

ROOT = Path(__file__).resolve().parent.parent
ENV_FILE = ROOT / ".env"  # where `flask` finds it too (run from the project root)
ADMIN = "admin"
WELCOME = "welcome.txt"


def box(lines: list[str]) -> str:
    """Return the lines framed by a box (as wide as the longest line)."""
    width = max(len(line) for line in lines)
    rule = "+" + "-" * (width + 2) + "+"
    return "\n".join([rule, *(f"| {line.ljust(width)} |" for line in lines), rule])


def _flask(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "flask", "--app", "wsgi:app", "rag", *args]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)


def _secret_key(instance: Path) -> list[str]:
    key_file = instance / "secret_key"
    if os.environ.get("IRISRAG_SECRET_KEY") or key_file.exists():
        return []
    key_file.write_text(secrets.token_hex(32))
    key_file.chmod(0o600)
    return [f"Generated a secret key in {key_file}."]


def _admin_lines() -> list[str] | None:
    """Create the first admin when there is none; return the box lines about it (None: it failed)."""
    given = os.environ.get("IRISRAG_ADMIN_PASSWORD")
    password = given or secrets.token_urlsafe(12)
    result = _flask("ensure-admin", "--name", ADMIN, env={**os.environ, "IRISRAG_ADMIN_PASSWORD": password})
    if result.returncode:
        sys.stderr.write(result.stdout + result.stderr)
        return None
    if "Created admin account" not in result.stdout:
        return []  # an admin exists already: its password is not known here
    shown = "(the one in IRISRAG_ADMIN_PASSWORD)" if given else password
    return [f"Admin account: {ADMIN}", f"Password:      {shown}", "Shown only this once: note it, then change it",
            "in the admin console (Users).", ""]


def instance_path() -> Path:
    """Return the instance folder (IRISRAG_INSTANCE_PATH, relative to the project root)."""
    path = Path(os.environ.get("IRISRAG_INSTANCE_PATH") or "instance")
    return path if path.is_absolute() else ROOT / path


def main() -> int:
    # settings in .env (IRISRAG_ADMIN_PASSWORD too) count here as they do for `flask`; the environment wins
    load_dotenv(ENV_FILE, override=False)
    instance = instance_path()
    instance.mkdir(parents=True, exist_ok=True)
    notes = _secret_key(instance)
    schema = _flask("init-db")
    if schema.returncode:
        sys.stderr.write(schema.stdout + schema.stderr)
        return schema.returncode
    admin = _admin_lines()
    if admin is None:
        return 1
    port = os.environ.get("IRISRAG_PORT", "5000")
    lines = [*admin, f"Admin console: http://127.0.0.1:{port}/admin/login", f"Users:         http://127.0.0.1:{port}/",
             "", "Stop with Ctrl+C."]
    print("\n".join([*notes, schema.stdout.strip()]), flush=True)
    welcome = instance / WELCOME
    welcome.touch(mode=0o600)
    welcome.chmod(0o600)
    welcome.write_text(box(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
