"""URL fetching against real local HTTP servers, and the SSRF guard refusing before any connection.

Only loopback is ever contacted: an autouse guard makes any attempt to open a socket to
another address fail the test, and host names that must look private or public are
answered by a patched ``getaddrinfo``.
"""
from __future__ import annotations

import gzip
import hashlib
import ipaddress
import re
import socket
from pathlib import Path

import pytest
import urllib3.util.connection

from irisrag.errors import BlockedAddress, FetchError, FileTooLarge
from irisrag.ingest.fetch import Fetched, fetch_url, kind_for_content_type, parse_content_type
from irisrag.ingest.netguard import Allowlist, block_reason, literal_address
from tests.support.http_stub import HttpStub, Reply, closed_port

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
LOCAL = ["127.0.0.1"]
HTML = (FIXTURES / "sample.html").read_bytes()
PDF = (FIXTURES / "debian-reference-de-3pages.pdf").read_bytes()
REAL_GETADDRINFO = socket.getaddrinfo


@pytest.fixture(autouse=True)
def loopback_only(monkeypatch):
    """Fail the test if anything tries to connect to a non-loopback address."""
    attempts: list[str] = []
    original = urllib3.util.connection.create_connection

    def guarded(address, *args, **kwargs):
        host = address[0]
        attempts.append(host)
        if not ipaddress.ip_address(host.strip("[]")).is_loopback:
            raise AssertionError(f"test tried to connect to {host}")
        return original(address, *args, **kwargs)

    monkeypatch.setattr(urllib3.util.connection, "create_connection", guarded)
    return attempts


def fake_dns(monkeypatch, table: dict[str, list[str] | list[list[str]]]):
    """Answer getaddrinfo for the given names; a list of lists is served one per call."""
    calls: dict[str, int] = {}

    def getaddrinfo(host, port, *args, **kwargs):
        if host not in table:
            return REAL_GETADDRINFO(host, port, *args, **kwargs)
        answers = table[host]
        if answers and isinstance(answers[0], list):
            answers = answers[min(calls.get(host, 0), len(answers) - 1)]
        calls[host] = calls.get(host, 0) + 1
        result = []
        for ip in answers:
            family = socket.AF_INET6 if ":" in ip else socket.AF_INET
            sockaddr = (ip, port or 0, 0, 0) if family == socket.AF_INET6 else (ip, port or 0)
            result.append((family, socket.SOCK_STREAM, 6, "", sockaddr))
        return result

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return calls


@pytest.fixture
def stub():
    with HttpStub() as server:
        yield server


# --- successful fetches -------------------------------------------------------

def test_fetch_html_page(stub):
    stub.add("GET", "/doc/pr01.de.html", Reply(body=HTML, content_type="text/html; charset=UTF-8"))
    result = fetch_url(stub.url + "/doc/pr01.de.html", allowlist=LOCAL)
    assert isinstance(result, Fetched)
    assert result.content == HTML
    assert result.url == result.final_url == stub.url + "/doc/pr01.de.html"
    assert (result.mime_type, result.charset, result.kind) == ("text/html", "UTF-8", "html")
    request = stub.last("GET", "/doc/pr01.de.html")
    assert request.headers["user-agent"].startswith("IrisRAG/")


def test_fetch_pdf_by_url(stub):
    stub.add("GET", "/debian-reference.de.pdf", Reply(body=PDF, content_type="application/pdf"))
    result = fetch_url(stub.url + "/debian-reference.de.pdf", allowlist=LOCAL)
    assert result.kind == "pdf"
    assert hashlib.sha256(result.content).hexdigest() == hashlib.sha256(PDF).hexdigest()


def test_pdf_sent_as_octet_stream_is_recognised(stub):
    stub.add("GET", "/download", Reply(body=PDF, content_type="application/octet-stream"))
    result = fetch_url(stub.url + "/download", allowlist=LOCAL)
    assert result.content_type == "application/pdf" and result.kind == "pdf"


def test_relative_redirect_is_followed_and_final_url_reported(stub):
    stub.add("GET", "/alt", Reply(status=301, headers={"Location": "/neu.html"}))
    stub.add("GET", "/neu.html", Reply(body="<p>neu</p>", content_type="text/html"))
    result = fetch_url(stub.url + "/alt", allowlist=LOCAL)
    assert result.url == stub.url + "/alt"
    assert result.final_url == stub.url + "/neu.html"
    assert result.content == b"<p>neu</p>"


def test_allowlist_accepts_cidr_and_host_names(stub, monkeypatch):
    stub.add("GET", "/", Reply(body="ok"))
    assert fetch_url(stub.url + "/", allowlist=["127.0.0.0/8"]).content == b"ok"
    fake_dns(monkeypatch, {"wiki.intern": ["127.0.0.1"]})
    assert fetch_url(f"http://wiki.intern:{stub.port}/", allowlist=["wiki.intern"]).content == b"ok"


