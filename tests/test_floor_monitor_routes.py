"""Each of the console's routes (``floor.monitor``) called in-process, on the ASGI application
itself (no uvicorn, no socket, no browser), on a real PostgreSQL: what each answers without
a session, with a forged one, with each role, and with a form that is not the console's
own; the cookies; the headers; hostile input shown as text. docs/floor.md "Logins,
sessions and what a browser is allowed" states the rules, and docs/floor.md's roles: a pit
supervisor acknowledges alerts, surveillance recalls and searches rounds.

Each test builds its own application and runs its lifespan (the pool, the feed), so a
mutation run credits each route to the tests that call it, and a test costs a fraction of
a second. ``tests/test_floor_monitor_rules.py`` plays the same routes over HTTP on uvicorn,
and ``tests/test_floor_monitor.py`` in Chromium.
"""

from __future__ import annotations

import asyncio
import re
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from console_web import cookie_attributes
from floor_fixtures import chained
from starlette.applications import Starlette

from controller.journal.format import Row
from floor import console as console_module
from floor import feed as feed_module
from floor.auth import LoginGuard, hash_password
from floor.config import FloorConfig, User, parse_floor_config
from floor.console import Console
from floor.monitor import build_app
from floor.servers import Database, free_port

PASSWORDS = {"sam": "surveil-1234", "pat": "pit-boss-1234"}
ROLES = {"sam": "surveillance", "pat": "pit_supervisor"}
HOST = "console.test"
KEY = "k" * 48
#: Every page a login reaches, with the right each needs (docs/floor.md: the grid, the pit
#: view and a table's page for both roles; recall and search for surveillance only).
PAGES = ("/", "/pit", "/pit/(no%20pit)", "/table/T01", "/recall/T01/1", "/search", "/search.csv")
SURVEILLANCE_ONLY = ("/recall/T01/1", "/search", "/search.csv")


_BROKER = {"host": "127.0.0.1", "tls": False, "username": "c", "password_file": "broker.pw"}


def _config(
    directory: Path, conninfo: str, casino: dict[str, Any] | None = None, **monitor: Any
) -> FloorConfig:
    """A console's ``floor.toml`` (``casino``: its ``[casino]``; ``monitor``: more of its
    ``[monitor]``), with the users of :data:`PASSWORDS` in their :data:`ROLES`."""
    (directory / "session.key").write_text(KEY)
    (directory / "broker.pw").write_text("unused: the console never reaches the broker")
    return parse_floor_config(
        {
            "broker": _BROKER,
            "database": {"conninfo": conninfo},
            "monitor": {
                "port": free_port(),
                "session_key_file": "session.key",
                "users": {
                    name: {"role": ROLES[name], "password_hash": hash_password(pw, n=2**4)}
                    for name, pw in PASSWORDS.items()
                },
                **monitor,
            },
            **({"casino": casino} if casino else {}),
        },
        directory / "floor.toml",
    )


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory, floor_database: Database) -> FloorConfig:
    return _config(tmp_path_factory.mktemp("routes"), floor_database.conninfo)


# --- an in-process client --------------------------------------------------------------------


@dataclass
class Answer:
    """What the application answered: status, headers (lower-case names), body."""

    status: int
    headers: dict[str, list[str]]
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def cookie(self, name: str) -> dict[str, str]:
        """The attributes of the ``Set-Cookie`` that names ``name``."""
        return cookie_attributes(self.headers, name)

    def sets(self, name: str) -> bool:
        return any(h.startswith(f"{name}=") for h in self.headers.get("set-cookie", []))


class Client:
    """Requests sent straight to the application, as a browser on ``HOST`` would send them."""

    def __init__(self, app: Starlette) -> None:
        self.app = app
        self.console: Console = app.state.console
        self.received: list[bytes] = []

    async def send(
        self,
        method: str,
        target: str,
        *,
        cookies: dict[str, str] | None = None,
        form: dict[str, str] | None = None,
        body: bytes = b"",
        headers: dict[str, str] | None = None,
        chunks: int | None = None,
        on_chunk: Callable[[int], Awaitable[None]] | None = None,
        source: str = "127.0.0.1",
    ) -> Answer:
        """One request; for a stream, the first ``chunks`` parts of its body, then the
        client goes away (``on_chunk(n)`` awaited after the n-th part, from 1)."""
        path, _, query = target.partition("?")
        sent = {"host": HOST, **{k.lower(): v for k, v in (headers or {}).items()}}
        if cookies:
            sent["cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
        if form is not None:
            body = urllib.parse.urlencode(form).encode()
        if body:
            sent.setdefault("content-type", "application/x-www-form-urlencoded")
        scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.4"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": urllib.parse.unquote(path),
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": [(k.encode(), v.encode()) for k, v in sent.items()],
            "client": (source, 40000),
            "server": (HOST, 80),
        }
        start: dict[str, Any] = {}
        parts: list[bytes] = []
        self.received = parts  # the body's parts so far, for an ``on_chunk`` to read
        enough = asyncio.Event()
        read = False

        async def receive() -> dict[str, Any]:
            nonlocal read
            if not read:
                read = True
                return {"type": "http.request", "body": body, "more_body": False}
            await enough.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                if message.get("body"):
                    parts.append(message["body"])
                    if on_chunk is not None:
                        await on_chunk(len(parts))
                if chunks is not None and len(parts) >= chunks:
                    enough.set()

        task = asyncio.ensure_future(self.app(scope, receive, send))
        if chunks is None:
            await asyncio.wait_for(task, 30)  # an answer that never ends fails the test
        else:
            await asyncio.wait(
                [task, asyncio.ensure_future(enough.wait())],
                timeout=10,
                return_when=asyncio.FIRST_COMPLETED,
            )
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        found: dict[str, list[str]] = {}
        for key, value in start.get("headers", []):
            found.setdefault(key.decode().lower(), []).append(value.decode())
        return Answer(start["status"], found, b"".join(parts))

    async def get(self, target: str, session: str | None = None, **more: Any) -> Answer:
        cookies = {"floor_session": session} if session is not None else None
        return await self.send("GET", target, cookies=cookies, **more)

    async def login_form(self) -> tuple[str, str]:
        """``(pre-login cookie, form token)`` of a fresh login form."""
        answer = await self.get("/login")
        return answer.cookie("floor_login")["value"], _form_token(answer)

    async def login(
        self, user: str, password: str | None = None, source: str = "127.0.0.1"
    ) -> Answer:
        """A login from the address ``source`` (the password of :data:`PASSWORDS` unless
        ``password``)."""
        cookie, token = await self.login_form()
        form = {
            "user": user,
            "password": PASSWORDS.get(user, "") if password is None else password,
            "form_token": token,
        }
        return await self.send(
            "POST", "/login", cookies={"floor_login": cookie}, form=form, source=source
        )

    async def session(self, user: str) -> str:
        """A logged-in session's cookie for ``user``."""
        answer = await self.login(user)
        assert answer.status == 303, answer.text
        return answer.cookie("floor_session")["value"]


