"""The station side of one device link: a ``firmware_bridge.Endpoint`` over a transport.

``LinkedDevice`` is the part the shuffler, shoe and card reader drivers share. It listens
to its transport (:class:`drivers.transport.LinkListener`), feeds bytes and the clock to the
sans-I/O endpoint, writes what the endpoint wants sent, and turns what the endpoint reports
into ``drivers.hal`` events:

* handshake done and identity accepted -> ``DeviceConnected``;
* port lost, peer silent, tries exhausted -> one ``DeviceLost`` per outage (the endpoint
  starts a new session at once and the transport reopens the port with backoff);
* identity refused (kind, serial number, firmware version not on the allow-list, protocol
  version) -> ``DeviceFault`` naming what was expected and what was found, once per
  outage (one journal row); retried every ``refusal_retry`` seconds in case the right
  device is plugged in;
* a device that cannot prove it holds the pairing secret, or :data:`AUTH_FAILURE_LIMIT`
  frames that fail their seal within :data:`AUTH_FAILURE_WINDOW` seconds -> ``DeviceFault``
  of kind ``AUTHENTICATION`` (its own fault code and prompt); fewer -> ``ForgedFrame``, a
  journal row each, play goes on (docs/protocol.md section 4c);
* device messages -> the subclass's ``_on_message``.

Frames dropped for a bad CRC or framing are recovered by retransmission and only counted
(``stats``): line noise must not stop play, a link that stays bad ends in ``DeviceLost``.
Noise fails the CRC; a frame with a good CRC and a bad seal was written by someone.

Acknowledged once recorded: the station asks each driver to hold the link's acks
(:meth:`LinkedDevice.hold_acks_until_committed`) and tells it which of its events the
journal has committed (:meth:`LinkedDevice.committed`); only then does the device hear
that its reports arrived (``firmware_bridge.Endpoint.hold_acks``, at most
``firmware_bridge.MAX_ACK_HOLD`` seconds). A station stopped between a report and its
commit gets the report again from the device in the next session, instead of losing it.
A hold that runs out (the journal committed slower than the hold) is a warning in the log,
``ack hold ran out``, at most once every :data:`HOLD_WARNING_INTERVAL` seconds a link, with
the count since the last one and in all.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import ClassVar

import structlog

import firmware_bridge as fb
from drivers.errors import TransportError, WrongDeviceError
from drivers.hal import (
    DeviceConnected,
    DeviceEvent,
    DeviceFault,
    DeviceFaultKind,
    DeviceKind,
    DeviceLost,
    EventSink,
    ForgedFrame,
)
from drivers.transport import ThreadedTransport

log = structlog.get_logger(__name__)

STATION_FIRMWARE = "dealer-station 0.1.0"
#: Receipts kept for acks held until their events are committed (``LinkedDevice.committed``):
#: far more than the reports of one hold (``firmware_bridge.MAX_ACK_HOLD``).
RECEIPTS_KEPT = 256
#: The least time between two ``ack hold ran out`` warnings of one link: a slow disk warns
#: once a minute, not once a report.
HOLD_WARNING_INTERVAL = 60.0


@dataclass(frozen=True, slots=True)
class ExpectedDevice:
    """What configuration says is at the other end of a link.

    ``firmware``: the allow-list of firmware versions (None accepts any: tests only; the
    configuration always names them). ``protocol_version`` None accepts any version this
    station speaks. ``secret``: the pairing secret (None: not paired, always refused).
    """

    serial_number: str
    protocol_version: int | None = None
    firmware: frozenset[str] | None = None
    secret: bytes | None = field(default=None, repr=False)


class _Status(Enum):
    STARTING = "starting"
    CONNECTED = "connected"
    LOST = "lost"
    REFUSED = "refused"


class LinkedDevice(ABC):
    """Base of the drivers that speak ``firmware_bridge`` (see the module docstring)."""

    KIND: ClassVar[DeviceKind]

    def __init__(
        self,
        sink: EventSink,
        expected: ExpectedDevice,
        *,
        station_id: str = "station",
        timing: fb.Timing | None = None,
        refusal_retry: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._sink = sink
        self.expected = expected
        self._clock = clock
        self._refusal_retry = refusal_retry
        self._lock = threading.RLock()
        self._endpoint = fb.Endpoint(
            fb.Role.STATION,
            fb.Identity(self.KIND, STATION_FIRMWARE, station_id),
            check_peer=self._check_peer,
            timing=timing,
            secret=expected.secret,
        )
        self._idle_wait = self._endpoint.timing.retransmit_timeout
        self._auth_failures = 0
        self._forged_at: deque[float] = deque()  # when this session's forged frames came
        self._forgery_fault = False
        self._status = _Status.STARTING
        self._last_fault: str | None = None
        self._port_open = False
        self._restart_at: float | None = None
        # Acks held until the events they carried are committed: (the last event a batch of
        # messages gave, or None for a batch that gave none; the batch's receipt), oldest
        # first. Bounded: a hold that runs out acknowledges without them.
        self._receipts: deque[tuple[DeviceEvent | None, int]] = deque(maxlen=RECEIPTS_KEPT)
        self._holding = False
        # Holds run out when the last warning was given, and when it was (_warn_holds).
        self._holds_warned = 0
        self._holds_warned_at: float | None = None
        # The events of the drain under way, sent to the sink at its end (_drain).
        self._out: list[DeviceEvent] | None = None

    # --- Device protocol ------------------------------------------------------------------

    @property
    @abstractmethod
    def transport(self) -> ThreadedTransport:
        """The transport this driver listens to."""

    def start(self) -> None:
        """Open the link and begin delivering events; a missing device is ``DeviceLost``."""
        self.transport.start()

    def close(self) -> None:
        """Stop the reader thread and release the port; idempotent."""
        self.transport.close()

    @property
    def connected(self) -> bool:
        """Whether the device completed its handshake and was accepted."""
        return self._status is _Status.CONNECTED

    @property
    def stats(self) -> fb.LinkStats:
        """The endpoint's live counters (frames, retransmits, duplicates, drops)."""
        return self._endpoint.stats

    def hold_acks_until_committed(self, seconds: float = fb.MAX_ACK_HOLD) -> None:
        """From now on, acknowledge the device's reports only once :meth:`committed` says
        the events they gave are on disk, or after ``seconds`` (see the module docstring).
        Called by the station before :meth:`start`."""
        with self._lock:
            self._endpoint.hold_acks(seconds)
            self._holding = True

    def committed(self, event: DeviceEvent) -> None:
        """``event`` (and every event before it) is committed to the journal: acknowledge
        the reports that gave it, and those before. Events of other drivers, and events
        that carry no report, change nothing."""
        receipts = self._receipts
        if not receipts:
            return
        with self._lock:
            if not any(kept is event for kept, _ in receipts):
                return
            receipt = None
            while receipts:  # up to the event: what came before it is committed too
                kept, receipt = receipts.popleft()
                if kept is event:
                    break
            while receipts and receipts[0][0] is None:  # batches that gave no event
                receipt = receipts.popleft()[1]
            if receipt is not None:
                self._endpoint.release(receipt, self._clock())
                self._flush()

    # --- LinkListener (transport's reader thread) -----------------------------------------

    def link_up(self, description: str) -> None:
        with self._lock:
            self._port_open = True
            self._restart_at = None
            self._endpoint.start(self._clock())
            self._flush()

    def link_data(self, data: bytes) -> float:
        with self._lock:
            now = self._clock()
            self._endpoint.receive_data(data, now)
            self._drain()
            self._flush()
            return self._wait(now)

    def link_tick(self) -> float | None:
        with self._lock:
            if not self._port_open:
                return None
            now = self._clock()
            if self._restart_at is not None and now >= self._restart_at:
                self._restart_at = None
                self._endpoint.reset(now)
            deadline = self._endpoint.next_deadline()
            if deadline is not None and now >= deadline:
                self._endpoint.tick(now)
                self._drain()
            self._flush()
            return self._wait(now)

    def link_down(self, error: TransportError) -> None:
        with self._lock:
            self._port_open = False
            unconfirmed = self._endpoint.unconfirmed
            # The session died with the port: commands now fail fast as "not connected"
            # instead of waiting in a session that can never deliver them.
            self._endpoint.reset(self._clock())
            self._endpoint.data_to_send()  # the new HELLO goes out on the next link_up
            if isinstance(error, WrongDeviceError):
                details = {f"expected_{k}": v for k, v in error.expected.items()}
                details.update({f"found_{k}": v for k, v in error.found.items()})
                self._refused(str(error), details)
            else:
                self._lost(str(error))
            if unconfirmed:
                for event in self._on_unconfirmed(f"{unconfirmed} commands"):
                    self._emit(event)

    # --- for subclasses -------------------------------------------------------------------

    @abstractmethod
    def _on_message(self, message: fb.Message) -> Iterable[DeviceEvent]:
        """Turn one message from the device into hal events."""

    def _on_connected(self) -> None:  # noqa: B027 - an optional hook
        """A session began (lock held): resend whatever state the device must hold."""

    def _on_rejected(self, reason: str, type_id: int) -> DeviceEvent:
        """A message arrived intact but could not be accepted."""
        return DeviceFault(self.KIND, f"unreadable message from the device: {reason}")

    def _on_unconfirmed(self, commands: str) -> Iterable[DeviceEvent]:
        """Commands (named in ``commands``) the device never acknowledged before the link
        went down: the procedure must not assume they were carried out."""
        yield DeviceFault(self.KIND, f"{commands} not confirmed before the link went down")

    def _send(self, message: fb.Message) -> bool:
        """Send a command reliably; a device that cannot take it is a ``DeviceFault``."""
        with self._lock:
            try:
                self._endpoint.send(message, self._clock())
            except fb.ProtocolError as err:
                self._emit(DeviceFault(self.KIND, f"{type(message).__name__} not sent: {err}"))
                return False
            self._flush()
            return True

    def _emit(self, event: DeviceEvent) -> None:
        out = self._out
        if out is not None:  # during a drain: in order with the messages' events
            out.append(event)
        else:
            self._sink(event)

    # --- internals ------------------------------------------------------------------------

    def _check_peer(self, peer: fb.Identity) -> str | None:
        wanted = self.expected
        if peer.serial_number != wanted.serial_number:
            return f"serial number {peer.serial_number!r}, configured {wanted.serial_number!r}"
        if wanted.protocol_version is not None and peer.protocol_version != wanted.protocol_version:
            return f"protocol version {peer.protocol_version}, configured {wanted.protocol_version}"
        if wanted.firmware is not None and peer.firmware not in wanted.firmware:
            allowed = ", ".join(sorted(wanted.firmware)) or "none"
            return f"firmware {peer.firmware!r} is not on the allow-list ({allowed})"
        return None

    def _wait(self, now: float) -> float:
        """Seconds until the link thread must tick: the endpoint's next deadline or a
        session restart, and never more than the retransmit timeout, the earliest deadline
        a command sent from another thread meanwhile can set (so it is met on time)."""
        wait = self._idle_wait
        deadline = self._endpoint.next_deadline()
        if deadline is not None and deadline - now < wait:
            wait = deadline - now
        restart = self._restart_at
        if restart is not None and restart - now < wait:
            wait = restart - now
        return wait

    def _flush(self) -> None:
        data = self._endpoint.data_to_send()
        if self._endpoint.stats.holds_expired != self._holds_warned:  # a hold ran out
            self._warn_holds()
        if data and self._port_open:
            try:
                self.transport.write(data)
            except TransportError as err:
                # The reader thread reports the loss; retransmission covers the bytes.
                log.debug("write failed", device=self.KIND.value, error=str(err))

    def _warn_holds(self) -> None:
        """Holds ran out since the last warning: warn, unless the last one was less than
        :data:`HOLD_WARNING_INTERVAL` seconds ago (then the next one counts these too)."""
        now = self._clock()
        last = self._holds_warned_at
        if last is not None and now - last < HOLD_WARNING_INTERVAL:
            return
        expired = self._endpoint.stats.holds_expired
        log.warning(
            "ack hold ran out",
            device=self.KIND.value,
            since_last=expired - self._holds_warned,
            in_all=expired,
            hold_seconds=self._endpoint.ack_hold,
        )
        self._holds_warned, self._holds_warned_at = expired, now

    def _drain(self) -> None:
        # The events go to the sink once the drain is over, after the receipt of the
        # messages that gave them is kept (_hold): the station may commit an event, and
        # say so (committed), as soon as it is on its queue.
        out: list[DeviceEvent] = []
        self._out = out
        try:
            self._drain_into(out)
        finally:
            self._out = None
        for event in out:
            self._sink(event)

    def _drain_into(self, out: list[DeviceEvent]) -> None:
        last: DeviceEvent | None = None
        delivered = False
        for event in self._endpoint.events():
            if isinstance(event, fb.MessageReceived):  # nearly every event: tested first
                delivered = True
                for hal_event in self._on_message(event.message):
                    out.append(hal_event)
                    last = hal_event
            elif isinstance(event, fb.Connected):
                # A new session: what the old one delivered needs no ack any more.
                self._receipts.clear()
                last, delivered = None, False
                self._status = _Status.CONNECTED
                self._last_fault = None
                self._auth_failures = 0
                self._forged_at.clear()
                self._forgery_fault = False
                peer = event.peer
                log.info("device connected", device=self.KIND.value, serial=peer.serial_number)
                self._emit(DeviceConnected(self.KIND, peer.serial_number, peer.firmware))
                self._on_connected()
            elif isinstance(event, fb.LinkDown):
                self._receipts.clear()
                last, delivered = None, False
                self._lost(event.reason)
                if event.unconfirmed:
                    names = ", ".join(type(m).__name__ for m in event.unconfirmed)
                    for hal_event in self._on_unconfirmed(names):
                        self._emit(hal_event)
                self._restart_at = self._clock()
            elif isinstance(event, fb.HandshakeRefused):
                kind = (
                    DeviceFaultKind.AUTHENTICATION
                    if event.authentication
                    else DeviceFaultKind.GENERAL
                )
                self._refused(event.reason, self._identity_details(event.peer), kind)
                self._restart_at = self._clock() + self._refusal_retry
            elif isinstance(event, fb.FrameDropped) and event.error == "AuthenticationError":
                self._forged(event.reason)
            elif isinstance(event, fb.MessageRejected):
                delivered = True
                last = self._on_rejected(event.reason, event.type_id)
                self._emit(last)
            elif isinstance(event, fb.FrameDropped):
                log.debug("frame dropped", device=self.KIND.value, reason=event.reason)
        if delivered and self._holding:
            self._hold(last)

    def _hold(self, last: DeviceEvent | None) -> None:
        """The messages just delivered are acknowledged once ``last`` (the last event they
        gave) is committed; at once if they gave none and nothing before them waits."""
        receipt = self._endpoint.receipt
        if last is None and not self._receipts:
            self._endpoint.release(receipt, self._clock())
            return
        self._receipts.append((last, receipt))

    def _identity_details(self, peer: fb.Identity | None) -> dict[str, str]:
        details = {
            "expected_kind": self.KIND.value,
            "expected_serial_number": self.expected.serial_number,
            "expected_protocol_version": (
                str(self.expected.protocol_version)
                if self.expected.protocol_version is not None
                else " or ".join(str(v) for v in sorted(fb.SUPPORTED_VERSIONS))
            ),
        }
        if self.expected.firmware is not None:
            details["expected_firmware"] = ", ".join(sorted(self.expected.firmware))
        if peer is not None:
            details |= {
                "found_kind": peer.kind.name_text,
                "found_serial_number": peer.serial_number,
                "found_protocol_version": str(peer.protocol_version),
                "found_firmware": peer.firmware,
            }
        return details

    def _lost(self, reason: str) -> None:
        # One outage, one event: retries that keep failing are not news.
        if self._status in (_Status.LOST, _Status.REFUSED):
            return
        self._status = _Status.LOST
        log.warning("device lost", device=self.KIND.value, reason=reason)
        self._emit(DeviceLost(self.KIND, reason))

    def _refused(
        self,
        reason: str,
        details: dict[str, str],
        kind: DeviceFaultKind = DeviceFaultKind.GENERAL,
    ) -> None:
        self._status = _Status.REFUSED
        if reason == self._last_fault:
            return
        self._last_fault = reason
        log.error("device refused", device=self.KIND.value, reason=reason, **details)
        self._emit(DeviceFault(self.KIND, f"{self.KIND.value} refused: {reason}", details, kind))

    def _forged(self, reason: str) -> None:
        """A frame failed its seal (or an unsealed end was disproven): journaled; the
        limit within the window faults the device, once a session (docs/protocol.md
        section 4c: no line noise reaches that rate)."""
        if self._status is not _Status.CONNECTED:
            return  # frames of a session that ended (or never began): nothing acts on them
        now = self._clock()
        self._auth_failures += 1
        recent = self._forged_at
        recent.append(now)
        while recent and recent[0] <= now - fb.AUTH_FAILURE_WINDOW:
            recent.popleft()
        log.warning("frame failed authentication", device=self.KIND.value, reason=reason)
        if self._forgery_fault:
            return  # the device is faulted: the rest are counted in stats.auth_failures
        if len(recent) >= fb.AUTH_FAILURE_LIMIT:
            self._forgery_fault = True
            window = f"{fb.AUTH_FAILURE_WINDOW:g} s"
            self._emit(
                DeviceFault(
                    self.KIND,
                    f"{fb.AUTH_FAILURE_LIMIT} frames failed authentication within {window}"
                    " (forged or altered)",
                    {"auth_failures": str(self.stats.auth_failures)},
                    DeviceFaultKind.AUTHENTICATION,
                )
            )
            return
        self._emit(ForgedFrame(self.KIND, reason, self._auth_failures))