def test_connection_goes_to_checked_address_and_keeps_host_header(stub, monkeypatch, loopback_only):
    fake_dns(monkeypatch, {"docs.example": ["127.0.0.1"]})
    stub.add("GET", "/seite", Reply(body="<p>x</p>", content_type="text/html"))
    fetch_url(f"http://docs.example:{stub.port}/seite", allowlist=LOCAL)
    assert stub.last("GET", "/seite").headers["host"] == f"docs.example:{stub.port}"
    assert loopback_only == ["127.0.0.1"]  # socket opened to the checked IP, not a fresh lookup


def test_environment_proxy_is_ignored(stub, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "http://10.9.9.9:3128")
    monkeypatch.setenv("http_proxy", "http://10.9.9.9:3128")
    stub.add("GET", "/", Reply(body="direkt"))
    assert fetch_url(stub.url + "/", allowlist=LOCAL).content == b"direkt"


# --- HTTP failures ------------------------------------------------------------

@pytest.mark.parametrize("status", [404, 500])
def test_http_errors_name_the_status(stub, status):
    stub.add("GET", "/x", Reply(status=status, body="nein"))
    with pytest.raises(FetchError) as info:
        fetch_url(stub.url + "/x", allowlist=LOCAL)
    assert str(status) in info.value.message
    assert not isinstance(info.value, BlockedAddress)


def test_timeout_is_reported_with_seconds(stub):
    stub.add("GET", "/langsam", Reply(body="spät", delay=3.0))
    with pytest.raises(FetchError) as info:
        fetch_url(stub.url + "/langsam", allowlist=LOCAL, timeout=0.5)
    assert "timed out after 0.5 s" in info.value.message


def test_connection_refused_is_a_fetch_error():
    with pytest.raises(FetchError) as info:
        fetch_url(f"http://127.0.0.1:{closed_port()}/", allowlist=LOCAL, timeout=2)
    assert "could not be reached" in info.value.message


def test_redirect_loop_is_detected(stub):
    stub.add("GET", "/a", Reply(status=302, headers={"Location": "/b"}))
    stub.add("GET", "/b", Reply(status=302, headers={"Location": "/a"}))
    with pytest.raises(FetchError, match="loop"):
        fetch_url(stub.url + "/a", allowlist=LOCAL)
    assert len(stub.requests) == 2


def test_too_many_redirects(stub):
    for n in range(10):
        stub.add("GET", f"/r{n}", Reply(status=307, headers={"Location": f"/r{n + 1}"}))
    with pytest.raises(FetchError, match="too often"):
        fetch_url(stub.url + "/r0", allowlist=LOCAL, max_redirects=3)
    assert len(stub.requests) == 4


@pytest.mark.parametrize("target", ["http://127.0.0.2:{port}/", "http://169.254.169.254/latest/meta-data/"])
def test_redirect_to_blocked_address_is_refused_without_connecting(stub, target, loopback_only):
    with HttpStub(host="127.0.0.2") as other:
        location = target.format(port=other.port)
        stub.add("GET", "/weiter", Reply(status=302, headers={"Location": location}))
        with pytest.raises(BlockedAddress):
            fetch_url(stub.url + "/weiter", allowlist=LOCAL)
        assert other.requests == []
    assert loopback_only == ["127.0.0.1"]


def test_metadata_address_stays_blocked_even_when_allowlisted():
    with pytest.raises(BlockedAddress, match="metadata"):
        fetch_url("http://169.254.169.254/latest/meta-data", allowlist=["169.254.0.0/16", "169.254.169.254"])


def test_body_over_limit_by_content_length(stub):
    stub.add("GET", "/gross", Reply(body=b"x" * 5000))
    with pytest.raises(FileTooLarge):
        fetch_url(stub.url + "/gross", allowlist=LOCAL, max_bytes=1000)


def test_body_over_limit_while_streaming(stub):
    stub.add("GET", "/strom", Reply(lines=["x" * 999] * 50, content_type="text/plain"))
    with pytest.raises(FileTooLarge):
        fetch_url(stub.url + "/strom", allowlist=LOCAL, max_bytes=10_000)


def test_gzip_body_is_capped_after_decompression(stub):
    bomb = gzip.compress(b"a" * 5_000_000)
    stub.add("GET", "/bombe", Reply(body=bomb, content_type="text/plain", headers={"Content-Encoding": "gzip"}))
    assert len(bomb) < 100_000
    with pytest.raises(FileTooLarge):
        fetch_url(stub.url + "/bombe", allowlist=LOCAL, max_bytes=1_000_000)


