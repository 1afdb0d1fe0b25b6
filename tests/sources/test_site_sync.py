"""A website section synced twice, in this process (the worker's runs: tests/integration/test_source_worker.py).

The local site (tests/support/website.py) has 40 numbered pages, a sitemap with a page no page
links to, robots.txt disallowing /docs/private/, a redirect, a canonical link, links out of the
section and to private addresses, and a redirect to a private address.
"""
from irisrag import components
from irisrag.extensions import db
from irisrag.models import Document, Source
from irisrag.models.base import utcnow
from irisrag.services.sources import sources
from irisrag.services.sources.sources import SourceInput
from irisrag.services.sources.sync import run_sync


def section(app, site, **fields):
    with app.app_context(), db.connection_context():
        return sources.create_source("Handbuch", SourceInput("site", site.url("/docs/"), depth=3, page_limit=500,
                                                             **fields))


def sync(app, source_id):
    with app.app_context(), db.connection_context():
        return run_sync(source_id)


def docs_of(app, source_id):
    with app.app_context(), db.connection_context():
        return {d.source_url: d for d in Document.select().where(Document.source == source_id)}


def ledger(run):
    return {k: getattr(run, k) for k in ("new", "changed", "unchanged", "removed", "failed", "deleted")}


def test_a_section_is_crawled_within_its_rules_and_synced_again_cheaply(sync_app, site):
    source = section(sync_app, site)
    first = sync(sync_app, source.id)
    assert first.state == "done"
    assert ledger(first) == {"new": site.expected_pages, "changed": 0, "unchanged": 0, "removed": 0, "failed": 1,
                             "deleted": 0}  # failed: the redirect to 10.0.0.1, refused by the address guard
    docs = docs_of(sync_app, source.id)
    assert len(docs) == site.expected_pages and all(d.status == "done" and d.chunk_count for d in docs.values())
    assert site.url("/docs/new.html") in docs and site.url("/docs/old.html") not in docs  # stored under the target
    assert site.url("/docs/orphan.html") in docs  # from the sitemap
    assert site.url("/docs/page-3.html?ref=nav") not in docs  # its canonical page is page-3
    requested = site.paths()
    assert not [p for p in requested if p.startswith(("/docs/private", "/outside"))]  # robots.txt, the prefix
    assert requested.count("/docs/page-1.html") == 1  # the #top link is the same page
    assert "/bild.png" not in requested and "/docs/bild.png" not in requested  # not a followed type
    assert first.requests == len(requested) - 1  # a fetch counts once, old.html and its redirect target alike

    site.change("page-5", "Abschnitt 5 wurde überarbeitet: der Antrag geht jetzt an das Sekretariat.")
    site.remove("page-7")
    before = len(site.requests)
    second = sync(sync_app, source.id)
    assert ledger(second) == {"new": 0, "changed": 1, "unchanged": site.expected_pages - 2, "removed": 1,
                              "failed": 1, "deleted": 0}
    again = docs_of(sync_app, source.id)
    page5, page7 = again[site.url("/docs/page-5.html")], again[site.url("/docs/page-7.html")]
    assert page5.id == docs[page5.source_url].id and page5.sha256 != docs[page5.source_url].sha256
    assert page7.removed_at is not None and page7.status == "done"  # kept for the grace period
    not_modified = [p for p, s in site.requests[before:] if s == 304]
    assert len(not_modified) >= site.expected_pages - 4  # conditional requests: unchanged pages send no body
    with sync_app.app_context():
        hits = components.get().store.search_fulltext("Sekretariat", [source.area_id], 5)
    assert {h.hit.document_id for h in hits} == {page5.id}


