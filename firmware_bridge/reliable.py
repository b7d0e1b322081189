"""Reliable delivery: the timing constants, the sender's go-back-N window and the
receiver's sequence check.

Sequence numbers are one byte and wrap at 256. The sender keeps at most ``window``
(<= 127) frames in flight, so a receiver can always tell an old frame (a duplicate, to
ack again and drop) from one that skipped ahead (out of order, to drop and have resent).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from enum import Enum
from typing import Final

from firmware_bridge.codec import Message
from firmware_bridge.errors import SendQueueFullError
from firmware_bridge.frame import SEQ_MODULO

#: Resend an unacked frame after this long. A 16-byte frame takes ~1.4 ms at 115200 baud
#: and a USB bulk transfer ~1 ms, so 100 ms tolerates a busy host without needless resends.
RETRANSMIT_TIMEOUT: Final = 0.1
#: Sends of one frame (first send included) before the link is declared down.
MAX_TRIES: Final = 5
#: Send a heartbeat when nothing else went out for this long.
HEARTBEAT_INTERVAL: Final = 1.0
#: Declare the link down when nothing valid arrived for this long. A heartbeat goes out a
#: heartbeat interval after the peer's last send, so 3.5 s tolerates two heartbeats lost in
#: a row and reports the third (3.0 s would report two, landing right on the deadline).
SILENCE_TIMEOUT: Final = 3.5
#: The station resends HELLO this often, HELLO_TRIES times, before giving up.
HELLO_INTERVAL: Final = 0.1
HELLO_TRIES: Final = 30
#: The longest an endpoint may hold the acknowledgement of messages it delivered until the
#: application releases them (``Endpoint.hold_acks``): the peer resends after
#: RETRANSMIT_TIMEOUT and gives up after MAX_TRIES sends, so a hold stays well inside that.
MAX_ACK_HOLD: Final = 0.25
#: A side that owes an ack and has nothing to send holds the ACK frame this long, so that a
#: frame it sends meanwhile carries the ack in its header instead (nine ACK frames
#: in ten were redundant on the panel's link). Well below RETRANSMIT_TIMEOUT.
ACK_DELAY: Final = 0.01
#: ... but never while it owes this many reliable frames: the sender's window (8) stays open.
ACK_EVERY: Final = 4
#: Reliable frames in flight at once; at most 127 so sequence numbers compare mod 256.
WINDOW: Final = 8
#: Reliable messages queued behind a full window before send() refuses more.
MAX_PENDING: Final = 256


@dataclass(frozen=True, slots=True)
class Timing:
    """Timeouts (seconds) and limits of one endpoint; defaults suit 115200-baud serial
    and USB bulk.

    ``ack_delay``/``ack_every``: how long a standalone ACK may wait for an outgoing frame
    to carry it, and how many owed frames send it at once (never more than ``window``: the
    peer's window is taken to be ours). ``ack_delay=0``: every ACK at once.

    Raises:
        ValueError: a window outside 1..127, tries below 1, a non-positive interval, a
            silence timeout not longer than the heartbeat interval, an ack delay over a
            quarter of the retransmit timeout, or ``ack_every`` below 1.
    """

    retransmit_timeout: float = RETRANSMIT_TIMEOUT
    max_tries: int = MAX_TRIES
    heartbeat_interval: float = HEARTBEAT_INTERVAL
    silence_timeout: float = SILENCE_TIMEOUT
    hello_interval: float = HELLO_INTERVAL
    hello_tries: int = HELLO_TRIES
    window: int = WINDOW
    max_pending: int = MAX_PENDING
    ack_delay: float = ACK_DELAY
    ack_every: int = ACK_EVERY

    def __post_init__(self) -> None:
        if not 1 <= self.window <= 127:
            raise ValueError(f"window {self.window} must be within 1..127")
        if self.max_tries < 1 or self.hello_tries < 1 or self.max_pending < 0:
            raise ValueError("tries must be at least 1 and max_pending at least 0")
        if min(self.retransmit_timeout, self.heartbeat_interval, self.hello_interval) <= 0:
            raise ValueError("intervals must be positive")
        if self.silence_timeout <= self.heartbeat_interval:
            raise ValueError("silence_timeout must exceed heartbeat_interval")
        if not 0 <= self.ack_delay <= self.retransmit_timeout / 4:
            raise ValueError("ack_delay must be within 0..retransmit_timeout/4")
        if self.ack_every < 1:
            raise ValueError(f"ack_every {self.ack_every} must be at least 1")


@dataclass(slots=True)
class Outgoing:
    """A reliable frame in flight: what to resend, how often it went out, and when last."""

    seq: int
    type_id: int
    payload: bytes
    message: Message
    tries: int
    sent_at: float


class SendWindow:
    """The sender's side: sequence numbers, frames in flight, messages queued behind them."""

    __slots__ = ("_in_flight", "_next_seq", "_pending", "_timing")

    def __init__(self, timing: Timing) -> None:
        self._timing = timing
        self._in_flight: deque[Outgoing] = deque()
        self._pending: deque[tuple[int, bytes, Message]] = deque()
        self._next_seq = 0

    @property
    def next_seq(self) -> int:
        """The sequence number the next frame launched into the window takes."""
        return self._next_seq

    def __len__(self) -> int:
        """Messages sent or queued and not yet acknowledged."""
        return len(self._in_flight) + len(self._pending)

    @property
    def waiting(self) -> int:
        """Messages queued behind the window, not sent yet."""
        return len(self._pending)

    def submit(self, type_id: int, payload: bytes, message: Message, now: float) -> Outgoing | None:
        """Give ``message`` a sequence number and return it to transmit now, or queue it
        behind a full window (None).

        Raises:
            SendQueueFullError: ``max_pending`` messages already wait.
        """
        if len(self._in_flight) < self._timing.window:
            return self._launch(type_id, payload, message, now)
        if len(self._pending) >= self._timing.max_pending:
            raise SendQueueFullError(f"{len(self._pending)} messages already wait for acks")
        self._pending.append((type_id, payload, message))
        return None

    def on_ack(self, ack: int, now: float) -> list[Outgoing]:
        """Take the peer's cumulative ack (the next sequence number it expects); return the
        queued frames that now fit in the window, to transmit."""
        if not self._in_flight:
            return []
        acked = (ack - self._in_flight[0].seq) % SEQ_MODULO
        if not 0 < acked <= len(self._in_flight):
            return []  # stale or nonsense: nothing new acknowledged
        for _ in range(acked):
            self._in_flight.popleft()
        if self._in_flight:
            # The new oldest frame gets a full timeout from now; its tries are unchanged.
            self._in_flight[0].sent_at = max(self._in_flight[0].sent_at, now)
        launched = []
        while self._pending and len(self._in_flight) < self._timing.window:
            launched.append(self._launch(*self._pending.popleft(), now))
        return launched

    def deadline(self) -> float | None:
        """When the oldest frame in flight times out (None: nothing in flight)."""
        if not self._in_flight:
            return None
        return self._in_flight[0].sent_at + self._timing.retransmit_timeout

    def expired(self, now: float) -> Outgoing | None:
        """The oldest frame if it timed out after its last allowed try (link down)."""
        if self._in_flight and now >= self._in_flight[0].sent_at + self._timing.retransmit_timeout:
            oldest = self._in_flight[0]
            if oldest.tries >= self._timing.max_tries:
                return oldest
        return None

    def resend(self, now: float) -> list[Outgoing]:
        """If the oldest frame timed out, return every frame in flight to send again, in
        order (go-back-N: the receiver dropped whatever followed a lost frame)."""
        deadline = self.deadline()
        if deadline is None or now < deadline:
            return []
        for out in self._in_flight:
            out.tries += 1
            out.sent_at = now
        return list(self._in_flight)

    def take_unconfirmed(self) -> tuple[Message, ...]:
        """Empty the window and the queue; return their messages, oldest first."""
        out = tuple(o.message for o in self._in_flight) + tuple(m for _, _, m in self._pending)
        self._in_flight.clear()
        self._pending.clear()
        return out

    def _launch(self, type_id: int, payload: bytes, message: Message, now: float) -> Outgoing:
        out = Outgoing(self._next_seq, type_id, payload, message, 1, now)
        self._next_seq = (self._next_seq + 1) % SEQ_MODULO
        self._in_flight.append(out)
        return out


class Arrival(Enum):
    """How a reliable frame's sequence number relates to the one the receiver expects."""

    NEW = "new"  # the expected one: deliver
    DUPLICATE = "duplicate"  # already delivered: ack again, drop
    OUT_OF_ORDER = "out_of_order"  # skipped ahead past a lost frame: drop, it will be resent


class ReceiveSequence:
    """The receiver's side: the next sequence number expected (sent back as the ack)."""

    __slots__ = ("expected",)

    def __init__(self) -> None:
        self.expected = 0

    def arrive(self, seq: int) -> Arrival:
        """Classify a reliable frame's ``seq``; a NEW one advances the expected number."""
        behind = (self.expected - seq) % SEQ_MODULO
        if behind == 0:
            self.expected = (self.expected + 1) % SEQ_MODULO
            return Arrival.NEW
        # With at most 127 frames in flight, "behind by 1..128" can only be a resend.
        return Arrival.DUPLICATE if behind <= SEQ_MODULO // 2 else Arrival.OUT_OF_ORDER
