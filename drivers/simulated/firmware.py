"""The device side of a ``firmware_bridge`` link, shared by every device double.

``DeviceFirmware`` runs a device-role ``Endpoint`` exactly as device firmware would: it
answers the station's HELLO, acks, retransmits and heartbeats. Reports made while no
session is up wait in a backlog (a real shoe buffers the cards it sees), and reports the
station never acknowledged before a link went down go back to the front of it: a report is
delivered at least once and, within a session, exactly once.

Fault switches (thread-safe, for tests and the simulator):

* ``silent``: hear nothing, say nothing (a hung firmware); clearing it resumes.
* ``reply_delay``: answer commands this many seconds late.
* ``noise``: :class:`LineNoise` on every outgoing frame (``noise.corrupt_next(n)``...).
* ``drop_acks(n)``: lose the next n ACK frames from the station, so the device retransmits.
* ``duplicate_acks(n)``: send each of the next n ACK frames twice.
* ``wire_version``: the protocol version the device writes in its frames (an old firmware).
* ``hello_serial``: the serial number the device claims in its HELLO.
* ``pairing_button``: the device's pairing button is held (physical consent to pair);
  ``secret`` is the pairing secret it holds (set by pairing, or given at construction).

``wire_log``: set it to a list and every chunk of bytes the station sends is kept there;
``sent_log``: set it to a list and every message this device sends is kept there, before it
is sealed (the HIL suite searches both for the hole card).

Subclasses implement ``_on_command`` and their control API; the port (pty or USB) calls
``receive`` with bytes and ``tick`` periodically, and ``transmit`` is wired to the port.
"""

from __future__ import annotations

import random
import threading
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import ClassVar

import firmware_bridge as fb
from drivers.simulated.control_calls import Call
from drivers.simulated.line_noise import LineNoise
from drivers.simulated.wire_faults import faulty_pieces, without_acks
from firmware_bridge.frame import PROTOCOL_VERSION

DEFAULT_FIRMWARE = "sim-1.0"