def test_a_removed_page_is_deleted_after_the_grace_period_and_a_failed_fetch_removes_nothing(sync_app, site):
    from datetime import timedelta

    source = section(sync_app, site)
    sync(sync_app, source.id)
    site.remove("page-9")
    assert sync(sync_app, source.id).removed == 1
    url9 = site.url("/docs/page-9.html")
    with sync_app.app_context(), db.connection_context():
        eight_days_ago = utcnow() - timedelta(days=8)  # the grace period (7 days by default) has passed
        Document.update(removed_at=eight_days_ago).where(Document.source_url == url9).execute()
    third = sync(sync_app, source.id)
    assert third.deleted == 1 and third.removed == 0 and url9 not in docs_of(sync_app, source.id)

    site.broken.add("page-4")
    broken = sync(sync_app, source.id)
    assert (broken.failed, broken.removed, broken.unchanged) == (2, 0, site.expected_pages - 2)  # and go-internal
    assert docs_of(sync_app, source.id)[site.url("/docs/page-4.html")].removed_at is None

    site.__exit__()  # the server is gone: every fetch fails, nothing is marked removed
    fourth = sync(sync_app, source.id)
    # robots.txt cannot be read: the section is not crawled, and that is one failure, not 43 removals
    assert ledger(fourth) == {"new": 0, "changed": 0, "unchanged": 0, "removed": 0, "failed": 1, "deleted": 0}
    assert fourth.note == "limit:robots"
    assert not [d for d in docs_of(sync_app, source.id).values() if d.removed_at]


def test_one_request_at_a_time_with_the_pause_and_a_page_limit_that_removes_nothing(sync_app, site):
    sync_app.config["CRAWL_DELAY"] = 0.2
    source = section(sync_app, site)
    with sync_app.app_context(), db.connection_context():
        Source.update(page_limit=8).where(Source.id == source.id).execute()
    run = sync(sync_app, source.id)
    assert run.note == "limit:pages" and run.new == 8 and run.requests == 10  # and robots.txt, the sitemap
    spans = sorted(site.spans)
    assert len(spans) == 10
    for (_start, end), (following, _end) in zip(spans, spans[1:], strict=False):
        assert following >= end  # never two at once
        assert following - end >= 0.15  # the pause (0.2 s from the crawler's side; the answer's own time aside)

    site.remove("page-40")  # not reached under the limit: nothing is asked about, nothing removed
    again = sync(sync_app, source.id)
    assert again.note == "limit:pages" and again.removed == 0


def test_an_answer_that_cited_a_page_shows_changed_since_after_the_page_changed(sync_app, site):
    from irisrag.models import Area, Group, QuestionLog
    from irisrag.services.admin import admin as admin_service
    from irisrag.services.asking import asking
    from irisrag.services.asking.turns import turns_of

    source = section(sync_app, site)
    sync(sync_app, source.id)
    with sync_app.app_context(), db.connection_context():
        admin_service.create_named(Group, "Leser")
        admin_service.link_area("Handbuch", "Leser")
        user = admin_service.create_user("erika", "erikapassword")
        admin_service.link_user("erika", "Leser")
        area = Area.get(Area.name == "Handbuch")
        result = asking.ask(user.id, "Welche Kennziffer hat Vorgang 5?", [area.id], use_llm=False)
        cited = {c.document_id for c in result.citations}
        page5 = docs_of(sync_app, source.id)[site.url("/docs/page-5.html")]
        assert page5.id in cited
        row = QuestionLog.select().where(QuestionLog.user == user.id).get()
        assert not [c for c in turns_of(user.id, [row])[0].citations if c.changed]
    site.change("page-5", "Abschnitt 5 beschreibt jetzt Vorgang 5 anders. Kennziffer HB-005 gilt weiter.")
    assert sync(sync_app, source.id).changed == 1
    with sync_app.app_context(), db.connection_context():
        shown = turns_of(user.id, [QuestionLog.get_by_id(row.id)])[0]
        changed = [c for c in shown.citations if c.changed]
        assert [c.document_id for c in changed] == [page5.id]  # the same document, another version
        assert "Kennziffer HB-005" in changed[0].text  # the passage as it was cited
