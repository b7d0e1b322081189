"""The console says when its own picture is stale, in a real headless Chromium: with
PostgreSQL stopped, with the collector process killed, and with the console's own process
killed (the event stream lost), a banner with the time of the last good update appears
within a few seconds, and goes once each is back. Real processes throughout:
``dealer-station floor collect`` and ``floor serve``, mosquitto, PostgreSQL."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from console_web import browser, log_in, screenshot, serve_process, write_console_toml
from floor_fixtures import journal_rows, simulated, start_collector_process, station_settings
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.wait import WebDriverWait

from controller.service.shipper import Shipper
from floor.servers import Broker, Database, free_port, wait_for

TABLE = "T05"
SHOWS = 6.0  # seconds: "within a few seconds" (the console's own limit is 3 s, plus a tick)
__all__ = ["browser"]


class Floor:
    """The processes this module stops and starts again."""

    def __init__(self, directory: Path, broker: Broker, database: Database) -> None:
        self.database = database
        self.port = free_port()
        self.config = write_console_toml(directory, broker, database, self.port)
        self.collector = start_collector_process(self.config)
        try:
            self.console = serve_process(self.config, self.port)
        except BaseException:
            self.kill(self.collector)
            raise
        self.url = f"http://127.0.0.1:{self.port}/"

    def kill(self, process: subprocess.Popen[bytes]) -> None:
        process.send_signal(signal.SIGKILL)
        process.wait(10)

    def close(self) -> None:
        for process in (self.collector, self.console):
            if process.poll() is None:
                process.terminate()
                process.wait(10)


@pytest.fixture(scope="module")
def floor(
    tmp_path_factory: pytest.TempPathFactory, floor_broker: Broker, floor_database: Database
) -> Iterator[Floor]:
    directory = tmp_path_factory.mktemp("stale")
    running = Floor(directory, floor_broker, floor_database)
    journal = simulated(directory / "t05.sqlite3", 2, 5)
    shipper = Shipper(journal, TABLE, station_settings(floor_broker, TABLE))
    shipper.start()
    assert wait_for(lambda: shipper.acked >= journal_rows(journal)[-1][0], 30)
    yield running
    shipper.stop()
    running.close()


def _banner(driver: webdriver.Chrome) -> str | None:
    banner = driver.find_element(By.ID, "stale")
    return None if banner.get_attribute("hidden") is not None else banner.text


def _wait_stale(driver: webdriver.Chrome, words: str) -> str:
    WebDriverWait(driver, SHOWS, poll_frequency=0.1).until(lambda d: words in (_banner(d) or ""))
    return _banner(driver) or ""


def _wait_fresh(driver: webdriver.Chrome, seconds: float = 20) -> None:
    """No banner, and the console has said so (a ``status`` event came, with a last good
    update): not merely a page that has heard nothing yet."""

    def fresh(d: webdriver.Chrome) -> bool:
        told = d.find_element(By.ID, "last-good").get_attribute("textContent") != "never"
        return told and _banner(d) is None

    WebDriverWait(driver, seconds, poll_frequency=0.2).until(fresh)


def test_no_banner_while_everything_runs(floor: Floor, browser: webdriver.Chrome) -> None:
    log_in(browser, floor.url, "pat")
    WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.ID, f"table-{TABLE}"))
    _wait_fresh(browser)


def test_a_banner_while_the_database_is_stopped(floor: Floor, browser: webdriver.Chrome) -> None:
    log_in(browser, floor.url, "pat")
    _wait_fresh(browser)
    floor.database.stop()
    try:
        text = _wait_stale(browser, "database unreachable")
        assert "Last good update: 20" in text  # a date and time, not "never"
        # The last figures stay on the grid, under the banner.
        assert browser.find_elements(By.ID, f"table-{TABLE}")
        screenshot(browser, "floor-stale")
    finally:
        floor.database.start()
    _wait_fresh(browser)


def test_a_banner_while_no_collector_runs(floor: Floor, browser: webdriver.Chrome) -> None:
    log_in(browser, floor.url, "pat")
    _wait_fresh(browser)
    floor.kill(floor.collector)
    try:
        text = _wait_stale(browser, "no collector heard from")
        assert "nothing new is stored" in text
    finally:
        floor.collector = start_collector_process(floor.config)
    _wait_fresh(browser)


def test_a_banner_when_the_console_itself_is_gone(floor: Floor, browser: webdriver.Chrome) -> None:
    log_in(browser, floor.url, "pat")
    _wait_fresh(browser)
    floor.kill(floor.console)
    try:
        text = _wait_stale(browser, "event stream lost")
        assert "Last good update: 20" in text
    finally:
        floor.console = serve_process(floor.config, floor.port)
    # The page reconnects by itself (the same session: it is kept in the database).
    _wait_fresh(browser)