class DeviceFirmware(ABC):
    """Device-side protocol engine with fault injection (see the module docstring)."""

    KIND: ClassVar[fb.DeviceKind]
    #: The double's own calls on the control socket, and its readable state
    #: (``drivers.simulated.control_calls``).
    CONTROL: ClassVar[Mapping[str, Call]] = {}
    READABLE: ClassVar[frozenset[str]] = frozenset()
    #: Readable state only this Python double keeps (a test bench's record of what the
    #: device hid): the C firmware standing for it has none.
    DOUBLE_ONLY: ClassVar[frozenset[str]] = frozenset()

    def __init__(
        self,
        serial_number: str,
        *,
        firmware: str = DEFAULT_FIRMWARE,
        timing: fb.Timing | None = None,
        seed: int = 0,
        clock: Callable[[], float] = time.monotonic,
        secret: bytes | None = None,
    ) -> None:
        self.serial_number = serial_number
        self.secret = secret
        self.pairing_button = False
        self.paired_station: str | None = None
        self.firmware = firmware
        self.hello_serial = serial_number
        self.wire_version = PROTOCOL_VERSION
        self.silent = False
        self.reply_delay = 0.0
        self.noise = LineNoise(seed)
        self.transmit: Callable[[bytes], bool] = lambda data: False
        self._timing = timing
        self._rng = random.Random(seed)
        self._clock = clock
        # The lock itself for plain critical sections: entering the Condition runs two
        # Python-level calls (threading.Condition.__enter__/__exit__) around the same lock,
        # ~160 times a round on the dealer's thread. Waits use the Condition.
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._waiters = 0  # threads in _wait_until: nobody waiting, nobody to notify
        self._backlog: deque[fb.Message] = deque()
        self._scheduled: list[tuple[float, fb.Message]] = []
        self._drop_acks = 0
        self._duplicate_acks = 0
        self._holding = 0  # nested holding() blocks: reports wait for the outermost end
        self._scanned: list[fb.Message] = []  # sensor reports of this block's scan
        self._rx_partial = b""
        self.commands: list[fb.Message] = []
        self.wire_log: list[bytes] | None = None
        self.sent_log: list[fb.Message] | None = None
        self.sessions = 0
        self.refusals: list[str] = []
        self._endpoint = self._new_endpoint()
        self._idle_wait = self._endpoint.timing.retransmit_timeout

    # --- state for tests ------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """Whether a session with the station is up."""
        return self._endpoint.connected

    @property
    def unconfirmed(self) -> int:
        """Reports not yet acknowledged by the station, backlog included."""
        with self._lock:
            return self._endpoint.unconfirmed + len(self._backlog) + len(self._scheduled)

    @property
    def next_seq(self) -> int:
        """The sequence number of this device's next reliable frame (a tap learns it by
        counting frames)."""
        with self._lock:
            return self._endpoint.next_seq

    @property
    def stats(self) -> fb.LinkStats:
        """The device endpoint's counters."""
        return self._endpoint.stats

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Wait until ``predicate()`` holds (checked after every byte and tick)."""
        with self._lock:
            return self._wait_until(predicate, timeout)

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Wait until connected with every report acknowledged."""
        return self.wait_for(lambda: self.connected and self.unconfirmed == 0, timeout)

    # --- fault switches -------------------------------------------------------------------

    def drop_acks(self, count: int) -> None:
        """Lose the next ``count`` ACK frames the station sends."""
        with self._lock:
            self._drop_acks += count

    def duplicate_acks(self, count: int) -> None:
        """Send each of the next ``count`` ACK frames twice."""
        with self._lock:
            self._duplicate_acks += count

    def power_cycle(self) -> None:
        """Reboot the firmware: the session, backlog and pending replies are gone."""
        with self._lock:
            self._backlog.clear()
            self._scanned.clear()
            self._scheduled.clear()
            self._rx_partial = b""
            self._endpoint = self._new_endpoint()
            self._notify()

    # --- for the simulated dealer's hands -------------------------------------------------

    def holding(self) -> Holding:
        """Nothing goes out while the block runs; what it queued (reports, and the port's
        thread's ACKs and replies) goes out together when it ends: several frames (up to
        the window) in one burst, as a board whose loop reads several sensors before its
        UART sends, instead of one write per report. The station reads them in one read
        and acknowledges them with one ACK. Keep the block short: it delays the ACKs."""
        return Holding((self,))

    def hold(self) -> None:
        """Start holding (see :meth:`holding`); each ``hold`` needs its ``release``."""
        with self._lock:
            self._holding += 1

    def release(self) -> None:
        """End one :meth:`hold`; the last one sends what was held."""
        with self._lock:
            if self._holding == 1:
                self._send_scanned()
            self._holding -= 1
            if not self._holding:
                self._flush()

    def deliver(self, timeout: float = 5.0) -> bool:
        """Send what this device has queued now (inside a :meth:`holding` block too),
        asking the station to acknowledge at once (``ACK_NOW``), and wait until it has
        acknowledged every report. The station's driver puts a report's events on its
        queue before it acknowledges the frame (``drivers.device_link``), so whatever this
        device reported is queued before anything done next on another device: a dealer's
        card is on the station's queue before her next button press overtakes it on the
        panel's link. True once all is acknowledged; False with no session or after
        ``timeout`` seconds."""
        with self._lock:
            if not self._endpoint.connected:
                return False
            if self.unconfirmed == 0:
                return True
            self._send_scanned()
            self._endpoint.ask_ack_now()
            # Not holding until the ack is in: what waits behind a full window goes out
            # as the station's acks open it (the port's thread sends it), or it would wait
            # for the end of the block and the wait for its ack would time out.
            holding, self._holding = self._holding, 0
            try:
                self._flush()
                return self._wait_until(
                    lambda: self._endpoint.connected and self.unconfirmed == 0, timeout
                )
            finally:
                self._holding = holding

    def _wait_until(self, predicate: Callable[[], bool], timeout: float) -> bool:
        # Lock held. Counted, so that the port's thread notifies only when someone waits
        # (threading.Condition.notify_all runs in Python: twice a frame).
        self._waiters += 1
        try:
            return self._cond.wait_for(predicate, timeout)
        finally:
            self._waiters -= 1

    def _sleep(self, timeout: float) -> None:
        """Lock held: wait until a burst or tick notifies, or ``timeout`` seconds (a timer
        thread of a double without a port thread sleeps so until its next deadline)."""
        self._waiters += 1
        try:
            self._cond.wait(timeout)
        finally:
            self._waiters -= 1

    def _notify(self) -> None:
        # Lock held: wake the threads in _wait_until to check their predicates.
        if self._waiters:
            self._cond.notify_all()

    # --- port side ------------------------------------------------------------------------

    def receive(self, data: bytes) -> float | None:
        """Bytes from the station. Returns the seconds until :meth:`tick` has work (None:
        silent, tick at the port's pace)."""
        with self._lock:
            if self.wire_log is not None:
                self.wire_log.append(bytes(data))
            if self.silent:
                return None
            # A new HELLO identity takes effect at the next HELLO (firmware reconfigured).
            if (
                self._endpoint.identity.serial_number != self.hello_serial
                or self._endpoint.identity.firmware != self.firmware
            ):
                self._endpoint.identity = fb.Identity(self.KIND, self.firmware, self.hello_serial)
            now = self._clock()
            if self._drop_acks:
                # Frame by frame, to lose ACKs; a partial frame waits here for its end.
                frames, self._rx_partial, self._drop_acks = without_acks(
                    self._rx_partial, data, self._drop_acks
                )
                for frame in frames:
                    self._endpoint.receive_data(frame, now)
            else:
                # The whole burst at once; the endpoint's decoder keeps partials.
                if self._rx_partial:
                    data, self._rx_partial = self._rx_partial + data, b""
                self._endpoint.receive_data(data, now)
            self._drain(now)
            self._flush()
            self._notify()
            return self._wait(now)

    def tick(self) -> float | None:
        """Run timers: due replies, retransmits, heartbeats. Returns the seconds until the
        next one is due (None: silent, tick at the port's pace)."""
        with self._lock:
            if self.silent:
                return None
            now = self._clock()
            due = [m for t, m in self._scheduled if t <= now] if self._scheduled else None
            if due:
                self._scheduled = [(t, m) for t, m in self._scheduled if t > now]
                for message in due:
                    self._send_now(message, now)
            deadline = self._endpoint.next_deadline()
            if deadline is not None and now >= deadline:
                self._endpoint.tick(now)
                self._drain(now)
            self._flush()
            self._notify()
            return self._wait(now)

    # --- for subclasses -------------------------------------------------------------------

    @abstractmethod
    def _on_command(self, message: fb.Message) -> None:
        """Act on one command from the station (called with the lock held)."""

    def _scan(self, report: fb.Message) -> None:
        """A report of the board's sensor scan (a wager sensor): inside a :meth:`holding`
        block it waits for the block's end, or for the next other report, and goes out with
        the block's other scanned reports in the messages :meth:`_scan_messages` makes of
        them (one frame for a table's bets); outside a block, at once."""
        with self._lock:
            if self._holding:
                self._scanned.append(report)
            else:
                self._report(report)

    def _scan_messages(self, reports: list[fb.Message]) -> list[fb.Message]:
        """The messages that carry one scan's ``reports`` (by default, each alone)."""
        return reports

    def _send_scanned(self) -> None:
        # Lock held. Before any other report, so that the order of reports is kept.
        if self._scanned:
            scanned, self._scanned = self._scanned, []
            now = self._clock()
            for message in self._scan_messages(scanned):
                self._send_now(message, now)

    def _report(self, *messages: fb.Message) -> None:
        """Send reports now, in order and in one write, or as soon as a session is up
        (several: what the firmware read in one scan, e.g. a press and its release)."""
        with self._lock:
            self._send_scanned()
            now = self._clock()
            for message in messages:
                self._send_now(message, now)
            self._flush()

    def _reply(self, message: fb.Message) -> None:
        """Answer a command, ``reply_delay`` seconds late if asked to be slow."""
        with self._lock:
            if self.reply_delay > 0:
                self._scheduled.append((self._clock() + self.reply_delay, message))
            else:
                self._report(message)

    # --- internals ------------------------------------------------------------------------

    def _pairing_consent(self) -> bool:
        """Whether a pairing request may be answered now: the pairing button is held."""
        return self.pairing_button

    def _new_endpoint(self) -> fb.Endpoint:
        identity = fb.Identity(self.KIND, self.firmware, self.hello_serial)
        endpoint = fb.Endpoint(
            fb.Role.DEVICE,
            identity,
            timing=self._timing,
            rng=random.Random(self._rng.getrandbits(32)),
            secret=self.secret,
            pairing_consent=self._pairing_consent,
        )
        endpoint.start(self._clock())
        return endpoint

    def _wait(self, now: float) -> float:
        """Seconds until the port's thread must tick: the endpoint's next deadline or a
        delayed reply, and never more than the retransmit timeout, the earliest deadline a
        report sent from another thread meanwhile can set. A deadline that passes while a
        block holds the output (a held ACK) is kept: the port's thread then ticks at its
        shortest wait until the block ends, so the ACK goes out as soon as it may."""
        wait = self._idle_wait
        deadline = self._endpoint.next_deadline()
        if deadline is not None and deadline - now < wait:
            wait = deadline - now
        for at, _ in self._scheduled:
            wait = min(wait, at - now)
        return wait

    def _send_now(self, message: fb.Message, now: float) -> None:
        if self.sent_log is not None:
            self.sent_log.append(message)
        if self._endpoint.connected and not self._backlog:
            try:
                self._endpoint.send(message, now)
                return
            except fb.SendQueueFullError:
                pass
        self._backlog.append(message)

    def _drain(self, now: float) -> None:
        for event in self._endpoint.events():
            if isinstance(event, fb.Paired):
                # Kept in the device's flash: it survives power cycles.
                self.secret = event.secret
                self.paired_station = event.station
            elif isinstance(event, fb.Connected):
                self.sessions += 1
                self._send_backlog(now)
            elif isinstance(event, fb.MessageReceived):
                self.commands.append(event.message)
                if isinstance(event.message, fb.EchoRequest):
                    # docs/protocol.md section 6a: answered at once, unreliable, sealed.
                    self._endpoint.send(fb.EchoReply(event.message.data), now, reliable=False)
                    continue
                self._on_command(event.message)
            elif isinstance(event, fb.LinkDown):
                # Unacknowledged reports go out again in the next session.
                self._backlog.extendleft(reversed(event.unconfirmed))
                if self._endpoint.state is fb.LinkState.DOWN:
                    self._endpoint.reset(now)
            elif isinstance(event, fb.HandshakeRefused):
                # Reports sent before the station refused us were never accepted: keep them
                # for a session with a station that takes us.
                self.refusals.append(event.reason)
                self._backlog.extendleft(reversed(event.unconfirmed))
        if self._endpoint.connected and self._backlog:
            self._send_backlog(now)

    def _send_backlog(self, now: float) -> None:
        while self._backlog and self._endpoint.connected:
            try:
                self._endpoint.send(self._backlog[0], now)
            except fb.SendQueueFullError:
                return
            self._backlog.popleft()

    def _flush(self) -> None:
        if self.silent or self._holding:
            # A hung firmware: what it queued goes nowhere until it recovers. Holding: it
            # goes at the end of the block.
            return
        data = self._endpoint.data_to_send()
        if not data:
            return
        if self.noise.idle and not self._duplicate_acks and self.wire_version == PROTOCOL_VERSION:
            # Nothing to do frame by frame: the burst goes out in one write.
            self.transmit(data)
            return
        pieces, self._duplicate_acks = faulty_pieces(
            data, self.noise, self._duplicate_acks, self.wire_version
        )
        for piece in pieces:
            self.transmit(piece)


class Holding:
    """A block during which ``doubles`` send nothing (:meth:`DeviceFirmware.holding`);
    each sends what it held when the block ends. A plain class: a block per look of the
    simulated dealer, where a generator-based context manager cost more than the hold."""

    __slots__ = ("_doubles",)

    def __init__(self, doubles: Sequence[DeviceFirmware]) -> None:
        self._doubles = doubles

    def __enter__(self) -> None:
        for double in self._doubles:
            double.hold()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        for double in reversed(self._doubles):
            double.release()