def _form_token(answer: Answer) -> str:
    found = re.search(r'name="form_token" value="([0-9a-f]+)"', answer.text)
    assert found, answer.text[:300]
    return found[1]


@asynccontextmanager
async def _running(config: FloorConfig, **options: Any) -> AsyncIterator[Client]:
    """The application of ``config`` with its lifespan run (the pool open, the feed on)."""
    app = build_app(config, KEY, **options)
    console: Console = app.state.console
    console.guard = LoginGuard(per_address=10_000)
    lifespan = app.router.lifespan_context(app)
    await lifespan.__aenter__()
    try:
        yield Client(app)
    finally:
        # The lifespan's end stops the feed by its flag (floor/feed.py: never a cancel inside
        # psycopg's wait for notifications) and waits for it: within a poll, well under 10 s.
        await asyncio.wait_for(lifespan.__aexit__(None, None, None), 10)


def _run(
    config: FloorConfig, scenario: Callable[[Client], Awaitable[None]], **options: Any
) -> None:
    async def main() -> None:
        async with _running(config, **options) as client:
            await scenario(client)

    asyncio.run(main())


def _execute(database: Database, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    with psycopg.connect(database.conninfo, autocommit=True) as conn:
        cursor = conn.execute(sql.encode(), params)
        return cursor.fetchall() if cursor.description else []


def _alert(database: Database) -> int:
    """A new open alert on a table of its own (one open fault a table)."""
    ((alert,),) = _execute(
        database,
        "INSERT INTO alert (table_id, kind, message) SELECT 'A' || (count(*) + 1), 'fault',"
        " 'shoe jam' FROM alert RETURNING id",
    )
    return int(alert)


def _acks(database: Database, alert: int) -> list[tuple[Any, ...]]:
    return _execute(database, "SELECT user_name, role FROM alert_ack WHERE alert_id = %s", alert)


# --- who is sent to the login -------------------------------------------------------------


def test_every_page_sends_a_visitor_without_a_session_or_with_a_forged_one_to_the_login(
    config: FloorConfig,
) -> None:
    async def scenario(client: Client) -> None:
        # No cookie, an empty one, and tokens the database never issued (of every length the
        # sessions' lookup reads, and past it).
        for session in (None, "", "f" * 43, "f" * 20, "f" * 101, "<script>", "' OR '1'='1"):
            for path in PAGES:
                answer = await client.get(path, session)
                assert (answer.status, answer.headers["location"]) == (303, ["/login"]), path
            refused = await client.send(
                "POST",
                "/alerts/1/ack",
                cookies={"floor_session": session} if session is not None else None,
                form={},
            )
            assert (refused.status, refused.headers["location"]) == (303, ["/login"])

    _run(config, scenario)


def test_the_event_stream_without_a_session_is_refused_in_one_line(config: FloorConfig) -> None:
    async def scenario(client: Client) -> None:
        for session in (None, "", "f" * 43):
            answer = await client.get("/events", session)
            assert (answer.status, answer.text) == (401, "log in first\n")
        assert not client.console.feed.streams

    _run(config, scenario)


def test_an_ended_session_opens_nothing_more(config: FloorConfig, floor_database: Database) -> None:
    async def scenario(client: Client) -> None:
        pat = await client.session("pat")
        assert (await client.get("/", pat)).status == 200
        _execute(floor_database, "UPDATE console_session SET ended = clock_timestamp()")
        assert (await client.get("/", pat)).status == 303
        assert (await client.get("/events", pat)).status == 401

    _run(config, scenario)


# --- roles (docs/floor.md) -----------------------------------------------------------------


def test_a_pit_supervisor_opens_the_floor_but_not_recall_or_search(config: FloorConfig) -> None:
    async def scenario(client: Client) -> None:
        pat = await client.session("pat")
        for path in ("/", "/pit", "/pit/(no%20pit)"):
            assert (await client.get(path, pat)).status == 200, path
        for path in SURVEILLANCE_ONLY:
            refused = await client.get(path + "?table=T01", pat)
            assert (refused.status, refused.text) == (403, "not for the role pit supervisor\n")

    _run(config, scenario)


def test_surveillance_opens_the_floor_recall_and_search_but_acknowledges_nothing(
    config: FloorConfig, floor_database: Database
) -> None:
    alert = _alert(floor_database)

    async def scenario(client: Client) -> None:
        sam = await client.session("sam")
        for path in ("/", "/pit", "/pit/(no%20pit)", "/search", "/search.csv"):
            assert (await client.get(path, sam)).status == 200, path
        nothing = await client.get("/recall/T01/1", sam)
        assert (nothing.status, nothing.text) == (404, "the floor holds no such round\n")
        token = _form_token(await client.get("/", sam))
        refused = await client.send(
            "POST",
            f"/alerts/{alert}/ack",
            cookies={"floor_session": sam},
            form={"form_token": token},
        )
        assert (refused.status, refused.text) == (403, "not for the role surveillance\n")

    _run(config, scenario)
    assert _acks(floor_database, alert) == []


def test_a_role_the_console_does_not_know_reaches_no_page(
    config: FloorConfig, floor_database: Database
) -> None:
    """A session of a role with no rights (a dealer's, were one ever written) is refused
    everywhere, the supervisor's acknowledgement included."""
    users = config.monitor.users
    users["dee"] = User("dee", "dealer", users["pat"].password_hash)
    alert = _alert(floor_database)

    async def scenario(client: Client) -> None:
        dee = await client.session("dee")
        token = client.console.sessions.form_token(dee)
        for path in PAGES:
            refused = await client.get(path, dee)
            assert (refused.status, refused.text) == (403, "not for the role dealer\n"), path
        refused = await client.send(
            "POST",
            f"/alerts/{alert}/ack",
            cookies={"floor_session": dee},
            form={"form_token": token},
        )
        assert (refused.status, refused.text) == (403, "not for the role dealer\n")

    PASSWORDS["dee"] = PASSWORDS["pat"]
    try:
        _run(config, scenario)
    finally:
        del users["dee"], PASSWORDS["dee"]
    assert _acks(floor_database, alert) == []


def test_a_user_removed_or_given_another_role_is_logged_out(config: FloorConfig) -> None:
    users = config.monitor.users
    pat = users["pat"]

    async def scenario(client: Client) -> None:
        cookie = await client.session("pat")
        try:
            users["pat"] = User("pat", "surveillance", pat.password_hash)
            # The session's role was the supervisor's: it opens neither role's pages now.
            for path in ("/", "/search", "/events"):
                assert (await client.get(path, cookie)).status in (303, 401), path
            del users["pat"]
            assert (await client.get("/", cookie)).status == 303
            assert (await client.get("/events", cookie)).status == 401
        finally:
            users["pat"] = pat
        assert (await client.get("/", cookie)).status == 200  # the session itself never ended

    _run(config, scenario)


# --- the login ---------------------------------------------------------------------------------


def test_the_login_form_sets_a_pre_login_cookie_for_an_hour_only_when_it_has_none(
    config: FloorConfig,
) -> None:
    async def scenario(client: Client) -> None:
        fresh = await client.get("/login")
        assert fresh.status == 200 and fresh.headers["content-type"][0].startswith("text/html")
        cookie = fresh.cookie("floor_login")
        assert len(cookie["value"]) == 43  # 32 random bytes, URL-safe base64
        assert cookie["max-age"] == "3600" and cookie["path"] == "/"
        assert cookie["samesite"].lower() == "strict" and "httponly" in cookie
        assert "secure" not in cookie  # secure_cookies off here
        for kept in ("a" * 20, "b" * 100):
            answer = await client.send("GET", "/login", cookies={"floor_login": kept})
            assert answer.status == 200 and not answer.sets("floor_login"), len(kept)
            assert _form_token(answer) == client.console.sessions.login_form_token(kept)
        for replaced in ("a" * 19, "b" * 101, ""):
            answer = await client.send("GET", "/login", cookies={"floor_login": replaced})
            value = answer.cookie("floor_login")["value"]
            assert len(value) == 43, len(replaced)
            assert _form_token(answer) == client.console.sessions.login_form_token(value)

    _run(config, scenario)


def test_behind_https_every_cookie_is_secure(tmp_path: Path, floor_database: Database) -> None:
    config = _config(tmp_path, floor_database.conninfo, secure_cookies=True)

    async def scenario(client: Client) -> None:
        fresh = await client.get("/login")
        assert fresh.cookie("floor_login")["secure"] == "yes"
        answer = await client.login("pat")
        assert answer.status == 303
        assert answer.cookie("floor_session")["secure"] == "yes"

    _run(config, scenario)


def test_a_good_login_opens_an_eight_hour_session_and_drops_the_pre_login_cookie(
    config: FloorConfig, floor_database: Database
) -> None:
    async def scenario(client: Client) -> None:
        answer = await client.login("pat")
        assert (answer.status, answer.headers["location"]) == (303, ["/"])
        session = answer.cookie("floor_session")
        assert len(session["value"]) == 43
        assert session["max-age"] == str(8 * 3600) and session["path"] == "/"
        assert session["samesite"].lower() == "strict" and "httponly" in session
        assert "secure" not in session
        dropped = answer.cookie("floor_login")
        assert dropped["max-age"] == "0" and dropped["path"] == "/"
        home = await client.get("/", session["value"])
        assert home.status == 200
        assert client.console.sessions.form_token(session["value"]) == _form_token(home)
        assert ">pat<" in home.text

    _run(config, scenario)
    rows = _execute(
        floor_database,
        "SELECT user_name, role, address FROM console_session"
        " WHERE user_name = 'pat' ORDER BY created DESC LIMIT 1",
    )
    assert rows == [("pat", "pit_supervisor", "127.0.0.1")]


def test_a_wrong_password_or_an_unknown_name_is_one_answer_and_counts(
    config: FloorConfig,
) -> None:
    async def scenario(client: Client) -> None:
        client.console.guard = LoginGuard(lock_after=2, per_address=10_000)
        for user, password in (("pat", "wrong"), ("mallory", PASSWORDS["pat"]), ("sam", "")):
            answer = await client.login(user, password)
            assert answer.status == 401, user
            assert '<p class="problem" id="problem">wrong user or password</p>' in answer.text
            assert not answer.sets("floor_session")
        # pat's one failure, then a good login clears the count; two more lock the name.
        assert (await client.login("pat")).status == 303
        assert (await client.login("pat", "wrong")).status == 401
        assert (await client.login("pat")).status == 303
        for _ in range(2):
            assert (await client.login("pat", "wrong")).status == 401
        locked = await client.login("pat")
        assert locked.status == 429 and not locked.sets("floor_session")
        found = re.search(r'id="problem">([^<]*)<', locked.text)
        assert found and "locked" in found[1], locked.text
        assert (await client.login("sam")).status == 303

    _run(config, scenario)


def test_too_many_attempts_from_one_address_are_refused_before_the_password(
    config: FloorConfig,
) -> None:
    async def scenario(client: Client) -> None:
        client.console.guard = LoginGuard(per_address=2)
        assert (await client.login("pat", "wrong")).status == 401
        assert (await client.login("pat")).status == 303
        refused = await client.login("sam")
        assert refused.status == 429 and "too many login attempts" in refused.text
        assert not refused.sets("floor_session")
        # Another address has its own count.
        assert (await client.login("sam", source="127.0.0.2")).status == 303

    _run(config, scenario)


def test_a_login_without_a_name_or_a_password_field_is_a_wrong_login(config: FloorConfig) -> None:
    """A missing field is read as empty: no user has an empty name, and a password is never
    taken for one not sent (here a user whose password is four capital Xs)."""
    users = config.monitor.users
    users["xx"] = User("xx", "pit_supervisor", hash_password("XXXX", n=2**4))

    async def scenario(client: Client) -> None:
        for fields in ({"password": PASSWORDS["pat"]}, {"user": "xx"}, {"user": "pat"}, {}):
            cookie, token = await client.login_form()
            answer = await client.send(
                "POST",
                "/login",
                cookies={"floor_login": cookie},
                form={**fields, "form_token": token},
            )
            assert answer.status == 401, fields
            assert "wrong user or password" in answer.text
        assert (await client.login("xx", "XXXX")).status == 303

    try:
        _run(config, scenario)
    finally:
        del users["xx"]


def test_a_name_is_read_to_64_characters_and_a_password_to_1024(config: FloorConfig) -> None:
    name = "n" * 64
    users = config.monitor.users
    users[name] = User(name, "pit_supervisor", hash_password("p" * 1024, n=2**4))

    async def scenario(client: Client) -> None:
        assert (await client.login(name + "x", "p" * 1024)).status == 303
        assert (await client.login(name, "p" * 1024 + "tail")).status == 303
        assert (await client.login(name, "p" * 1023)).status == 401
        assert (await client.login(name[:-1], "p" * 1024)).status == 401

    try:
        _run(config, scenario)
    finally:
        del users[name]


def test_a_login_without_its_forms_token_or_from_another_site_is_a_fresh_form(
    config: FloorConfig,
) -> None:
    async def scenario(client: Client) -> None:
        good = {"user": "pat", "password": PASSWORDS["pat"]}
        cookie, token = await client.login_form()
        for cookies, form, headers in (
            ({"floor_login": cookie}, {**good, "form_token": "0" * 64}, {}),
            ({}, {**good, "form_token": token}, {}),
            ({"floor_login": cookie}, good, {}),
            ({"floor_login": "c" * 43}, {**good, "form_token": token}, {}),
            (
                {"floor_login": cookie},
                {**good, "form_token": token},
                {"Origin": "http://evil.example"},
            ),
            (
                {"floor_login": cookie},
                {**good, "form_token": token},
                {"Sec-Fetch-Site": "cross-site"},
            ),
        ):
            answer = await client.send(
                "POST", "/login", cookies=cookies, form=form, headers=headers
            )
            assert answer.status == 403, (cookies, form, headers)
            expired = "the login form had expired: please log in again"
            assert f'<p class="problem" id="problem">{expired}</p>' in answer.text
            assert not answer.sets("floor_session")
        # The same form from the console's own page is taken.
        same = await client.send(
            "POST",
            "/login",
            cookies={"floor_login": cookie},
            form={**good, "form_token": token},
            headers={"Origin": f"http://{HOST}", "Sec-Fetch-Site": "same-origin"},
        )
        assert same.status == 303

    _run(config, scenario)


def test_a_login_body_over_4096_bytes_or_20_fields_is_refused(config: FloorConfig) -> None:
    async def scenario(client: Client) -> None:
        cookie, token = await client.login_form()
        base = f"user=pat&password={PASSWORDS['pat']}&form_token={token}&pad="
        at_limit = (base + "x" * (4096 - len(base))).encode()
        for body in (
            at_limit + b"x",
            b"&".join(b"f%d=x" % n for n in range(20)) + b"&form_token=" + token.encode(),
        ):
            refused = await client.send(
                "POST", "/login", cookies={"floor_login": cookie}, body=body
            )
            assert (refused.status, refused.text) == (413, "form too large\n")
        taken = await client.send("POST", "/login", cookies={"floor_login": cookie}, body=at_limit)
        assert taken.status == 303

    _run(config, scenario)


# --- the logout ---------------------------------------------------------------------------------


def test_a_logout_ends_the_session_and_drops_its_cookie(config: FloorConfig) -> None:
    async def scenario(client: Client) -> None:
        sam = await client.session("sam")
        pat = await client.session("pat")
        token = _form_token(await client.get("/", sam))
        answer = await client.send(
            "POST",
            "/logout",
            cookies={"floor_session": sam},
            form={"form_token": token},
            headers={"Origin": f"http://{HOST}"},
        )
        assert (answer.status, answer.headers["location"]) == (303, ["/login"])
        dropped = answer.cookie("floor_session")
        assert dropped["max-age"] == "0" and dropped["path"] == "/"
        assert (await client.get("/", sam)).status == 303
        assert (await client.get("/", pat)).status == 200  # another session goes on

    _run(config, scenario)


def test_a_logout_from_another_site_or_without_the_pages_token_is_refused(
    config: FloorConfig,
) -> None:
    async def scenario(client: Client) -> None:
        sam = await client.session("sam")
        pat = await client.session("pat")
        token = _form_token(await client.get("/", sam))
        many = b"&".join(b"f%d=x" % n for n in range(20)) + b"&form_token=" + token.encode()
        for cookies, form, headers, body in (
            ({"floor_session": sam}, {"form_token": "0" * 64}, {}, b""),
            ({"floor_session": sam}, {}, {}, b""),
            ({"floor_session": pat}, {"form_token": token}, {}, b""),  # another session's token
            ({"floor_session": sam}, {"form_token": token}, {"Sec-Fetch-Site": "cross-site"}, b""),
            ({"floor_session": sam}, {"form_token": token}, {"Origin": "http://evil.example"}, b""),
            ({}, {"form_token": token}, {}, b""),
            ({"floor_session": sam}, None, {}, many),
        ):
            answer = await client.send(
                "POST", "/logout", cookies=cookies, form=form, headers=headers, body=body
            )
            assert (answer.status, answer.text) == (403, "log out from the console's own page\n")
            assert not answer.sets("floor_session")
        assert (await client.get("/", sam)).status == 200
        assert (await client.get("/", pat)).status == 200

    _run(config, scenario)


# --- an alert's acknowledgement (pit supervisors only) -------------------------------------


def test_a_pit_supervisor_acknowledges_an_alert_once_with_their_name_and_role(
    config: FloorConfig, floor_database: Database
) -> None:
    alert = _alert(floor_database)

    async def scenario(client: Client) -> None:
        pat = await client.session("pat")
        token = _form_token(await client.get("/", pat))
        with psycopg.connect(floor_database.conninfo, autocommit=True) as listener:
            listener.execute("LISTEN floor_changed")
            by_script = await client.send(
                "POST",
                f"/alerts/{alert}/ack",
                cookies={"floor_session": pat},
                form={"form_token": token},
                headers={"Accept": "application/json"},
            )
            assert (by_script.status, by_script.text) == (200, "acknowledged\n")
            heard = [n.channel for n in listener.notifies(timeout=5, stop_after=1)]
        assert heard == ["floor_changed"]  # the consoles are told
        assert _acks(floor_database, alert) == [("pat", "pit_supervisor")]
        # Again, from the page's form: the first acknowledgement stands, the page is the grid.
        by_form = await client.send(
            "POST",
            f"/alerts/{alert}/ack",
            cookies={"floor_session": pat},
            form={"form_token": token},
            headers={"Accept": "text/html,application/json"},
        )
        assert (by_form.status, by_form.headers["location"]) == (303, ["/"])
        # A form sent with no Accept header at all is a page's too.
        bare = await client.send(
            "POST",
            f"/alerts/{alert}/ack",
            cookies={"floor_session": pat},
            form={"form_token": token},
        )
        assert (bare.status, bare.headers["location"]) == (303, ["/"])

    _run(config, scenario)
    assert _acks(floor_database, alert) == [("pat", "pit_supervisor")]


def test_an_acknowledgement_of_no_alert_or_from_another_site_is_refused(
    config: FloorConfig, floor_database: Database
) -> None:
    alert = _alert(floor_database)

    async def scenario(client: Client) -> None:
        pat = await client.session("pat")
        token = _form_token(await client.get("/", pat))
        missing = await client.send(
            "POST",
            f"/alerts/{alert + 1000}/ack",
            cookies={"floor_session": pat},
            form={"form_token": token},
        )
        assert (missing.status, missing.text) == (404, "no such alert\n")
        other = client.console.sessions.form_token(await client.session("pat"))
        many = b"&".join(b"f%d=x" % n for n in range(20)) + b"&form_token=" + token.encode()
        for form, headers, body in (
            ({"form_token": "0" * 64}, {}, b""),
            ({}, {}, b""),
            ({"form_token": other}, {}, b""),  # another session's token
            ({"form_token": token}, {"Origin": "http://evil.example"}, b""),
            ({"form_token": token}, {"Sec-Fetch-Site": "cross-site"}, b""),
            (None, {}, many),
        ):
            answer = await client.send(
                "POST",
                f"/alerts/{alert}/ack",
                cookies={"floor_session": pat},
                form=form,
                headers=headers,
                body=body,
            )
            assert (answer.status, answer.text) == (
                403,
                "acknowledge from the console's own page\n",
            ), (form, headers)
        assert (
            await client.send("GET", f"/alerts/{alert}/ack", cookies={"floor_session": pat})
        ).status == 405

    _run(config, scenario)
    assert _acks(floor_database, alert) == []


# --- the event stream ----------------------------------------------------------------------


def test_the_event_stream_opens_with_the_whole_picture_and_ends_with_its_stream(
    config: FloorConfig,
) -> None:
    async def scenario(client: Client) -> None:
        feed = client.console.feed
        sam = await client.session("sam")

        async def step(n: int) -> None:
            if n == 2:  # the whole picture sent: an event, then the stream's end
                (stream,) = feed.streams
                stream.offer("event: grid\ndata: {}\n\n", feed.full)
            elif n == 3:
                (stream,) = feed.streams
                stream.end("event: logout\ndata: {}\n\n")

        answer = await client.get("/events", sam, chunks=10, on_chunk=step)
        assert answer.status == 200
        assert answer.headers["content-type"][0].startswith("text/event-stream")
        blocks = answer.text.split("\n\n")
        assert blocks[0] == "retry: 2000"
        assert blocks[1].startswith('event: grid\ndata: {"full":true,'), blocks[1]
        # The stream ended itself after its last event (fewer than the 10 parts read).
        assert blocks[2:] == ["event: grid\ndata: {}", "event: logout\ndata: {}", ""], blocks
        assert not feed.streams

    _run(config, scenario)


def test_a_stream_gone_is_unsubscribed_and_one_more_than_the_bound_refused(
    config: FloorConfig,
) -> None:
    async def scenario(client: Client) -> None:
        feed = client.console.feed
        sam = await client.session("sam")
        first = await client.get("/events", sam, chunks=1)
        assert first.text.startswith("retry: 2000\n\n")
        assert not feed.streams  # the page went away: its stream is gone
        opened: list[Answer] = []

        async def second(n: int) -> None:
            if n == 1:
                opened.append(await client.get("/events", sam))

        await client.get("/events", sam, chunks=2, on_chunk=second)
        ((refused,),) = (opened,)
        assert (refused.status, refused.text) == (
            503,
            "too many open console pages (1): close one and reload\n",
        )

    _run(config, scenario, max_streams=1)


def test_a_stream_lives_while_its_session_does_and_ends_with_a_logout_after(
    config: FloorConfig, floor_database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The feed checks at each tick that the sessions of its streams are still open: the
    page of an open session keeps its stream tick after tick; its session ended (here in
    the database, as a logout on another console would), the page is sent a logout and
    its stream ends."""
    monkeypatch.setattr(feed_module, "TICK_SECONDS", 0.05)

    async def scenario(client: Client) -> None:
        sam = await client.session("sam")
        ended: list[int] = []

        async def step(n: int) -> None:
            # Two status events: the first tick's session check, just after its status, let
            # the stream be. Then the session ends.
            if not ended and b"".join(client.received).count(b"event: status") == 2:
                ended.append(n)
                _execute(
                    floor_database,
                    "UPDATE console_session SET ended = clock_timestamp() WHERE ended IS NULL",
                )

        answer = await client.get("/events", sam, chunks=100, on_chunk=step)
        blocks = answer.text.split("\n\n")
        assert ended, blocks
        assert blocks[-2:] == ["event: logout\ndata: {}", ""], blocks
        assert len(blocks) < 100, blocks  # ended by the feed, not by the client
        assert not client.console.feed.streams

    _run(config, scenario)


# --- the pages ---------------------------------------------------------------------------------


def _period(page: str) -> tuple[str, str, str]:
    """The period chosen in a page's form, and its from and to."""
    chosen = re.findall(r'<option value="(\w+)" selected>', page)
    found = re.search(r'name="from" value="([^"]+)".*?name="to" value="([^"]+)"', page, re.S)
    assert len(chosen) == 1 and found, page
    return chosen[0], found[1], found[2]


def test_the_pit_and_table_pages_show_the_period_chosen(
    config: FloorConfig, floor_database: Database
) -> None:
    _execute(
        floor_database, "INSERT INTO floor_table (table_id) VALUES ('P1') ON CONFLICT DO NOTHING"
    )

    async def scenario(client: Client) -> None:
        pat = await client.session("pat")
        now = datetime.now(UTC)
        shift = client.console.casino.shift(now)
        day = client.console.casino.gaming_day(now)
        for path in ("/pit", "/pit/(no%20pit)", "/table/P1"):
            page = await client.get(path, pat)
            assert page.status == 200, path
            # P1, known to the floor, has its line even without a round in the period.
            assert 'id="line-table-P1"' in page.text, path
            assert _period(page.text) == (
                "shift",
                f"{shift.start:%Y-%m-%dT%H:%M}",
                f"{shift.end:%Y-%m-%dT%H:%M}",
            ), path
            page = await client.get(path + "?period=day", pat)
            assert _period(page.text) == (
                "day",
                f"{day.start:%Y-%m-%dT%H:%M}",
                f"{day.end:%Y-%m-%dT%H:%M}",
            ), path
            # Widened to whole quarter hours, on the casino's clock (UTC here).
            page = await client.get(
                path + "?period=custom&from=2026-11-02T10:07&to=2026-11-02T12:00", pat
            )
            assert _period(page.text) == ("custom", "2026-11-02T10:00", "2026-11-02T12:00"), path
            # Dates without period=custom are not read: the shift is shown.
            page = await client.get(path + "?from=2026-11-02T10:07&to=2026-11-02T12:00", pat)
            assert _period(page.text)[0] == "shift", path
        table = await client.get("/table/P1", pat)
        assert 'href="/pit/' in (await client.get("/pit", pat)).text
        assert "P1" in table.text

    _run(config, scenario)


def test_a_custom_period_without_dates_is_the_shift_and_without_a_start_begins_with_it(
    config: FloorConfig, floor_database: Database
) -> None:
    """The form's ``from`` and ``to`` left empty: the shift (the default period); only a
    ``to``: from the shift's start to that end; only a ``from``: to now (widened to the
    quarter hour)."""
    _execute(
        floor_database, "INSERT INTO floor_table (table_id) VALUES ('C1') ON CONFLICT DO NOTHING"
    )

    async def scenario(client: Client) -> None:
        pat = await client.session("pat")
        shift = client.console.casino.shift(datetime.now(UTC))
        start, end = f"{shift.start:%Y-%m-%dT%H:%M}", f"{shift.end:%Y-%m-%dT%H:%M}"
        for path in ("/pit", "/table/C1"):
            page = await client.get(path + "?period=custom", pat)
            assert _period(page.text) == ("custom", start, end), path
            page = await client.get(path + f"?period=custom&from=&to={end}", pat)
            assert _period(page.text) == ("custom", start, end), path
            before = _quarter_after(datetime.now(UTC))
            page = await client.get(path + "?period=custom&from=2026-11-02T10:00", pat)
            chosen = _period(page.text)
            assert chosen[:2] == ("custom", "2026-11-02T10:00"), path
            assert chosen[2] in (before, _quarter_after(datetime.now(UTC))), path

    _run(config, scenario)


def _quarter_after(moment: datetime) -> str:
    """The end of the quarter hour ``moment`` is in (``moment`` itself on the hour's quarter),
    as a form shows it on a UTC casino's clock."""
    hour = moment.replace(minute=0, second=0, microsecond=0)
    quarters = -(-(moment - hour).total_seconds() // 900)
    return f"{hour + timedelta(minutes=15 * quarters):%Y-%m-%dT%H:%M}"


def test_a_tables_page_holds_its_own_figures_charts_rounds_and_alerts(
    config: FloorConfig, floor_database: Database
) -> None:
    """Each from this table's rows alone: another table's alert, round and quarter hour
    stay off its page."""
    for table, hands, message in (("Q1", 3, "shoe jam at Q1"), ("Q2", 5, "shoe jam at Q2")):
        _execute(floor_database, "INSERT INTO floor_table (table_id) VALUES (%s)", table)
        _execute(
            floor_database,
            "INSERT INTO table_quarter (table_id, quarter, rounds, hands, win_main)"
            " VALUES (%s, to_timestamp(floor(extract(epoch FROM now()) / 900) * 900), 1, %s, 500)",
            table,
            hands,
        )
        _execute(
            floor_database,
            "INSERT INTO round_stat (table_id, round, first_row, end_row, ended, status)"
            " VALUES (%s, %s, 1, 9, now(), 'completed')",
            table,
            40 + hands,
        )
        _execute(
            floor_database,
            "INSERT INTO alert (table_id, kind, message) VALUES (%s, 'fault', %s)",
            table,
            message,
        )

    async def scenario(client: Client) -> None:
        sam = await client.session("sam")
        page = await client.get("/table/Q1", sam)
        assert page.status == 200
        assert '<span id="table-name">Q1</span>' in page.text
        assert 'id="line-table-Q1"' in page.text and "Q2" not in page.text
        # Its figures: its own round alone (the floor's line would count Q2's too).
        assert '<td class="num" data-figure="rounds">1</td>' in page.text
        assert '"names": ["Q1"]' in page.text  # the charts: this table's series alone
        assert "shoe jam at Q1" in page.text
        # Its round, with a link to its recall for surveillance.
        assert '<a href="/recall/Q1/43">round 43</a>' in page.text
        pat = await client.session("pat")
        supervisor = await client.get("/table/Q1", pat)
        assert "round 43" not in supervisor.text and "<td>43</td>" in supervisor.text
        # The floor's charts name each pit (here every table is in no pit).
        floor = await client.get("/pit", pat)
        assert '"names": ["(no pit)"]' in floor.text
        nopit = await client.get("/pit/(no%20pit)", pat)
        names = re.search(r'"names": (\[[^]]*\])', nopit.text)
        assert names and "Q1" in names[1] and "Q2" in names[1], nopit.text

    _run(config, scenario)


def test_a_bad_period_or_an_unknown_pit_or_table_is_one_line(config: FloorConfig) -> None:
    async def scenario(client: Client) -> None:
        pat = await client.session("pat")
        bad = "?period=custom&from=2026-12-02T10:00&to=2026-12-02T09:00"
        for path in ("/pit" + bad, "/pit/(no%20pit)" + bad, "/pit/nope" + bad, "/table/T99" + bad):
            answer = await client.get(path, pat)
            assert (answer.status, answer.text) == (400, "to: the end comes before the start\n")
        nope = await client.get("/pit/nope", pat)
        assert (nope.status, nope.text) == (404, "no such pit\n")
        table = await client.get("/table/T99", pat)
        assert (table.status, table.text) == (404, "the floor has heard of no such table\n")

    _run(config, scenario)


def test_a_pit_of_floor_toml_is_shown_and_its_tables_listed(
    tmp_path: Path, floor_database: Database
) -> None:
    casino = {"pits": {"north": ["N1"]}, "time_zone": "America/New_York"}
    config = _config(tmp_path, floor_database.conninfo, casino=casino)

    async def scenario(client: Client) -> None:
        pat = await client.session("pat")
        north = await client.get("/pit/north", pat)
        assert north.status == 200 and 'id="line-table-N1"' in north.text
        floor = await client.get("/pit?period=day", pat)
        assert 'id="line-pit-north"' in floor.text
        # Who is logged in, in which role, and the casino's clock.
        assert (
            '<span class="user">pat</span> <span class="role">pit supervisor</span>' in floor.text
        )
        assert "times in America/New_York" in floor.text
        assert '<span class="zone">America/New_York</span>' in (await client.get("/", pat)).text
        # The per-hour figures' hours: the gaming day's gone by so far (within a minute).
        now = datetime.now(UTC)
        day = client.console.casino.gaming_day(now)
        found = re.search(r"over the ([0-9.]+) h of the period so far", floor.text)
        assert found, floor.text
        assert abs(float(found[1]) - (now - day.start).total_seconds() / 3600) < 0.02
        # A pit's link keeps the period chosen.
        assert 'href="/pit/north?period=day"' in floor.text
        # Surveillance's search and export by pit: the pit's tables.
        sam = await client.session("sam")
        assert (await client.get("/search?pit=north", sam)).status == 200
        export = await client.get("/search.csv?pit=north", sam)
        assert export.status == 200 and export.text.startswith("table,")

    _run(config, scenario)


def test_a_pits_charts_and_lines_hold_its_own_tables_alone(
    tmp_path: Path, floor_database: Database
) -> None:
    """Two pits of floor.toml, each with a table that dealt this quarter hour: each pit's
    page charts and lists its own table, not the other pit's."""
    casino = {"pits": {"east": ["E1"], "west": ["W1"]}}
    config = _config(tmp_path, floor_database.conninfo, casino=casino)
    for table in ("E1", "W1"):
        _execute(floor_database, "INSERT INTO floor_table (table_id) VALUES (%s)", table)
        _execute(
            floor_database,
            "INSERT INTO table_quarter (table_id, quarter, rounds, hands, win_main)"
            " VALUES (%s, to_timestamp(floor(extract(epoch FROM now()) / 900) * 900), 1, 2, 100)",
            table,
        )

    async def scenario(client: Client) -> None:
        pat = await client.session("pat")
        for pit, mine, other in (("east", "E1", "W1"), ("west", "W1", "E1")):
            page = await client.get(f"/pit/{pit}", pat)
            assert page.status == 200
            assert f'"names": ["{mine}"]' in page.text, pit
            assert f'id="line-table-{mine}"' in page.text, pit
            assert other not in page.text, pit
            assert f'<h1><a href="/pit">Pits</a> \u203a {pit}</h1>' in page.text
            assert f'<th class="name">Pit {pit} total</th>' in page.text

    _run(config, scenario)


def test_hostile_input_comes_back_as_text(config: FloorConfig) -> None:
    hostile = '"><script>alert(1)</script>'
    quoted = urllib.parse.quote(hostile)

    async def scenario(client: Client) -> None:
        sam = await client.session("sam")
        for path in (f"/pit?x={quoted}", f"/search?cards={quoted}", f"/search?won={quoted}"):
            answer = await client.get(path, sam)
            assert answer.status in (200, 400), path
            assert "<script>alert" not in answer.text, path
        # Echoed into the search form as text.
        page = await client.get(f"/search?cards={quoted}", sam)
        assert "&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
        login = await client.login(hostile, hostile)
        assert login.status == 401 and "<script>alert" not in login.text
        for path in (f"/pit/{quoted}", f"/table/{quoted}"):
            answer = await client.get(path, sam)
            assert answer.status == 404 and answer.headers["content-type"][0].startswith(
                "text/plain"
            ), path

    _run(config, scenario)


# --- recall and search (surveillance) --------------------------------------------------------


def _round(database: Database, table: str, round_no: int) -> list[Row]:
    """A round of ``table`` in the floor database (its start and the dealer's up card, well
    chained); its rows."""
    rows = chained(
        [
            ("round_start", {"round": round_no}, round_no),
            ("card", {"role": "dealer_up", "card": "KS", "seat": None, "hand": None}, round_no),
        ]
    )
    with psycopg.connect(database.conninfo, autocommit=True) as conn:
        for row in rows:
            conn.execute(
                "INSERT INTO journal_row (table_id, row_id, ts, kind, round, data, prev_hash, hash)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                (
                    table,
                    row.id,
                    row.ts,
                    row.kind,
                    row.round_no,
                    row.data_text,
                    row.prev_hash,
                    row.hash,
                ),
            )
    return rows


def test_surveillance_recalls_a_round_as_a_page_and_as_text(
    config: FloorConfig, floor_database: Database
) -> None:
    _round(floor_database, "R1", 7)

    async def scenario(client: Client) -> None:
        sam = await client.session("sam")
        page = await client.get("/recall/R1/7", sam)
        assert page.status == 200 and "R1" in page.text
        said = "\nDealer: KS  (10)\n"  # the text view's line of the dealer's cards
        assert said not in page.text
        text = await client.get("/recall/R1/7?view=text", sam)
        assert text.status == 200 and said in text.text
        other = await client.get("/recall/R1/7?view=page", sam)
        assert said not in other.text
        assert (await client.get("/recall/R1/8", sam)).status == 404
        assert (await client.get("/recall/R2/7", sam)).status == 404

    _run(config, scenario)


def test_search_shows_its_form_and_finds_rounds_only_when_asked(
    config: FloorConfig, floor_database: Database
) -> None:
    async def scenario(client: Client) -> None:
        sam = await client.session("sam")
        empty = await client.get("/search", sam)
        now = datetime.now(UTC)
        day = client.console.casino.gaming_day(now)
        assert empty.status == 200 and 'id="export"' not in empty.text
        assert f'value="{day.start:%Y-%m-%dT%H:%M}"' in empty.text
        assert f'value="{day.end:%Y-%m-%dT%H:%M}"' in empty.text
        asked = await client.get(
            "/search?table=T01&period=custom&from=2026-11-02T10:00&to=2026-11-02T12:00", sam
        )
        assert asked.status == 200, asked.text
        assert 'value="2026-11-02T10:00"' in asked.text
        assert 'value="2026-11-02T12:00"' in asked.text
        export = re.search(r'href="/search\.csv\?([^"]*)" id="export"', asked.text)
        assert export and "table=T01" in export[1], asked.text
        # A custom period with no end ends now.
        since = await client.get("/search?period=custom&from=2026-11-02T10:00", sam)
        assert since.status == 200 and 'value="2026-11-02T10:00"' in since.text
        bad = await client.get("/search?outcome=maybe", sam)
        assert bad.status == 400 and '<p class="problem" id="problem">outcome: one of' in bad.text

    _run(config, scenario)


def test_the_export_is_a_csv_attachment_named_for_the_moment_or_one_line(
    config: FloorConfig,
) -> None:
    async def scenario(client: Client) -> None:
        sam = await client.session("sam")
        before = datetime.now(UTC).replace(microsecond=0)
        answer = await client.get("/search.csv?table=T01", sam)
        after = datetime.now(UTC)
        assert answer.status == 200
        assert answer.headers["content-type"] == ["text/csv; charset=utf-8"]
        (disposition,) = answer.headers["content-disposition"]
        found = re.fullmatch(r'attachment; filename="rounds-(\d{8}T\d{6}Z)\.csv"', disposition)
        assert found, disposition
        stamp = datetime.strptime(found[1], "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
        assert before <= stamp <= after
        assert answer.text.startswith("table,")
        bad = await client.get("/search.csv?outcome=maybe", sam)
        assert bad.status == 400 and bad.text.startswith("outcome: one of")
        assert bad.text.count("\n") == 1
        nope = await client.get("/search.csv?pit=nope", sam)
        assert (nope.status, nope.text) == (400, "pit: no such pit\n")
        # A custom period with no end ends now.
        since = await client.get("/search.csv?period=custom&from=2026-11-02T10:00", sam)
        assert since.status == 200 and since.text.startswith("table,")

    _run(config, scenario)


# --- what every answer carries; a database that does not answer --------------------------------


def test_every_answer_carries_the_security_headers_and_the_static_files_are_served(
    config: FloorConfig,
) -> None:
    async def scenario(client: Client) -> None:
        sam = await client.session("sam")
        for path, session in (("/login", None), ("/", sam), ("/", None), ("/search", sam)):
            answer = await client.get(path, session)
            assert "default-src 'none'" in answer.headers["content-security-policy"][0], path
            assert answer.headers["cache-control"] == ["no-store"], path
        script = await client.get("/static/console.js")
        assert script.status == 200 and "javascript" in script.headers["content-type"][0]
        assert "content-security-policy" in script.headers
        assert (await client.get("/static/nothing.js")).status == 404

    _run(config, scenario)


def test_with_the_database_unreachable_every_route_says_so_in_one_line(
    tmp_path: Path, floor_database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(console_module, "POOL_WAIT", 0.3)  # a page's wait for a connection
    nowhere = re.sub(r"dbname=\S+", "dbname=floor_nowhere", floor_database.conninfo)
    config = _config(tmp_path, nowhere)
    said = (503, "the floor database is unreachable: try again in a moment\n")

    async def scenario(client: Client) -> None:
        cookie = "s" * 43
        for path in ("/", "/events", "/pit", "/search"):
            answer = await client.get(path, cookie)
            assert (answer.status, answer.text) == said, path
        assert (await client.login("pat")).text == said[1]
        logout = await client.send(
            "POST",
            "/logout",
            cookies={"floor_session": cookie},
            form={"form_token": client.console.sessions.form_token(cookie)},
        )
        assert (logout.status, logout.text) == said

    _run(config, scenario)
