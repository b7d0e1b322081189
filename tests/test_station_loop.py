"""The station's loop (``controller.service.station``): the devices come up one at a time,
the table resumes its output, READY goes to systemd, then events are served in group
commits until ``stop``; the device commands an event causes wait for its commit.

A real table (Pennsylvania, six decks) with recording devices, the real SQLite journal in
``tmp_path`` and a real sd_notify socket (``daemon_support.NotifyListener``). The drivers
the station starts are stand-ins that note, in one shared trace, when they start, report,
hear of a commit and close. Each test builds its own rig (a few milliseconds).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import structlog
from daemon_support import NotifyListener
from table_support import RecordingPanel, RecordingReader, RecordingShoe, RecordingShuffler

from controller.journal.store import Journal, JournalReader
from controller.rules.profiles import get_profile
from controller.service import station as station_module
from controller.service.sdnotify import Notifier
from controller.service.station import (
    GROUP_COMMIT_MAX,
    WAKE,
    CommandBuffer,
    Station,
    deferred,
    write_ahead,
)
from controller.table.machine import TableDevices, TableSettings
from controller.table.procedure import Table
from controller.table.view import TableView
from drivers.hal import (
    Button,
    ButtonPressed,
    Device,
    DeviceConnected,
    DeviceEvent,
    DeviceFault,
    DeviceKind,
    PeekTarget,
)

NEXT = ButtonPressed(Button.NEXT)


class StandInDriver:
    """A driver the station starts and closes: notes both in ``trace`` and, when started,
    puts its ``reports`` on the station's queue (as a reader thread would)."""

    def __init__(
        self,
        name: str,
        trace: list[str],
        events: queue.Queue[DeviceEvent],
        reports: Sequence[DeviceEvent] = (),
    ) -> None:
        self.name, self.trace, self.events, self.reports = name, trace, events, reports
        self.started_at: float | None = None
        self.started = threading.Event()

    def start(self) -> None:
        self.started_at = time.monotonic()
        self.started.set()
        self.trace.append(f"start {self.name}")
        for report in self.reports:
            self.events.put(report)

    def close(self) -> None:
        self.trace.append(f"close {self.name}")


class AcknowledgingDriver(StandInDriver):
    """A driver whose device hears of its reports once they are committed
    (``drivers.hal.CommitAware``)."""

    def hold_acks_until_committed(self) -> None:
        self.trace.append(f"hold {self.name}")

    def committed(self, event: DeviceEvent) -> None:
        self.trace.append(f"committed {type(event).__name__}")


@dataclass
class TracingShuffler(RecordingShuffler):
    """Notes each shuffle in the trace with the number of ``shuffle_commanded`` rows on
    disk at that moment (read through a second connection); may report events back."""

    trace: list[str] = field(default_factory=list)
    path: Path | None = None
    events: queue.Queue[DeviceEvent] | None = None
    reports: Sequence[DeviceEvent] = ()

    def shuffle(self, decks: int) -> None:
        super().shuffle(decks)
        assert self.path is not None
        with JournalReader.open(self.path) as reader:
            on_disk = sum(1 for r in reader.rows() if r.kind == "shuffle_commanded")
        self.trace.append(f"shuffle {decks} ({on_disk} on disk)")
        if self.events is not None:
            for report in self.reports:
                self.events.put(report)


