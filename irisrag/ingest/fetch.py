"""Fetch a web page or PDF for import, refusing internal addresses (SSRF-safe).

Each hop of a redirect chain is checked before it is requested, and the connection
itself re-resolves and re-checks the host and connects to exactly the address it
checked (``guarded_adapter``), so a DNS answer that changes between check and connect
(DNS rebinding) cannot reach an internal address. Proxies from the environment are
ignored. The body is streamed with a byte cap that also bounds decompressed data.
"""
from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from email.message import Message
from urllib.parse import urljoin, urlsplit

import requests

from irisrag.deadline import Deadline
from irisrag.errors import BlockedAddress, FetchError, FileTooLarge, HostNotFound, InvalidUrl
from irisrag.i18n import N_, Label
from irisrag.ingest.guarded_http import guarded_adapter
from irisrag.ingest.netguard import Allowlist, checked_addresses

log = logging.getLogger(__name__)

CONTENT_KINDS: dict[str, str] = {
    "text/html": "html",
    "application/xhtml+xml": "html",
    "text/plain": "text",
    "text/markdown": "text",
    "text/x-markdown": "text",
    "application/pdf": "pdf",
    "application/json": "text",
    "text/xml": "text",
    "application/xml": "text",
    "text/csv": "csv",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
    "application/vnd.oasis.opendocument.text": "odt",
    "application/vnd.oasis.opendocument.spreadsheet": "ods",
    "application/vnd.oasis.opendocument.presentation": "odp",
    "application/epub+zip": "epub",
    "image/png": "image",
    "image/jpeg": "image",
    "image/tiff": "image",
}
# The staged file's extension for kinds that are read from the fetched bytes as they are.
STAGED_EXTENSIONS: dict[str, str] = {"image/png": ".png", "image/jpeg": ".jpg", "image/tiff": ".tif"}
REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
USER_AGENT = "IrisRAG/0.1 (knowledge base import)"
_ACCEPT = "text/html,application/xhtml+xml,application/pdf,text/plain,text/markdown;q=0.9,*/*;q=0.1"
_CHUNK = 64 * 1024


@dataclass(frozen=True)
class Fetched:
    """A fetched body with the URL asked for, the URL it came from, and its Content-Type."""

    url: str
    final_url: str
    content: bytes
    content_type: str
    etag: str = ""            # the validators a later conditional request sends back
    last_modified: str = ""
    not_modified: bool = False  # 304: the copy the caller holds is current (no body)

    @property
    def mime_type(self) -> str:
        """Return the media type without parameters, lower case."""
        return parse_content_type(self.content_type)[0]

    @property
    def charset(self) -> str | None:
        """Return the charset parameter of the Content-Type, if any."""
        return parse_content_type(self.content_type)[1]

    @property
    def kind(self) -> str:
        """Return the extraction kind of the body ('html', 'pdf', 'text')."""
        return kind_for_content_type(self.content_type)


def parse_content_type(value: str | None) -> tuple[str, str | None]:
    """Split a Content-Type header into (media type, charset)."""
    message = Message()
    message["content-type"] = value or ""
    mime = message.get_content_type() if value else ""
    charset = message.get_param("charset")
    return mime.lower(), (str(charset).strip() if isinstance(charset, str) and charset.strip() else None)


def kind_for_content_type(content_type: str | None) -> str:
    """Return 'html', 'pdf' or 'text' for an accepted Content-Type; raise FetchError otherwise."""
    mime, _ = parse_content_type(content_type)
    kind = CONTENT_KINDS.get(mime)
    if kind is None:
        raise FetchError(
            N_("The URL returned an unsupported content type (%(type)s)"),
            f"Content-Type={content_type!r}; accepted: {', '.join(sorted(CONTENT_KINDS))}",
            params={"type": mime or Label(N_("none given"))},
        )
    return kind


