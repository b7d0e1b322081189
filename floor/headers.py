"""The security headers on every answer of the console (an ASGI middleware).

- ``Content-Security-Policy``: scripts, styles, images and connections from the console
  itself only; no inline script or style, no ``eval``, no plugin, no ``<base>``; forms post
  to the console only; ``frame-ancestors 'none'``: no other page may frame any of it
  (the login page included: no clickjacking).
- ``X-Frame-Options: DENY`` for browsers that predate ``frame-ancestors``.
- ``X-Content-Type-Options: nosniff``: a file is what its type says, never run as script.
- ``Referrer-Policy: same-origin``: a link out names no table, round or search (and the
  console's own forms keep their ``Origin``, which ``no-referrer`` would blank).
- ``Cross-Origin-Opener-Policy`` and ``Cross-Origin-Resource-Policy: same-origin``.
- ``Cache-Control: no-store`` on pages and data (figures, recalls, exports), so nothing
  of a session stays in a shared browser's cache after a logout; the package's static
  files may be cached.
"""

from __future__ import annotations

from typing import Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP: Final = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
    " connect-src 'self'; font-src 'self'; form-action 'self'; base-uri 'none';"
    " frame-ancestors 'none'; object-src 'none'"
)
HEADERS: Final = (
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=()"),
)


class SecurityHeaders:
    """Adds :data:`HEADERS` (and ``Cache-Control``) to every HTTP answer of ``app``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        static = str(scope.get("path", "")).startswith("/static/")

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (k, v) for k, v in message.get("headers", []) if k.lower() != b"cache-control"
                ]
                headers.extend(HEADERS)
                cache = b"max-age=3600" if static else b"no-store"
                headers.append((b"cache-control", cache))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)
