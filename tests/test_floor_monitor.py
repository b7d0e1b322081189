"""The floor monitor in a real headless Chromium (Debian's chromium and chromium-driver,
selenium), fed by a real station journal through the real shipper, broker, collector and
PostgreSQL: a fault shows on the grid within a second, a recall reads as ``journal
recall`` prints it; logins and roles over plain HTTP."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from floor_fixtures import collector_config, journal_rows, simulated, station_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.wait import WebDriverWait

from controller.journal.store import Journal
from controller.service.shipper import Shipper
from controller.table.faults import FaultCode
from floor.auth import hash_password
from floor.collector import Collector
from floor.config import FloorConfig, parse_floor_config
from floor.monitor import MonitorServer
from floor.servers import Broker, Database, free_port, wait_for

PASSWORDS = {"sam": "surveil-1234", "pat": "pit-boss-1234"}
TABLE = "T21"


@pytest.fixture(autouse=True)
def no_leaks() -> Iterator[None]:
    """Replaces conftest's per-test check here: the monitor's worker threads, its event
    streams and the browser's connection live across this module's tests by design (one
    server, one browser). :func:`nothing_left_after_the_module` checks them at the end."""
    yield


@pytest.fixture(scope="module", autouse=True)
def nothing_left_after_the_module() -> Iterator[None]:
    """No thread of the module's servers, collector, shipper or browser outlives it."""
    before = set(threading.enumerate())
    yield
    assert wait_for(lambda: not (set(threading.enumerate()) - before), 10), [
        t.name for t in set(threading.enumerate()) - before
    ]


@pytest.fixture(scope="module")
def monitor_config(
    tmp_path_factory: pytest.TempPathFactory, floor_broker: Broker, floor_database: Database
) -> FloorConfig:
    directory = tmp_path_factory.mktemp("monitor")
    (directory / "session.key").write_text("k" * 48)
    base = collector_config(floor_broker, floor_database)
    return parse_floor_config(
        {
            "broker": {
                "host": "127.0.0.1",
                "port": floor_broker.port,
                "username": "collector",
                "password_file": str(base.broker.password_file),
                "ca_file": str(floor_broker.ca_file),
                "client_id": "collector-monitor",
            },
            "database": {"conninfo": floor_database.conninfo},
            "monitor": {
                "port": free_port(),
                "session_key_file": "session.key",
                "users": {
                    "sam": {
                        "role": "surveillance",
                        "password_hash": hash_password(PASSWORDS["sam"], n=2**12),
                    },
                    "pat": {
                        "role": "pit_supervisor",
                        "password_hash": hash_password(PASSWORDS["pat"], n=2**12),
                    },
                },
            },
        },
        directory / "floor.toml",
    )


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
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    options.add_argument("--window-size=1200,700")
    driver = webdriver.Chrome(
        service=Service(executable_path="/usr/bin/chromedriver"), options=options
    )
    driver.get("about:blank")  # the driver's own connection is open before the tests
    yield driver
    driver.quit()


def log_in(driver: webdriver.Chrome, monitor: MonitorServer, user: str) -> None:
    driver.get(monitor.url + "login")
    driver.find_element(By.NAME, "user").send_keys(user)
    driver.find_element(By.NAME, "password").send_keys(PASSWORDS[user])
    driver.find_element(By.ID, "login").click()
    WebDriverWait(driver, 10).until(ec.presence_of_element_located((By.ID, f"table-{TABLE}")))


def test_the_grid_shows_a_fault_within_a_second_of_the_station_raising_it(
    station: tuple[Path, Shipper], monitor: MonitorServer, browser: webdriver.Chrome
) -> None:
    journal, _shipper = station
    log_in(browser, monitor, "pat")
    fault_cell = (By.CSS_SELECTOR, f"#table-{TABLE} .fault")
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
        alerts = browser.find_element(By.ID, "alerts").text
        assert f"{TABLE} fault: fault device_lost in deal" in alerts
        screenshot = os.environ.get("FLOOR_SCREENSHOT")
        if screenshot:  # docs/floor.md's picture: FLOOR_SCREENSHOT=docs/floor-monitor.png
            browser.save_screenshot(screenshot)
        writer.append("fault_resolved", {"resolution": "resume"})
        WebDriverWait(browser, 10).until_not(
            ec.text_to_be_present_in_element(fault_cell, "device_lost")
        )


