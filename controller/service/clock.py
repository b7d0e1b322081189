"""The wall clock's state, journalled: a Raspberry Pi has no real-time clock.

A Pi boots with the time its clock had at the last shutdown (systemd-timesyncd's saved clock,
or fake-hwclock) and keeps it until NTP answers; every journal row carries the wall-clock time
(``ts``), so the rows written before NTP answers carry a time that is off by the correction
that comes later. The station does not wait for NTP (a table whose network is down would never
open); it journals what its clock is, so that an auditor can correct those rows:

* a ``clock`` row when the daemon starts serving: ``{"synchronized": ..., "step_us": 0}``;
* a ``clock`` row whenever that changes: the clock becomes synchronised, or the wall clock
  steps against the monotonic clock by :data:`STEP_NS` or more (NTP's first correction, a
  ``date -s``, a step back), with the step in microseconds (``step_us``, negative for a step
  back). The rows before it carry times off by ``-step_us``.

"Synchronised" is systemd-timesyncd's word for it: the file :data:`SYNC_FLAG`, which
timesyncd creates once it has set the clock from a server (the file systemd-time-wait-sync
watches too). The kernel's own flag (``adjtimex``) is out of the service's reach: its
``ProtectClock=`` filter refuses the call even to read.

The journal's order is its row ids and hash chain, never ``ts``: after a step back, later rows
carry earlier times, and recall, verify and export still go by id.

:class:`ClockWatch` is the sans-I/O part (readings in, changes out); :func:`watching_clock`
polls the clocks in a thread and journals the changes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

import structlog

from controller.journal.format import JournalError

#: systemd-timesyncd's flag: present once it has synchronised the clock since boot.
SYNC_FLAG: Final = Path("/run/systemd/timesync/synchronized")
#: A change of the wall clock against the monotonic clock this large is a step, not NTP's
#: slewing (which moves both clocks alike) or the poll's own jitter.
STEP_NS: Final = 50_000_000
#: How often :func:`watching_clock` looks, in seconds: a step is journalled within this.
POLL_SECONDS: Final = 1.0
CLOCK_KIND: Final = "clock"

_log = structlog.get_logger("dealer_station.clock")


@dataclass(frozen=True, slots=True)
class ClockReading:
    """The clocks at one moment: wall (``CLOCK_REALTIME``) and monotonic, in nanoseconds,
    and whether the wall clock is synchronised."""

    wall_ns: int
    monotonic_ns: int
    synchronized: bool

    @property
    def offset_ns(self) -> int:
        """Wall minus monotonic: constant until someone sets the wall clock."""
        return self.wall_ns - self.monotonic_ns


@dataclass(frozen=True, slots=True)
class ClockChange:
    """What a ``clock`` row records."""

    synchronized: bool
    step_us: int

    def record(self) -> dict[str, Any]:
        """The row's data."""
        return {"synchronized": self.synchronized, "step_us": self.step_us}


class ClockWatch:
    """Turns clock readings into the changes worth a ``clock`` row (sans-I/O)."""

    def __init__(self, first: ClockReading) -> None:
        self._offset_ns = first.offset_ns
        self._synchronized = first.synchronized

    def observe(self, reading: ClockReading) -> ClockChange | None:
        """The change since the last reading that returned one, or None.

        A step below :data:`STEP_NS` is not one; steps that small add up, so a slow drift
        of the offset is reported once the sum reaches it.
        """
        step_ns = reading.offset_ns - self._offset_ns
        stepped = abs(step_ns) >= STEP_NS
        if not stepped and reading.synchronized == self._synchronized:
            return None
        if stepped:
            self._offset_ns = reading.offset_ns
        self._synchronized = reading.synchronized
        return ClockChange(reading.synchronized, round(step_ns / 1000) if stepped else 0)


def read_clocks(flag: Path = SYNC_FLAG) -> ClockReading:
    """The clocks now (the wall clock read between two monotonic reads, their mean taken)."""
    before = time.monotonic_ns()
    wall = time.time_ns()
    after = time.monotonic_ns()
    return ClockReading(wall, (before + after) // 2, flag.exists())


class ClockJournal(Protocol):
    """What :func:`watching_clock` needs of :class:`controller.journal.store.Journal`."""

    def append(self, kind: str, data: Mapping[str, Any], round_no: int | None = None) -> int:
        """Append and commit one row."""
        ...


@contextmanager
def watching_clock(
    journal: ClockJournal,
    *,
    read: Callable[[], ClockReading] = read_clocks,
    interval: float = POLL_SECONDS,
) -> Iterator[ClockWatch]:
    """Journal the clock's state now, then every change (module docstring) from a thread
    until the ``with`` block ends.

    A journal write that fails in the thread stops the watch (logged); the station's own
    next write fails the same way and stops the station.

    Raises:
        JournalError: the first ``clock`` row cannot be written.
    """
    first = read()
    watch = ClockWatch(first)
    _journal_change(journal, ClockChange(first.synchronized, 0))
    stop = threading.Event()

    def poll() -> None:
        while not stop.wait(interval):
            change = watch.observe(read())
            if change is None:
                continue
            try:
                _journal_change(journal, change)
            except JournalError as err:
                _log.critical("clock: journal write failed; no longer watching", error=str(err))
                return

    thread = threading.Thread(target=poll, name="clock-watch", daemon=True)
    thread.start()
    try:
        yield watch
    finally:
        stop.set()
        thread.join()


def _journal_change(journal: ClockJournal, change: ClockChange) -> None:
    journal.append(CLOCK_KIND, change.record())
    log = _log.info if change.synchronized and not change.step_us else _log.warning
    log("clock", synchronized=change.synchronized, step_us=change.step_us)
