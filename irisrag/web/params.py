"""Ids and whole numbers from the request: the ``<id:...>`` URL converter and the form/query helpers.

Every route takes its ids through the ``id`` converter (registered app-wide by
``init_app``): it matches ASCII digits for 1..2**63 - 1 only, so a larger number, "²" or
"0" is a 404 like any unknown id, never an ``OverflowError`` in the database; ``<job_id:...>``
does the same for RQ job ids. Forms and query
strings go through ``int_field`` / ``id_fields`` (see ``irisrag.ids``).
"""
from __future__ import annotations

from flask import Flask
from werkzeug.datastructures import MultiDict
from werkzeug.routing import BaseConverter, ValidationError

from irisrag.ids import parse_id, parse_ids, parse_int


class IdConverter(BaseConverter):
    """``<id:name>``: a database id, 1..2**63 - 1, in ASCII digits."""

    regex = r"[0-9]{1,19}"
    weight = 50  # as werkzeug's int converter: a literal segment wins over it
    part_isolating = True

    def to_python(self, value: str) -> int:
        ident = parse_id(value)
        if ident is None:
            raise ValidationError()  # no match: the router answers 404
        return ident

    def to_url(self, value: int) -> str:
        return str(int(value))


class JobIdConverter(BaseConverter):
    """``<job_id:name>``: an RQ job id (ASCII letters, digits, _ and -; RQ raises ValueError on anything else)."""

    regex = r"[A-Za-z0-9_-]{1,200}"
    part_isolating = True


def init_app(app: Flask) -> None:
    """Register the ``id`` and ``job_id`` converters (before any blueprint adds its rules)."""
    app.url_map.converters["id"] = IdConverter
    app.url_map.converters["job_id"] = JobIdConverter


def int_field(values: MultiDict, name: str, default: int | None = None, *, minimum: int = 0) -> int | None:
    """Return a whole number from a form or query string; ``default`` when missing or not one."""
    value = parse_int(values.get(name, ""), minimum=minimum)
    return default if value is None else value


def id_field(values: MultiDict, name: str) -> int | None:
    """Return an id (1..2**63 - 1) from a form or query string, or None."""
    return parse_id(values.get(name, ""))


def id_fields(values: MultiDict, name: str) -> list[int]:
    """Return every valid id among the values of a repeated form or query field."""
    return parse_ids(values.getlist(name))
