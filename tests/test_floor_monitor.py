"""The floor console's live grid, logins and sessions, in a real headless Chromium and over
plain HTTP, fed by a real station journal through the real shipper, broker, collector and
PostgreSQL: a fault shows on the grid within a second and a pit supervisor acknowledges it
(surveillance may not); the limits a table posts; roles; a logout ends the session for
every copy of its cookie and its open event stream; no login from another site (login
CSRF); lockout and a rate limit on logins; the security headers; no page can be framed."""

from __future__ import annotations

import http.client
import http.server
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from console_web import (
    PASSWORDS,
    browser,
    console_config,
    http_login,
    log_in,
    login_form,
    no_leaks,
    no_script_errors,
    nothing_left_after_the_module,
    page_token,
    request,
)
from floor_fixtures import journal_rows, simulated, station_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.wait import WebDriverWait

from controller.journal.store import Journal
from controller.service.shipper import Shipper
from controller.table.faults import FaultCode
from floor.auth import LoginGuard
from floor.collector import Collector
from floor.config import FloorConfig
from floor.headers import CSP
from floor.monitor import MonitorServer
from floor.servers import Broker, Database, free_port, wait_for

TABLE = "T21"
__all__ = ["browser", "no_leaks", "nothing_left_after_the_module"]


@pytest.fixture(scope="module")
def monitor_config(
    tmp_path_factory: pytest.TempPathFactory, floor_broker: Broker, floor_database: Database
) -> FloorConfig:
    return console_config(tmp_path_factory.mktemp("monitor"), floor_broker, floor_database)


@pytest.fixture(scope="module")
def station(
    tmp_path_factory: pytest.TempPathFactory, floor_broker: Broker, monitor_config: FloorConfig
) -> Iterator[tuple[Path, Shipper]]:
    """A station that dealt 3 rounds, shipping to a running collector."""
    collector = Collector(monitor_config)
    collector.start()
    journal = simulated(tmp_path_factory.mktemp("station") / "t21.sqlite3", 3, 21)
    shipper = Shipper(journal, TABLE, station_settings(floor_broker, TABLE))
    shipper.start()
    last = journal_rows(journal)[-1][0]
    assert wait_for(lambda: shipper.acked >= last, 30)
    yield journal, shipper
    shipper.stop()
    collector.stop()


@pytest.fixture(scope="module")
def monitor(monitor_config: FloorConfig) -> Iterator[MonitorServer]:
    server = MonitorServer(monitor_config)
    # The tests log in often from one address: the rate limit is tested on its own.
    server.console.guard = LoginGuard(per_address=10_000)
    server.start()
    yield server
    server.stop()


def test_the_grid_shows_a_fault_within_a_second_and_a_pit_supervisor_acknowledges_it(
    station: tuple[Path, Shipper],
    monitor: MonitorServer,
    browser: webdriver.Chrome,
    floor_database: Database,
) -> None:
    journal, _shipper = station
    log_in(browser, monitor.url, "pat")
    fault_cell = (By.CSS_SELECTOR, f"#table-{TABLE} .fault")
    WebDriverWait(browser, 10).until(ec.presence_of_element_located(fault_cell))
    assert browser.find_element(*fault_cell).text == ""
    # The station raises a fault: the row the procedure writes when play stops.
    with Journal.open(journal) as writer:
        writer.append(
            "fault",
            {"code": FaultCode.DEVICE_LOST.value, "message": "shoe lost", "state": "deal"},
        )
        WebDriverWait(browser, 1.0, poll_frequency=0.02).until(
            ec.text_to_be_present_in_element(fault_cell, "device_lost")
        )
        # A faulted table is on top of the grid, the alert in the list.
        first = browser.find_element(By.CSS_SELECTOR, "#grid tr")
        assert first.get_attribute("id") == f"table-{TABLE}"
        alert = browser.find_element(By.CSS_SELECTOR, "#alerts li.alert-fault")
        assert f"{TABLE}" in alert.text and "fault device_lost in deal" in alert.text
        assert browser.find_element(By.ID, "stale").get_attribute("hidden") is not None
        # The pit supervisor acknowledges it: who and when, kept; the record untouched.
        rows_before = _count(floor_database, "SELECT count(*) FROM journal_row")
        alert.find_element(By.CSS_SELECTOR, "button.ack").click()
        WebDriverWait(browser, 5).until(
            ec.text_to_be_present_in_element((By.ID, "alerts"), "acknowledged by pat at")
        )
        acked = _query(
            floor_database,
            "SELECT k.user_name, k.role, a.kind FROM alert_ack k JOIN alert a ON a.id = k.alert_id",
        )
        assert acked == [("pat", "pit_supervisor", "fault")]
        assert _count(floor_database, "SELECT count(*) FROM journal_row") == rows_before
        assert no_script_errors(browser) == []
        writer.append("fault_resolved", {"resolution": "resume"})
        WebDriverWait(browser, 10).until_not(
            ec.text_to_be_present_in_element(fault_cell, "device_lost")
        )