class Rig:
    """A real table, journal and notifier around one station (built per test)."""

    def __init__(
        self,
        tmp_path: Path,
        listener: NotifyListener,
        *,
        environ: dict[str, str] | None = None,
        shuffler_reports: Sequence[DeviceEvent] = (),
    ) -> None:
        self.path = tmp_path / "journal.sqlite3"
        self.journal = Journal.open(self.path)
        self.events: queue.Queue[DeviceEvent] = queue.Queue()
        self.trace: list[str] = []
        self.commands = CommandBuffer()
        self.shuffler = TracingShuffler(
            trace=self.trace, path=self.path, events=self.events, reports=shuffler_reports
        )
        self.panel = RecordingPanel()
        self.table = Table(
            TableSettings(get_profile("PA"), 6),
            deferred(TableDevices(self.shuffler, self.panel, RecordingReader()), self.commands),
            self.journal,
        )
        self.notifier = Notifier({"NOTIFY_SOCKET": listener.address, **(environ or {})})
        self.seen: list[tuple[str, bool, bool]] = []
        self.stop_after: int | None = None
        self.station: Station | None = None

    def observer(self, event: DeviceEvent, view: TableView | None, idle: bool) -> None:
        self.seen.append((type(event).__name__, view is not None, idle))
        self.trace.append(f"seen {type(event).__name__}")
        if self.stop_after is not None and len(self.seen) == self.stop_after:
            assert self.station is not None
            self.station.stop()

    def build(
        self,
        drivers: Sequence[Device] = (),
        *,
        journal: Any = None,
        connect_timeout: float = 5.0,
        poll_seconds: float = 0.01,
    ) -> Station:
        self.station = Station(
            self.table,
            journal or self.journal,
            drivers,
            self.events,
            self.notifier,
            observer=self.observer,
            commands=self.commands,
            poll_seconds=poll_seconds,
            connect_timeout=connect_timeout,
        )
        return self.station

    def close(self) -> None:
        self.notifier.close()
        self.table.close()
        self.journal.close()

    def kinds(self) -> list[str]:
        with JournalReader.open(self.path) as reader:
            return [r.kind for r in reader.rows()]

    def last_row(self) -> tuple[str, dict[str, Any]]:
        with JournalReader.open(self.path) as reader:
            last = reader.last()
        assert last is not None
        return last.kind, dict(last.data)


@pytest.fixture
def listener() -> Iterator[NotifyListener]:
    sock = NotifyListener()
    yield sock
    sock.close()


@pytest.fixture(autouse=True)
def _fresh_log_context() -> Iterator[None]:
    structlog.contextvars.clear_contextvars()
    yield
    structlog.contextvars.clear_contextvars()


def received(listener: NotifyListener) -> list[str]:
    """Every sd_notify message sent so far, in order (the station has stopped)."""
    listener.sock.settimeout(0)
    try:
        while True:
            listener.messages.append(listener.sock.recv(4096).decode())
    except BlockingIOError:
        pass
    return listener.messages


def test_the_devices_come_up_one_at_a_time_then_the_table_then_ready(
    tmp_path: Path, listener: NotifyListener
) -> None:
    """Each device is told to hold its acks before any starts; each starts only once the
    one before reported in (its reports before that served and committed meanwhile); the
    table's first command waits for its row on disk; READY carries the state; each event
    the loop serves is committed before its device hears of it; at the stop the devices
    close in reverse and the journal ends with the count of events served."""
    rig = Rig(tmp_path, listener, shuffler_reports=[NEXT])
    shoe = AcknowledgingDriver(
        "shoe", rig.trace, rig.events, [NEXT, DeviceConnected(DeviceKind.SHOE, "S1", "1.0")]
    )
    panel = StandInDriver(
        "panel", rig.trace, rig.events, [DeviceConnected(DeviceKind.PANEL, "P1", "1.0")]
    )
    station = rig.build([shoe, panel])
    rig.stop_after = 4
    try:
        station.run()
    finally:
        rig.close()
    assert rig.trace == [
        "hold shoe",
        "start shoe",
        "committed ButtonPressed",  # not a connection: served, and the wait goes on
        "seen ButtonPressed",
        "committed DeviceConnected",
        "seen DeviceConnected",
        "start panel",
        "committed DeviceConnected",
        "seen DeviceConnected",
        "shuffle 6 (1 on disk)",  # the table's output, once every device is up
        "committed ButtonPressed",
        "seen ButtonPressed",
        "close panel",
        "close shoe",
    ]
    assert station.stats.started and station.stats.events == 4
    messages = received(listener)
    assert messages.count("READY=1\nSTATUS=shuffling, round 0") == 1
    assert not any(
        m.startswith("READY=1") for m in messages[: messages.index("STATUS=shuffling, round 0")]
    )
    assert messages[-1] == "STOPPING=1"
    assert rig.last_row() == ("clean_shutdown", {"events": 4})


