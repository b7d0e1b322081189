"""Every string a station sends is inert in the console: a station whose journal carries
markup and script in the version and profile it claims, its devices' names, serials and
firmware, a fault's code, state and message, a card and a settlement's fields, shipped
through the real shipper, broker, collector and PostgreSQL to the real console, shows them
as text in a real headless Chromium, and none of them runs on any page (the grid, the
alerts, the table's page, the pit view, the recall, the search).

(The table id cannot carry any of it: the topic takes ``[A-Za-z0-9._-]`` only,
``controller.journal.wire.TABLE_NAME``, and the floor refuses rows that name another table
than the topic's, ``floor.screen.row_problem``.)"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from console_web import browser, console_config, log_in, no_leaks, nothing_left_after_the_module
from floor_fixtures import journal_rows, station_settings
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.wait import WebDriverWait

from controller.journal.store import Journal
from controller.service.shipper import Shipper
from floor.collector import Collector
from floor.monitor import MonitorServer
from floor.servers import Broker, Database, wait_for

TABLE = "T07"
SCRIPT = "<script>window.__pwned=1</script>"
IMAGE = "<img src=x onerror=__pwned=2>"  # 29 characters: fits a device name (32)
SVG = "<svg onload=__pwned=5>"  # and a device's health (32)
BREAKOUT = '"></td><script>window.__pwned=3</script>'
CLOSER = "</script><script>window.__pwned=4</script>"
__all__ = ["browser", "no_leaks", "nothing_left_after_the_module"]


def _hostile_journal(path: object) -> None:
    with Journal.open(path) as station:  # type: ignore[arg-type]
        station.append(
            "station_started",
            {"version": CLOSER, "table_id": TABLE, "profile": BREAKOUT, "decks": IMAGE,
             "sealed": False, "limits": None},
        )  # fmt: skip
        station.append(
            "device",
            {"device": IMAGE, "status": SVG, "serial": SCRIPT, "firmware": BREAKOUT},
        )
        station.append(
            "device",
            {"device": "shoe", "status": "fault", "serial": IMAGE, "firmware": CLOSER,
             "reason": SCRIPT},
        )  # fmt: skip
        station.append("round_started", {"round": 1, "seats": [
            {"seat": 1, "wager_cents": 1000, "match_cents": 0}]}, 1)  # fmt: skip
        station.append("card", {"card": SCRIPT, "role": "initial", "seat": 1, "hand": 1}, 1)
        station.append("card", {"card": IMAGE, "role": "up", "seat": None, "hand": None}, 1)
        station.append("decision", {"seat": 1, "hand": 1, "decision": BREAKOUT}, 1)
        station.append(
            "settlement",
            {"seat": 1, "hand": 1, "wager": "main", "outcome": SCRIPT, "odds": IMAGE,
             "bonus": CLOSER, "net_cents": 1000, "total": BREAKOUT},
            1,
        )  # fmt: skip
        station.append("fault", {"code": SCRIPT, "state": IMAGE, "message": BREAKOUT}, 1)
        station.append("round_completed", {"reshuffle": False}, 1)


@pytest.fixture(scope="module")
def console(
    tmp_path_factory: pytest.TempPathFactory, floor_broker: Broker, floor_database: Database
) -> Iterator[MonitorServer]:
    directory = tmp_path_factory.mktemp("inert")
    journal = directory / "t07.sqlite3"
    _hostile_journal(journal)
    config = console_config(
        directory, floor_broker, floor_database, casino={"pits": {"Pit 7": [TABLE]}}
    )
    collector = Collector(config)
    collector.start()
    shipper = Shipper(journal, TABLE, station_settings(floor_broker, TABLE))
    shipper.start()
    assert wait_for(lambda: shipper.acked >= journal_rows(journal)[-1][0], 30)
    server = MonitorServer(config)
    server.start()
    yield server
    server.stop()
    shipper.stop()
    collector.stop()


def _nothing_ran(driver: webdriver.Chrome) -> None:
    assert driver.execute_script("return typeof window.__pwned") == "undefined"
    scripts = driver.execute_script(
        "return [...document.scripts].map(s => [s.getAttribute('src'), s.type]);"
    )
    for src, kind in scripts:
        assert (src or "").startswith("/static/") or kind == "application/json", scripts
    assert driver.find_elements(By.CSS_SELECTOR, "img, svg") == []


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        (f"table/{TABLE}", [SCRIPT, BREAKOUT, CLOSER, IMAGE]),
        (f"recall/{TABLE}/1", [BREAKOUT, CLOSER]),
        (f"recall/{TABLE}/1?view=text", [SCRIPT, IMAGE, BREAKOUT, CLOSER]),
        ("pit", []),
        (f"search?table={TABLE}", []),
    ],
)
def test_no_station_string_runs_on_a_page(
    console: MonitorServer, browser: webdriver.Chrome, path: str, shown: list[str]
) -> None:
    log_in(browser, console.url, "sam")
    browser.get(console.url + path)
    text = browser.find_element(By.TAG_NAME, "body").text
    for payload in shown:
        assert payload in text, (path, payload)
    _nothing_ran(browser)


def test_no_station_string_runs_on_the_live_grid_or_in_its_alerts(
    console: MonitorServer, browser: webdriver.Chrome
) -> None:
    log_in(browser, console.url, "sam")
    row = (By.ID, f"table-{TABLE}")
    WebDriverWait(browser, 10).until(ec.presence_of_element_located(row))
    WebDriverWait(browser, 10).until(
        ec.text_to_be_present_in_element((By.CSS_SELECTOR, f"#table-{TABLE} .fault"), SCRIPT)
    )
    line = browser.find_element(*row).text
    assert f"{SCRIPT} ({IMAGE})" in line  # the fault's code and state, as text
    assert f"{IMAGE} {SVG}" in line  # a device's name and health
    alerts = browser.find_element(By.ID, "alerts").text
    assert f"fault {SCRIPT} in {IMAGE}" in alerts
    _nothing_ran(browser)
