"""Rewrite the README's configuration table from irisrag/config.py (`make readme`)."""
from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from irisrag.config import markdown_table  # noqa: E402

START = "<!-- settings:start (generated from irisrag/config.py by `make readme`) -->"
END = "<!-- settings:end -->"


def main() -> None:
    readme = ROOT / "README.md"
    text = readme.read_text()
    pattern = re.compile(re.escape(START) + r".*?" + re.escape(END), re.S)
    readme.write_text(pattern.sub(lambda _: f"{START}\n{markdown_table()}\n{END}", text))


if __name__ == "__main__":
    main()