def test_the_grid_shows_the_limits_the_table_posts_at_start(
    station: tuple[Path, Shipper], monitor: MonitorServer, browser: webdriver.Chrome
) -> None:
    """NY 5324.12(d)(2): the limits posted at the table, as its last start journaled them,
    on the floor's grid (a start without limits shows none)."""
    journal, _shipper = station
    log_in(browser, monitor, "pat")
    limits_cell = (By.CSS_SELECTOR, f"#table-{TABLE} .limits")
    posted = {
        "main_min_cents": 1000,
        "main_max_cents": 500_000,
        "match_min_cents": 500,
        "match_max_cents": 10_000,
    }
    with Journal.open(journal) as writer:
        started = {"version": "t", "table_id": TABLE, "profile": "PA", "decks": 6}
        writer.append("station_started", {**started, "sealed": False, "limits": posted})
        WebDriverWait(browser, 10, poll_frequency=0.02).until(
            ec.text_to_be_present_in_element(limits_cell, "$10.00\u2013$5000.00")
        )
        assert browser.find_element(*limits_cell).text == (
            "$10.00\u2013$5000.00, match $5.00\u2013$100.00"
        )
        one_sided = {**dict.fromkeys(posted), "main_min_cents": 2500}
        writer.append("station_started", {**started, "sealed": False, "limits": one_sided})
        WebDriverWait(browser, 10, poll_frequency=0.02).until(
            ec.text_to_be_present_in_element(limits_cell, "$25.00\u2013any")
        )
        assert browser.find_element(*limits_cell).text == "$25.00\u2013any"


def _recall_block(journal: Path, round_no: int) -> str:
    printed = subprocess.run(
        [sys.executable, "-m", "controller.cli.main", "journal", "recall", "10", "--journal",
         str(journal)],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    blocks = [b for b in printed.split("\n\n") if b.startswith(f"Round {round_no} ")]
    assert len(blocks) == 1
    return blocks[0]


def test_a_recall_reads_as_the_stations_own_journal_recall(
    station: tuple[Path, Shipper], monitor: MonitorServer, browser: webdriver.Chrome
) -> None:
    journal, _shipper = station
    log_in(browser, monitor, "sam")
    browser.find_element(By.LINK_TEXT, TABLE).click()
    browser.find_element(By.LINK_TEXT, "round 2").click()
    shown = browser.find_element(By.ID, "recall").text
    expected = _recall_block(journal, 2)
    assert "$" in expected  # amounts: wagers, nets
    assert shown == expected


def _get(url: str, cookie: str | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read(2000).decode()
    except urllib.error.HTTPError as err:
        body = err.read().decode()
        err.close()
        return err.code, body


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *_args: Any) -> None:
        return None


def _login(monitor: MonitorServer, user: str, password: str) -> tuple[int, str | None]:
    opener = urllib.request.build_opener(_NoRedirect)
    data = urllib.parse.urlencode({"user": user, "password": password}).encode()
    try:
        with opener.open(monitor.url + "login", data=data, timeout=10) as answer:
            return answer.status, None
    except urllib.error.HTTPError as err:
        cookie = err.headers.get("set-cookie")
        err.close()
        return err.code, cookie.split(";")[0] if cookie else None


def test_only_a_logged_in_user_sees_the_floor_and_only_surveillance_recalls(
    station: tuple[Path, Shipper], monitor: MonitorServer
) -> None:
    assert _login(monitor, "pat", "wrong password")[0] == 401
    assert _login(monitor, "mallory", "whatever")[0] == 401
    assert _get(monitor.url + "events")[0] == 401
    _code, body = _get(monitor.url + f"recall/{TABLE}/1")  # sent to the login form
    assert "Log in" in body and "Round 1" not in body
    status, pat = _login(monitor, "pat", PASSWORDS["pat"])
    assert status == 303 and pat
    assert _get(monitor.url + f"recall/{TABLE}/1", pat)[0] == 403
    status, sam = _login(monitor, "sam", PASSWORDS["sam"])
    assert status == 303 and sam
    code, body = _get(monitor.url + f"recall/{TABLE}/1", sam)
    assert code == 200 and "Round 1" in body
    # A forged cookie (the signature does not match) is no login.
    assert "Log in" in _get(monitor.url, sam[:-4] + "AAAA")[1]


def test_no_route_writes(monitor: MonitorServer) -> None:
    """Read-only: the only POSTs are the login and the logout."""
    from starlette.routing import Route

    app = monitor.server.config.app
    posts = {r.path for r in app.routes if isinstance(r, Route) and "POST" in (r.methods or ())}
    assert posts == {"/login", "/logout"}


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=6000))
def test_any_login_body_is_refused_in_an_answer_never_a_crash(
    monitor: MonitorServer, body: bytes
) -> None:
    request = urllib.request.Request(
        monitor.url + "login",
        data=body,
        method="POST",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            code = answer.status
    except urllib.error.HTTPError as err:
        code = err.code
        err.close()
    assert code == (413 if len(body) > 4096 else 401)