def test_surveillance_sees_no_acknowledge_button_and_its_post_is_refused(
    station: tuple[Path, Shipper],
    monitor: MonitorServer,
    browser: webdriver.Chrome,
    floor_database: Database,
) -> None:
    journal, _shipper = station
    with Journal.open(journal) as writer:
        writer.append("fault", {"code": "shoe_fault", "message": "jam", "state": "deal"})
    assert wait_for(
        lambda: _count(floor_database, "SELECT count(*) FROM alert WHERE cleared IS NULL") > 0,
        10,
    )
    (alert_id,) = _query(floor_database, "SELECT max(id) FROM alert WHERE cleared IS NULL")[0]
    log_in(browser, monitor.url, "sam")
    WebDriverWait(browser, 10).until(ec.presence_of_element_located((By.ID, f"alert-{alert_id}")))
    assert browser.find_elements(By.CSS_SELECTOR, "#alerts button.ack") == []
    status, sam = http_login(monitor.url, "sam")
    assert status == 303 and sam
    token = page_token(request(monitor.url, "/", cookies={"floor_session": sam}))
    refused = request(
        monitor.url, f"/alerts/{alert_id}/ack", method="POST",
        cookies={"floor_session": sam}, form={"form_token": token},
    )  # fmt: skip
    assert refused.status == 403
    assert _query(floor_database, "SELECT 1 FROM alert_ack WHERE alert_id = %s", alert_id) == []
    # The same request by a pit supervisor, with the pit supervisor's token, is taken.
    _status, pat = http_login(monitor.url, "pat")
    assert pat
    token = page_token(request(monitor.url, "/", cookies={"floor_session": pat}))
    taken = request(
        monitor.url, f"/alerts/{alert_id}/ack", method="POST",
        cookies={"floor_session": pat}, form={"form_token": token},
    )  # fmt: skip
    assert taken.status == 303
    assert _query(
        floor_database, "SELECT user_name FROM alert_ack WHERE alert_id = %s", alert_id
    ) == [("pat",)]
    with Journal.open(journal) as writer:
        writer.append("fault_resolved", {"resolution": "resume"})


def test_the_grid_shows_the_limits_the_table_posts_at_start(
    station: tuple[Path, Shipper], monitor: MonitorServer, browser: webdriver.Chrome
) -> None:
    """NY 5324.12(d)(2): the limits posted at the table, as its last start journaled them,
    on the floor's grid (a start without limits shows none)."""
    journal, _shipper = station
    log_in(browser, monitor.url, "pat")
    limits_cell = (By.CSS_SELECTOR, f"#table-{TABLE} .limits")
    posted = {
        "main_min_cents": 1000,
        "main_max_cents": 500_000,
        "match_min_cents": 500,
        "match_max_cents": 10_050,
    }
    with Journal.open(journal) as writer:
        started = {"version": "t", "table_id": TABLE, "profile": "PA", "decks": 6}
        writer.append("station_started", {**started, "sealed": False, "limits": posted})
        WebDriverWait(browser, 10, poll_frequency=0.02).until(
            ec.text_to_be_present_in_element(limits_cell, "$10\u2013$5,000")
        )
        assert browser.find_element(*limits_cell).text == ("$10\u2013$5,000, match $5\u2013$100.50")
        one_sided = {**dict.fromkeys(posted), "main_min_cents": 2500}
        writer.append("station_started", {**started, "sealed": False, "limits": one_sided})
        WebDriverWait(browser, 10, poll_frequency=0.02).until(
            ec.text_to_be_present_in_element(limits_cell, "$25\u2013any")
        )
        assert browser.find_element(*limits_cell).text == "$25\u2013any"


def test_the_grid_sorts_and_filters(
    station: tuple[Path, Shipper], monitor: MonitorServer, browser: webdriver.Chrome
) -> None:
    log_in(browser, monitor.url, "pat")
    WebDriverWait(browser, 10).until(ec.presence_of_element_located((By.ID, f"table-{TABLE}")))
    browser.find_element(By.ID, "filter-text").send_keys("no such table")
    WebDriverWait(browser, 5).until(ec.text_to_be_present_in_element((By.ID, "count-shown"), "0"))
    assert browser.find_elements(By.CSS_SELECTOR, "#grid tr") == []
    browser.find_element(By.ID, "filter-text").clear()
    browser.find_element(By.ID, "filter-text").send_keys(TABLE[:2])
    WebDriverWait(browser, 5).until(ec.presence_of_element_located((By.ID, f"table-{TABLE}")))
    header = browser.find_element(By.CSS_SELECTOR, "button[data-sort='win']")
    header.click()
    assert "\u25b2" in browser.find_element(By.CSS_SELECTOR, "button[data-sort='win']").text
    browser.find_element(By.CSS_SELECTOR, "button[data-sort='win']").click()
    assert "\u25bc" in browser.find_element(By.CSS_SELECTOR, "button[data-sort='win']").text


