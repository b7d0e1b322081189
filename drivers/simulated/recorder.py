"""An event sink for tests and the simulator that waits on a queue, never on the clock."""

from __future__ import annotations

import queue
from typing import TypeVar

from drivers.hal import DeviceEvent

E = TypeVar("E")

#: A hang guard, long enough for any device round trip on a loaded machine (a session lost and
#: made again took over 5 s on 2 shared cores at load 12); a pass returns at once.
DEFAULT_WAIT = 20.0


class EventRecorder:
    """Collects hal events (``recorder`` is an ``EventSink``); ``history`` keeps them all."""

    def __init__(self) -> None:
        self._queue: queue.Queue[DeviceEvent] = queue.Queue()
        self.history: list[DeviceEvent] = []

    def __call__(self, event: DeviceEvent) -> None:
        self._queue.put(event)

    def next(self, timeout: float = DEFAULT_WAIT) -> DeviceEvent:
        """The next event. Raises ``AssertionError`` if none arrives within ``timeout``."""
        try:
            event = self._queue.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no event within {timeout} s") from None
        self.history.append(event)
        return event

    def expect(self, kind: type[E], timeout: float = DEFAULT_WAIT) -> E:
        """The next event of type ``kind``, skipping others (kept in ``history``)."""
        while True:
            event = self.next(timeout)
            if isinstance(event, kind):
                return event

    def take(self, kind: type[E], count: int, timeout: float = DEFAULT_WAIT) -> list[E]:
        """The next ``count`` events of type ``kind``, skipping others."""
        return [self.expect(kind, timeout) for _ in range(count)]

    def pending(self) -> list[DeviceEvent]:
        """Events delivered but not yet taken, without waiting."""
        out: list[DeviceEvent] = []
        while True:
            try:
                out.append(self._queue.get_nowait())
            except queue.Empty:
                self.history.extend(out)
                return out
