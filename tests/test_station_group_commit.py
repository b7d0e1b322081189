"""Group commit in the station's loop: events already waiting share one journal transaction,
and nothing they cause is carried out before their rows are on disk (write-ahead).

The journal is the real SQLite journal; a second connection (``JournalReader``) reads what
is on disk at the moment each device command runs. The table is a stand-in that journals one
row per event and asks for one device command per event, as the procedure does.
"""

from __future__ import annotations

import queue
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from controller.journal.store import Journal, JournalReader
from controller.service.station import GROUP_COMMIT_MAX, CommandBuffer, Station
from drivers.hal import Button, ButtonPressed, DeviceEvent


class JournallingTable:
    """Journals each event as a row and defers a command that reads the journal on disk."""

    def __init__(self, journal: Journal, commands: CommandBuffer, path: Path) -> None:
        self.journal, self.commands, self.path = journal, commands, path
        self.on_disk_when_acted: list[int] = []
        self.handled = 0
        self.state = SimpleNamespace(value="betting")
        self.round_no = 0
        self.fault = None
        self.on_state: Any = None
        self.stop: Any = None

    def resume_output(self) -> None:
        """Nothing to show again."""

    def handle(self, event: DeviceEvent) -> None:
        self.handled += 1
        self.journal.append("button", {"n": self.handled})
        self.commands.defer(self._act)

    def _act(self) -> None:
        with JournalReader.open(self.path) as reader:
            self.on_disk_when_acted.append(sum(1 for r in reader.rows() if r.kind == "button"))
        if len(self.on_disk_when_acted) == self.expected and self.stop is not None:
            self.stop()

    expected = 0


def run_until_stopped(
    table: JournallingTable,
    journal: Journal,
    events: queue.Queue[DeviceEvent],
    commands: CommandBuffer,
    observer: Any = None,
) -> None:
    """Run a real Station around ``table`` until the table stops it (30 s at most)."""
    station = Station(
        table,  # type: ignore[arg-type]
        journal,
        [],
        events,
        commands=commands,
        observer=observer,
        poll_seconds=0.05,
    )
    table.stop = station.stop
    thread = threading.Thread(target=station.run)
    thread.start()
    thread.join(timeout=30)
    assert not thread.is_alive()


