"""The byte link under every device driver: a reader thread that opens a port, pumps bytes
to a listener and reconnects with capped exponential backoff when the port goes away.

A transport owns its port and nothing else (docs/style.md). It knows
nothing of frames: the driver behind the ``LinkListener`` feeds the bytes to
``firmware_bridge``. Every loss and every return of the port reaches the listener, once:
``link_down`` is not repeated while the same error persists across retries.
"""

from __future__ import annotations

import contextlib
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

import structlog

from drivers.errors import LinkNotOpenError, TransportError, WrongDeviceError

log = structlog.get_logger(__name__)

#: How long ``close`` waits for the reader thread; a read never blocks longer than _MAX_WAIT.
_JOIN_TIMEOUT = 5.0
#: The shortest wait for bytes before a tick: a listener whose deadline has passed (a bug)
#: costs a wake-up a millisecond, not a spinning thread.
_MIN_WAIT = 0.001
#: The longest one read waits, whatever the listener asks: a write that failed on another
#: thread (``_broken``) is noticed within it, and so is ``close`` on a port that cannot
#: interrupt its read.
_MAX_WAIT = 0.5


class LinkListener(Protocol):
    """What a transport tells its driver. All calls come from the transport's reader thread."""

    def link_up(self, description: str) -> None:
        """The port is open; ``description`` names it (path, bus address)."""

    def link_data(self, data: bytes) -> float | None:
        """Bytes arrived from the device (any split: a frame may come in pieces).

        Returns the seconds until the listener next needs ``link_tick`` (its protocol's
        next deadline), or None to be ticked every tick interval."""

    def link_tick(self) -> float | None:
        """Time for the protocol to retransmit, send a held ACK or notice a silent peer.

        While the port is open it is called when the wait the listener last asked for
        (the return value of ``link_data`` or ``link_tick``, in seconds; at most half a
        second) has passed, or every tick interval if it returned None; while the port is
        closed, after every attempt to open it. (``link_data`` acts on the bytes it is
        given itself.)"""

    def link_down(self, error: TransportError) -> None:
        """The port could not be opened or was lost; the transport keeps retrying."""


@dataclass(frozen=True, slots=True)
class Backoff:
    """Capped exponential backoff between reconnect attempts, in seconds."""

    initial: float = 0.05
    factor: float = 2.0
    cap: float = 2.0

    def delays(self) -> Iterator[float]:
        """Yield ``initial``, ``initial*factor``, ... never more than ``cap``, forever."""
        delay = self.initial
        while True:
            yield min(delay, self.cap)
            delay = min(delay * self.factor, self.cap)