def test_unsupported_content_type_is_refused(stub):
    stub.add("GET", "/bild.gif", Reply(body=b"GIF89a", content_type="image/gif"))
    with pytest.raises(FetchError, match="unsupported content type"):
        fetch_url(stub.url + "/bild.gif", allowlist=LOCAL)


# --- refused before connecting ------------------------------------------------

@pytest.mark.parametrize("url", [
    "http://127.0.0.1/", "http://localhost/", "http://LOCALHOST./admin", "http://2130706433/",
    "http://0x7f000001/", "http://0x7f.1/", "http://0177.0.0.1/", "http://127.1/", "http://[::1]/",
    "http://[::ffff:127.0.0.1]/", "http://[::ffff:7f00:1]:8080/", "http://10.0.0.1/", "http://192.168.1.1/",
    "http://172.16.5.4/", "http://100.64.0.1/", "http://0.0.0.0/", "http://[::]/", "http://[fe80::1]/",
    "http://224.0.0.1/", "http://169.254.169.254/latest/meta-data", "http://[fd00:ec2::254]/",
    "https://user:pw@127.0.0.1:8443/", "http://example.org@127.0.0.1/",
])
def test_blocked_addresses_are_refused_before_connecting(url, loopback_only):
    with pytest.raises(BlockedAddress) as info:
        fetch_url(url)
    assert "not allowed" in info.value.message
    assert loopback_only == []


@pytest.mark.parametrize("url", ["ftp://example.org/datei.txt", "file:///etc/passwd", "javascript:alert(1)",
                                 "gopher://127.0.0.1:70/", "data:text/html,<p>x</p>"])
def test_only_http_and_https_are_accepted(url, loopback_only):
    with pytest.raises(BlockedAddress, match="Only http and https"):
        fetch_url(url)
    assert loopback_only == []


def test_names_resolving_to_private_addresses_are_refused(monkeypatch, loopback_only):
    fake_dns(monkeypatch, {"intranet.example": ["10.1.2.3"], "gemischt.example": ["93.184.216.34", "192.168.0.7"]})
    with pytest.raises(BlockedAddress, match="private"):
        fetch_url("http://intranet.example/")
    with pytest.raises(BlockedAddress):
        fetch_url("https://gemischt.example/")  # one private answer among public ones is enough
    assert loopback_only == []


def test_dns_rebinding_between_check_and_connect_is_caught(monkeypatch, stub, loopback_only):
    stub.add("GET", "/", Reply(body="geheim"))
    calls = fake_dns(monkeypatch, {"rebind.example": [["93.184.216.34"], ["127.0.0.1"]]})
    with pytest.raises(BlockedAddress):
        fetch_url(f"http://rebind.example:{stub.port}/")
    assert calls["rebind.example"] == 2  # checked once up front, once again on connect
    assert stub.requests == [] and loopback_only == []


