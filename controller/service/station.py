"""The station's main loop: one thread owns the table and takes one event at a time.

Device drivers put their events on one queue (their reader threads never touch the
table). The loop takes each event, hands it to the procedure, feeds the systemd watchdog
and reports the state in ``STATUS=``. A hung loop stops feeding the watchdog, so systemd
restarts the service. ``stop()`` (from a signal handler or another thread) lets the loop
finish the current event, journal a clean shutdown and return.

Waking the loop: a signal handler that runs while the loop waits on the daemon's
``queue.SimpleQueue`` (the Pi's CPython 3.11) can leave that wait without its timeout:
``SimpleQueue.get(timeout=...)`` recomputes the time left after the handler and, when the
handler took longer than that, waits with a negative time, which means for ever, until
the next event. An idle table then never looks at its stop, and stops feeding the
watchdog. So whatever a signal handler asks of the loop also puts :data:`WAKE` on the
queue (:meth:`Station.wake`; ``SimpleQueue.put`` may be called from a handler).

Write-ahead: the device commands an event causes, and the acknowledgement of the device's
report that gave it (``drivers.hal.CommitAware``), wait for the commit of its rows.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, cast

import structlog

from controller.service.logs import bind_round, bind_state
from controller.service.sdnotify import Notifier
from controller.table.machine import TableDevices
from controller.table.procedure import Table
from controller.table.view import TableView, table_view
from drivers.hal import (
    CommitAware,
    Device,
    DeviceConnected,
    DeviceEvent,
    DeviceFault,
)

_log = structlog.get_logger("dealer_station.station")
D = TypeVar("D", bound=Device)

#: At most this many waiting events share one journal transaction, so that the first one's
#: prompt is not held back behind a long queue.
GROUP_COMMIT_MAX = 16
#: A device whose close takes longer than this is named in the log (each driver waits up to
#: 5 s for its reader thread; systemd kills a stop that takes 10 s).
SLOW_CLOSE_SECONDS = 1.0


class Wake:
    """Not a device event: :data:`WAKE` on the queue only makes the loop look again (for a
    stop, a watchdog ping, a seal due); see the module docstring."""

    __slots__ = ()


WAKE = Wake()


class CommandBuffer:
    """Device commands held back until the journal has committed the event that caused
    them: the station acts only on what is recorded (write-ahead).

    The panel's lamps are held apart from the other devices' commands (:meth:`defer_lamps`)
    so that the loop can carry them out last: after the device commands and after its
    observer has the new view (:meth:`Station._handle`). A lamp command sets every lamp,
    so only the newest one held is carried out: the panel shows the prompt the events of a
    commit left, once, instead of flashing through the ones between (a dealer who acts
    ahead of the panel sends several events a commit; each prompt is still journaled)."""

    def __init__(self) -> None:
        self._pending: list[Callable[[], None]] = []
        self._lamps: Callable[[], None] | None = None

    def defer(self, command: Callable[[], None]) -> None:
        """Hold a device command."""
        self._pending.append(command)

    def defer_lamps(self, command: Callable[[], None]) -> None:
        """Hold the panel's next lamp state, in place of any held before."""
        self._lamps = command

    def flush(self) -> None:
        """Carry out the held commands, in order, then the newest lamp state."""
        self.flush_devices()
        self.flush_lamps()

    def flush_devices(self) -> None:
        """Carry out the held device commands (not the lamps), in order."""
        pending, self._pending = self._pending, []
        for command in pending:
            command()

    def flush_lamps(self) -> None:
        """Carry out the newest held lamp state, if any."""
        command, self._lamps = self._lamps, None
        if command is not None:
            command()


class _WriteAhead:
    """A device whose commands wait in a :class:`CommandBuffer` (see :func:`write_ahead`)."""

    def __init__(self, device: Device, hold: Callable[[Callable[[], None]], None]) -> None:
        self._device, self._hold = device, hold

    def start(self) -> None:
        self._device.start()

    def close(self) -> None:
        self._device.close()

    def __getattr__(self, name: str) -> Callable[..., None]:
        device = self._device
        if name.startswith("_") or not callable(getattr(device, name)):
            raise AttributeError(f"{name!r} is not a command of {type(device).__name__}")
        hold = self._hold

        def held(*args: Any, **kwargs: Any) -> None:
            # The device's own method when the command is carried out, as it is then.
            hold(lambda: getattr(device, name)(*args, **kwargs))

        setattr(self, name, held)  # looked up once: the next call finds it here
        return held