class ThreadedTransport(ABC):
    """A port served by one reader thread. Subclasses implement only the port calls
    (``_open_port``, ``_read_port``, ``_write_port``, ``_close_port``), as python-can's
    ``BusABC`` subclasses implement only ``_recv_internal`` and ``send``.
    """

    def __init__(
        self,
        *,
        name: str,
        listener: LinkListener,
        backoff: Backoff | None = None,
        tick_interval: float = 0.02,
    ) -> None:
        self.name = name
        self._listener = listener
        self._backoff = backoff or Backoff()
        self._tick_interval = tick_interval
        self._stop = threading.Event()
        self._lock = threading.Lock()  # guards the port between writers and the reader
        self._is_open = False
        self._broken: str | None = None
        self._thread: threading.Thread | None = None

    # --- public API ---------------------------------------------------------------------

    def start(self) -> None:
        """Start the reader thread; a missing port is reported to the listener, not raised."""
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name=f"{self.name}-link", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop the reader thread and release the port; idempotent."""
        self._stop.set()
        self._interrupt()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(_JOIN_TIMEOUT)
            if thread.is_alive():
                # The port is the thread's to close: until it does, the next opener of
                # this port (the station after a pairing, a restart) is refused.
                log.warning(
                    "link reader did not stop: its port stays open until it does",
                    link=self.name,
                    seconds=_JOIN_TIMEOUT,
                )

    @property
    def is_open(self) -> bool:
        """Whether the port is open right now."""
        return self._is_open

    def write(self, data: bytes) -> None:
        """Send ``data`` to the device.

        Raises:
            LinkNotOpenError: the port is not open (the reader thread is reconnecting).
            TransportError: the write failed or timed out; the reader thread then drops
                the port, reports ``link_down`` and reconnects.
        """
        with self._lock:
            if not self._is_open or self._broken is not None:
                raise LinkNotOpenError(f"{self.name}: link is down")
            try:
                self._write_port(data)
            except TransportError as err:
                self._broken = str(err)
                raise

    def reconnect(self, reason: str) -> None:
        """Drop the port and open it again (the driver's protocol found the peer dead)."""
        with self._lock:
            if self._is_open:
                self._broken = reason
        self._interrupt()

    # --- for subclasses -----------------------------------------------------------------

    @abstractmethod
    def _open_port(self) -> str:
        """Open the port and return its description. Raise ``TransportError`` if not."""

    @abstractmethod
    def _read_port(self, timeout: float) -> bytes:
        """Return what arrived within ``timeout`` (maybe nothing); ``TransportError`` if lost."""

    @abstractmethod
    def _write_port(self, data: bytes) -> None:
        """Write all of ``data``; ``TransportError`` (or a leaf) if the port fails."""

    @abstractmethod
    def _close_port(self) -> None:
        """Release the port; never raises."""

    def _interrupt(self) -> None:
        """Wake a blocked read early, if the port can (optional)."""
        return  # a read returns within one tick anyway

    # --- reader thread ------------------------------------------------------------------

    def _run(self) -> None:
        # The reader thread is the device's only voice: if it ends for any reason but
        # close(), the device is lost (the procedure faults) rather than silently quiet.
        try:
            self._serve()
        except BaseException as err:  # a bug, or a port call that raised the unexpected
            log.exception("link reader thread failed", link=self.name)
            with contextlib.suppress(Exception), self._lock:
                self._is_open = False
                self._close_port()
            reason = f"{self.name}: reader thread ended: {type(err).__name__}: {err}"
            self._notify_down(TransportError(reason))
            return
        if not self._stop.is_set():  # pragma: no cover - _serve returns only when stopped
            self._notify_down(TransportError(f"{self.name}: reader thread ended"))

    def _serve(self) -> None:
        delays = self._backoff.delays()
        last_reported: str | None = None
        while not self._stop.is_set():
            try:
                with self._lock:
                    description = self._open_port()
                    self._is_open = True
                    self._broken = None
            except TransportError as err:
                # One outage is one report: a port that was lost and is now absent is
                # not news. A wrong device that appears is (a refusal, not an absence).
                news = last_reported is None or (
                    isinstance(err, WrongDeviceError) and str(err) != last_reported
                )
                if news:
                    last_reported = str(err)
                    self._notify_down(err)
                self._notify("link_tick")
                self._stop.wait(next(delays))
                continue
            delays = self._backoff.delays()
            last_reported = None
            log.info("link up", link=self.name, port=description)
            self._notify("link_up", description)
            error = self._pump()
            with self._lock:
                self._is_open = False
                self._close_port()
            if error is not None:
                last_reported = str(error)
                log.warning("link down", link=self.name, reason=str(error))
                self._notify_down(error)
        log.debug("link closed", link=self.name)

    def _pump(self) -> TransportError | None:
        # Every burst from the device passes here: the listener's two calls are bound once
        # and made directly, each guarded as _notify guards the rare ones. The
        # read waits until the listener's next deadline (a held ACK, a retransmit, a
        # heartbeat), so an idle link wakes only when its protocol
        # has work and a held ACK goes out when it is due, not up to a tick later.
        stop, interval = self._stop, self._tick_interval
        link_data, link_tick = self._listener.link_data, self._listener.link_tick
        monotonic = time.monotonic
        tick_at = 0.0  # when link_tick is next due (monotonic seconds)
        while not stop.is_set():
            broken = self._broken
            if broken is not None:
                return TransportError(broken)
            now = monotonic()
            wait = tick_at - now
            try:
                data = self._read_port(
                    _MAX_WAIT if wait > _MAX_WAIT else _MIN_WAIT if wait < _MIN_WAIT else wait
                )
            except TransportError as err:
                return None if stop.is_set() else err
            if data:
                try:
                    due = link_data(data)
                except Exception:
                    log.exception("link listener failed", link=self.name, call="link_data")
                    due = None
                now = monotonic()
                if due is not None:
                    tick_at = now + due
                if now < tick_at:
                    continue  # a burst, and a tick not due yet
            else:
                now = monotonic()
                if now < tick_at:
                    continue  # woken early (the read was interrupted)
            try:
                due = link_tick()
            except Exception:
                log.exception("link listener failed", link=self.name, call="link_tick")
                due = None
            tick_at = now + (interval if due is None else due)
        return None

    def _notify_down(self, error: TransportError) -> None:
        self._notify("link_down", error)

    def _notify(self, method: str, *args: object) -> None:
        # A listener bug must not kill the reader thread: the device would go quiet
        # with nobody told. Log it and keep pumping.
        try:
            getattr(self._listener, method)(*args)
        except Exception:
            log.exception("link listener failed", link=self.name, call=method)
