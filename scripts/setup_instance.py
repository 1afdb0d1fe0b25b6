"""First-start setup for `make run`: secret key, schema, first admin account."""
from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    instance = ROOT / "instance"
    instance.mkdir(exist_ok=True)
    key_file = instance / "secret_key"
    if not os.environ.get("IRISRAG_SECRET_KEY") and not key_file.exists():
        key_file.write_text(secrets.token_hex(32))
        key_file.chmod(0o600)
        print(f"Generated a secret key in {key_file}.")
    flask = [sys.executable, "-m", "flask", "--app", "wsgi:app", "rag"]
    for args in (["init-db"], ["ensure-admin"]):
        result = subprocess.run(flask + args, cwd=ROOT)
        if result.returncode:
            return result.returncode
    port = os.environ.get("IRISRAG_PORT", "5000")
    print(f"Open http://127.0.0.1:{port}/admin/login (admin console) or http://127.0.0.1:{port}/ (users).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