def test_waiting_events_share_a_commit_and_are_acted_on_only_after_it(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    events: queue.Queue[DeviceEvent] = queue.Queue()
    waiting = GROUP_COMMIT_MAX + 4  # more than one group's worth
    for _ in range(waiting):
        events.put(ButtonPressed(Button.NEXT))
    with Journal.open(path) as journal:
        commands = CommandBuffer()
        table = JournallingTable(journal, commands, path)
        table.expected = waiting
        commits = []
        original = journal._committed

        def counted() -> None:
            commits.append(journal.last_id)
            original()

        journal._committed = counted  # type: ignore[method-assign]
        run_until_stopped(table, journal, events, commands)
    # Write-ahead: every command ran with its own event's row (and its group's) on disk.
    acted = table.on_disk_when_acted
    assert len(acted) == waiting
    assert all(on_disk >= n for n, on_disk in enumerate(acted, start=1))
    # The first group is GROUP_COMMIT_MAX events in one commit, the rest in the next.
    assert acted[0] == GROUP_COMMIT_MAX and acted[-1] == waiting
    # All were queued before the loop started: two commits, not one per event.
    assert [c for c in commits if 0 < c <= waiting] == [GROUP_COMMIT_MAX, waiting]


class LampTable(JournallingTable):
    """Asks, for each event, for a device command and a change of lamps, in that order of
    asking reversed (lamps first), and notes when each runs and what is on disk then."""

    def __init__(self, journal: Journal, commands: CommandBuffer, path: Path) -> None:
        super().__init__(journal, commands, path)
        self.order: list[tuple[str, int]] = []

    def handle(self, event: DeviceEvent) -> None:
        self.handled += 1
        self.journal.append("button", {"n": self.handled})
        self.commands.defer_lamps(lambda: self._note("lamps"))
        self.commands.defer(lambda: self._note("device"))

    def _note(self, what: str) -> None:
        with JournalReader.open(self.path) as reader:
            self.order.append((what, sum(1 for r in reader.rows() if r.kind == "button")))
        if what == "lamps" and self.stop is not None:
            self.stop()


def test_the_observer_sees_the_view_after_the_device_commands_and_before_the_lamps(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """A remote observer (the simulated dealer's process) gets the view while the station
    lights the panel, but never before a device has its command (a shoe must know that the
    next card is the hole card before a dealer who saw the view can deal it), and both run
    only once the event's row is on disk (write-ahead)."""
    path = tmp_path / "journal.sqlite3"
    events: queue.Queue[DeviceEvent] = queue.Queue()
    events.put(ButtonPressed(Button.NEXT))
    # The stand-in table has no hands to show: the view is a marker the observer notes.
    monkeypatch.setattr("controller.service.station.table_view", lambda table: "view")
    with Journal.open(path) as journal:
        commands = CommandBuffer()
        table = LampTable(journal, commands, path)

        def observer(event: DeviceEvent, view: Any, idle: bool) -> None:
            with JournalReader.open(path) as reader:
                table.order.append((str(view), sum(1 for r in reader.rows() if r.kind == "button")))

        run_until_stopped(table, journal, events, commands, observer)
    assert table.order == [("device", 1), ("view", 1), ("lamps", 1)]


class ShowingTable(JournallingTable):
    """Journals each event's prompt and asks the panel to show it, as the procedure does."""

    def __init__(self, journal: Journal, commands: CommandBuffer, path: Path) -> None:
        super().__init__(journal, commands, path)
        self.shown: list[int] = []

    def handle(self, event: DeviceEvent) -> None:
        self.handled += 1
        n = self.handled
        self.journal.append("prompt", {"n": n})
        self.commands.defer_lamps(lambda: self._show(n))

    def _show(self, n: int) -> None:
        self.shown.append(n)
        if n == self.expected and self.stop is not None:
            self.stop()


def test_the_panel_shows_the_prompt_a_commit_leaves_and_the_journal_keeps_every_one(
    tmp_path: Path,
) -> None:
    """Events that share a commit each journal their prompt; the panel is sent only the
    last: it shows what the table waits for now, once, not the prompts in between."""
    path = tmp_path / "journal.sqlite3"
    events: queue.Queue[DeviceEvent] = queue.Queue()
    for _ in range(3):
        events.put(ButtonPressed(Button.NEXT))
    with Journal.open(path) as journal:
        commands = CommandBuffer()
        table = ShowingTable(journal, commands, path)
        table.expected = 3
        run_until_stopped(table, journal, events, commands)
        assert [r.data["n"] for r in journal.rows() if r.kind == "prompt"] == [1, 2, 3]
    assert table.shown == [3]


class AcknowledgingDriver:
    """A stand-in for a device link (``drivers.hal.CommitAware``): notes, at each event the
    station says is committed, how many of the events' rows are on disk then."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.calls: list[str] = []
        self.committed_on_disk: list[tuple[DeviceEvent, int]] = []

    def hold_acks_until_committed(self) -> None:
        self.calls.append("hold")

    def start(self) -> None:
        self.calls.append("start")

    def close(self) -> None:
        self.calls.append("close")

    def committed(self, event: DeviceEvent) -> None:
        with JournalReader.open(self.path) as reader:
            on_disk = sum(1 for r in reader.rows() if r.kind == "button")
        self.committed_on_disk.append((event, on_disk))


def test_a_driver_hears_of_each_event_once_its_row_is_on_disk(tmp_path: Path) -> None:
    """The station holds the devices' acks until the journal has committed what their
    reports gave (docs/protocol.md section 5): each driver is told so before it starts, and
    of each event, in order, only once its row is on disk."""
    path = tmp_path / "journal.sqlite3"
    events: queue.Queue[DeviceEvent] = queue.Queue()
    sent = [ButtonPressed(Button.NEXT) for _ in range(3)]
    with Journal.open(path) as journal:
        commands = CommandBuffer()
        table = JournallingTable(journal, commands, path)
        table.expected = len(sent)
        driver = AcknowledgingDriver(path)
        station = Station(
            table,  # type: ignore[arg-type]
            journal,
            [driver],
            events,
            commands=commands,
            poll_seconds=0.05,
            connect_timeout=0.0,
        )
        table.stop = station.stop
        for event in sent:
            events.put(event)
        thread = threading.Thread(target=station.run)
        thread.start()
        thread.join(timeout=30)
        assert not thread.is_alive()
    assert driver.calls == ["hold", "start", "close"]
    told = [event for event, _ in driver.committed_on_disk]
    assert len(told) == len(sent) and all(a is b for a, b in zip(told, sent, strict=True))
    assert all(on_disk >= n for n, (_, on_disk) in enumerate(driver.committed_on_disk, 1))
