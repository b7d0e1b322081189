"""``dealer-station floor serve``: the floor console (Starlette + uvicorn).

Pages (``floor/templates``, :mod:`floor.page`):

- ``/`` the live grid: every table's state, round, pace, handle, win and hold this shift,
  win this gaming day, limits, faults, devices, last seen; sorted and filtered in the page;
  faulted, quarantined and silent tables on top; the alerts, with who acknowledged each.
  Kept live over ``/events`` (server-sent events from :mod:`floor.feed`), never reloaded.
- ``/pit`` (``/pit/NAME``): the pit view: figures per pit and table over the shift, the
  gaming day or a chosen period (:mod:`floor.figures`), with charts of hands per hour and
  the win over the period (uPlot, served from the package: :mod:`floor.vendor`).
- ``/table/ID``: one table's figures and charts, its start, devices, alerts and rounds.
- ``/recall/ID/ROUND`` (surveillance): the round laid out with card faces, each decision
  and payment with its row and time to the millisecond (:mod:`floor.recall`); ``?view=text``
  the same as text. ``/search`` and ``/search.csv`` (surveillance): rounds across tables
  and time (:mod:`floor.search`).

Writes: a login and a logout (``console_session``, :mod:`floor.sessions`) and an alert's
acknowledgement (``POST /alerts/ID/ack``, pit supervisors only: ``alert_ack``); nothing
touches a table's record or reaches a station. Every POST carries the form's token and
must come from the console's own pages (``Origin``, ``Sec-Fetch-Site``). Logins pass the
:class:`floor.auth.LoginGuard` first (lockout, rate, at most two password checks at once).
Every answer carries the headers of :mod:`floor.headers`.

The database: a pool of at most :data:`floor.console.POOL_SIZE` connections for the pages,
and one for the feed, whatever the number of open pages.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

import psycopg
import structlog
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from floor import figures, queries, recall, search
from floor.auth import DUMMY_HASH, LoginRefusedError, may
from floor.casino import Casino, Period
from floor.config import FloorConfig
from floor.console import (
    Console,
    address,
    error,
    form_of,
    from_here,
    session_key,
    set_cookie,
    unreachable,
)
from floor.feed import CHANGED
from floor.headers import SecurityHeaders
from floor.page import render
from floor.sessions import COOKIE, LIFETIME, LOGIN_COOKIE, Session, new_token

_log = structlog.get_logger("dealer_station.floor.monitor")


Handler = Callable[[Request, Session], Awaitable[Response]]
Endpoint = Callable[[Request], Awaitable[Response]]


# Each route is a function of this module, not a closure of build_app: it finds the console's
# state in the application (``request.app.state.console``), and a test of one route reaches
# that route alone (a mutation run then runs, for a change to one route, only its tests).


def build_app(config: FloorConfig, key: str, *, max_streams: int | None = None) -> Starlette:
    """The console's ASGI application."""
    console = Console(config, key, max_streams=max_streams)
    routes = [
        Route("/login", login_form, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/", page("grid", home), methods=["GET"]),
        Route("/events", events, methods=["GET"]),
        Route("/alerts/{alert:int}/ack", page("acknowledge", acknowledge), methods=["POST"]),
        Route("/pit", page("pit", floor_pits), methods=["GET"]),
        Route("/pit/{pit:str}", page("pit", one_pit), methods=["GET"]),
        Route("/table/{table:str}", page("grid", table_page), methods=["GET"]),
        Route("/recall/{table:str}/{round:int}", page("recall", recall_page), methods=["GET"]),
        Route("/search", page("search", search_page), methods=["GET"]),
        Route("/search.csv", page("search", search_csv), methods=["GET"]),
        Mount("/static", StaticFiles(packages=[("floor", "static")]), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=console.lifespan)
    app.add_middleware(SecurityHeaders)
    app.state.console = console
    return app


def console_of(request: Request) -> Console:
    """The console's state, held by the application that ``request`` reached."""
    console: Console = request.app.state.console
    return console


async def session_of(request: Request) -> Session | None:
    """The open session of the request's cookie, or None (no cookie, an unknown, ended or
    expired session, or one whose user floor.toml no longer holds with that role)."""
    console = console_of(request)
    users = console.config.monitor.users
    token = request.cookies.get(COOKIE, "")
    if not token:
        return None
    found = await console.sessions.find(token)
    # A user removed from floor.toml, or given another role, is logged out.
    if found is None or found.user not in users or users[found.user].role != found.role:
        return None
    return found


def page(right: str, handler: Handler) -> Endpoint:
    """A page that needs a login with ``right``: without a session, the login; with a role
    that lacks ``right``, a one-line refusal (403)."""

    async def endpoint(request: Request) -> Response:
        try:
            found = await session_of(request)
            if found is None:
                return RedirectResponse("/login", status_code=303)
            if not may(found.role, right):
                return error(f"not for the role {found.role.replace('_', ' ')}", 403)
            return await handler(request, found)
        except (psycopg.OperationalError, OSError):
            return unreachable()

    return endpoint


def context(console: Console, found: Session, **more: Any) -> dict[str, Any]:
    """What every page's template is given: who is logged in and the form's token."""
    return {
        "user": found.user,
        "role": found.role,
        "form_token": console.sessions.form_token(found.token),
        "zone": console.casino.time_zone,
        **more,
    }


# --- login ------------------------------------------------------------------------------


def login_page(request: Request, problem: str | None = None, status: int = 200) -> Response:
    """The login form, with its token bound to the pre-login cookie (set when missing)."""
    console = console_of(request)
    login_token = request.cookies.get(LOGIN_COOKIE, "")
    fresh = not 20 <= len(login_token) <= 100
    if fresh:
        login_token = new_token()
    response = HTMLResponse(
        render(
            "login.html",
            problem=problem,
            form_token=console.sessions.login_form_token(login_token),
        ),
        status_code=status,
    )
    if fresh:
        set_cookie(response, LOGIN_COOKIE, login_token, console.config.monitor.secure_cookies, 3600)
    return response


async def login_form(request: Request) -> Response:
    """``GET /login``."""
    return login_page(request)


async def login(request: Request) -> Response:
    """``POST /login``: the guard first, then the password; a session on success."""
    console = console_of(request)
    users = console.config.monitor.users
    form = await form_of(request)
    if form is None:
        return error("form too large", 413)
    if not from_here(request) or not console.sessions.check_login_form(
        request.cookies.get(LOGIN_COOKIE, ""), form.get("form_token", "")
    ):
        return login_page(request, "the login form had expired: please log in again", 403)
    name, password = form.get("user", "")[:64], form.get("password", "")[:1024]
    try:
        console.guard.admit(name, address(request))
        user = users.get(name)
        # The same work for an unknown user as for a known one.
        good = await console.guard.check(password, user.password_hash if user else DUMMY_HASH)
    except LoginRefusedError as refused:
        _log.warning("login refused", user=name, address=address(request), why=str(refused))
        return login_page(request, str(refused), refused.status)
    if user is None or not good:
        console.guard.failed(name)
        _log.info("wrong login", user=name, address=address(request))
        return login_page(request, "wrong user or password", 401)
    console.guard.succeeded(name)
    try:
        token = await console.sessions.open(user.name, user.role, address(request))
    except (psycopg.OperationalError, OSError):
        return unreachable()
    response = RedirectResponse("/", status_code=303)
    secure = console.config.monitor.secure_cookies
    set_cookie(response, COOKIE, token, secure, int(LIFETIME.total_seconds()))
    response.delete_cookie(LOGIN_COOKIE, path="/")
    return response


async def logout(request: Request) -> Response:
    """``POST /logout``: ends the session of the cookie (from the console's own page)."""
    console = console_of(request)
    form = await form_of(request) or {}
    token = request.cookies.get(COOKIE, "")
    if not from_here(request) or not token:
        return error("log out from the console's own page", 403)
    if not console.sessions.check_form(token, form.get("form_token", "")):
        return error("log out from the console's own page", 403)
    try:
        await console.sessions.end(token)
    except (psycopg.OperationalError, OSError):
        return unreachable()
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(COOKIE, path="/")
    return response


# --- the grid and its feed ----------------------------------------------------------------


async def home(request: Request, found: Session) -> Response:
    """``GET /``: the live grid (its rows come over ``/events``)."""
    console = console_of(request)
    pits = list(console.casino.pits)
    return HTMLResponse(render("grid.html", **context(console, found, pits=pits)))


async def events(request: Request) -> Response:
    """``GET /events``: the feed's server-sent events, the whole picture first."""
    console = console_of(request)
    try:
        found = await session_of(request)
    except (psycopg.OperationalError, OSError):
        return unreachable()
    if found is None:
        return error("log in first", 401)
    stream = console.feed.subscribe(found.token)
    if stream is None:
        return error(
            f"too many open console pages ({console.feed.max_streams}): close one and reload",
            503,
        )

    async def body() -> AsyncIterator[str]:
        try:
            yield "retry: 2000\n\n"
            yield console.feed.full()
            while True:
                text = await stream.queue.get()
                yield text
                if stream.closed and stream.queue.empty():
                    return
        finally:
            console.feed.unsubscribe(stream)

    return StreamingResponse(body(), media_type="text/event-stream")


async def acknowledge(request: Request, found: Session) -> Response:
    """``POST /alerts/ID/ack``: the alert acknowledged once, by whom and in which role."""
    console = console_of(request)
    form = await form_of(request) or {}
    if not from_here(request) or not console.sessions.check_form(
        found.token, form.get("form_token", "")
    ):
        return error("acknowledge from the console's own page", 403)
    alert_id = request.path_params["alert"]
    async with console.pool.connection() as conn, conn.transaction():
        cursor = await conn.execute(
            "INSERT INTO alert_ack (alert_id, user_name, role)"
            " SELECT id, %s, %s FROM alert WHERE id = %s"
            " ON CONFLICT (alert_id) DO NOTHING RETURNING alert_id",
            (found.user, found.role, alert_id),
        )
        done = await cursor.fetchone()
        await conn.execute(f"NOTIFY {CHANGED}")
    if done is None:
        exists = await _alert_exists(console, alert_id)
        if not exists:
            return error("no such alert", 404)
    _log.info("alert acknowledged", alert=alert_id, user=found.user)
    if request.headers.get("accept", "").startswith("application/json"):
        return PlainTextResponse("acknowledged\n")
    return RedirectResponse("/", status_code=303)


# --- the pit view ---------------------------------------------------------------------


def period_of(casino: Casino, request: Request, now: datetime) -> Period:
    """The period a page's query chooses: the shift (the default), the gaming day, or a
    custom one.

    Raises:
        SearchError: a custom period that cannot be read.
    """
    chosen = request.query_params.get("period", "shift")
    if chosen == "day":
        return casino.gaming_day(now)
    if chosen == "custom":
        return search.parse_period(dict(request.query_params), casino, now, casino.shift(now))
    return casino.shift(now)


async def pit_page(request: Request, found: Session, pit: str | None) -> Response:
    """The pit view of ``pit``, or of the whole floor (None)."""
    console = console_of(request)
    casino = console.casino
    now = datetime.now(UTC)
    try:
        period = period_of(casino, request, now)
    except search.SearchError as err:
        return error(str(err), 400)
    if pit is not None and pit not in casino.pits and pit != figures.NO_PIT:
        return error("no such pit", 404)
    async with console.pool.connection() as conn:
        known = [row[0] for row in await (await conn.execute(queries.SILENT_SQL)).fetchall()]
        lines = await figures.period_figures(
            conn, casino, period, now, pit=pit, known_tables=[str(t) for t in known]
        )
        charts = await figures.series(
            conn, casino, period, now, by="table" if pit else "pit", pit=pit
        )
    return HTMLResponse(
        render(
            "pit.html",
            **context(
                console,
                found,
                pit=pit,
                pits=list(casino.pits),
                period=period,
                elapsed=figures.elapsed_hours(period, now),
                chosen=request.query_params.get("period", "shift"),
                query=urlencode(dict(request.query_params)),
                from_value=casino.local(period.start).strftime("%Y-%m-%dT%H:%M"),
                to_value=casino.local(period.end).strftime("%Y-%m-%dT%H:%M"),
                lines=lines,
                charts=charts,
            ),
        )
    )


async def floor_pits(request: Request, found: Session) -> Response:
    """``GET /pit``: the whole floor, pit by pit."""
    return await pit_page(request, found, None)


async def one_pit(request: Request, found: Session) -> Response:
    """``GET /pit/NAME``: one pit, table by table."""
    return await pit_page(request, found, request.path_params["pit"])


async def table_page(request: Request, found: Session) -> Response:
    """``GET /table/ID``: one table's figures, charts, devices, alerts and rounds."""
    console = console_of(request)
    casino = console.casino
    table = request.path_params["table"]
    now = datetime.now(UTC)
    try:
        period = period_of(casino, request, now)
    except search.SearchError as err:
        return error(str(err), 400)
    async with console.pool.connection() as conn:
        detail = await queries.table_detail(conn, casino, table)
        if detail is None:
            return error("the floor has heard of no such table", 404)
        lines = await figures.period_figures(conn, casino, period, now, known_tables=[table])
        charts = await figures.series(conn, casino, period, now, by="table", table=table)
        rounds = await queries.recent_rounds(conn, casino, table)
        cursor = await conn.execute(queries.ALERTS_SQL.replace(
            "WHERE a.cleared IS NULL", "WHERE a.cleared IS NULL AND a.table_id = %s"
        ), (table, 50))  # fmt: skip
        alerts = queries.alert_rows(
            await cursor.fetchall(), [], casino, console.config.monitor.silent_after, now
        )
    mine = next(line for line in lines if line.table == table)
    return HTMLResponse(
        render(
            "table.html",
            **context(
                console,
                found,
                t=detail,
                period=period,
                chosen=request.query_params.get("period", "shift"),
                from_value=casino.local(period.start).strftime("%Y-%m-%dT%H:%M"),
                to_value=casino.local(period.end).strftime("%Y-%m-%dT%H:%M"),
                line=mine,
                charts=charts,
                rounds=rounds,
                alerts=alerts,
            ),
        )
    )


# --- recall and search (surveillance) ---------------------------------------------------


async def recall_page(request: Request, found: Session) -> Response:
    """``GET /recall/ID/ROUND``: one round laid out (``?view=text``: as text too)."""
    console = console_of(request)
    table, round_no = request.path_params["table"], request.path_params["round"]
    async with console.pool.connection() as conn:
        view = await recall.load(conn, console.casino, table, round_no)
    if view is None:
        return error("the floor holds no such round", 404)
    text = request.query_params.get("view") == "text"
    return HTMLResponse(
        render(
            "recall.html",
            **context(console, found, r=view, text=recall.render_text(view) if text else None),
        )
    )


async def search_page(request: Request, found: Session) -> Response:
    """``GET /search``: the form, and the rounds found once it has criteria."""
    console = console_of(request)
    casino = console.casino
    now = datetime.now(UTC)
    form = dict(request.query_params)
    results: list[dict[str, Any]] | None = None
    problem = None
    criteria = None
    try:
        criteria = search.parse_criteria(form, casino, now, casino.gaming_day(now))
    except search.SearchError as err:
        problem = str(err)
    if criteria is not None and form:
        async with console.pool.connection() as conn:
            results = await search.search(conn, casino, criteria)
    period = criteria.period if criteria else casino.gaming_day(now)
    return HTMLResponse(
        render(
            "search.html",
            **context(
                console,
                found,
                form=form,
                problem=problem,
                results=results,
                shown=search.SHOWN,
                outcomes=search.OUTCOMES,
                pits=list(casino.pits),
                from_value=casino.local(period.start).strftime("%Y-%m-%dT%H:%M"),
                to_value=casino.local(period.end).strftime("%Y-%m-%dT%H:%M"),
                export=urlencode(criteria.query_string()) if criteria else "",
            ),
        ),
        status_code=400 if problem else 200,
    )


async def search_csv(request: Request, _found: Session) -> Response:
    """``GET /search.csv``: the rounds found, as a CSV attachment named for the moment."""
    console = console_of(request)
    casino = console.casino
    now = datetime.now(UTC)
    try:
        criteria = search.parse_criteria(
            dict(request.query_params), casino, now, casino.gaming_day(now)
        )
    except search.SearchError as err:
        return error(str(err), 400)
    async with console.pool.connection() as conn:
        text = await search.export_csv(conn, casino, criteria)
    stamp = now.strftime("%Y%m%dT%H%M%SZ")
    return Response(
        text,
        media_type="text/csv; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="rounds-{stamp}.csv"'},
    )


async def _alert_exists(console: Console, alert_id: int) -> bool:
    async with console.pool.connection() as conn:
        cursor = await conn.execute("SELECT 1 FROM alert WHERE id = %s", (alert_id,))
        return await cursor.fetchone() is not None


class MonitorServer:
    """The console served by uvicorn in a thread (for the tests and the demo)."""

    def __init__(
        self, config: FloorConfig, *, port: int | None = None, max_streams: int | None = None
    ) -> None:
        self.app = build_app(config, session_key(config), max_streams=max_streams)
        self.port = port if port is not None else config.monitor.port
        self.server = uvicorn.Server(
            uvicorn.Config(
                self.app,
                host=config.monitor.listen,
                port=self.port,
                log_level="warning",
                lifespan="on",
                timeout_graceful_shutdown=1,
            )
        )
        self.thread = threading.Thread(target=self.server.run, name="floor-monitor")

    @property
    def console(self) -> Console:
        """The console's state (its feed, guard and sessions)."""
        console: Console = self.app.state.console
        return console

    @property
    def url(self) -> str:
        """Where the console is."""
        return f"http://{self.server.config.host}:{self.port}/"

    def start(self) -> None:
        """Serve in the background; returns once the server listens."""
        self.thread.start()
        while not self.server.started and self.thread.is_alive():
            self.thread.join(0.02)

    def stop(self) -> None:
        """Stop serving (open event streams are ended)."""
        self.server.should_exit = True
        self.thread.join(10)


def serve(config: FloorConfig) -> None:
    """Serve until SIGTERM or SIGINT (uvicorn handles both)."""
    app = build_app(config, session_key(config))
    print(f"floor console on http://{config.monitor.listen}:{config.monitor.port}/", flush=True)
    uvicorn.run(
        app,
        host=config.monitor.listen,
        port=config.monitor.port,
        log_level="warning",
        timeout_graceful_shutdown=2,
    )
