"""The crawl's pure parts: normalised URLs, the section, followed types, a page's links, sitemaps."""
import pytest

from irisrag.ingest.crawl import Frontier, followed_type, normalise, page_links, sitemap_urls
from irisrag.ingest.fetch import Fetched


@pytest.mark.parametrize(("url", "expected"), [
    ("HTTP://Wiki.Example.ORG:80/a/../b/#x", "http://wiki.example.org/b/"),
    ("https://wiki.example.org:443/x?y=1#frag", "https://wiki.example.org/x?y=1"),
    ("http://wiki.example.org", "http://wiki.example.org/"),
    ("http://wiki.example.org:8080/a/./c/", "http://wiki.example.org:8080/a/c/"),
    ("http://[::1]:8000/a", "http://[::1]:8000/a"),
    ("mailto:web@example.org", None), ("javascript:alert(1)", None), ("ftp://example.org/", None),
    ("http://[bad/", None),
])
def test_urls_are_normalised_so_a_page_is_known_by_one_address(url, expected):
    assert normalise(url) == expected


def test_the_frontier_keeps_to_the_section_the_depth_and_followed_types_each_once():
    frontier = Frontier("http://h/docs/", depth=1)
    assert frontier.add("http://h/docs/", 0) and not frontier.add("http://h/docs/", 1)
    assert not frontier.add("http://h/other/a.html", 1)       # outside the prefix
    assert not frontier.add("http://h/docs/deep.html", 2)     # too deep
    assert not frontier.add("http://h/docs/foto.jpg", 1) and not frontier.add("http://h/docs/a.zip", 1)
    assert frontier.add("http://h/docs/handbuch.pdf", 1) and frontier.add("http://h/docs/a", 1)
    assert [frontier.next(), frontier.next(), frontier.next(), frontier.next()] == [
        ("http://h/docs/", 0), ("http://h/docs/handbuch.pdf", 1), ("http://h/docs/a", 1), None]
    assert followed_type("http://h/docs/notes.md") and not followed_type("http://h/docs/bild.png")


def test_a_pages_links_follow_its_base_and_name_its_canonical_address():
    html = (b'<html><head><base href="/docs/sub/"><link rel="canonical" href="http://h/docs/sub/page.html#top">'
            b'</head><body><a href="a.html#x">a</a><a href="../b.html">b</a><a href="a.html">again</a>'
            b'<a href="mailto:x@y">m</a><a>none</a></body></html>')
    found = page_links(Fetched("http://h/docs/sub/page.html?ref=1", "http://h/docs/sub/page.html?ref=1", html,
                               "text/html"))
    assert found.links == ["http://h/docs/sub/a.html", "http://h/docs/b.html"]
    assert found.canonical == "http://h/docs/sub/page.html"


def test_sitemaps_and_sitemap_indexes_are_read_and_hostile_xml_is_not():
    urlset = (b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
              b'<url><loc> http://h/docs/a </loc></url><url><loc>http://h/docs/b</loc></url></urlset>')
    assert sitemap_urls(urlset) == (["http://h/docs/a", "http://h/docs/b"], [])
    index = (b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>http://h/s1.xml'
             b'</loc></sitemap></sitemapindex>')
    assert sitemap_urls(index) == ([], ["http://h/s1.xml"])
    bomb = (b'<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>'
            b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>&b;</loc></url></urlset>')
    assert sitemap_urls(bomb) == ([], [])  # defusedxml refuses entities
    assert sitemap_urls(b"not xml") == ([], [])


def test_robots_txt_says_what_may_be_fetched_and_how_slowly():
    from irisrag.ingest.crawl import Budget, PoliteFetcher, Robots

    text = b"User-agent: *\nDisallow: /docs/private/\nCrawl-delay: 2\nSitemap: http://h/sitemap.xml\n"
    fetcher = PoliteFetcher(Budget(10, 10**6, 60), 0.0,
                            fetch=lambda url, conditional=None: Fetched(url, url, text, "text/plain"))
    robots = Robots.load(fetcher, "http://h/docs/")
    assert robots.allowed("http://h/docs/a.html", "IrisRAG") and not robots.allowed("http://h/docs/private/x", "IrisRAG")
    assert robots.sitemaps() == ["http://h/sitemap.xml"] and robots.crawl_delay("IrisRAG") == 2.0
    assert fetcher.budget.requests == 1
