"""The documents tab's list (issue 19): one page of documents, searched, filtered and sorted on the server.

Every input comes from the query string and is checked against a whitelist here (sort keys,
statuses, page numbers), so nothing a user types reaches the query except as a LIKE value.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from peewee import fn

from irisrag.ids import is_id, page_number, parse_id
from irisrag.models import Area, Document
from irisrag.models.documents import RUNNING, STATUSES

PAGE_SIZE = 50
MAX_SEARCH = 200
# status filter -> the statuses it shows ("running": every stage of an import that has not ended)
STATUS_FILTERS: dict[str, tuple[str, ...]] = {"running": RUNNING, **{s: (s,) for s in STATUSES}}
SORTS = {
    # the date the column shows: when it was imported, or (not yet imported) when it was registered
    "date": lambda: (fn.COALESCE(Document.imported_at, Document.created_at), Document.id),
    "name": lambda: (fn.LOWER(fn.COALESCE(fn.NULLIF(Document.title, ""), Document.name)), Document.id),
    "status": lambda: (Document.status, Document.id),
}


@dataclass(frozen=True)
class DocumentQuery:
    """What the admin asked to see: search text, area, status, sort key and direction, page."""

    search: str = ""
    area: int | None = None
    status: str = ""
    sort: str = "date"
    descending: bool = True
    page: int = 1

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> DocumentQuery:
        """Read a query from request arguments, dropping whatever is not on the whitelist."""
        sort = args.get("sort") if args.get("sort") in SORTS else "date"
        status = args.get("status") if args.get("status") in STATUS_FILTERS else ""
        return cls(search=str(args.get("q") or "").strip()[:MAX_SEARCH], area=_int(args.get("area")),
                   status=status, sort=sort, descending=args.get("dir", "desc" if sort == "date" else "asc") == "desc",
                   page=page_number(args.get("page")))

    def args(self, **changes: Any) -> dict[str, Any]:
        """Return the query-string arguments of this query (defaults left out), with ``changes`` applied."""
        values = {"q": self.search, "area": self.area, "status": self.status, "sort": self.sort,
                  "dir": "desc" if self.descending else "asc", "page": self.page, **changes}
        defaults = {"q": "", "area": None, "status": "", "sort": "date", "page": 1,
                    "dir": "desc" if values["sort"] == "date" else "asc"}
        return {k: v for k, v in values.items() if v != defaults[k]}

    @property
    def filtered(self) -> bool:
        return bool(self.search or self.area or self.status)


@dataclass(frozen=True)
class DocumentPage:
    """One page of the list with the total it was cut from."""

    query: DocumentQuery
    documents: list[Document] = field(default_factory=list)
    total: int = 0

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // PAGE_SIZE))

    @property
    def first(self) -> int:
        return (self.query.page - 1) * PAGE_SIZE + 1 if self.documents else 0

    @property
    def last(self) -> int:
        return self.first + len(self.documents) - 1 if self.documents else 0


def _int(value: Any) -> int | None:
    return value if is_id(value) else parse_id(value)


def _matching(query: DocumentQuery):
    """Return the documents query of the filters (search in name, title, address and original path)."""
    selected = Document.select(Document, Area).join(Area)
    if query.area:
        selected = selected.where(Document.area == query.area)
    if query.status:
        selected = selected.where(Document.status.in_(STATUS_FILTERS[query.status]))
    if query.search:
        text = query.search
        selected = selected.where(Document.name.contains(text) | Document.title.contains(text)
                                  | Document.source_url.contains(text) | Document.original_path.contains(text))
    return selected


def list_page(query: DocumentQuery) -> DocumentPage:
    """Return the page of documents the query asks for (the last page when it asks past the end)."""
    matching = _matching(query)
    total = matching.count()
    pages = max(1, -(-total // PAGE_SIZE))
    if query.page > pages:
        query = DocumentQuery(**{**query.__dict__, "page": pages})
    order = [c.desc() if query.descending else c.asc() for c in SORTS[query.sort]()]
    documents = list(matching.order_by(*order).paginate(query.page, PAGE_SIZE))
    return DocumentPage(query, documents, total)


def counts_by_area() -> dict[int, int]:
    """Return how many documents each area holds (areas without any are left out)."""
    query = Document.select(Document.area, fn.COUNT(Document.id).alias("n")).group_by(Document.area)
    return {row.area_id: row.n for row in query}
