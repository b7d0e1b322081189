"""The console's security headers (``floor.headers``) on a minimal ASGI app, without a
server: every HTTP answer carries the policy docs/floor.md "Logins, sessions and what a
browser is allowed" lists, pages and data are never cached, the package's static files may
be, and what is not HTTP passes untouched. The monitor's tests check the same headers on
the real console's answers."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from starlette.types import Message, Scope

from floor.headers import SecurityHeaders

EXPECTED = {
    b"content-security-policy": (
        b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
        b" connect-src 'self'; font-src 'self'; form-action 'self'; base-uri 'none';"
        b" frame-ancestors 'none'; object-src 'none'"
    ),
    b"x-frame-options": b"DENY",
    b"x-content-type-options": b"nosniff",
    b"referrer-policy": b"same-origin",
    b"cross-origin-opener-policy": b"same-origin",
    b"cross-origin-resource-policy": b"same-origin",
    b"permissions-policy": b"camera=(), microphone=(), geolocation=()",
}


def _answer(scope: Scope, app_headers: list[tuple[bytes, bytes]]) -> list[Message]:
    """What the middleware sends for an app that answers 200 with ``app_headers``."""
    sent: list[Message] = []

    async def app(scope: Scope, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": app_headers})
        await send({"type": "http.response.body", "body": b"hello"})

    async def receive() -> Message:
        return {"type": "http.request"}

    async def send(message: Message) -> None:
        sent.append(message)

    anyio.run(SecurityHeaders(app), scope, receive, send)
    return sent


def _headers(sent: list[Message]) -> list[tuple[bytes, bytes]]:
    return list(sent[0]["headers"])


@pytest.mark.parametrize("path", ["/", "/table/T1", "/recall/T1/5", "/export.csv", "/static"])
def test_a_page_or_data_carries_every_header_and_is_never_cached(path: str) -> None:
    sent = _answer({"type": "http", "path": path}, [(b"content-type", b"text/html")])
    headers = _headers(sent)
    for name, value in EXPECTED.items():
        assert (name, value) in headers
    assert (b"content-type", b"text/html") in headers  # the app's own kept
    assert [v for k, v in headers if k == b"cache-control"] == [b"no-store"]
    assert sent[1] == {"type": "http.response.body", "body": b"hello"}  # the body untouched
    assert sent[0]["status"] == 200


def test_the_apps_own_cache_header_is_replaced_whatever_its_case() -> None:
    sent = _answer(
        {"type": "http", "path": "/"},
        [(b"Cache-Control", b"public, max-age=86400"), (b"cache-control", b"max-age=5")],
    )
    caches = [v for k, v in _headers(sent) if k.lower() == b"cache-control"]
    assert caches == [b"no-store"]


def test_the_packages_static_files_may_be_cached_for_an_hour() -> None:
    sent = _answer({"type": "http", "path": "/static/uplot.js"}, [])
    headers = _headers(sent)
    assert [v for k, v in headers if k == b"cache-control"] == [b"max-age=3600"]
    for name, value in EXPECTED.items():
        assert (name, value) in headers


def test_a_scope_without_a_path_is_a_page() -> None:
    sent = _answer({"type": "http"}, [])
    assert [v for k, v in _headers(sent) if k == b"cache-control"] == [b"no-store"]


def test_what_is_not_http_passes_untouched() -> None:
    sent: list[Message] = []
    seen: list[Any] = []

    async def app(scope: Scope, receive: Any, send: Any) -> None:
        seen.append((scope, await receive()))  # the server's own receive, not another
        await send({"type": "lifespan.startup.complete"})

    async def receive() -> Message:
        return {"type": "lifespan.startup"}

    async def send(message: Message) -> None:
        sent.append(message)

    scope: Scope = {"type": "lifespan"}
    anyio.run(SecurityHeaders(app), scope, receive, send)
    assert seen == [(scope, {"type": "lifespan.startup"})]
    assert sent == [{"type": "lifespan.startup.complete"}]


def test_an_answer_started_without_headers_gets_every_header() -> None:
    # ASGI's http.response.start may leave its headers out (none): the policy is still sent.
    sent: list[Message] = []

    async def app(scope: Scope, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 204})
        await send({"type": "http.response.body", "body": b""})

    async def receive() -> Message:
        return {"type": "http.request"}

    async def send(message: Message) -> None:
        sent.append(message)

    anyio.run(SecurityHeaders(app), {"type": "http", "path": "/"}, receive, send)
    headers = _headers(sent)
    for name, value in EXPECTED.items():
        assert (name, value) in headers
    assert (b"cache-control", b"no-store") in headers and sent[0]["status"] == 204


def test_the_app_answers_the_request_it_was_sent() -> None:
    # The console reads the request (its path, a login form's body) through the middleware.
    seen: list[Any] = []

    async def app(scope: Scope, receive: Any, send: Any) -> None:
        seen.append((scope["path"], await receive()))
        await send({"type": "http.response.start", "status": 200, "headers": []})

    async def receive() -> Message:
        return {"type": "http.request", "body": b"user=sam", "more_body": False}

    async def send(message: Message) -> None:
        pass

    anyio.run(SecurityHeaders(app), {"type": "http", "path": "/login"}, receive, send)
    assert seen == [("/login", {"type": "http.request", "body": b"user=sam", "more_body": False})]