def test_only_a_logged_in_user_sees_the_floor_and_only_surveillance_recalls(
    station: tuple[Path, Shipper], monitor: MonitorServer
) -> None:
    assert http_login(monitor.url, "pat", "wrong password")[0] == 401
    assert http_login(monitor.url, "mallory", "whatever")[0] == 401
    assert request(monitor.url, "/events").status == 401
    sent_away = request(monitor.url, f"/recall/{TABLE}/1")
    assert sent_away.status == 303 and sent_away.headers["location"] == ["/login"]
    status, pat = http_login(monitor.url, "pat")
    assert status == 303 and pat
    assert request(monitor.url, f"/recall/{TABLE}/1", cookies={"floor_session": pat}).status == 403
    assert request(monitor.url, "/search", cookies={"floor_session": pat}).status == 403
    status, sam = http_login(monitor.url, "sam")
    assert status == 303 and sam
    answer = request(monitor.url, f"/recall/{TABLE}/1", cookies={"floor_session": sam})
    assert answer.status == 200 and "round 1" in answer.text
    # A forged cookie (a token the database never issued) is no login.
    forged = request(monitor.url, "/", cookies={"floor_session": sam[:-4] + "AAAA"})
    assert forged.status == 303 and forged.headers["location"] == ["/login"]


def test_a_logout_ends_the_session_for_every_copy_of_its_cookie(
    station: tuple[Path, Shipper], monitor: MonitorServer
) -> None:
    _status, cookie = http_login(monitor.url, "pat")
    assert cookie
    copied = {"floor_session": cookie}
    home = request(monitor.url, "/", cookies=copied)
    assert home.status == 200
    # An event stream opened with the cookie before the logout.
    stream = http.client.HTTPConnection("127.0.0.1", monitor.port, timeout=10)
    stream.request("GET", "/events", headers={"Cookie": f"floor_session={cookie}"})
    answer = stream.getresponse()
    assert answer.status == 200
    assert answer.readline() == b"retry: 2000\n"
    logout = request(
        monitor.url, "/logout", method="POST", cookies=copied,
        form={"form_token": page_token(home)},
    )  # fmt: skip
    assert logout.status == 303
    assert request(monitor.url, "/", cookies=copied).status == 303  # back to the login
    assert request(monitor.url, "/events", cookies=copied).status == 401
    assert request(monitor.url, f"/table/{TABLE}", cookies=copied).status == 303
    # The open stream is told and ends within a few seconds.
    deadline = time.monotonic() + 5
    seen = b""
    while time.monotonic() < deadline and b"event: logout" not in seen:
        line = answer.readline()
        if not line:
            break
        seen += line
    assert b"event: logout" in seen
    stream.close()


def test_a_logout_needs_the_pages_token(
    station: tuple[Path, Shipper], monitor: MonitorServer
) -> None:
    _status, cookie = http_login(monitor.url, "pat")
    assert cookie
    refused = request(
        monitor.url, "/logout", method="POST", cookies={"floor_session": cookie},
        form={"form_token": "0" * 64},
    )  # fmt: skip
    assert refused.status == 403
    assert request(monitor.url, "/", cookies={"floor_session": cookie}).status == 200


def test_no_login_from_another_site(station: tuple[Path, Shipper], monitor: MonitorServer) -> None:
    """Login CSRF: a page of another site that posts the attacker's name and password into
    the console (so that the victim works under the attacker's login) is refused: it has
    neither the ``SameSite=Strict`` pre-login cookie nor the token bound to it."""
    good = {"user": "pat", "password": PASSWORDS["pat"]}
    # No cookie, no token: what a cross-site form sends.
    assert request(monitor.url, "/login", method="POST", form=good).status == 403
    cookie, token = login_form(monitor.url)
    _other_cookie, other_token = login_form(monitor.url)
    # A token of another form (the attacker's own) with the victim's cookie.
    wrong = request(
        monitor.url, "/login", method="POST", cookies={"floor_login": cookie},
        form={**good, "form_token": other_token},
    )  # fmt: skip
    assert wrong.status == 403
    # The right pair, but the browser says the form came from another site.
    for headers in ({"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"}):
        crossed = request(
            monitor.url, "/login", method="POST", cookies={"floor_login": cookie},
            form={**good, "form_token": token}, headers=headers,
        )  # fmt: skip
        assert crossed.status == 403, headers
    # The same pair from the console's own page is taken.
    taken = request(
        monitor.url, "/login", method="POST", cookies={"floor_login": cookie},
        form={**good, "form_token": token},
        headers={"Origin": monitor.url.rstrip("/"), "Sec-Fetch-Site": "same-origin"},
    )  # fmt: skip
    assert taken.status == 303 and taken.cookie("floor_session")


