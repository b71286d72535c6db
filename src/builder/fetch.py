"""HTTP only: GET a URL with timeouts, bounded retries, a size cap and a deadline; bytes in,
errors out."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from builder.errors import FetchError, UnreachableError

if TYPE_CHECKING:
    import ssl

    import httpx

MAX_REDIRECTS = 5


@dataclass(frozen=True)
class Limits:
    max_bytes: int = 64 * 1024 * 1024  # far above any task file upstream publishes
    timeout: float = 30.0  # to connect, and the longest silence between two chunks
    deadline: float = 300.0  # the whole fetch, retries included
    retries: int = 3  # further attempts after the first, on connection errors and 5xx only
    backoff: float = 1.0  # seconds before the first retry; doubles each time


# the pause before a retry; tests replace it to record pauses
sleep: Callable[[float], None] = time.sleep


class _Retry(Exception):
    """A transient failure: connection error, timeout, truncated body or 5xx."""


@cache
def tls_context() -> ssl.SSLContext:
    """The CA bundle (and SSL_CERT_FILE or SSL_CERT_DIR), loaded once a process: loading it takes
    about 0.08 s, and check-upstream downloads a file at a time, each with its own client."""
    import httpx

    return httpx.create_ssl_context()


def download(url: str, limits: Limits = Limits()) -> bytes:
    """The body of a 200 answer, or FetchError; retries transient failures with backoff."""
    import httpx  # imported here so that `builder --help` does not pay for it

    start = time.monotonic()
    headers = {"Accept-Encoding": "identity", "User-Agent": "leadgreen-data-builder"}
    failures: list[str] = []  # one message an attempt made
    client = httpx.Client(
        timeout=limits.timeout,
        headers=headers,
        follow_redirects=True,
        max_redirects=MAX_REDIRECTS,
        verify=tls_context(),
    )
    with client:
        for attempt in range(limits.retries + 1):
            if attempt:
                pause = limits.backoff * 2 ** (attempt - 1)
                if time.monotonic() + pause - start > limits.deadline:
                    break
                sleep(pause)
            try:
                return _within_deadline(url, limits, start, lambda: _attempt(client, url, limits))
            except _Retry as exc:
                failures.append(str(exc))
    raise UnreachableError(
        f"{url}: no usable answer after {len(failures)} attempt(s); last: {failures[-1]}"
    )


def _attempt(client: httpx.Client, url: str, limits: Limits) -> bytes:
    import httpx

    try:
        with client.stream("GET", url) as response:
            status = response.status_code
            if status >= 500:
                raise _Retry(f"HTTP {status} {response.reason_phrase}")
            if status != 200:
                raise FetchError(
                    f"{url}: expected HTTP 200, found {status} {response.reason_phrase}"
                )
            expected = response.headers.get("Content-Length")
            if expected is not None and not expected.isdigit():
                raise FetchError(f"{url}: expected a numeric Content-Length, found {expected!r}")
            if expected is not None and int(expected) > limits.max_bytes:
                found = f"found Content-Length {expected}; not downloaded"
                raise FetchError(f"{url}: expected at most {limits.max_bytes} bytes, {found}")
            body = bytearray()
            for chunk in response.iter_raw():
                body += chunk
                if len(body) > limits.max_bytes:
                    raise FetchError(
                        f"{url}: expected at most {limits.max_bytes} bytes, found more; stopped "
                        f"reading"
                    )
    except httpx.TimeoutException as exc:
        raise _Retry(f"timed out ({type(exc).__name__})") from exc
    # our request is at fault: no retry
    except (
        httpx.UnsupportedProtocol,
        httpx.LocalProtocolError,
    ) as exc:
        raise FetchError(f"{url}: cannot send the request ({type(exc).__name__}: {exc})") from exc
    except httpx.TransportError as exc:  # refused, reset, closed early: h11 flags a short body here
        raise _Retry(f"{type(exc).__name__}: {exc}") from exc
    except httpx.TooManyRedirects as exc:
        raise FetchError(
            f"{url}: expected an answer within {MAX_REDIRECTS} redirects, found more ({exc})"
        ) from exc
    # and from below httpx
    except (
        httpx.HTTPError,
        httpx.InvalidURL,
        httpx.StreamError,
        OSError,
        ValueError,
    ) as exc:
        raise FetchError(
            f"{url}: expected a usable answer, found {type(exc).__name__}: {exc}"
        ) from exc
    if expected is not None and len(body) != int(expected):
        raise _Retry(f"body of {len(body)} bytes, shorter than its Content-Length {expected}")
    return bytes(body)


def _within_deadline(url: str, limits: Limits, start: float, attempt: Callable[[], bytes]) -> bytes:
    """One attempt in a daemon thread, abandoned at the deadline (so a hung name lookup or
    trickled headers are too)."""
    # imported here so that `builder --help` does not pay for it
    from concurrent.futures import (
        Future,
    )

    future: Future[bytes] = Future()

    def run() -> None:
        try:
            future.set_result(attempt())
        except BaseException as exc:  # handed to the caller's thread, raised there
            future.set_exception(exc)

    threading.Thread(target=run, name="builder-fetch", daemon=True).start()
    try:
        return future.result(max(0.0, limits.deadline - (time.monotonic() - start)))
    except TimeoutError:
        raise UnreachableError(
            f"{url}: expected an answer within {limits.deadline:g} s, found none in time"
        ) from None