def test_a_device_that_does_not_report_in_is_waited_for_its_timeout_only(
    tmp_path: Path, listener: NotifyListener
) -> None:
    """A device silent at its start holds the next one back for ``connect_timeout``
    seconds, no less, and no more than that: the table still starts."""
    rig = Rig(tmp_path, listener, shuffler_reports=[NEXT])
    silent = StandInDriver("silent", rig.trace, rig.events)
    late = StandInDriver(
        "late", rig.trace, rig.events, [DeviceConnected(DeviceKind.PANEL, "P1", "1.0")]
    )
    station = rig.build([silent, late], connect_timeout=0.3)
    rig.stop_after = 2
    try:
        station.run()
    finally:
        rig.close()
    assert silent.started_at is not None and late.started_at is not None
    assert late.started_at - silent.started_at >= 0.3
    assert rig.trace == [
        "start silent",
        "start late",
        "seen DeviceConnected",
        "shuffle 6 (1 on disk)",
        "seen ButtonPressed",
        "close late",
        "close silent",
    ]
    assert "READY=1\nSTATUS=shuffling, round 0" in received(listener)


def test_a_device_fault_at_the_start_ends_the_wait_and_shows_in_the_status(
    tmp_path: Path, listener: NotifyListener
) -> None:
    """A device refused at its start (a fault) is not waited for; what it sent after
    the fault is served once the station is ready. The status line says the state, the
    round and the fault's code, and each log line the table's state and round."""
    rig = Rig(tmp_path, listener)
    reader = StandInDriver(
        "reader", rig.trace, rig.events, [DeviceFault(DeviceKind.CARD_READER, "refused"), NEXT]
    )
    station = rig.build([reader], connect_timeout=60.0)
    rig.stop_after = 2
    try:
        station.run()
    finally:
        rig.close()
    messages = received(listener)
    assert "STATUS=fault, round 0: device_fault" in messages
    assert "READY=1\nSTATUS=fault, round 0: device_fault" in messages
    assert rig.trace == ["start reader", "seen DeviceFault", "seen ButtonPressed", "close reader"]
    context = structlog.contextvars.get_contextvars()
    assert context["state"] == "fault" and context["round"] == 0


def test_a_stop_while_starting_starts_nothing_more_and_sends_no_ready(
    tmp_path: Path, listener: NotifyListener
) -> None:
    """Stopped (SIGTERM) as the first device reports in: the second never starts, the
    table is not commanded, READY is not sent; every device closes, and the journal ends
    with a clean shutdown counting the one event served."""
    rig = Rig(tmp_path, listener)
    first = StandInDriver(
        "first", rig.trace, rig.events, [DeviceConnected(DeviceKind.SHOE, "S1", "1.0")]
    )
    second = StandInDriver("second", rig.trace, rig.events)
    station = rig.build([first, second])
    rig.stop_after = 1
    try:
        station.run()
    finally:
        rig.close()
    assert rig.trace == ["start first", "seen DeviceConnected", "close second", "close first"]
    assert not station.stats.started and rig.shuffler.commands == []
    messages = received(listener)
    assert not any(m.startswith("READY=1") for m in messages)
    assert messages[-1] == "STOPPING=1"
    assert rig.last_row() == ("clean_shutdown", {"events": 1})


