"""Faults between the stations and the floor database, with real servers: the broker
killed and restarted, a collector killed with SIGKILL, PostgreSQL restarted, a station
offline for a whole shoe. After each, every station's journal and the database agree row
for row: nothing lost, nothing twice (the primary key would refuse a second copy, and the
comparison would show a missing one)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from floor_fixtures import (
    collector_config,
    database_rows,
    journal_rows,
    row_count,
    simulate,
    start_collector_process,
    station_settings,
    write_floor_toml,
)

from controller.service.shipper import Shipper
from floor import servers
from floor.collector import Collector
from floor.servers import Broker, Database, ServerError, wait_for

ROUNDS = 30


class Floor:
    """Stations (real simulations, each with its shipper) feeding the module's servers."""

    def __init__(self, directory: Path, broker: Broker, tables: tuple[str, ...]) -> None:
        self.journals = {t: directory / f"{t}.sqlite3" for t in tables}
        self.stations = [simulate(self.journals[t], ROUNDS, n + 20) for n, t in enumerate(tables)]
        self.shippers = {
            t: Shipper(self.journals[t], t, station_settings(broker, t, batch_rows=100))
            for t in tables
        }
        for shipper in self.shippers.values():
            shipper.start()

    def some_rows_stored(self, database: Database) -> bool:
        return all(database_rows(database, t) for t in self.journals)

    def finish(self) -> None:
        """Wait for the stations to end and for every row to be acknowledged."""
        for station in self.stations:
            assert station.wait(180) == 0
        for table, journal in self.journals.items():
            last = row_count(journal)
            assert wait_for(lambda s=self.shippers[table], n=last: s.acked >= n, 60), table

    def stop(self) -> None:
        for station in self.stations:
            if station.poll() is None:
                station.kill()
                station.wait()
        for shipper in self.shippers.values():
            shipper.stop()

    def assert_agree(self, database: Database) -> None:
        for table, journal in self.journals.items():
            assert database_rows(database, table) == journal_rows(journal), table


@pytest.fixture
def collector(floor_broker: Broker, floor_database: Database) -> Iterator[Collector]:
    running = Collector(collector_config(floor_broker, floor_database))
    running.start()
    yield running
    running.stop()


def test_broker_killed_and_restarted_mid_stream(
    tmp_path: Path, floor_broker: Broker, floor_database: Database, collector: Collector
) -> None:
    floor = Floor(tmp_path, floor_broker, ("T01", "T02", "T03"))
    try:
        assert wait_for(lambda: floor.some_rows_stored(floor_database), 30)
        floor_broker.kill()
        # The stations deal on without the broker: their journals grow meanwhile.
        grown = {t: row_count(j) + 50 for t, j in floor.journals.items()}
        assert wait_for(
            lambda: all(row_count(j) >= grown[t] for t, j in floor.journals.items()), 60
        )
        floor_broker.start()
        floor.finish()
    finally:
        floor.stop()
        if floor_broker.process is None:
            floor_broker.start()
    floor.assert_agree(floor_database)


def test_collector_killed_with_sigkill_mid_stream(
    tmp_path: Path, floor_broker: Broker, floor_database: Database
) -> None:
    config = write_floor_toml(floor_broker, floor_database, tmp_path / "floor.toml", "collector-3")
    first = start_collector_process(config)
    floor = Floor(tmp_path, floor_broker, ("T04", "T05"))
    second = None
    try:
        assert wait_for(lambda: floor.some_rows_stored(floor_database), 30)
        first.send_signal(signal.SIGKILL)
        first.wait()
        second = start_collector_process(config)
        floor.finish()
    finally:
        floor.stop()
        for process in (first, second):
            if process is not None and process.poll() is None:
                process.terminate()
                process.wait(10)
    floor.assert_agree(floor_database)


def test_postgres_restarted_mid_stream(
    tmp_path: Path, floor_broker: Broker, floor_database: Database, collector: Collector
) -> None:
    floor = Floor(tmp_path, floor_broker, ("T06", "T07"))
    try:
        assert wait_for(lambda: floor.some_rows_stored(floor_database), 30)
        floor_database.stop()  # -m immediate: as a crash
        floor_database.start()
        floor.finish()
    finally:
        floor.stop()
    floor.assert_agree(floor_database)


def test_a_station_offline_for_a_whole_shoe_catches_up(
    tmp_path: Path, floor_broker: Broker, floor_database: Database, collector: Collector
) -> None:
    floor = Floor(tmp_path, floor_broker, ("T08",))
    journal = floor.journals["T08"]
    try:
        assert wait_for(lambda: floor.some_rows_stored(floor_database), 30)
        floor.shippers["T08"].stop()  # the station's network is gone
        offline_from = row_count(journal)

        def shoes_since() -> int:
            return sum(
                1 for r in journal_rows(journal) if r[0] > offline_from and r[2] == "shoe_loaded"
            )

        # Two shoes loaded while offline: a whole shoe was dealt in between.
        assert wait_for(lambda: shoes_since() >= 2, 120)
        assert len(database_rows(floor_database, "T08")) <= offline_from
        floor.shippers["T08"] = Shipper(journal, "T08", station_settings(floor_broker, "T08"))
        floor.shippers["T08"].start()
        floor.finish()
    finally:
        floor.stop()
    floor.assert_agree(floor_database)


def test_a_server_tool_that_is_not_installed_is_one_line_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The bench and ``make floor-demo`` start the broker and the database themselves; on a
    machine without Debian's packages they say which tool is missing and how to get it."""
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing on it: mosquitto_passwd, openssl gone
    with pytest.raises(ServerError, match=r"^openssl is not installed \(make system-deps"):
        Broker(["PA-S21-01"])
    monkeypatch.setattr(servers, "PG_BIN", tmp_path)
    with pytest.raises(ServerError, match=r"initdb is not installed \(make system-deps"):
        Database()
