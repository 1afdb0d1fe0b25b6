"""The instance's time zone (IRISRAG_TIMEZONE): an IANA name, checked when the app starts."""
from __future__ import annotations

from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


def parse_timezone(value: str) -> str:
    """Return the IANA time zone name, or raise ValueError when there is no such zone."""
    name = (value or "").strip()
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, TypeError):
        raise ValueError(f"no time zone {name!r}: an IANA name such as Europe/Berlin or UTC") from None
    return name