def test_unresolvable_host_is_a_fetch_error(monkeypatch):
    def fail(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", fail)
    with pytest.raises(FetchError, match="could not be resolved"):
        fetch_url("https://gibt-es-nicht.example/")


# --- helpers ------------------------------------------------------------------

@pytest.mark.parametrize(("value", "kind"), [
    ("text/html; charset=utf-8", "html"), ("application/xhtml+xml", "html"), ("TEXT/PLAIN", "text"),
    ("text/markdown", "text"), ("application/pdf", "pdf"), ("application/json", "text"),
    ("text/xml", "text"), ("application/xml; charset=iso-8859-1", "text"), ("text/csv", "csv"), ("image/png", "image"),
])
def test_kind_for_content_type(value, kind):
    assert kind_for_content_type(value) == kind


@pytest.mark.parametrize("value", ["image/gif", "application/zip", "", None, "application/octet-stream"])
def test_kind_for_unsupported_content_type(value):
    with pytest.raises(FetchError, match="unsupported content type"):
        kind_for_content_type(value)


def test_parse_content_type():
    assert parse_content_type('text/html; charset="ISO-8859-1"') == ("text/html", "ISO-8859-1")
    assert parse_content_type(None) == ("", None)


@pytest.mark.parametrize(("host", "address"), [
    ("2130706433", "127.0.0.1"), ("0x7f000001", "127.0.0.1"), ("0x7f.1", "127.0.0.1"),
    ("0177.0.0.1", "127.0.0.1"), ("10.1", "10.0.0.1"), ("[::1]", "::1"), ("example.org", None), ("256.1.1.1", None),
])
def test_literal_address_parses_legacy_forms(host, address):
    parsed = literal_address(host)
    assert (str(parsed) if parsed else None) == address


def test_block_reason_for_embedded_ipv4_and_public():
    assert block_reason(ipaddress.ip_address("2002:a00:1::1")) is not None  # 6to4 around 10.0.0.1
    assert block_reason(ipaddress.ip_address("64:ff9b::c0a8:101")) is not None  # NAT64 around 192.168.1.1
    assert block_reason(ipaddress.ip_address("93.184.216.34")) is None
    assert block_reason(ipaddress.ip_address("2606:2800:220:1:248:1893:25c8:1946")) is None


def test_allowlist_parsing():
    rules = Allowlist.parse(["wiki.intern", "*.corp.example", "10.0.0.0/8", " ", "FD00::/8"])
    assert rules.allows_host("WIKI.intern.") and rules.allows_host("git.corp.example")
    assert not rules.allows_host("corp.example.evil")
    assert rules.allows_address(ipaddress.ip_address("10.2.3.4"))
    assert rules.allows_address(ipaddress.ip_address("fd12::1"))
    assert not rules.allows_address(ipaddress.ip_address("192.168.1.1"))


def test_allowlist_entries_with_a_port_open_only_that_port():
    rules = Allowlist.parse(["wiki.intern:8080", "127.0.0.1:5239", "[fd00::1]:443", "10.0.0.0/8:80"])
    loop, v6, ten = (ipaddress.ip_address(a) for a in ("127.0.0.1", "fd00::1", "10.1.1.1"))
    assert rules.allows("wiki.intern", None, 8080) and not rules.allows("wiki.intern", None, 80)
    assert rules.allows("127.0.0.1", loop, 5239) and not rules.allows("127.0.0.1", loop, 5240)
    assert rules.allows("x", v6, 443) and not rules.allows("x", v6, 80)
    assert rules.allows("x", ten, 80) and not rules.allows("x", ten, 8080)


@pytest.mark.parametrize("entry", ["wiki intern", "http://wiki.intern", "10.0.0.0/33", "wiki.intern:http",
                                   "wiki.intern:99999", "[fd00::1", "a/b", "*", "127.1", "wiki.intern:80:81"])
def test_allowlist_entry_that_cannot_be_parsed_stops_the_app_at_start(entry, monkeypatch, tmp_path):
    from irisrag import create_app

    monkeypatch.setenv("IRISRAG_URL_ALLOWLIST", f"wiki.intern, {entry}")
    monkeypatch.setenv("IRISRAG_DATABASE_URL", f"sqlite:///{tmp_path / 'x.db'}")
    with pytest.raises(ValueError, match="IRISRAG_URL_ALLOWLIST") as info:
        create_app({"SECRET_KEY": "k"})
    assert repr(entry) in str(info.value)
    monkeypatch.delenv("IRISRAG_URL_ALLOWLIST")
    with pytest.raises(ValueError, match=re.escape(repr(entry))):  # settings given to the factory too
        create_app({"SECRET_KEY": "k", "URL_ALLOWLIST": [entry]})


def test_allowlisted_host_and_port_is_fetched_and_another_port_refused(stub):
    stub.add("GET", "/a", Reply(body="ok", content_type="text/plain"))
    assert fetch_url(f"{stub.url}/a", allowlist=[f"127.0.0.1:{stub.port}"]).content == b"ok"
    with pytest.raises(BlockedAddress, match="loopback"):
        fetch_url(f"{stub.url}/a", allowlist=[f"127.0.0.1:{stub.port + 1}"])
    with pytest.raises(BlockedAddress):
        fetch_url(f"http://localhost:{stub.port}/a", allowlist=[f"localhost:{stub.port + 1}"])
    assert fetch_url(f"http://localhost:{stub.port}/a", allowlist=[f"localhost:{stub.port}"]).content == b"ok"


def test_redirect_to_another_port_of_an_allowlisted_host_is_refused(stub):
    """host:port opens one port: a redirect to an internal page on another port of the host is refused."""
    with HttpStub() as other:
        other.add("GET", "/internal", Reply(body="internal secrets", content_type="text/plain"))
        stub.add("GET", "/r", Reply(status=302, headers={"Location": f"{other.url}/internal"}))
        with pytest.raises(BlockedAddress, match="loopback"):
            fetch_url(f"{stub.url}/r", allowlist=[f"127.0.0.1:{stub.port}"])
        assert other.requests == []
        both = [f"127.0.0.1:{stub.port}", f"127.0.0.1:{other.port}"]
        assert fetch_url(f"{stub.url}/r", allowlist=both).content == b"internal secrets"


def test_blocked_address_message_is_translated(app):
    from flask_babel import force_locale, gettext

    with app.test_request_context(), force_locale("de"):
        with pytest.raises(BlockedAddress) as info:
            fetch_url("http://169.254.169.254/")
        assert info.value.translated(gettext) == (
            "Die Adresse von 169.254.169.254 ist für den URL-Import nicht erlaubt: Cloud-Metadatendienst")
