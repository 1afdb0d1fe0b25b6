"""Database ids and other whole numbers from text: ASCII digits in the range a database integer holds.

``str.isdigit`` accepts "²" and "٣" (``int`` refuses the first), and ``int`` makes any
number of digits, but SQLite raises ``OverflowError`` above 2**63 - 1 and PostgreSQL an
error of its own. Every id or count that comes from a URL, a form, a query string or JSON
goes through here, so such input is refused as input instead of failing in the database.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

MAX_INT = 2**63 - 1  # the largest BIGINT (SQLite INTEGER, PostgreSQL bigint)
MAX_PAGE = 2**31 - 1  # page numbers beyond this are read as this one (an empty page): page x size stays a BIGINT
DIGITS = re.compile(r"[0-9]{1,19}")


def parse_int(text: Any, *, minimum: int = 0) -> int | None:
    """Return the whole number written in ASCII digits, if it lies in minimum..MAX_INT; else None."""
    if not isinstance(text, str) or not DIGITS.fullmatch(text.strip()):
        return None
    value = int(text)
    return value if minimum <= value <= MAX_INT else None


def parse_id(text: Any) -> int | None:
    """Return the id (1..MAX_INT) written in ASCII digits, or None."""
    return parse_int(text, minimum=1)


def page_number(value: Any) -> int:
    """Return a page number (1..MAX_PAGE) from an int or digits; 1 when it is neither."""
    page = value if is_id(value) else parse_id(value)
    return min(page or 1, MAX_PAGE)


def is_id(value: Any) -> bool:
    """Return True for an int (not a bool) that can be a database id."""
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_INT


def parse_ids(values: Iterable[Any]) -> list[int]:
    """Return the ids among the values (ints or digit strings), in order, dropping everything else."""
    ids = (value if is_id(value) else parse_id(value) for value in values)
    return [i for i in ids if i is not None]