def test_wrong_passwords_lock_the_name_and_one_address_is_rate_limited(
    station: tuple[Path, Shipper], monitor: MonitorServer
) -> None:
    lenient = monitor.console.guard
    try:
        monitor.console.guard = LoginGuard(lock_after=5, per_address=18)
        for _ in range(4):
            assert http_login(monitor.url, "pat", "wrong")[0] == 401
        assert http_login(monitor.url, "pat")[0] == 303  # four wrong: not locked, count reset
        for _ in range(5):
            assert http_login(monitor.url, "pat", "wrong")[0] == 401
        assert http_login(monitor.url, "pat")[0] == 429  # locked, the right password too
        assert http_login(monitor.url, "sam")[0] == 303  # another name is not
        # Unknown names lock the same way (a lock tells nothing about which names exist).
        for _ in range(5):
            assert http_login(monitor.url, "nobody", "wrong")[0] == 401
        assert http_login(monitor.url, "nobody", "wrong")[0] == 429
        # 18 attempts a minute from one address; the 19th within the minute is refused.
        assert http_login(monitor.url, "sam")[0] == 429
    finally:
        monitor.console.guard = lenient


def test_every_answer_carries_the_security_headers(
    station: tuple[Path, Shipper], monitor: MonitorServer
) -> None:
    _status, pat = http_login(monitor.url, "pat")
    assert pat
    for path, cookies in (
        ("/login", None),
        ("/", {"floor_session": pat}),
        ("/pit", {"floor_session": pat}),
        (f"/table/{TABLE}", {"floor_session": pat}),
        ("/static/console.js", None),
        ("/events", None),
        ("/no-such-page", None),
    ):
        answer = request(monitor.url, path, cookies=cookies)
        headers = answer.headers
        assert headers["content-security-policy"] == [CSP], path
        assert "script-src 'self'" in CSP and "unsafe-inline" not in CSP
        assert "frame-ancestors 'none'" in CSP
        assert headers["x-frame-options"] == ["DENY"], path
        assert headers["x-content-type-options"] == ["nosniff"], path
        assert headers["referrer-policy"] == ["same-origin"], path
        cache = headers["cache-control"]
        assert cache == (["max-age=3600"] if path.startswith("/static/") else ["no-store"]), path


class _Framer(http.server.BaseHTTPRequestHandler):
    target = ""

    def do_GET(self) -> None:
        page = f"<!doctype html><iframe id=victim src='{self.target}login'></iframe>".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    def log_message(self, *_args: object) -> None:
        pass


def test_no_other_page_can_frame_the_login(
    monitor: MonitorServer, browser: webdriver.Chrome
) -> None:
    """Clickjacking: a page on another origin puts the console's login in a frame; the
    browser shows nothing of it (``frame-ancestors 'none'``, ``X-Frame-Options: DENY``)."""
    _Framer.target = monitor.url.replace("127.0.0.1", "localhost")  # another origin
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), _Framer)
    thread = threading.Thread(target=server.serve_forever, name="framer")
    thread.start()
    try:
        browser.get(f"http://127.0.0.1:{server.server_address[1]}/")
        frame = WebDriverWait(browser, 10).until(ec.presence_of_element_located((By.ID, "victim")))
        time.sleep(0.5)  # no event says "the frame was refused": give it time to load
        browser.switch_to.frame(frame)
        with pytest.raises(NoSuchElementException):
            browser.find_element(By.NAME, "password")
    finally:
        browser.switch_to.default_content()
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_the_only_writes_are_login_logout_and_acknowledge(monitor: MonitorServer) -> None:
    from starlette.routing import Route

    routes = monitor.app.routes
    posts = {r.path for r in routes if isinstance(r, Route) and "POST" in (r.methods or ())}
    assert posts == {"/login", "/logout", "/alerts/{alert:int}/ack"}


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=6000))
def test_any_login_body_is_refused_in_an_answer_never_a_crash(
    monitor: MonitorServer, body: bytes
) -> None:
    answer = request(monitor.url, "/login", method="POST", body=body)
    # Too large: over 4096 bytes, or over 20 fields (20 "&" make 21).
    assert answer.status == (413 if len(body) > 4096 or body.count(b"&") >= 20 else 403)


def _query(database: Database, sql: str, *params: object) -> list[tuple[object, ...]]:
    with psycopg.connect(database.conninfo) as conn:
        return conn.execute(sql.encode(), params).fetchall()


def _count(database: Database, sql: str) -> int:
    (value,) = _query(database, sql)[0]
    assert isinstance(value, int)
    return value