def test_a_stop_is_not_kept_waiting_for_a_silent_device(
    tmp_path: Path, listener: NotifyListener
) -> None:
    """The wait for a device is in short steps: a stop asked for while a device is silent
    (a 60 s timeout) ends the run at once, with the clean shutdown journaled."""
    rig = Rig(tmp_path, listener)
    silent = StandInDriver("silent", rig.trace, rig.events)
    station = rig.build([silent], connect_timeout=60.0, poll_seconds=0.05)
    loop = threading.Thread(target=station.run, name="station-loop")
    loop.start()
    try:
        assert silent.started.wait(timeout=10)
        station.stop()
        loop.join(timeout=10)
        assert not loop.is_alive()
    finally:
        station.stop()
        loop.join(timeout=60)
        rig.close()
    assert rig.last_row() == ("clean_shutdown", {"events": 0})


def test_a_wake_while_a_device_is_awaited_goes_on_waiting_for_it(
    tmp_path: Path, listener: NotifyListener
) -> None:
    """controller/service/station.py, "Waking the loop": a wake (a signal handled, as
    SIGUSR1's stacks) while the start waits for a device is neither an event nor the
    device's report: the wait goes on, and the next device starts only once the first has
    reported in."""
    rig = Rig(tmp_path, listener)
    first = StandInDriver(
        "first", rig.trace, rig.events, [WAKE, DeviceConnected(DeviceKind.SHOE, "S1", "1.0")]
    )
    second = StandInDriver(
        "second", rig.trace, rig.events, [DeviceConnected(DeviceKind.PANEL, "P1", "1.0")]
    )
    station = rig.build([first, second])
    rig.stop_after = 2
    try:
        station.run()
    finally:
        rig.close()
    assert rig.trace == [
        "start first",
        "seen DeviceConnected",
        "start second",
        "seen DeviceConnected",
        "close second",
        "close first",
    ]
    assert rig.last_row() == ("clean_shutdown", {"events": 2})


def test_a_wake_while_serving_is_no_event_and_no_stop(
    tmp_path: Path, listener: NotifyListener
) -> None:
    """A wake first in the queue, or among events waiting together, is skipped: the loop
    goes on serving, the events around it form one group (the observer's view after the
    last only), and the journal counts the two events and nothing for the wakes."""
    first, second = ButtonPressed(Button.NEXT), ButtonPressed(Button.NEXT)  # two, not one twice
    rig = Rig(tmp_path, listener, shuffler_reports=[WAKE, first, WAKE, second])  # type: ignore[list-item]
    station = rig.build()
    rig.stop_after = 2
    try:
        station.run()
    finally:
        rig.close()
    assert rig.seen == [("ButtonPressed", False, False), ("ButtonPressed", True, True)]
    assert station.stats.events == 2
    assert rig.last_row() == ("clean_shutdown", {"events": 2})


def test_the_observer_gets_the_view_only_for_the_last_event_with_nothing_waiting(
    tmp_path: Path, listener: NotifyListener
) -> None:
    """Events waiting together are served in groups of ``GROUP_COMMIT_MAX``: the
    observer gets no view while more events wait (the group's earlier events, and a full
    group's last with one more queued), and the view, idle, after the very last."""
    waiting = GROUP_COMMIT_MAX + 1
    rig = Rig(tmp_path, listener, shuffler_reports=[NEXT] * waiting)
    station = rig.build()
    rig.stop_after = waiting
    try:
        station.run()
    finally:
        rig.close()
    busy = ("ButtonPressed", False, False)
    assert rig.seen == [busy] * GROUP_COMMIT_MAX + [("ButtonPressed", True, True)]
    assert rig.last_row() == ("clean_shutdown", {"events": waiting})


