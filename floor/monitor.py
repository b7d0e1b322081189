"""``dealer-station floor serve``: the floor monitor, a read-only web page.

Routes: ``/login`` (GET form, POST check), ``/logout`` (POST), ``/`` (the grid),
``/events`` (server-sent events: the grid and the alerts as JSON, pushed when the
collector signals a change with PostgreSQL ``NOTIFY floor_changed``, and at least every
second so that a silent station shows), ``/recall/TABLE`` and ``/recall/TABLE/ROUND``
(surveillance only). Nothing here writes to the database or reaches a station.

Sessions are signed cookies (Starlette's ``SessionMiddleware``: itsdangerous HMAC) holding
the user and role, ``SameSite=Strict``, eight hours; passwords are checked with
:func:`floor.auth.check_password`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any, Final
from urllib.parse import parse_qs

import anyio
import psycopg
import uvicorn
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route

from floor import page, queries
from floor.auth import N, check_password, may
from floor.config import FloorConfig, config_error

CHANNEL: Final = "floor_changed"
SESSION_SECONDS: Final = 8 * 3600
MAX_FORM_BYTES: Final = 4096
# Checked for an unknown user, so that a wrong name costs the same as a wrong password.
_DUMMY_HASH: Final = f"scrypt${N}$8$1${'A' * 22}==${'A' * 43}="


def session_key(config: FloorConfig) -> str:
    """The secret that signs session cookies, from ``monitor.session_key_file``.

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


def snapshot(conn: queries.Conn, silent_after: float) -> dict[str, Any]:
    """The grid and the alerts, as the page renders them."""
    now = datetime.now(UTC)
    return {
        "at": now.strftime("%H:%M:%S"),
        "tables": queries.grid(conn, silent_after, now),
        "alerts": queries.alerts(conn, silent_after, now),
    }


def build_app(config: FloorConfig, key: str) -> Starlette:
    """The monitor's ASGI application."""
    users = config.monitor.users
    conninfo = config.conninfo
    silent_after = config.monitor.silent_after

    def user_of(request: Request) -> tuple[str, str] | None:
        name, role = request.session.get("user"), request.session.get("role")
        if isinstance(name, str) and name in users and users[name].role == role:
            return name, role
        return None

    async def login_form(_request: Request) -> Response:
        return HTMLResponse(page.login_page())

    async def login(request: Request) -> Response:
        body = await request.body()
        if len(body) > MAX_FORM_BYTES:
            return PlainTextResponse("form too large", status_code=413)
        form = parse_qs(body.decode("utf-8", "replace"))
        name = (form.get("user") or [""])[0]
        password = (form.get("password") or [""])[0]
        user = users.get(name)
        # The same work for an unknown user as for a known one.
        good = await anyio.to_thread.run_sync(
            check_password, password, user.password_hash if user else _DUMMY_HASH
        )
        if user is None or not good:
            return HTMLResponse(page.login_page("wrong user or password"), status_code=401)
        request.session.clear()
        request.session.update({"user": user.name, "role": user.role})
        return RedirectResponse("/", status_code=303)

    async def logout(request: Request) -> Response:
        request.session.clear()
        return RedirectResponse("/login", status_code=303)

    async def home(request: Request) -> Response:
        who = user_of(request)
        if who is None:
            return RedirectResponse("/login", status_code=303)
        return HTMLResponse(page.grid_page(who[0], who[1], may(who[1], "recall")))

    async def events(request: Request) -> Response:
        if user_of(request) is None:
            return PlainTextResponse("log in first", status_code=401)
        return StreamingResponse(_stream(conninfo, silent_after), media_type="text/event-stream")

    def _recall_allowed(request: Request) -> Response | None:
        who = user_of(request)
        if who is None:
            return RedirectResponse("/login", status_code=303)
        if not may(who[1], "recall"):
            return PlainTextResponse("recall is for surveillance", status_code=403)
        return None

    def table_rounds(request: Request) -> Response:
        refused = _recall_allowed(request)
        if refused is not None:
            return refused
        table = request.path_params["table"]
        with psycopg.connect(conninfo) as conn:
            found = queries.rounds(conn, table)
        return HTMLResponse(page.rounds_page(table, found))

    def recall(request: Request) -> Response:
        refused = _recall_allowed(request)
        if refused is not None:
            return refused
        table, round_no = request.path_params["table"], request.path_params["round"]
        with psycopg.connect(conninfo) as conn:
            text = queries.recall_text(conn, table, round_no)
        if text is None:
            return PlainTextResponse("the floor holds no such round", status_code=404)
        return HTMLResponse(page.recall_page(table, round_no, text))

    routes = [
        Route("/login", login_form, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/", home, methods=["GET"]),
        Route("/events", events, methods=["GET"]),
        Route("/recall/{table:str}", table_rounds, methods=["GET"]),
        Route("/recall/{table:str}/{round:int}", recall, methods=["GET"]),
    ]
    middleware = [
        Middleware(
            SessionMiddleware,
            secret_key=key,
            max_age=SESSION_SECONDS,
            same_site="strict",
            https_only=config.monitor.secure_cookies,
        )
    ]
    return Starlette(routes=routes, middleware=middleware)


async def _stream(conninfo: str, silent_after: float) -> AsyncIterator[str]:
    conn = await anyio.to_thread.run_sync(lambda: psycopg.connect(conninfo, autocommit=True))
    try:
        conn.execute(f"LISTEN {CHANNEL}")
        last = None
        while True:
            data = await anyio.to_thread.run_sync(_next_snapshot, conn, silent_after)
            text = json.dumps(data["tables"]) + json.dumps(data["alerts"])
            if text != last:
                last = text
                yield f"data: {json.dumps(data)}\n\n"
            else:
                yield ": idle\n\n"  # a comment: keeps proxies from timing out
    finally:
        conn.close()


def _next_snapshot(conn: queries.Conn, silent_after: float) -> dict[str, Any]:
    # Waits for the collector's NOTIFY (or one second, so silence shows), then reads.
    for _ in conn.notifies(timeout=1.0, stop_after=1):
        pass
    return snapshot(conn, silent_after)


class MonitorServer:
    """The monitor served by uvicorn in a thread (for ``floor serve``, tests, the demo)."""

    def __init__(self, config: FloorConfig, *, port: int | None = None) -> None:
        app = build_app(config, session_key(config))
        self.port = port if port is not None else config.monitor.port
        self.server = uvicorn.Server(
            uvicorn.Config(
                app,
                host=config.monitor.listen,
                port=self.port,
                log_level="warning",
                lifespan="off",
                timeout_graceful_shutdown=1,
            )
        )
        self.thread = threading.Thread(target=self.server.run, name="floor-monitor")

    @property
    def url(self) -> str:
        """Where the page is."""
        return f"http://{self.server.config.host}:{self.port}/"

    def start(self) -> None:
        """Serve in the background; returns once the server listens."""
        self.thread.start()
        while not self.server.started and self.thread.is_alive():
            self.thread.join(0.02)

    def stop(self) -> None:
        """Stop serving (open event streams are closed)."""
        self.server.should_exit = True
        self.thread.join(10)


def serve(config: FloorConfig) -> None:
    """Serve until SIGTERM or SIGINT (uvicorn handles both)."""
    app = build_app(config, session_key(config))
    print(f"floor monitor on http://{config.monitor.listen}:{config.monitor.port}/", flush=True)
    uvicorn.run(app, host=config.monitor.listen, port=config.monitor.port, log_level="warning")
