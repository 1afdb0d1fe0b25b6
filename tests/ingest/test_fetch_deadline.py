"""The whole fetch has a wall-clock deadline that a server trickling one byte a second cannot stretch."""
from __future__ import annotations

import threading
import time

import pytest

from irisrag.errors import FetchError
from irisrag.ingest.fetch import fetch_url
from tests.support.trickle import TrickleServer


def fetch_in_thread(url: str, **kwargs) -> tuple[float, BaseException | None, bool]:
    """Fetch in a thread; return (seconds, error, still running after 20 s)."""
    outcome: dict = {}

    def run() -> None:
        try:
            fetch_url(url, **kwargs)
        except BaseException as exc:  # handed to the test
            outcome["error"] = exc

    began = time.monotonic()
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(20)
    return time.monotonic() - began, outcome.get("error"), thread.is_alive()


@pytest.mark.parametrize("mode", ["headers", "body", "body-no-length"])
def test_trickling_server_is_cut_off_at_the_total_deadline(mode):
    with TrickleServer(mode) as server:
        seconds, error, running = fetch_in_thread(server.url + "/", allowlist=["127.0.0.1"], timeout=5,
                                                  total_timeout=2)
        assert not running, "the fetch was still running after 20 s"
        assert isinstance(error, FetchError) and "took longer than 2 seconds" in error.message, error
        assert not error.retryable  # the same server would hold the worker again
        assert 1.9 < seconds < 4, seconds
        assert 0 < server.served <= 4  # it was trickling, one byte a second


def test_deadline_covers_redirects_and_a_fast_fetch_is_untouched(http_stub):
    from tests.support.http_stub import Reply

    http_stub.add("GET", "/ok", Reply(body="fine", content_type="text/plain"))
    assert fetch_url(http_stub.url + "/ok", allowlist=["127.0.0.1"], total_timeout=2).content == b"fine"
    time.sleep(2.2)  # the timer of the finished fetch was cancelled: nothing is shut later
    with TrickleServer("headers") as slow:
        http_stub.add("GET", "/r", Reply(status=302, headers={"Location": slow.url + "/"}))
        seconds, error, running = fetch_in_thread(http_stub.url + "/r", allowlist=["127.0.0.1"], timeout=5,
                                                  total_timeout=1.5)
    assert not running and isinstance(error, FetchError) and "took longer" in error.message
    assert seconds < 3.5


def test_too_many_headers_is_an_invalid_response_not_retried():
    with TrickleServer("many-headers") as server:
        with pytest.raises(FetchError) as info:
            fetch_url(server.url + "/", allowlist=["127.0.0.1"], timeout=5)
    assert "invalid response (too many or too long headers)" in info.value.message
    assert "could not be reached" not in info.value.message and not info.value.retryable