def check_url(url: str, allowlist: Allowlist) -> tuple[str, int]:
    """Check a URL's scheme and host before any request; return (host, port)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise InvalidUrl(N_("The URL is not valid"), f"{url!r}: {exc}") from exc
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise BlockedAddress(
            N_("Only http and https URLs can be imported"), f"scheme {scheme or '(none)'!r} in {url!r}"
        )
    host = parts.hostname
    if not host:
        raise InvalidUrl(N_("The URL has no host name"), repr(url))
    port = port or (443 if scheme == "https" else 80)
    checked_addresses(host, port, allowlist)
    return host, port


def precheck_url(url: str, allowlist: Sequence[str]) -> None:
    """Refuse a URL when it is submitted, by the rules the worker applies again when it fetches.

    A host name that does not resolve now passes: the worker decides (DNS may answer later).
    """
    try:
        check_url(url, Allowlist.parse(allowlist))
    except HostNotFound:
        log.info("url_precheck_unresolved url=%s", url)


def _network_error(exc: Exception, url: str, timeout: float) -> FetchError:
    """Translate a requests/urllib3 exception into a FetchError with a clear message."""
    text = str(exc)
    if "got more than" in text:  # http.client: over 100 headers, or a header line over 64 KiB
        return FetchError(N_("The server sent an invalid response (too many or too long headers)"),
                          f"{url}: {text}")
    if isinstance(exc, requests.Timeout) or "timed out" in text.lower():
        return FetchError(N_("The server did not answer: timed out after %(seconds)s s"), f"{url}: {text}",
                          retryable=True, params={"seconds": f"{timeout:g}"})
    if isinstance(exc, requests.exceptions.SSLError):
        return FetchError(N_("The secure connection (TLS) to the server failed"), f"{url}: {text}")
    if isinstance(exc, requests.exceptions.TooManyRedirects):
        return FetchError(N_("The URL redirects too often"), f"{url}: {text}")
    return FetchError(N_("The server could not be reached"), f"{url}: {type(exc).__name__}: {text}", retryable=True)


def _check_length(response: requests.Response, max_bytes: int, url: str) -> None:
    """Refuse a body whose declared length is over the limit before reading it."""
    declared = response.headers.get("Content-Length", "")
    if declared.strip().isdigit() and int(declared) > max_bytes:
        raise FileTooLarge(
            N_("The document is larger than the limit of %(size)s"),
            f"{url}: Content-Length {declared} > {max_bytes}", params={"size": _megabytes(max_bytes)},
        )


def _megabytes(count: int) -> str:
    """Return a byte count as a short MB text."""
    return f"{count / (1024 * 1024):.1f} MB" if count >= 1024 * 1024 else f"{count} bytes"


def _read_body(response: requests.Response, max_bytes: int, url: str, deadline: Deadline) -> bytes:
    """Stream the body, stopping at ``max_bytes`` (after decompression) or at the deadline."""
    _check_length(response, max_bytes, url)
    body = bytearray()
    for piece in response.iter_content(_CHUNK):
        body += piece
        if len(body) > max_bytes:
            raise FileTooLarge(
                N_("The document is larger than the limit of %(size)s"),
                f"{url}: more than {max_bytes} bytes received", params={"size": _megabytes(max_bytes)},
            )
        if deadline.expired:
            raise _too_slow(url, deadline.seconds)
    return bytes(body)


def _content_type(response: requests.Response, first_bytes: bytes) -> str:
    """Return the Content-Type, recognising PDFs sent as octet-stream."""
    value = response.headers.get("Content-Type", "")
    mime, _ = parse_content_type(value)
    if mime in ("", "application/octet-stream", "binary/octet-stream") and first_bytes.startswith(b"%PDF-"):
        return "application/pdf"
    return value


def _send(
    session: requests.Session, adapter: requests.adapters.HTTPAdapter, url: str, timeout: float,
    conditional: dict[str, str] | None = None,
) -> requests.Response:
    """Send one GET through the guarded adapter, without following redirects."""
    headers = {"User-Agent": USER_AGENT, "Accept": _ACCEPT, **(conditional or {})}
    request = requests.Request("GET", url, headers=headers)
    prepared = session.prepare_request(request)
    return adapter.send(prepared, stream=True, timeout=timeout, verify=True, proxies={})


def fetch_url(
    url: str,
    *,
    timeout: float = 20.0,
    max_bytes: int = 50 * 1024 * 1024,
    allowlist: Sequence[str] = (),
    max_redirects: int = 5,
    session: requests.Session | None = None,
    total_timeout: float = 300.0,
    conditional: dict[str, str] | None = None,
) -> Fetched:
    """Fetch a URL for import: public hosts only (unless allowlisted), redirects checked per hop.

    ``timeout`` bounds each connect and read; ``total_timeout`` the whole fetch, headers,
    redirects and body included, however slowly the server trickles. ``conditional``: the
    ``If-None-Match`` / ``If-Modified-Since`` headers of a sync; a 304 answer comes back as
    ``Fetched.not_modified`` without a body.
    """
    rules = Allowlist.parse(allowlist)
    # The session only prepares requests (headers, cookies); sending always goes through the
    # guarded adapter, never the session's own adapters, proxies or redirect handling.
    session = session or requests.Session()
    deadline = Deadline(total_timeout)
    adapter = guarded_adapter(rules, deadline)
    try:
        with deadline:
            fetched = _follow(session, adapter, url.strip(), rules, (max_redirects, max_bytes, timeout), deadline,
                              conditional)
    except (FetchError, requests.RequestException) as exc:
        if deadline.expired and not isinstance(exc, (BlockedAddress, FileTooLarge)):
            raise _too_slow(url, total_timeout) from exc
        raise
    finally:
        adapter.close()
    if deadline.expired:  # a body without a length ends "cleanly" when its socket is shut
        raise _too_slow(url, total_timeout)
    return fetched


def _too_slow(url: str, seconds: float) -> FetchError:
    return FetchError(N_("The download took longer than %(seconds)s seconds and was stopped"),
                      f"{url}: total time limit of {seconds:g} s reached (headers and body included)",
                      params={"seconds": f"{seconds:g}"})


def _follow(session: requests.Session, adapter: requests.adapters.HTTPAdapter, url: str, rules: Allowlist,
            limits: tuple[int, int, float], deadline: Deadline, conditional: dict[str, str] | None) -> Fetched:
    """Request the URL and each redirect target (checked first), and read the final body."""
    max_redirects, max_bytes, timeout = limits
    current, seen = url, set()
    for _hop in range(max_redirects + 1):
        check_url(current, rules)
        seen.add(current)
        try:
            response = _send(session, adapter, current, min(timeout, deadline.remaining()), conditional)
        except requests.RequestException as exc:
            raise _network_error(exc, current, timeout) from exc
        with response:
            if response.status_code in REDIRECT_CODES and response.headers.get("Location"):
                target = urljoin(current, response.headers["Location"])
                if target in seen:
                    raise FetchError(N_("The URL redirects in a loop"), f"{current} -> {target}")
                log.info("fetch_redirect from=%s to=%s status=%d", current, target, response.status_code)
                current = target
                continue
            if response.status_code == 304 and conditional:
                return Fetched(url=url, final_url=current, content=b"", content_type="", not_modified=True,
                               **_validators(response))
            return _finish(response, url, current, max_bytes, timeout, deadline)
    raise FetchError(N_("The URL redirects too often (more than %(num)d times)"), f"{url}: last {current}",
                     params={"num": max_redirects})


def _finish(
    response: requests.Response, url: str, current: str, max_bytes: int, timeout: float, deadline: Deadline
) -> Fetched:
    """Check status and content type of the final response and read its body."""
    if response.status_code >= 400 or response.status_code < 200 or response.status_code in REDIRECT_CODES:
        reason = response.reason or ""
        raise FetchError(
            N_("The server answered HTTP %(status)s"), f"{current}",
            retryable=response.status_code >= 500 or response.status_code == 429,
            params={"status": f"{response.status_code} {reason}".rstrip()}, http_status=response.status_code,
        )
    declared = response.headers.get("Content-Type", "")
    if parse_content_type(declared)[0] not in ("", "application/octet-stream", "binary/octet-stream"):
        kind_for_content_type(declared)  # refuse before downloading an image or archive
    try:
        content = _read_body(response, max_bytes, current, deadline)
    except requests.RequestException as exc:
        raise _network_error(exc, current, timeout) from exc
    content_type = _content_type(response, content[:8])
    kind_for_content_type(content_type)
    log.info("fetched url=%s final=%s bytes=%d type=%s", url, current, len(content), content_type)
    return Fetched(url=url, final_url=current, content=content, content_type=content_type, **_validators(response))


def _validators(response: requests.Response) -> dict[str, str]:
    """Return the response's ETag and Last-Modified (bounded: they are stored and sent back)."""
    headers = response.headers
    return {"etag": headers.get("ETag", "")[:512], "last_modified": headers.get("Last-Modified", "")[:128]}