def write_ahead(device: D, hold: Callable[[Callable[[], None]], None]) -> D:
    """``device`` with each command (any method but ``start`` and ``close``) handed to
    ``hold`` instead of carried out: one proxy for every kind of device."""
    return cast(D, _WriteAhead(device, hold))


def deferred(devices: TableDevices, buffer: CommandBuffer) -> TableDevices:
    """The same devices, with every command held in ``buffer`` until it is flushed; the
    panel's lamp states held apart (``CommandBuffer.defer_lamps``)."""

    def held(device: D | None) -> D | None:
        return None if device is None else write_ahead(device, buffer.defer)

    return TableDevices(
        held(devices.shuffler),
        write_ahead(devices.panel, buffer.defer_lamps),
        held(devices.reader),
        held(devices.shoe),
    )


class EventQueue(Protocol):
    """The one queue the device drivers feed: ``queue.SimpleQueue`` in the daemon (its put
    and get are C calls, about a tenth of ``queue.Queue``'s lock-and-condition dance per
    event, bench/hil_throughput.py), or a ``queue.Queue``."""

    def put(
        self, item: DeviceEvent | Wake, block: bool = True, timeout: float | None = None
    ) -> None:
        """Add an event (from any thread)."""

    def get(self, block: bool = True, timeout: float | None = None) -> DeviceEvent | Wake:
        """The next event; ``queue.Empty`` after ``timeout`` seconds."""
        ...

    def get_nowait(self) -> DeviceEvent | Wake:
        """The next event if one waits; ``queue.Empty`` otherwise."""
        ...

    def empty(self) -> bool:
        """Whether no event waits."""
        ...


class BatchingJournal(Protocol):
    """A journal that can group one event's rows into one commit."""

    def append(self, kind: str, data: Mapping[str, Any], round_no: int | None = None) -> int:
        """Commit one row (or add it to the open batch)."""
        ...

    def batch(self) -> AbstractContextManager[None]:
        """Group the appends inside into one transaction."""
        ...

    def seal_if_due(self) -> bool:
        """Seal rows that have waited long enough unsealed (``controller.journal.seal``)."""
        ...


#: Called from the loop after each event: the event, the view after it, and whether the
#: queue was empty (nothing else is in flight in the station). The view is None while more
#: events wait: it would be out of date at once, and building it costs more than handling
#: some events (it is what keeps the simulated table at full speed).
Observer = Callable[[DeviceEvent, TableView | None, bool], None]


@dataclass
class StationStats:
    """What the loop has done."""

    events: int = 0
    started: bool = False


