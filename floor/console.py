"""The console's state in one process and the small pieces its routes share
(:mod:`floor.monitor`): the database pool, the sessions, the feed and the login guard; the
secret of the forms' tokens; cookies, one-line errors, form bodies, where a POST came from.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any, Final
from urllib.parse import parse_qs

from psycopg_pool import AsyncConnectionPool
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from floor.auth import LoginGuard
from floor.casino import Casino
from floor.config import FloorConfig, config_error
from floor.feed import Feed
from floor.sessions import Sessions

MAX_FORM_BYTES: Final = 4096
MAX_FORM_FIELDS: Final = 20
POOL_SIZE: Final = 4
POOL_WAIT: Final = 3.0  # seconds a page waits for a connection before "database unreachable"


def session_key(config: FloorConfig) -> str:
    """The secret that signs the forms' tokens, from ``monitor.session_key_file``.

    Raises:
        ConfigError: no key file configured, or one shorter than 32 characters.
        OSError: the file cannot be read.
    """
    path = config.monitor.session_key_file
    if path is None:
        raise config_error(config.source, "monitor.session_key_file", "missing (required)")
    key = path.read_text(encoding="utf-8").strip()
    if len(key) < 32:
        raise config_error(config.source, "monitor.session_key_file", "key under 32 characters")
    return key


class Console:
    """The console's state in one process: the pool, the sessions, the feed, the guard."""

    def __init__(self, config: FloorConfig, key: str, *, max_streams: int | None = None) -> None:
        self.config = config
        self.casino: Casino = config.casino
        self.pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
            config.conninfo,
            min_size=1,
            max_size=POOL_SIZE,
            open=False,
            timeout=POOL_WAIT,
            # No server-side prepared statements: psycopg prepares a query run five times, and
            # PostgreSQL's generic plan for the pit view (a parameter array unnested and
            # joined) took seconds where the planned one takes milliseconds.
            kwargs={
                "autocommit": True,
                "application_name": "floor-console",
                "prepare_threshold": None,
            },
            # A connection the database dropped (a restart) is replaced, not handed out.
            check=AsyncConnectionPool.check_connection,
        )
        self.sessions = Sessions(self.pool, key)
        self.guard = LoginGuard()
        extra = {} if max_streams is None else {"max_streams": max_streams}
        self.feed = Feed(
            config.conninfo, self.casino, config.monitor.silent_after, self.sessions.still_open,
            **extra,
        )  # fmt: skip
        self._feed_task: asyncio.Task[None] | None = None

    @contextlib.asynccontextmanager
    async def lifespan(self, _app: Starlette) -> AsyncIterator[None]:
        """Open the pool (without waiting for the database) and run the feed."""
        await self.pool.open(wait=False)
        self._feed_task = asyncio.create_task(self.feed.run())
        try:
            yield
        finally:
            self.feed.close()
            self.feed.stop()  # not a cancel: one inside psycopg's wait may never end (floor.feed)
            await self._feed_task
            await self.pool.close()


# --- helpers --------------------------------------------------------------------------------


def set_cookie(response: Response, name: str, value: str, secure: bool, max_age: int) -> None:
    response.set_cookie(
        name, value, max_age=max_age, httponly=True, samesite="strict", secure=secure, path="/"
    )


def error(text: str, status: int) -> Response:
    return PlainTextResponse(text + "\n", status_code=status)


def unreachable() -> Response:
    return error("the floor database is unreachable: try again in a moment", 503)


def from_here(request: Request) -> bool:
    """Does a POST come from one of the console's own pages?"""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("origin")
    if origin is None:
        return True  # an older browser or a script: the form token still has to match
    return origin == f"{request.url.scheme}://{request.headers.get('host', '')}"


async def form_of(request: Request) -> dict[str, str] | None:
    """The form's fields (each field's first value); None for a body over
    :data:`MAX_FORM_BYTES` or of more than :data:`MAX_FORM_FIELDS` fields."""
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        return None
    try:
        fields = parse_qs(body.decode("utf-8", "replace"), max_num_fields=MAX_FORM_FIELDS)
    except ValueError:  # more fields than that: no form of the console's has them
        return None
    return {k: v[0] for k, v in fields.items() if v}


def address(request: Request) -> str:
    return request.client.host if request.client else "unknown"
