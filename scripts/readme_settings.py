"""Write the settings tables, grouped by topic, into docs/configuration.md from irisrag/config.py (`make readme`).

The tables go between ``<!-- settings:begin -->`` and ``<!-- settings:end -->``; the prose
around them is kept. A file without the markers gets them appended. Prints the count.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from irisrag.config import SETTINGS, markdown_tables  # noqa: E402

PAGE = ROOT / "docs" / "configuration.md"
BEGIN = "<!-- settings:begin -->"
END = "<!-- settings:end -->"
NOTE = "<!-- generated from irisrag/config.py by `make readme`: edit the settings there -->"


def generated_block() -> str:
    """What belongs between the markers."""
    return f"{BEGIN}\n{NOTE}\n\n{markdown_tables()}\n\n{END}"


def rewrite(text: str) -> str:
    """The page with its settings block replaced (appended when it has no markers)."""
    if BEGIN not in text or END not in text:
        return f"{text.rstrip()}\n\n{generated_block()}\n".lstrip()
    head, rest = text.split(BEGIN, 1)
    return f"{head}{generated_block()}{rest.split(END, 1)[1]}"


def main() -> None:
    PAGE.parent.mkdir(exist_ok=True)
    PAGE.write_text(rewrite(PAGE.read_text() if PAGE.exists() else ""))
    print(f"{len(SETTINGS)} settings written to {PAGE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