class Station:
    """The main loop around one :class:`Table` (see the module docstring).

    ``poll_seconds`` (0.25 s): the longest the loop waits for an event before it looks
    again for a stop, a watchdog ping and a seal due. ``connect_timeout`` (5 s): how long
    the start waits for a device it started to report in before it starts the next.
    ``notifier``: none given, the station tells systemd nothing (even when the process
    has a ``NOTIFY_SOCKET``: the daemon hands its own).
    """

    def __init__(
        self,
        table: Table,
        journal: BatchingJournal,
        drivers: Sequence[Device],
        events: EventQueue,
        notifier: Notifier | None = None,
        *,
        observer: Observer | None = None,
        commands: CommandBuffer | None = None,
        poll_seconds: float = 0.25,
        connect_timeout: float = 5.0,
    ) -> None:
        self.table = table
        self.journal = journal
        self.drivers = drivers
        self.events = events
        self.notifier = notifier or Notifier({})
        self.observer = observer
        self.commands = commands or CommandBuffer()
        self.poll_seconds = poll_seconds
        self.connect_timeout = connect_timeout
        self.stats = StationStats()
        self._stop = threading.Event()
        #: Drivers whose devices learn that a report arrived only once its event is
        #: committed (``drivers.hal.CommitAware``).
        self._acknowledging = [d for d in drivers if isinstance(d, CommitAware)]
        table.on_state = self._state_changed

    def stop(self) -> None:
        """Ask the loop to finish, and :meth:`wake` it; from any thread, or from a signal
        handler where the queue's ``put`` may be (the daemon's ``SimpleQueue``)."""
        self._stop.set()
        self.wake()

    def wake(self) -> None:
        """Have the loop look again at once (:data:`WAKE`); what a signal handler that
        ran while the loop waited must do (the module docstring), as :meth:`stop` does."""
        self.events.put(WAKE)

    def run(self) -> None:
        """Start the devices, serve events until :meth:`stop`, then shut down cleanly.

        Journal write errors propagate: the station must not act on what it cannot record
        (systemd restarts it and recovery takes over).
        """
        try:
            for acknowledging in self._acknowledging:
                acknowledging.hold_acks_until_committed()
            for driver in self.drivers:
                if self._stop.is_set():
                    break  # stopped while starting (SIGTERM): close what was opened
                driver.start()
                self._await_connection()
            if not self._stop.is_set():
                with self.journal.batch():
                    self.table.resume_output()
                self.commands.flush()
                self.stats.started = True
                self.notifier.ready(self._status())
                _log.info("ready", state=self.table.state.value)
                self._serve()
        finally:
            self.notifier.notify("STOPPING=1")
            closing = time.monotonic()
            for driver in reversed(self.drivers):
                started = time.monotonic()
                driver.close()
                if (took := time.monotonic() - started) > SLOW_CLOSE_SECONDS:
                    # systemd gives the whole stop TimeoutStopSec= (10 s) before it kills
                    # the station, clean_shutdown unwritten: the device that held it is named.
                    _log.warning(
                        "device slow to close", device=type(driver).__name__, seconds=round(took, 2)
                    )
        self.journal.append("clean_shutdown", {"events": self.stats.events})
        _log.info(
            "stopped",
            events=self.stats.events,
            closing_seconds=round(time.monotonic() - closing, 2),
        )

    def _await_connection(self) -> None:
        """Serve events until the device just started reports in (or the timeout passes).

        Devices come up one after another, so the journal's start-up is the same every
        time; a device that does not answer in time shows up later as lost or connected.
        """
        deadline = time.monotonic() + self.connect_timeout
        while (remaining := deadline - time.monotonic()) > 0 and not self._stop.is_set():
            try:
                # In short steps: a stop asked for meanwhile is not kept waiting.
                event = self.events.get(timeout=min(remaining, self.poll_seconds))
            except queue.Empty:
                continue
            if isinstance(event, Wake):
                continue
            self._handle(event)
            if isinstance(event, DeviceConnected | DeviceFault):
                return

    def _handle(self, *group: DeviceEvent) -> None:
        """Handle ``group`` (events in queue order) in one journal transaction; carry out
        the device commands they caused only once their rows are on disk."""
        with self.journal.batch():
            for event in group:
                self.table.handle(event)
        # On disk: the devices may now hear that their reports arrived (a station stopped
        # before this point gets them again in the devices' next sessions).
        for driver in self._acknowledging:
            for event in group:
                driver.committed(event)
        # Only now that the events' rows are on disk: the device commands (a shoe told to
        # expect the hole card must know before the dealer can deal it), then the
        # observer's view, then the lamps. A remote observer (the simulated dealer in its
        # own process) reads the view while this thread lights the panel, instead of
        # waiting for it; nothing the station does waits on the lamps.
        self.commands.flush_devices()
        for event in group:
            self.stats.events += 1
            if self.observer is not None:
                idle = event is group[-1] and self.events.empty()
                self.observer(event, table_view(self.table) if idle else None, idle)
        self.commands.flush_lamps()

    def _serve(self) -> None:
        events, notifier = self.events, self.notifier
        while not self._stop.is_set():
            notifier.feed_watchdog()
            self.journal.seal_if_due()  # between events: never inside an event's batch
            try:
                first = events.get(timeout=self.poll_seconds)
            except queue.Empty:
                continue
            if isinstance(first, Wake):
                continue
            group = [first]
            # Group commit: the events already waiting (an initial deal, the wager sensors
            # at the close of betting) go into the same transaction, so a round costs
            # fewer fsyncs (58 commits a round, one per event, before; see
            # docs/performance.md). Write-ahead holds: nothing they cause is carried out
            # before the commit.
            while len(group) < GROUP_COMMIT_MAX:
                try:
                    event = events.get_nowait()
                except queue.Empty:
                    break
                if not isinstance(event, Wake):
                    group.append(event)
            self._handle(*group)

    def _state_changed(self, table: Table) -> None:
        bind_state(table.state.value)
        bind_round(table.round_no)
        self.notifier.status(self._status())

    def _status(self) -> str:
        table = self.table
        text = f"{table.state.value}, round {table.round_no}"
        if table.fault is not None:
            text += f": {table.fault.code.value}"
        return text
