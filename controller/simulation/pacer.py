"""Keeps whoever acts at the table in step with the station's main loop.

The station calls :meth:`Pacer.observe` after each event it has handled (its ``observer``
hook). Whoever acts on the devices (the simulated dealer, a HIL test) says which events its
next actions will cause (:meth:`Pacer.expect`), acts, then waits (:meth:`Pacer.wait`) until
every one of them has been handled and the station's queue is empty. No sleeps: everything
waits on one condition variable, woken by the station's loop.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from controller.table.view import TableView, view_from_record
from drivers.hal import DeviceEvent

#: How long to wait for the station before calling it stuck (a bug, not a pace).
STUCK_SECONDS = 30.0


class SimulationStuckError(RuntimeError):
    """The station stopped answering whoever acts at the table."""


class Pacer:
    """Keeps the actor in step with the station's main loop (see the module docstring)."""

    def __init__(self, stuck_seconds: float = STUCK_SECONDS) -> None:
        #: How long :meth:`wait` and :meth:`until` wait for the station by default (longer
        #: for a station in an emulated machine).
        self.stuck_seconds = stuck_seconds
        # Sections that only read or write take the lock itself (a C-level ``with``); the
        # Condition's own ``with`` is a Python call each, and the dealer's loop takes the
        # lock a few times per action.
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._expected: list[type] = []
        self._surplus: list[type] = []
        self._view: TableView | None = None
        #: The latest view as :func:`~controller.table.view.view_record` wrote it, decoded
        #: only when someone looks (``_view`` is stale while it is set).
        self._record: dict[str, Any] | None = None
        self._quiet = False
        self._seq = 0
        self._failure: BaseException | None = None
        self.events: list[DeviceEvent] | None = None  # set to a list to keep every event
        #: Where the waiter gets events from when the station is in another process:
        #: called with the seconds left, it feeds :meth:`observe_kinds` (or returns with
        #: nothing). None: the station's own thread calls :meth:`observe`.
        self.pump: Callable[[float], None] | None = None

    @property
    def seq(self) -> int:
        """How many events the station has handled so far."""
        with self._lock:
            return self._seq

    @property
    def view(self) -> TableView | None:
        """The table as the last handled event left it."""
        with self._lock:
            return self._current_view()

    def _current_view(self) -> TableView | None:
        """The latest view, decoded from its record if it came as one (lock held)."""
        record = self._record
        if record is not None:
            self._view, self._record = view_from_record(record), None
        return self._view

    def observe(self, event: DeviceEvent, view: TableView | None, queue_empty: bool) -> None:
        """Called by the station's loop after each event (``view`` None while more events
        wait in the station's queue)."""
        if self.events is not None:
            with self._lock:
                self.events.append(event)
        self.observe_kinds((type(event),), view, queue_empty)

    def observe_kinds(
        self, kinds: Sequence[type], view: TableView | None, queue_empty: bool
    ) -> None:
        """The station handled events of these types, in this order; ``view`` and
        ``queue_empty`` are as :meth:`observe` got them for the last one (a station in
        another process reports its events in batches: ``controller.simulation.split``)."""
        self._observed(kinds, view, None, queue_empty)

    def observe_record(
        self, kinds: Sequence[type], record: dict[str, Any] | None, queue_empty: bool
    ) -> None:
        """As :meth:`observe_kinds`, with the view as its
        :func:`~controller.table.view.view_record`: decoded only if a waiter looks at it.
        Most idle views of a batch of actions come before its last event and are never
        looked at (in the split table, two in three: decoding each cost the dealer's
        process 0.5 ms a round)."""
        self._observed(kinds, None, record, queue_empty)

    def _observed(
        self,
        kinds: Sequence[type],
        view: TableView | None,
        record: dict[str, Any] | None,
        queue_empty: bool,
    ) -> None:
        with self._lock:
            for handled in kinds:
                for i, kind in enumerate(self._expected):
                    if issubclass(handled, kind):
                        del self._expected[i]
                        break
                else:
                    # Caused by an action whose expectation is not registered yet (the
                    # cover card comes out before the dealer knows it was the cover card).
                    self._surplus.append(handled)
            if view is not None:
                self._view, self._record = view, None
            elif record is not None:
                self._record = record
            self._quiet = queue_empty and (view is not None or record is not None)
            self._seq += len(kinds)
            if self._quiet and not self._expected:
                # Only now can a waiter go on: waking it for every event costs a thread
                # switch each, for nothing.
                self._cond.notify_all()

    def expect(self, *kinds: type) -> None:
        """The next actions will cause (or just caused) events of these types."""
        with self._lock:
            for kind in kinds:
                if kind in self._surplus:
                    self._surplus.remove(kind)
                else:
                    self._expected.append(kind)

    def withdraw(self, kind: type) -> None:
        """An expected event will not come after all (the action could not be done)."""
        with self._lock:
            if kind in self._expected:
                self._expected.remove(kind)
                self._cond.notify_all()

    def fail(self, error: BaseException) -> None:
        """The station's loop died of ``error``: every wait raises it from now on."""
        with self._lock:
            self._failure = error
            self._cond.notify_all()

    def forget(self) -> None:
        """Drop every expectation and surplus (after a deliberate power loss)."""
        with self._lock:
            self._expected.clear()
            self._surplus.clear()

    def wait(self, after_seq: int, timeout: float | None = None) -> tuple[TableView, int]:
        """The view once every expected event is handled, the station is idle, and at least
        one event came after ``after_seq``.

        Raises:
            SimulationStuckError: nothing of the kind within ``timeout`` seconds
                (:attr:`stuck_seconds` when not given).
        """
        return self.until(lambda _view: True, after_seq, timeout)

    def until(
        self,
        predicate: Callable[[TableView], bool],
        after_seq: int = 0,
        timeout: float | None = None,
    ) -> tuple[TableView, int]:
        """As :meth:`wait`, and the view also satisfies ``predicate``.

        Raises:
            SimulationStuckError: the table did not get there within ``timeout`` seconds
                (:attr:`stuck_seconds` when not given).
            BaseException: what the station's loop died of (:meth:`fail`).
        """
        if timeout is None:
            timeout = self.stuck_seconds

        def ready() -> bool:
            if self._failure is not None:
                return True
            if self._expected or not self._quiet or self._seq <= after_seq:
                return False
            view = self._current_view()
            return view is not None and predicate(view)

        with self._lock:
            if not self._wait_for(ready, timeout) or self._current_view() is None:
                if self._failure is not None:
                    raise self._failure
                waiting = [k.__name__ for k in self._expected]
                last = self._current_view()
                state = last.state.value if last else "no event yet"
                raise SimulationStuckError(
                    f"no progress for {timeout:.0f} s; waiting for {waiting}, state {state};"
                    f" {self._seq} events handled (waiting for one after {after_seq}),"
                    f" station idle: {self._quiet}, unexpected: "
                    + ", ".join(k.__name__ for k in self._surplus[-5:])
                )
            if self._failure is not None:
                raise self._failure
            # What nobody expected before the actor looked is history: it must not stand
            # in for an event the actor's next actions cause.
            self._surplus.clear()
            view = self._current_view()
            assert view is not None  # ready() saw it
            return view, self._seq

    def _wait_for(self, ready: Callable[[], bool], timeout: float) -> bool:
        """``ready()`` within ``timeout`` seconds (lock held): woken by the station's
        thread, or pumping the events in from another process between checks."""
        pump = self.pump
        if pump is None:
            return self._cond.wait_for(ready, timeout)
        deadline = time.monotonic() + timeout
        while not ready():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self._lock.release()
            try:
                pump(left)
            finally:
                self._lock.acquire()
        return True
