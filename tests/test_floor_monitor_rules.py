"""The console's routes (``floor.monitor``) over plain HTTP on a real PostgreSQL, without a
broker, a collector or a browser: who is sent to the login, what each role may open, the
login (its pre-login cookie and form token, a wrong password, a lock, a body too large),
the cookies a login and a logout set, the logout's and the acknowledgement's checks, and
the pages' one-line refusals. docs/floor.md "Logins, sessions and what a browser is
allowed" states the rules; ``tests/test_floor_monitor.py`` plays them in Chromium on a
floor fed by a real station.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, time, timedelta
from pathlib import Path

import psycopg
import pytest
from console_web import (
    PASSWORDS,
    Answer,
    EventStream,
    cookie_attributes,
    http_login,
    login_form,
    monitor_config,
    no_leaks,
    nothing_left_after_the_module,
    page_token,
    request,
)

from floor import console as console_module
from floor.auth import LoginGuard, hash_password
from floor.config import FloorConfig, User
from floor.monitor import MonitorServer
from floor.servers import Database, wait_for

__all__ = ["no_leaks", "nothing_left_after_the_module"]

ROLES = {"sam": "surveillance", "pat": "pit_supervisor"}


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory, floor_database: Database) -> FloorConfig:
    return monitor_config(tmp_path_factory.mktemp("rules"), floor_database.conninfo)


@pytest.fixture
def monitor(config: FloorConfig) -> Iterator[MonitorServer]:
    """A console of its own per test (each test builds the app: a mutation run counts the
    test as reaching every route; a fresh login guard: no test locks another's name)."""
    server = MonitorServer(config)
    server.console.guard = LoginGuard(per_address=10_000)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def guard(monitor: MonitorServer) -> None:
    """The console of the test (kept for the tests' signatures)."""


def _login(monitor: MonitorServer, user: str) -> str:
    status, cookie = http_login(monitor.url, user)
    assert status == 303 and cookie, status
    return cookie


def _get(monitor: MonitorServer, path: str, cookie: str | None = None) -> Answer:
    return request(monitor.url, path, cookies={"floor_session": cookie} if cookie else None)


def _alert(database: Database) -> int:
    """A new open alert (each on a table of its own: one open fault a table)."""
    with psycopg.connect(database.conninfo, autocommit=True) as conn:
        row = conn.execute(
            "INSERT INTO alert (table_id, kind, message)"
            " SELECT 'A' || (count(*) + 1), 'fault', 'shoe jam' FROM alert RETURNING id"
        ).fetchone()
    assert row is not None
    return int(row[0])


def _acks(database: Database, alert: int) -> list[tuple[object, ...]]:
    with psycopg.connect(database.conninfo) as conn:
        return conn.execute(
            "SELECT user_name, role FROM alert_ack WHERE alert_id = %s", (alert,)
        ).fetchall()


# --- who is sent to the login -------------------------------------------------------------


@pytest.mark.parametrize("path", ["/", "/pit", "/pit/x", "/table/T01", "/recall/T01/1",
                                  "/search", "/search.csv"])  # fmt: skip
def test_every_page_sends_a_visitor_without_a_session_to_the_login(
    monitor: MonitorServer, path: str
) -> None:
    for cookie in (None, "not-a-token-the-database-issued"):
        answer = _get(monitor, path, cookie)
        assert answer.status == 303, (path, cookie)
        assert answer.headers["location"] == ["/login"]


def test_the_event_stream_without_a_session_is_refused_in_one_line(
    monitor: MonitorServer,
) -> None:
    for cookie in (None, "not-a-token-the-database-issued"):
        answer = _get(monitor, "/events", cookie)
        assert (answer.status, answer.text) == (401, "log in first\n")


# --- roles (docs/floor.md: the pit supervisor and surveillance) ----------------------------


def test_a_pit_supervisor_opens_the_floor_but_not_recall_or_search(
    monitor: MonitorServer, guard: None
) -> None:
    pat = _login(monitor, "pat")
    assert _get(monitor, "/", pat).status == 200
    assert _get(monitor, "/pit", pat).status == 200
    for path in ("/recall/T01/1", "/search", "/search.csv?table=T01"):
        refused = _get(monitor, path, pat)
        assert (refused.status, refused.text) == (403, "not for the role pit supervisor\n"), path


def test_surveillance_opens_the_floor_recall_and_search(
    monitor: MonitorServer, guard: None
) -> None:
    sam = _login(monitor, "sam")
    assert _get(monitor, "/", sam).status == 200
    assert _get(monitor, "/pit", sam).status == 200
    assert _get(monitor, "/search", sam).status == 200
    nothing = _get(monitor, "/recall/T01/1", sam)
    assert (nothing.status, nothing.text) == (404, "the floor holds no such round\n")


def test_a_user_removed_or_given_another_role_is_logged_out(
    monitor: MonitorServer, guard: None
) -> None:
    users = monitor.console.config.monitor.users
    pat = users["pat"]
    cookie = _login(monitor, "pat")
    try:
        users["pat"] = User("pat", "surveillance", pat.password_hash)
        moved = _get(monitor, "/", cookie)
        assert (moved.status, moved.headers["location"]) == (303, ["/login"])
        assert _get(monitor, "/events", cookie).status == 401
        del users["pat"]
        assert _get(monitor, "/", cookie).status == 303
    finally:
        users["pat"] = pat
    assert _get(monitor, "/", cookie).status == 200  # the session itself was never ended


# --- the login -----------------------------------------------------------------------------


def test_the_login_form_sets_a_pre_login_cookie_for_an_hour_only_when_it_has_none(
    monitor: MonitorServer,
) -> None:
    fresh = request(monitor.url, "/login")
    assert fresh.status == 200
    cookie = cookie_attributes(fresh.headers, "floor_login")
    assert len(cookie["value"]) == 43  # 32 random bytes, URL-safe base64
    assert cookie["max-age"] == "3600"
    assert cookie["path"] == "/" and cookie["samesite"].lower() == "strict"
    assert "httponly" in cookie
    # A pre-login cookie of 20 to 100 characters is kept: the page sets none.
    for kept in ("a" * 20, "b" * 100):
        answer = request(monitor.url, "/login", cookies={"floor_login": kept})
        assert answer.status == 200 and "set-cookie" not in answer.headers, len(kept)
    # One too short or too long is replaced.
    for replaced in ("a" * 19, "b" * 101):
        answer = request(monitor.url, "/login", cookies={"floor_login": replaced})
        assert len(cookie_attributes(answer.headers, "floor_login")["value"]) == 43, len(replaced)


def test_the_login_forms_token_belongs_to_its_cookie(monitor: MonitorServer) -> None:
    cookie, token = login_form(monitor.url)
    again = request(monitor.url, "/login", cookies={"floor_login": cookie})
    assert page_token(again) == token
    other = request(monitor.url, "/login", cookies={"floor_login": "c" * 43})
    assert page_token(other) != token


def test_a_good_login_opens_an_eight_hour_session_and_drops_the_pre_login_cookie(
    monitor: MonitorServer, guard: None
) -> None:
    cookie, token = login_form(monitor.url)
    answer = request(
        monitor.url, "/login", method="POST", cookies={"floor_login": cookie},
        form={"user": "pat", "password": PASSWORDS["pat"], "form_token": token},
    )  # fmt: skip
    assert answer.status == 303 and answer.headers["location"] == ["/"]
    session = cookie_attributes(answer.headers, "floor_session")
    assert session["max-age"] == str(8 * 3600)
    assert session["path"] == "/" and session["samesite"].lower() == "strict"
    assert "httponly" in session and "secure" not in session  # secure_cookies off here
    dropped = cookie_attributes(answer.headers, "floor_login")
    assert dropped["max-age"] == "0" and dropped["path"] == "/"
    assert _get(monitor, "/", session["value"]).status == 200


def test_a_wrong_password_or_an_unknown_name_is_one_answer(
    monitor: MonitorServer, guard: None
) -> None:
    for user, password in (("pat", "wrong"), ("mallory", PASSWORDS["pat"]), ("sam", "")):
        cookie, token = login_form(monitor.url)
        answer = request(
            monitor.url, "/login", method="POST", cookies={"floor_login": cookie},
            form={"user": user, "password": password, "form_token": token},
        )  # fmt: skip
        assert answer.status == 401, user
        assert '<p class="problem" id="problem">wrong user or password</p>' in answer.text
        assert "floor_session" not in str(answer.headers.get("set-cookie"))


def test_a_name_is_read_to_64_characters_and_a_password_to_1024(
    monitor: MonitorServer, guard: None
) -> None:
    long_name = "n" * 64
    users = monitor.console.config.monitor.users
    users[long_name] = User(long_name, "pit_supervisor", hash_password("p" * 1024, n=2**12))
    try:
        assert http_login(monitor.url, long_name + "x", "p" * 1024)[0] == 303
        assert http_login(monitor.url, long_name, "p" * 1024 + "tail")[0] == 303
        assert http_login(monitor.url, long_name, "p" * 1023)[0] == 401
        assert http_login(monitor.url, long_name[:-1], "p" * 1024)[0] == 401
    finally:
        del users[long_name]


def test_a_locked_name_is_told_so_and_its_failures_count_only_on_a_wrong_password(
    monitor: MonitorServer, guard: None
) -> None:
    monitor.console.guard = LoginGuard(lock_after=2, per_address=10_000)
    assert http_login(monitor.url, "pat", "wrong")[0] == 401
    assert http_login(monitor.url, "pat")[0] == 303  # a good login clears the count
    assert http_login(monitor.url, "pat", "wrong")[0] == 401
    assert http_login(monitor.url, "pat")[0] == 303
    for _ in range(2):
        assert http_login(monitor.url, "pat", "wrong")[0] == 401
    cookie, token = login_form(monitor.url)
    locked = request(
        monitor.url, "/login", method="POST", cookies={"floor_login": cookie},
        form={"user": "pat", "password": PASSWORDS["pat"], "form_token": token},
    )  # fmt: skip
    assert locked.status == 429
    found = re.search(r'id="problem">([^<]*)<', locked.text)
    assert found and "locked" in found[1], locked.text
    assert http_login(monitor.url, "sam")[0] == 303


def test_a_login_without_its_forms_token_or_from_another_site_is_a_fresh_form(
    monitor: MonitorServer, guard: None
) -> None:
    good = {"user": "pat", "password": PASSWORDS["pat"]}
    cookie, token = login_form(monitor.url)
    for cookies, form, headers in (
        ({"floor_login": cookie}, {**good, "form_token": "0" * 64}, {}),
        ({}, {**good, "form_token": token}, {}),
        ({"floor_login": cookie}, good, {}),
        ({"floor_login": cookie}, {**good, "form_token": token}, {"Origin": "http://evil.example"}),
    ):
        answer = request(
            monitor.url, "/login", method="POST", cookies=cookies, form=form, headers=headers
        )
        assert answer.status == 403, (cookies, form, headers)
        assert "the login form had expired: please log in again" in answer.text
        assert "floor_session" not in str(answer.headers.get("set-cookie"))


def test_a_login_body_over_4096_bytes_is_refused_and_one_at_it_is_read(
    monitor: MonitorServer, guard: None
) -> None:
    cookie, token = login_form(monitor.url)
    base = f"user=pat&password={PASSWORDS['pat']}&form_token={token}&pad="
    at_limit = (base + "x" * (4096 - len(base))).encode()
    over = at_limit + b"x"
    refused = request(
        monitor.url, "/login", method="POST", cookies={"floor_login": cookie}, body=over
    )
    assert (refused.status, refused.text) == (413, "form too large\n")
    taken = request(
        monitor.url, "/login", method="POST", cookies={"floor_login": cookie}, body=at_limit
    )
    assert taken.status == 303


# --- the logout ----------------------------------------------------------------------------


def test_a_logout_ends_the_session_and_drops_its_cookie(
    monitor: MonitorServer, guard: None
) -> None:
    cookie = _login(monitor, "sam")
    token = page_token(_get(monitor, "/", cookie))
    answer = request(
        monitor.url, "/logout", method="POST", cookies={"floor_session": cookie},
        form={"form_token": token},
    )  # fmt: skip
    assert answer.status == 303 and answer.headers["location"] == ["/login"]
    dropped = cookie_attributes(answer.headers, "floor_session")
    assert dropped["max-age"] == "0" and dropped["path"] == "/"
    assert _get(monitor, "/", cookie).status == 303


def test_a_logout_from_another_site_or_without_the_pages_token_is_refused(
    monitor: MonitorServer, guard: None
) -> None:
    cookie = _login(monitor, "sam")
    token = page_token(_get(monitor, "/", cookie))
    for cookies, form, headers in (
        ({"floor_session": cookie}, {"form_token": "0" * 64}, {}),
        ({"floor_session": cookie}, {}, {}),
        ({"floor_session": cookie}, {"form_token": token}, {"Sec-Fetch-Site": "cross-site"}),
        ({}, {"form_token": token}, {}),
    ):
        answer = request(
            monitor.url, "/logout", method="POST", cookies=cookies, form=form, headers=headers
        )
        assert (answer.status, answer.text) == (403, "log out from the console's own page\n")
    assert _get(monitor, "/", cookie).status == 200


# --- an alert's acknowledgement (pit supervisors only) -------------------------------------


def test_a_pit_supervisor_acknowledges_an_alert_once_with_their_name_and_role(
    monitor: MonitorServer, floor_database: Database, guard: None
) -> None:
    alert = _alert(floor_database)
    pat = _login(monitor, "pat")
    token = page_token(_get(monitor, "/", pat))
    by_script = request(
        monitor.url, f"/alerts/{alert}/ack", method="POST", cookies={"floor_session": pat},
        form={"form_token": token}, headers={"Accept": "application/json"},
    )  # fmt: skip
    assert (by_script.status, by_script.text) == (200, "acknowledged\n")
    assert _acks(floor_database, alert) == [("pat", "pit_supervisor")]
    # Again, from the page's form: the first acknowledgement stands, the page is the grid.
    by_form = request(
        monitor.url, f"/alerts/{alert}/ack", method="POST", cookies={"floor_session": pat},
        form={"form_token": token},
    )  # fmt: skip
    assert by_form.status == 303 and by_form.headers["location"] == ["/"]
    assert _acks(floor_database, alert) == [("pat", "pit_supervisor")]


def test_an_acknowledgement_of_no_alert_or_from_another_site_is_refused(
    monitor: MonitorServer, floor_database: Database, guard: None
) -> None:
    alert = _alert(floor_database)
    pat = _login(monitor, "pat")
    token = page_token(_get(monitor, "/", pat))
    missing = request(
        monitor.url, f"/alerts/{alert + 1000}/ack", method="POST",
        cookies={"floor_session": pat}, form={"form_token": token},
    )  # fmt: skip
    assert (missing.status, missing.text) == (404, "no such alert\n")
    for form, headers in (
        ({"form_token": "0" * 64}, {}),
        ({}, {}),
        ({"form_token": token}, {"Origin": "http://evil.example"}),
    ):
        answer = request(
            monitor.url, f"/alerts/{alert}/ack", method="POST", cookies={"floor_session": pat},
            form=form, headers=headers,
        )  # fmt: skip
        assert (answer.status, answer.text) == (
            403, "acknowledge from the console's own page\n"
        ), (form, headers)  # fmt: skip
    assert _acks(floor_database, alert) == []


def test_surveillance_acknowledges_nothing(
    monitor: MonitorServer, floor_database: Database, guard: None
) -> None:
    alert = _alert(floor_database)
    sam = _login(monitor, "sam")
    token = page_token(_get(monitor, "/", sam))
    answer = request(
        monitor.url, f"/alerts/{alert}/ack", method="POST", cookies={"floor_session": sam},
        form={"form_token": token},
    )  # fmt: skip
    assert (answer.status, answer.text) == (403, "not for the role surveillance\n")
    assert _acks(floor_database, alert) == []


# --- the pages' refusals ---------------------------------------------------------------------


def test_a_pit_or_table_the_floor_does_not_know_is_not_found(
    monitor: MonitorServer, guard: None
) -> None:
    pat = _login(monitor, "pat")
    assert _get(monitor, "/pit/(no%20pit)", pat).status == 200  # tables in no pit
    nope = _get(monitor, "/pit/nope", pat)
    assert (nope.status, nope.text) == (404, "no such pit\n")
    table = _get(monitor, "/table/T99", pat)
    assert (table.status, table.text) == (404, "the floor has heard of no such table\n")


def test_a_bad_period_is_one_line_on_the_pit_and_table_pages(
    monitor: MonitorServer, guard: None
) -> None:
    pat = _login(monitor, "pat")
    bad = "?period=custom&from=2026-12-02T10:00&to=2026-12-02T09:00"
    for path in ("/pit" + bad, "/pit/(no%20pit)" + bad, "/table/T99" + bad):
        answer = _get(monitor, path, pat)
        assert (answer.status, answer.text) == (400, "to: the end comes before the start\n")
    # The same dates without period=custom are not read: the shift is shown.
    assert _get(monitor, "/pit?from=2026-12-02T10:00&to=2026-12-02T09:00", pat).status == 200


def test_the_pit_page_shows_the_period_chosen(monitor: MonitorServer, guard: None) -> None:
    pat = _login(monitor, "pat")
    custom = _get(monitor, "/pit?period=custom&from=2026-11-02T10:07&to=2026-11-02T12:00", pat)
    assert custom.status == 200
    # Widened to whole quarter hours, on the casino's clock (UTC by default).
    assert 'value="2026-11-02T10:00"' in custom.text
    assert 'value="2026-11-02T12:00"' in custom.text


def test_search_refuses_a_bad_criterion_in_its_page_and_its_export(
    monitor: MonitorServer, guard: None
) -> None:
    sam = _login(monitor, "sam")
    page = _get(monitor, "/search?outcome=maybe", sam)
    assert page.status == 400 and "outcome: one of" in page.text
    export = _get(monitor, "/search.csv?outcome=maybe", sam)
    assert export.status == 400 and export.text.startswith("outcome: one of")
    assert export.text.count("\n") == 1


def test_the_export_is_a_csv_attachment_named_for_the_moment(
    monitor: MonitorServer, guard: None
) -> None:
    sam = _login(monitor, "sam")
    before = datetime.now(UTC).replace(microsecond=0)
    answer = _get(monitor, "/search.csv?table=T01", sam)
    after = datetime.now(UTC)
    assert answer.status == 200
    assert answer.headers["content-type"] == ["text/csv; charset=utf-8"]
    (disposition,) = answer.headers["content-disposition"]
    found = re.fullmatch(r'attachment; filename="rounds-(\d{8}T\d{6}Z)\.csv"', disposition)
    assert found, disposition
    stamp = datetime.strptime(found[1], "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    assert before <= stamp <= after


def test_a_post_of_more_than_twenty_fields_is_refused_in_one_line(
    monitor: MonitorServer, guard: None
) -> None:
    cookie, token = login_form(monitor.url)
    many = b"&".join(b"f%d=x" % n for n in range(20)) + b"&form_token=" + token.encode()
    login = request(
        monitor.url, "/login", method="POST", cookies={"floor_login": cookie}, body=many
    )
    assert (login.status, login.text) == (413, "form too large\n")
    pat = _login(monitor, "pat")
    page = page_token(_get(monitor, "/", pat))
    many = b"&".join(b"f%d=x" % n for n in range(20)) + b"&form_token=" + page.encode()
    for path, refusal in (
        ("/alerts/1/ack", "acknowledge from the console's own page\n"),
        ("/logout", "log out from the console's own page\n"),
    ):
        answer = request(
            monitor.url, path, method="POST", cookies={"floor_session": pat}, body=many
        )
        assert (answer.status, answer.text) == (403, refusal), path
    assert _get(monitor, "/", pat).status == 200


# --- the event stream -------------------------------------------------------------------------


def test_the_event_stream_opens_with_the_whole_picture_and_ends_at_the_logout(
    monitor: MonitorServer, guard: None
) -> None:
    sam = _login(monitor, "sam")
    token = page_token(_get(monitor, "/", sam))
    stream = EventStream(monitor.port, sam)
    try:
        assert stream.answer.status == 200
        assert stream.answer.getheader("content-type", "").startswith("text/event-stream")
        assert stream.block() == "retry: 2000"
        first = stream.block()
        assert first.startswith('event: grid\ndata: {"full":true,'), first
        assert len(monitor.console.feed.streams) == 1
        out = request(
            monitor.url, "/logout", method="POST", cookies={"floor_session": sam},
            form={"form_token": token},
        )  # fmt: skip
        assert out.status == 303
        blocks = [stream.block()]
        while blocks[-1]:
            blocks.append(stream.block())
        # Each second a status, until the feed finds the session ended: the last event.
        assert blocks[-2:] == ["event: logout\ndata: {}", ""], blocks
        assert all(b.startswith(("event: status\n", "event: grid\n")) for b in blocks[:-2])
    finally:
        stream.close()
    assert wait_for(lambda: not monitor.console.feed.streams, 10)


def test_an_acknowledgement_tells_the_consoles(
    monitor: MonitorServer, floor_database: Database, guard: None
) -> None:
    alert = _alert(floor_database)
    pat = _login(monitor, "pat")
    token = page_token(_get(monitor, "/", pat))
    with psycopg.connect(floor_database.conninfo, autocommit=True) as listener:
        listener.execute("LISTEN floor_changed")
        answer = request(
            monitor.url, f"/alerts/{alert}/ack", method="POST", cookies={"floor_session": pat},
            form={"form_token": token},
        )  # fmt: skip
        assert answer.status == 303
        heard = [n.channel for n in listener.notifies(timeout=5, stop_after=1)]
    assert heard == ["floor_changed"]


# --- a database that does not answer ---------------------------------------------------------


def test_with_the_database_unreachable_every_route_says_so_in_one_line(
    tmp_path: Path, floor_database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(console_module, "POOL_WAIT", 0.3)  # a page's wait for a connection
    nowhere = re.sub(r"dbname=\S+", "dbname=floor_nowhere", floor_database.conninfo)
    server = MonitorServer(monitor_config(tmp_path, nowhere))
    server.console.guard = LoginGuard(per_address=10_000)
    server.start()
    said = (503, "the floor database is unreachable: try again in a moment\n")
    try:
        cookie = "s" * 43
        for path in ("/", "/events", "/pit", "/search"):
            answer = _get(server, path, cookie)
            assert (answer.status, answer.text) == said, path
        login_cookie, login_token = login_form(server.url)
        login = request(
            server.url, "/login", method="POST", cookies={"floor_login": login_cookie},
            form={"user": "pat", "password": PASSWORDS["pat"], "form_token": login_token},
        )  # fmt: skip
        assert (login.status, login.text) == said
        logout = request(
            server.url, "/logout", method="POST", cookies={"floor_session": cookie},
            form={"form_token": server.console.sessions.form_token(cookie)},
        )  # fmt: skip
        assert (logout.status, logout.text) == said
    finally:
        server.stop()


# --- what every answer carries, the static files, the server ---------------------------------


def test_every_answer_carries_the_security_headers_and_the_static_files_are_served(
    monitor: MonitorServer,
) -> None:
    login = request(monitor.url, "/login")
    assert "default-src 'none'" in login.headers["content-security-policy"][0]
    script = request(monitor.url, "/static/console.js")
    assert script.status == 200 and "javascript" in script.headers["content-type"][0]
    assert "content-security-policy" in script.headers


def _values(page: str) -> tuple[str, datetime, datetime]:
    """The period chosen in a page's form, and its from and to (UTC: the casino's zone)."""
    chosen = re.findall(r'<option value="(\w+)" selected>', page)
    found = re.search(r'name="from" value="([^"]+)".*?name="to" value="([^"]+)"', page, re.S)
    assert len(chosen) == 1 and found, page
    return chosen[0], datetime.fromisoformat(found[1]), datetime.fromisoformat(found[2])


def test_the_pit_and_table_pages_show_the_shift_by_default_and_the_gaming_day_on_request(
    monitor: MonitorServer, floor_database: Database, guard: None
) -> None:
    with psycopg.connect(floor_database.conninfo, autocommit=True) as conn:
        conn.execute("INSERT INTO floor_table (table_id) VALUES ('P1') ON CONFLICT DO NOTHING")
    pat = _login(monitor, "pat")
    for path in ("/pit", "/table/P1"):
        chosen, start, end = _values(_get(monitor, path, pat).text)
        # The default shifts are eight hours long (docs/floor.md).
        assert (chosen, end - start) == ("shift", timedelta(hours=8)), path
        day = _get(monitor, path + "?period=day", pat)
        assert day.status == 200
        chosen, start, end = _values(day.text)
        # The gaming day: 24 hours from 06:00 (the default start, UTC here).
        assert (chosen, end - start, start.time()) == ("day", timedelta(hours=24), time(6))
