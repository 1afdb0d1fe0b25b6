"""Dates and times on the pages: in the user's language and the instance's time zone (IRISRAG_TIMEZONE).

Stored times are naive UTC; Flask-Babel converts them to ``BABEL_DEFAULT_TIMEZONE``, set here
from the setting, which is checked at start (an unknown zone stops it, naming the setting).
"""
from __future__ import annotations

from datetime import datetime

from flask import Flask
from flask_babel import format_date, format_time, to_user_timezone

from irisrag.timezones import parse_timezone


def when(value: datetime | None, seconds: bool = False) -> str:
    """Return date and time in the user's language and the instance's zone ('–' for none)."""
    if value is None:
        return "–"
    local = to_user_timezone(value)
    return f"{format_date(local, 'medium')}, {format_time(local, 'medium' if seconds else 'short')}"


def day(value: datetime | None) -> str:
    """Return the date in the user's language and the instance's zone."""
    return "–" if value is None else format_date(to_user_timezone(value), "medium")


def init_app(app: Flask) -> None:
    """Check the time zone setting, hand it to Flask-Babel and register the ``when`` and ``day`` filters."""
    try:
        zone = parse_timezone(app.config.get("TIMEZONE") or "UTC")
    except ValueError as exc:
        raise ValueError(f"IRISRAG_TIMEZONE is not valid: {exc}") from exc
    app.config["BABEL_DEFAULT_TIMEZONE"] = zone
    app.jinja_env.filters["when"] = when
    app.jinja_env.filters["day"] = day
