"""The sans-I/O link endpoint: handshake, sequence/ack/retransmit, heartbeats, link-down.

One :class:`Endpoint` class serves both ends. Feed it bytes and the time, send it messages,
and collect the bytes it wants written and the events it reports. It never reads a clock,
sleeps or touches a port: the caller passes ``now`` (monotonic seconds) to every call and
calls :meth:`Endpoint.tick` by :meth:`Endpoint.next_deadline`.

Reliable messages use go-back-N: up to ``window`` frames in flight, cumulative acks, and on
a timeout every unacked frame is sent again; after ``max_tries`` sends of the oldest frame
the link goes down and the unacked messages are reported in :class:`LinkDown`.

Opening a session (HELLO, proofs, refusals, pairing) is ``firmware_bridge.handshake``'s
half; this module carries the session's traffic. Every frame of a session passes through
``_on_frame`` and ``data_to_send``, so both work on tuples and locals (issue 15): the header
is unpacked once and its five bytes are the seal's associated data as they came; queued
frames are ``(type, seq, flags, payload)`` and get their ack and seal as they go out.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache

from firmware_bridge.auth import new_nonce
from firmware_bridge.codec import (
    DeviceKind,
    Message,
    Role,
    catalogue,
    decode_message,
    encode_message,
    may_send,
)
from firmware_bridge.errors import (
    AuthenticationError,
    NotConnectedError,
    PayloadError,
    ProtocolError,
)
from firmware_bridge.events import (
    Identity,
    LinkDown,
    LinkEvent,
    LinkStats,
    MessageReceived,
    MessageRejected,
)
from firmware_bridge.frame import (
    CRC_SIZE,
    DELIMITER,
    FLAG_ACK_NOW,
    FLAG_RELIABLE,
    FLAG_SEALED,
    HEADER,
    HEADER_SIZE,
    SUPPORTED_VERSIONS,
    FrameDecoder,
    wire_frame,
)
from firmware_bridge.handshake import PLAIN, LinkState, PeerCheck, SessionSetup
from firmware_bridge.link_messages import Ack, Heartbeat, Hello
from firmware_bridge.reliable import Arrival, ReceiveSequence, SendWindow, Timing

__all__ = ["Endpoint", "LinkState"]

#: Link-layer frames of a session that carry only their header's ack.
_HEADER_ONLY = frozenset({Heartbeat.TYPE_ID, Ack.TYPE_ID})
_PEER = {Role.STATION: Role.DEVICE, Role.DEVICE: Role.STATION}
_CONNECTED = LinkState.CONNECTED
_unpack_header = HEADER.unpack_from
_pack_header = HEADER.pack


@cache
def _sent_by(role: Role, kind: DeviceKind) -> frozenset[type[Message]]:
    """The message classes the ``role`` side of a ``kind`` link sends (``may_send`` of each
    catalogued class: one set lookup per frame instead of three attribute checks)."""
    return frozenset(cls for cls in catalogue() if may_send(cls, role, kind))


class Endpoint(SessionSetup):
    """One end of a link, station or device (sans-I/O).

    Args:
        role: ``Role.STATION`` initiates the handshake; ``Role.DEVICE`` answers it.
        identity: what this side says in its HELLO (see :class:`Identity`).
        check_peer: optional extra check of the peer's identity (serial number, firmware
            version...); returns a refusal reason or None to accept. Protocol version and
            device kind are always checked. It must not raise.
        timing: timeouts and limits (:class:`Timing`).
        rng: source of session numbers; pass a seeded ``random.Random`` in tests. Handshake
            nonces always come from ``secrets`` (they key the session).
        secret: the pairing secret shared with the peer (``firmware_bridge.auth``); None:
            not paired, every handshake is refused. Settable: a device that pairs keeps
            the new secret for its next session.
        pairing_consent: device side: whether the device's pairing button is held now
            (physical consent); a ``PairRequest`` without it is refused.

    Every frame of a session is sealed with the session's keys; a frame that fails its tag
    (or is not sealed) is dropped, counted in ``stats.auth_failures`` and reported as a
    :class:`FrameDropped` naming ``AuthenticationError``.

    Raises:
        PayloadError: ``identity`` does not fit in a HELLO (texts over 32 bytes).

    A device endpoint needs no ``reset`` after a LinkDown: it answers any new station
    session. A station calls ``reset`` to try again (with whatever backoff it likes).
    """

    _leading_delimiter: bool
    _ack_due: bool
    _ack_owed: int
    _ack_at: float
    _ack_every: int
    _hurry: bool
    _hello_at: float
    _hello_tries: int
    _now: float
    _check_until: float | None

    def __init__(
        self,
        role: Role,
        identity: Identity,
        *,
        check_peer: PeerCheck | None = None,
        timing: Timing | None = None,
        rng: random.Random | None = None,
        secret: bytes | None,
        pairing_consent: Callable[[], bool] | None = None,
    ) -> None:
        self.role = role
        self.identity = identity  # also sets which messages each side may send
        self.secret = secret
        self._pairing_consent = pairing_consent
        self._pair_answer = None
        self.timing = timing or Timing()
        self._ack_every = min(self.timing.ack_every, self.timing.window)
        self.stats = LinkStats()
        self._check_peer = check_peer
        self._rng = rng or random.SystemRandom()
        self._decoder = FrameDecoder()
        # Frames carry the identity's version: a test double can pose as a newer device.
        self._version = identity.protocol_version
        # An identity that does not fit in a HELLO fails here, not at start().
        encode_message(
            Hello(identity.kind, 1, bytes(16), identity.firmware, identity.serial_number)
        )
        self._events = []
        self._begin(0.0, session=0)
        self._state = LinkState.IDLE  # no session until start()

    # --- public API -----------------------------------------------------------------------

    @property
    def identity(self) -> Identity:
        """What this side says in its HELLO; settable (a double reconfigured between
        sessions), which also picks the messages each side of this kind of link sends."""
        return self._identity

    @identity.setter
    def identity(self, identity: Identity) -> None:
        self._identity = identity
        self._own_sends = _sent_by(self.role, identity.kind)
        self._peer_sends = _sent_by(_PEER[self.role], identity.kind)

    @property
    def state(self) -> LinkState:
        """The session's state."""
        return self._state

    @property
    def connected(self) -> bool:
        """Whether messages can be sent."""
        return self._state is LinkState.CONNECTED

    @property
    def peer(self) -> Identity | None:
        """The peer's identity from its HELLO in this session, once read."""
        return self._peer

    @property
    def unconfirmed(self) -> int:
        """Reliable messages sent or queued and not yet acknowledged by the peer."""
        return len(self._window)

    @property
    def next_seq(self) -> int:
        """The sequence number of this side's next new reliable frame."""
        return self._window.next_seq

    def start(self, now: float) -> None:
        """Begin the first session: the station sends HELLO, the device waits for one."""
        self.reset(now)

    def reset(self, now: float) -> None:
        """Abandon the current session (without reporting) and begin a new one.

        Unacked messages of the old session are dropped: they were reported in LinkDown,
        or the caller chose to reset while connected.
        """
        self._decoder.reset()  # a half-read frame belongs to the old session
        self._begin(now)
        if self.role is Role.STATION:
            self._send_hello(now)

    def send(self, message: Message, now: float, *, reliable: bool = True) -> None:
        """Queue ``message`` for the peer; reliable messages arrive exactly once, in order,
        or are listed in a later :class:`LinkDown`.

        Raises:
            NotConnectedError: no session (handshaking, down or refused).
            PayloadError: a field out of range, or a link-layer message.
            SendQueueFullError: more than ``max_pending`` messages wait behind the window.
        """
        cls = type(message)
        if cls not in self._own_sends:
            kind = self.identity.kind.name_text
            raise PayloadError(f"a {self.role.value} on a {kind} link does not send {cls.__name__}")
        if self._state is not LinkState.CONNECTED:
            raise NotConnectedError(f"cannot send {cls.__name__}: link is {self._state.value}")
        type_id, payload = encode_message(message)
        self._now = now
        if not reliable:
            self._outbox.append((type_id, 0, 0, payload))
            self._last_tx = now
            return
        out = self._window.submit(type_id, payload, message, now)
        if out is not None:
            self._outbox.append((type_id, out.seq, FLAG_RELIABLE, payload))
            self._last_tx = now

    def ask_ack_now(self) -> None:
        """Ask the peer to acknowledge what is queued at once (flag ``ACK_NOW``) instead of
        holding its ack: the last reliable frame of each burst carries the flag until every
        message queued so far has gone out. For a sender that waits on the acknowledgement
        before its next step (``DeviceFirmware.deliver``); a peer that ignores the flag
        still acks within ``ACK_DELAY``."""
        self._hurry = True

    def receive_data(self, data: bytes, now: float) -> None:
        """Take bytes from the peer. Never raises: bad frames become FrameDropped events."""
        self._now = now
        self.stats.bytes_received += len(data)
        on_frame = self._on_frame
        for item in self._decoder.feed_raw(data):
            if isinstance(item, bytes):
                on_frame(item, now)
            else:
                self._drop(item)

    def data_to_send(self) -> bytes:
        """Bytes to write to the peer now (possibly empty); each call drains them.

        Every frame carries the current ack; a frame of a session is sealed here, so its
        counter follows the order of the bytes on the wire.
        """
        outbox = self._outbox
        if not outbox:
            if not self._ack_due:
                return b""
            if self._ack_owed < self._ack_every and self._now < self._ack_at:
                return b""  # held until ack_at: a frame sent meanwhile carries the ack
            self._ack_due = False
            if self._state is not LinkState.CONNECTED:
                return b""
            outbox.append((Ack.TYPE_ID, 0, 0, b""))
            self._last_tx = self._now
        self._ack_due = False
        self._ack_owed = 0
        ack = self._rx.expected
        version = self._version
        sealer = self._sealer
        wires: list[bytes] = []
        if self._hurry:
            self._flag_ack_now(outbox)
        for type_id, seq, flags, payload in outbox:
            if sealer is None or type_id in PLAIN:
                wires.append(wire_frame(_pack_header(version, type_id, seq, flags, ack) + payload))
                continue
            header = _pack_header(version, type_id, seq, flags | FLAG_SEALED, ack)
            try:
                body = sealer.seal(header, payload)
            except AuthenticationError as err:
                self._link_down(str(err))  # counter exhausted: a new session renews the keys
                break
            wires.append(wire_frame(header + body))
        self.stats.frames_sent += len(wires)
        outbox.clear()
        out = b"".join(wires)
        if out and self._leading_delimiter:
            # The first bytes of a session flush whatever partial frame the peer holds.
            self._leading_delimiter = False
            out = DELIMITER + out
        return out

    def _flag_ack_now(self, outbox: list[tuple[int, int, int, bytes]]) -> None:
        """Set ``ACK_NOW`` on the last reliable frame of ``outbox``; stop hurrying once no
        message waits behind the window (what was queued has gone out)."""
        for i in range(len(outbox) - 1, -1, -1):
            type_id, seq, flags, payload = outbox[i]
            if flags & FLAG_RELIABLE:
                outbox[i] = (type_id, seq, flags | FLAG_ACK_NOW, payload)
                break
        if not self._window.waiting:
            self._hurry = False

    def tick(self, now: float) -> None:
        """Run the timers: HELLO resends, retransmits, heartbeats and silence detection."""
        self._now = now
        t = self.timing
        if self._state is LinkState.HANDSHAKING and self.role is Role.STATION:
            if now >= self._hello_at + t.hello_interval:
                if self._hello_tries >= t.hello_tries:
                    self._link_down(f"no answer to HELLO after {self._hello_tries} tries")
                else:
                    self._send_hello(now)
            return
        if self._state is not LinkState.CONNECTED:
            return
        if self._check_until is not None and now >= self._check_until:
            self._link_down(self._check_reason)
            return
        if now - self._last_rx >= t.silence_timeout:
            self._link_down(f"peer silent for {now - self._last_rx:.2f} s")
            return
        oldest = self._window.expired(now)
        if oldest is not None:
            name = type(oldest.message).__name__
            self._link_down(f"no ack for {name} (seq {oldest.seq}) after {oldest.tries} tries")
            return
        for out in self._window.resend(now):
            self._outbox.append((out.type_id, out.seq, FLAG_RELIABLE, out.payload))
            self._last_tx = now
            self.stats.retransmits += 1
        if now >= self._last_tx + t.heartbeat_interval:
            self._outbox.append((Heartbeat.TYPE_ID, 0, 0, b""))
            self._last_tx = now

    def next_deadline(self) -> float | None:
        """When :meth:`tick` next has work to do (None: not until more bytes arrive)."""
        t = self.timing
        if self._state is LinkState.HANDSHAKING and self.role is Role.STATION:
            return self._hello_at + t.hello_interval
        if self._state is not LinkState.CONNECTED:
            return None
        deadline = min(self._last_rx + t.silence_timeout, self._last_tx + t.heartbeat_interval)
        if self._ack_due:
            deadline = min(deadline, self._ack_at)
        if self._check_until is not None:
            deadline = min(deadline, self._check_until)
        resend = self._window.deadline()
        return deadline if resend is None else min(deadline, resend)

    def events(self) -> list[LinkEvent]:
        """Drain and return the events reported since the last call, oldest first."""
        out, self._events = self._events, []
        return out

    # --- session --------------------------------------------------------------------------

    def _begin(self, now: float, session: int | None = None) -> None:
        self._state = LinkState.HANDSHAKING
        self._session = self._rng.randrange(1, 1 << 32) if session is None else session
        self._peer_session = 0
        self._peer = None
        self._outbox = []
        self._leading_delimiter = True
        self._window = SendWindow(self.timing)
        self._rx = ReceiveSequence()
        self._ack_due = False
        self._ack_owed = 0
        self._ack_at = now
        self._hurry = False
        self._last_rx = now
        self._last_tx = now
        self._hello_at = now
        self._hello_tries = 0
        self._refused_session = 0
        self._refusal = ""
        self._now = now
        self._nonce = new_nonce()
        self._sealer = None
        self._opener = None
        self._reply = None
        self._check_until = None
        self._check_reason = ""
        self._check_name = ""

    def _send_hello(self, now: float) -> None:
        me = self.identity
        hello = Hello(me.kind, self._session, self._nonce, me.firmware, me.serial_number)
        self._queue_message(hello, now)
        self._hello_at = now
        self._hello_tries += 1

    def _link_down(self, reason: str) -> None:
        unconfirmed = self._window.take_unconfirmed()
        self._outbox.clear()
        self._sealer = self._opener = None  # the session's keys die with it
        self._state = LinkState.DOWN
        self._events.append(LinkDown(reason, unconfirmed))

    # --- receiving ------------------------------------------------------------------------

    def _on_frame(self, raw: bytes, now: float) -> None:
        """One frame with good framing and CRC, as ``frame.unframe`` returns it."""
        self.stats.frames_received += 1
        version, type_id, seq, flags, ack = _unpack_header(raw)
        if type_id in PLAIN or version not in SUPPORTED_VERSIONS or self._state is not _CONNECTED:
            self._on_frame_outside_session(type_id, version, raw, now)
            return
        opener = self._opener
        if opener is None or not flags & FLAG_SEALED:
            self._drop(AuthenticationError(f"frame type 0x{type_id:02X} is not sealed"))
            return
        try:
            # The header's own five bytes are the associated data the sender sealed under.
            payload = opener.open(raw[:HEADER_SIZE], raw[HEADER_SIZE:-CRC_SIZE])
        except AuthenticationError as err:
            self._drop(err)
            return
        self._last_rx = now
        if self._check_until is not None:
            # The session is alive: the unsealed end it was checked for was forged.
            self._check_until = None
            self.stats.forged_ends += 1
            name = self._check_name
            self._drop(AuthenticationError(f"an unsealed {name} while the session is alive"))
        for out in self._window.on_ack(ack, now):
            self._outbox.append((out.type_id, out.seq, FLAG_RELIABLE, out.payload))
            self._last_tx = now
        if type_id in _HEADER_ONLY:
            if type_id == Heartbeat.TYPE_ID and flags & FLAG_ACK_NOW:
                # A heartbeat request: prove the session alive at once (section 6).
                self._outbox.append((Heartbeat.TYPE_ID, 0, 0, b""))
                self._last_tx = now
            return
        reliable = bool(flags & FLAG_RELIABLE)
        if reliable:
            if not self._ack_due:
                self._ack_due = True
                self._ack_at = now + self.timing.ack_delay
            self._ack_owed += 1
            if flags & FLAG_ACK_NOW:
                self._ack_owed = self._ack_every  # the sender waits on this ack
            arrival = self._rx.arrive(seq)
            if arrival is not Arrival.NEW:
                self._ack_owed = self._ack_every  # a resend or a gap: ack at once
                if arrival is Arrival.DUPLICATE:
                    self.stats.duplicates += 1
                else:
                    self.stats.out_of_order += 1
                return
        try:
            msg = decode_message(type_id, payload)
        except ProtocolError as err:
            self._reject(str(err), type_id)
            return
        if type(msg) not in self._peer_sends:
            name = type(msg).__name__
            self._reject(f"{name} is not a message this peer may send", type_id)
            return
        self._events.append(MessageReceived(msg, reliable))

    def _reject(self, reason: str, type_id: int) -> None:
        self.stats.rejected += 1
        self._events.append(MessageRejected(reason, type_id))
