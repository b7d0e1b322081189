"""The station's stop: every device closed, then ``clean_shutdown`` journaled. systemd allows
the whole stop 10 s (``TimeoutStopSec=``, docs/operations.md) before it kills the station with
``clean_shutdown`` unwritten, so a device that holds the stop up is named in the log.

The clock is the station module's ``time.monotonic``, moved on by the drivers' ``close``
(no sleeping); the journal is the real SQLite journal.
"""

from __future__ import annotations

import queue
from pathlib import Path
from types import SimpleNamespace

import pytest
import structlog

from controller.journal.store import Journal, JournalReader
from controller.service import station as station_module
from controller.service.station import Station
from drivers.hal import DeviceEvent


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


class ShoeDriver:
    """A driver whose close takes ``seconds`` on the clock."""

    def __init__(self, clock: Clock, seconds: float, closed: list[str]) -> None:
        self.clock, self.seconds, self.closed = clock, seconds, closed

    def start(self) -> None:
        raise AssertionError("stopped before the start: never started")

    def close(self) -> None:
        self.clock.now += self.seconds
        self.closed.append(type(self).__name__)


class PanelDriver(ShoeDriver):
    pass


class StandInTable:
    state = SimpleNamespace(value="betting")
    round_no = 0
    fault = None
    on_state = None


@pytest.mark.parametrize(("shoe_seconds", "named"), [(3.0, ["ShoeDriver"]), (1.0, [])])
def test_a_device_that_holds_the_stop_is_named_and_the_stop_is_still_journaled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shoe_seconds: float, named: list[str]
) -> None:
    """Above one second a device's close is named with its seconds (3 s: named; exactly
    1 s: not); ``stopped`` gives the seconds of all the closes, and the journal ends with
    ``clean_shutdown`` after every device is closed."""
    clock = Clock()
    monkeypatch.setattr(station_module, "time", SimpleNamespace(monotonic=clock.monotonic))
    closed: list[str] = []
    journal = Journal.open(tmp_path / "journal.sqlite3")
    events: queue.Queue[DeviceEvent] = queue.Queue()
    drivers = [ShoeDriver(clock, shoe_seconds, closed), PanelDriver(clock, 0.25, closed)]
    station = Station(StandInTable(), journal, drivers, events)  # type: ignore[arg-type]
    station.stop()  # SIGTERM during the start: nothing started, everything closed
    with structlog.testing.capture_logs() as logs:
        station.run()
    journal.close()
    assert closed == ["PanelDriver", "ShoeDriver"]  # the reverse of their start order
    slow = [line for line in logs if line["event"] == "device slow to close"]
    assert [line["device"] for line in slow] == named
    assert all(line["seconds"] == shoe_seconds for line in slow)
    (stopped,) = [line for line in logs if line["event"] == "stopped"]
    assert stopped["closing_seconds"] == shoe_seconds + 0.25
    with JournalReader.open(tmp_path / "journal.sqlite3") as reader:
        last = reader.last()
    assert last is not None and last.kind == "clean_shutdown"