class SealWatchingJournal:
    """The real journal, noting each time the station asks it to seal what is due and
    whether a batch was open then."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self.sealed_in_batch: list[bool] = []

    def append(self, kind: str, data: Any, round_no: int | None = None) -> int:
        return self.journal.append(kind, data, round_no)

    def batch(self) -> AbstractContextManager[None]:
        return self.journal.batch()

    def seal_if_due(self) -> bool:
        self.sealed_in_batch.append(self.journal._batch is not None)
        return self.journal.seal_if_due()


def test_the_loop_feeds_the_watchdog_and_seals_between_events(
    tmp_path: Path, listener: NotifyListener
) -> None:
    """Each turn of the loop pings the watchdog when due (``WATCHDOG_USEC``: every 1 ms
    here) and asks the journal to seal what is due, never inside an event's batch."""
    rig = Rig(tmp_path, listener, environ={"WATCHDOG_USEC": "2000"})
    watching = SealWatchingJournal(rig.journal)
    station = rig.build(journal=watching)
    loop = threading.Thread(target=station.run, name="station-loop")
    loop.start()
    try:
        listener.wait_for(lambda m: m.startswith("READY=1"), 10)
        listener.wait_for(lambda m: m == "WATCHDOG=1", 10)
        rig.events.put(NEXT)
        listener.wait_for(lambda m: m == "WATCHDOG=1", 10)
    finally:
        station.stop()
        loop.join(timeout=10)
        rig.close()
    assert not loop.is_alive()
    assert watching.sealed_in_batch and not any(watching.sealed_in_batch)


# --- the command buffer and the write-ahead proxy ---------------------------------------


def test_held_commands_run_in_order_then_the_newest_lamps_once() -> None:
    ran: list[str] = []
    buffer = CommandBuffer()
    buffer.defer_lamps(lambda: ran.append("lamps 1"))
    buffer.defer(lambda: ran.append("shuffle"))
    buffer.defer_lamps(lambda: ran.append("lamps 2"))
    buffer.defer(lambda: ran.append("check"))
    buffer.flush()
    assert ran == ["shuffle", "check", "lamps 2"]
    buffer.flush()  # nothing is carried out twice
    assert ran == ["shuffle", "check", "lamps 2"]
    buffer.defer_lamps(lambda: ran.append("lamps 3"))
    buffer.defer(lambda: ran.append("reveal"))
    buffer.flush_devices()
    assert ran[3:] == ["reveal"]  # the lamps wait for their own flush
    buffer.flush_lamps()
    buffer.flush_lamps()
    assert ran[3:] == ["reveal", "lamps 3"]


def test_a_write_ahead_device_holds_each_command_with_its_arguments() -> None:
    shuffler, held = RecordingShuffler(), CommandBuffer()
    proxy = write_ahead(shuffler, held.defer)
    proxy.shuffle(8)
    proxy.shuffle(decks=6)
    assert shuffler.commands == []  # held, not carried out
    held.flush()
    assert shuffler.commands == [8, 6]


def test_a_write_ahead_device_starts_and_closes_at_once() -> None:
    trace: list[str] = []
    held = CommandBuffer()
    proxy = write_ahead(StandInDriver("shoe", trace, queue.Queue()), held.defer)
    proxy.start()
    proxy.close()
    assert trace == ["start shoe", "close shoe"]


@pytest.mark.parametrize("name", ["_private", "commands", "missing"])
def test_a_write_ahead_device_offers_only_its_commands(name: str) -> None:
    """A private name or a field is no command (nor is a name the device lacks)."""
    shuffler = RecordingShuffler()
    shuffler._private = lambda: None  # type: ignore[attr-defined]
    proxy = write_ahead(shuffler, CommandBuffer().defer)
    with pytest.raises(AttributeError, match=name):
        getattr(proxy, name)


def test_a_private_name_is_refused_as_no_command_of_the_device() -> None:
    proxy = write_ahead(RecordingShuffler(), CommandBuffer().defer)
    with pytest.raises(AttributeError) as raised:
        proxy._shuffle  # noqa: B018 - the lookup is the test
    assert str(raised.value) == "'_shuffle' is not a command of RecordingShuffler"


def test_deferred_devices_hold_device_commands_apart_from_the_lamps() -> None:
    """The panel's lamp states go to the lamps (newest only); the other devices'
    commands to the device queue; a device the table lacks stays absent."""
    buffer = CommandBuffer()
    shuffler, panel, reader = RecordingShuffler(), RecordingPanel(), RecordingReader()
    devices = deferred(TableDevices(shuffler, panel, reader), buffer)
    devices.panel.show({})
    devices.shuffler.shuffle(6)  # type: ignore[union-attr]
    devices.panel.show({})
    buffer.flush_devices()
    assert shuffler.commands == [6] and panel.shown == []
    buffer.flush_lamps()
    assert len(panel.shown) == 1
    shoe = RecordingShoe()
    devices = deferred(TableDevices(shuffler, panel, reader, shoe), buffer)
    devices.reader.check(PeekTarget.LOOKING_FOR_ACE)  # type: ignore[union-attr]
    devices.shoe.expect_hole_card()  # type: ignore[union-attr]
    assert reader.checks == [] and shoe.told == []  # held, as the shuffler's
    buffer.flush_devices()
    assert reader.checks == [PeekTarget.LOOKING_FOR_ACE] and shoe.told == ["expect_hole_card"]
    bare = deferred(TableDevices(None, panel), buffer)
    assert bare.shuffler is None and bare.reader is None and bare.shoe is None


# --- the loop's timing, on a clock of the test's own -------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


class ScriptedQueue:
    """The station's queue on the test's clock: each ``get`` notes its timeout and gives
    the next scripted event; ``None`` scripted is a wait that times out (the clock moves on
    by the timeout). Once the script is done, the station is stopped."""

    def __init__(self, clock: Clock, script: Sequence[DeviceEvent | None]) -> None:
        self.clock, self.script = clock, list(script)
        self.timeouts: list[float | None] = []
        self.stop: Any = None

    def put(self, item: DeviceEvent, block: bool = True, timeout: float | None = None) -> None:
        self.script.append(item)

    def get(self, block: bool = True, timeout: float | None = None) -> DeviceEvent:
        self.timeouts.append(timeout)
        item = self.script.pop(0) if self.script else None
        if not self.script and item is None:
            self.stop()
        if item is None:
            assert timeout is not None
            self.clock.now += timeout
            raise queue.Empty
        return item

    def get_nowait(self) -> DeviceEvent:
        raise queue.Empty

    def empty(self) -> bool:
        return not self.script


def test_the_loop_waits_five_seconds_for_a_device_and_looks_up_every_quarter_second(
    tmp_path: Path, listener: NotifyListener, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The defaults (the Station's docstring): a silent device is waited for 5 s, in
    waits of 0.25 s; the loop then waits 0.25 s at a time, and an idle wait does not end
    it: the event after it is served."""
    clock = Clock()
    monkeypatch.setattr(station_module, "time", SimpleNamespace(monotonic=clock.monotonic))
    rig = Rig(tmp_path, listener)
    events = ScriptedQueue(clock, [None] * 20 + [None, NEXT])
    station = Station(
        rig.table,
        rig.journal,
        [StandInDriver("silent", rig.trace, rig.events)],
        events,
        rig.notifier,
        observer=rig.observer,
        commands=rig.commands,
    )
    events.stop = station.stop
    try:
        station.run()
    finally:
        rig.close()
    assert events.timeouts == [0.25] * 23  # 20 for the device, 3 served
    assert rig.trace == [
        "start silent",
        "shuffle 6 (1 on disk)",
        "seen ButtonPressed",
        "close silent",
    ]


def test_a_station_given_no_notifier_tells_systemd_nothing(
    tmp_path: Path, listener: NotifyListener, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Even in a process systemd started (``NOTIFY_SOCKET`` set): only the notifier the
    daemon hands over speaks for the process."""
    monkeypatch.setenv("NOTIFY_SOCKET", listener.address)
    clock = Clock()
    rig = Rig(tmp_path, listener)
    events = ScriptedQueue(clock, [NEXT])
    station = Station(rig.table, rig.journal, [], events, commands=rig.commands)
    events.stop = station.stop
    try:
        station.run()
    finally:
        rig.close()
    assert station.stats.started and station.stats.events == 1
    assert received(listener) == []
