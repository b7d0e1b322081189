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
``_on_frame`` and ``data_to_send``, so both work on tuples and locals (the hot path): the header
is unpacked once and its five bytes are the seal's associated data as they came; queued
frames are ``(type, seq, flags, payload)`` and get their ack and seal as they go out.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache
from typing import cast

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
    Connected,
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
    SEQ_MODULO,
    SUPPORTED_VERSIONS,
    FrameDecoder,
    wire_frame,
)
from firmware_bridge.handshake import PLAIN, PeerCheck, SessionSetup
from firmware_bridge.link_messages import Ack, Heartbeat, Hello
from firmware_bridge.reliable import MAX_ACK_HOLD, Arrival, Timing
from firmware_bridge.session import LinkState, Session

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

    _ack_every: int
    _now: float

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
        self._hold = 0.0
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
        self._pending = None
        self._begin(0.0, session=0)
        self._s.state = LinkState.IDLE  # no session until start()

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
        return self._s.state

    @property
    def connected(self) -> bool:
        """Whether messages can be sent."""
        return self._s.state is LinkState.CONNECTED

    @property
    def peer(self) -> Identity | None:
        """The peer's identity from its HELLO in this session, once read."""
        return self._s.peer

    @property
    def unconfirmed(self) -> int:
        """Reliable messages sent or queued and not yet acknowledged by the peer."""
        return len(self._s.window)

    @property
    def next_seq(self) -> int:
        """The sequence number of this side's next new reliable frame."""
        return self._s.window.next_seq

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
        s = self._s
        cls = type(message)
        if cls not in self._own_sends:
            kind = self.identity.kind.name_text
            raise PayloadError(f"a {self.role.value} on a {kind} link does not send {cls.__name__}")
        if s.state is not LinkState.CONNECTED:
            raise NotConnectedError(f"cannot send {cls.__name__}: link is {s.state.value}")
        type_id, payload = encode_message(message)
        self._now = now
        if not reliable:
            s.outbox.append((type_id, 0, 0, payload))
            s.last_tx = now
            return
        out = s.window.submit(type_id, payload, message, now)
        if out is not None:
            s.outbox.append((type_id, out.seq, FLAG_RELIABLE, payload))
            s.last_tx = now

    def ask_ack_now(self) -> None:
        """Ask the peer to acknowledge what is queued at once (flag ``ACK_NOW``) instead of
        holding its ack: the last reliable frame of each burst carries the flag until every
        message queued so far has gone out. For a sender that waits on the acknowledgement
        before its next step (``DeviceFirmware.deliver``); a peer that ignores the flag
        still acks within ``ACK_DELAY``."""
        self._s.hurry = True

    def hold_acks(self, seconds: float) -> None:
        """Hold the acknowledgement of the reliable messages delivered until the application
        releases them (:meth:`release`: it has made them durable, the station's journal
        committed what they reported) or ``seconds`` pass, whichever comes first; 0 (the default):
        acknowledge on arrival. The peer sends a message whose ack never went out again in
        its next session (docs/protocol.md section 6a), so a station stopped between
        receiving a report and recording it gets the report again. Frames that go out
        meanwhile carry the last ack released.

        Raises:
            ValueError: ``seconds`` outside 0..MAX_ACK_HOLD (the peer gives up on an ack
                after MAX_TRIES sends).
        """
        if not 0 <= seconds <= MAX_ACK_HOLD:
            raise ValueError(f"an ack hold of {seconds} s is outside 0..{MAX_ACK_HOLD} s")
        self._hold = seconds

    @property
    def ack_hold(self) -> float:
        """The longest an ack is held (:meth:`hold_acks`); 0: acknowledged on arrival."""
        return self._hold

    @property
    def receipt(self) -> int:
        """The ack that covers every message delivered in this session so far (the next
        sequence number expected): what :meth:`release` takes."""
        return self._s.rx.expected

    def release(self, receipt: int, now: float) -> None:
        """The application made every message up to ``receipt`` (a :attr:`receipt` of this
        session) durable: their ack goes out at the next :meth:`data_to_send`. A receipt
        behind the last one released, or past the messages delivered, changes nothing."""
        s = self._s
        self._now = now
        if s.hold_until is None:
            return  # nothing held (or the hold ran out)
        ahead = (receipt - s.ack_held) % SEQ_MODULO
        if not 0 < ahead <= (s.rx.expected - s.ack_held) % SEQ_MODULO:
            return
        s.ack_held = receipt
        if receipt == s.rx.expected:
            s.hold_until = None
        s.ack_due = True
        s.ack_owed = self._ack_every  # at once: the peer has waited for it

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
        if self._pending is not None:
            return self._held_to_send(self._pending)
        s = self._s
        outbox = s.outbox
        held = s.hold_until is not None and self._held(s)
        if not outbox:
            if not s.ack_due:
                return b""
            # Held, an ACK frame goes out only when one is owed at once (a release, a
            # resend): it carries the last ack released.
            if s.ack_owed < self._ack_every and (held or self._now < s.ack_at):
                return b""  # held until ack_at: a frame sent meanwhile carries the ack
            s.ack_due = False
            if s.state is not LinkState.CONNECTED:
                return b""
            outbox.append((Ack.TYPE_ID, 0, 0, b""))
            s.last_tx = self._now
        # While held, frames carry the last ack released and the rest is still owed.
        s.ack_due = held
        s.ack_owed = 0
        ack = s.ack_held if held else s.rx.expected
        version = self._version
        sealer = s.sealer
        wires: list[bytes] = []
        if s.hurry:
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
        if out and s.leading_delimiter:
            # The first bytes of a session flush whatever partial frame the peer holds.
            s.leading_delimiter = False
            out = DELIMITER + out
        return out

    def _held(self, s: Session) -> bool:
        """Whether the ack is held now (a hold is on); a hold that ran out ends here."""
        if self._now < cast(float, s.hold_until):
            return True
        s.hold_until = None
        self.stats.holds_expired += 1
        return False

    def _flag_ack_now(self, outbox: list[tuple[int, int, int, bytes]]) -> None:
        """Set ``ACK_NOW`` on the last reliable frame of ``outbox``; stop hurrying once no
        message waits behind the window (what was queued has gone out)."""
        s = self._s
        for i in range(len(outbox) - 1, -1, -1):
            type_id, seq, flags, payload = outbox[i]
            if flags & FLAG_RELIABLE:
                outbox[i] = (type_id, seq, flags | FLAG_ACK_NOW, payload)
                break
        if not s.window.waiting:
            s.hurry = False

    def tick(self, now: float) -> None:
        """Run the timers: HELLO resends, retransmits, heartbeats and silence detection."""
        s = self._s
        self._now = now
        t = self.timing
        if s.state is LinkState.HANDSHAKING and self.role is Role.STATION:
            if now >= s.hello_at + t.hello_interval:
                if s.hello_tries >= t.hello_tries:
                    self._link_down(f"no answer to HELLO after {s.hello_tries} tries")
                else:
                    self._send_hello(now)
            return
        if s.state is not LinkState.CONNECTED:
            return
        if self._pending is not None:
            # Pending a new session (section 4c) only the silence of this one is timed: a
            # session that fell silent is over anyway, and the device joins the new one as
            # it would without a session.
            if now - s.last_rx >= t.silence_timeout:
                self._join(self._pending, f"peer silent for {now - s.last_rx:.2f} s", now)
            return
        if s.check_until is not None and now >= s.check_until:
            self._link_down(s.check_reason)
            return
        if now - s.last_rx >= t.silence_timeout:
            self._link_down(f"peer silent for {now - s.last_rx:.2f} s")
            return
        oldest = s.window.expired(now)
        if oldest is not None:
            name = type(oldest.message).__name__
            self._link_down(f"no ack for {name} (seq {oldest.seq}) after {oldest.tries} tries")
            return
        for out in s.window.resend(now):
            s.outbox.append((out.type_id, out.seq, FLAG_RELIABLE, out.payload))
            s.last_tx = now
            self.stats.retransmits += 1
        if now >= s.last_tx + t.heartbeat_interval:
            s.outbox.append((Heartbeat.TYPE_ID, 0, 0, b""))
            s.last_tx = now

    def next_deadline(self) -> float | None:
        """When :meth:`tick` next has work to do (None: not until more bytes arrive)."""
        s = self._s
        t = self.timing
        if s.state is LinkState.HANDSHAKING and self.role is Role.STATION:
            return s.hello_at + t.hello_interval
        if s.state is not LinkState.CONNECTED:
            return None
        if self._pending is not None:
            return s.last_rx + t.silence_timeout
        deadline = min(s.last_rx + t.silence_timeout, s.last_tx + t.heartbeat_interval)
        if s.ack_due:
            # A held ack waits for release() or the hold's end, not for ack_at.
            deadline = min(deadline, s.ack_at if s.hold_until is None else s.hold_until)
        if s.check_until is not None:
            deadline = min(deadline, s.check_until)
        resend = s.window.deadline()
        return deadline if resend is None else min(deadline, resend)

    def events(self) -> list[LinkEvent]:
        """Drain and return the events reported since the last call, oldest first."""
        out, self._events = self._events, []
        return out

    # --- session --------------------------------------------------------------------------

    def _begin(self, now: float, session: int | None = None) -> None:
        """A new session (a new object: nothing of the old one carries over)."""
        number = self._rng.randrange(1, 1 << 32) if session is None else session
        self._s = Session(number, self.timing, now)
        self._pending = None
        self._now = now

    def _send_hello(self, now: float) -> None:
        s = self._s
        me = self.identity
        hello = Hello(me.kind, s.session, s.nonce, me.firmware, me.serial_number)
        self._queue_message(hello, now)
        s.hello_at = now
        s.hello_tries += 1

    def _link_down(self, reason: str) -> None:
        s = self._s
        self._pending = None  # a session asked for meanwhile goes with it
        unconfirmed = s.window.take_unconfirmed()
        s.outbox.clear()
        s.sealer = s.opener = None  # the session's keys die with it
        s.state = LinkState.DOWN
        self._events.append(LinkDown(reason, unconfirmed))

    def _join_pending(self, raw: bytes) -> bytes | None:
        """A sealed frame that the current session cannot open, tried under the pending
        session's keys (section 4c): the payload, the pending session now the current one
        (the old one reported down), or None."""
        pending = self._pending
        assert pending is not None and pending.opener is not None
        try:
            payload = pending.opener.open(raw[:HEADER_SIZE], raw[HEADER_SIZE:-CRC_SIZE])
        except AuthenticationError:
            return None
        self._join(pending, "station started a new session", self._now)
        return payload

    def _join(self, pending: Session, reason: str, now: float) -> None:
        """End the current session for ``reason`` and go on in ``pending``."""
        self._link_down(reason)
        self._s = pending
        pending.last_rx = now
        assert pending.peer is not None
        self._events.append(Connected(pending.peer))

    def _held_to_send(self, pending: Session) -> bytes:
        """While a new session is pending (section 4c): the unsealed frames only (the
        pending session's HELLO_REPLY, a REFUSED); the current session's sealed ones wait."""
        s = self._s
        frames = [f for f in s.outbox if f[0] in PLAIN] + pending.outbox
        if not frames:
            return b""
        s.outbox[:] = [f for f in s.outbox if f[0] not in PLAIN]
        pending.outbox.clear()
        version = self._version
        out = b"".join(
            wire_frame(_pack_header(version, type_id, seq, flags, 0) + payload)
            for type_id, seq, flags, payload in frames
        )
        self.stats.frames_sent += len(frames)
        if pending.leading_delimiter:
            pending.leading_delimiter = False
            out = DELIMITER + out
        return out

    # --- receiving ------------------------------------------------------------------------

    def _on_frame(self, raw: bytes, now: float) -> None:
        """One frame with good framing and CRC, as ``frame.unframe`` returns it."""
        s = self._s
        self.stats.frames_received += 1
        version, type_id, seq, flags, ack = _unpack_header(raw)
        if type_id in PLAIN or version not in SUPPORTED_VERSIONS or s.state is not _CONNECTED:
            self._on_frame_outside_session(type_id, version, raw, now)
            return
        opener = s.opener
        if opener is None or not flags & FLAG_SEALED:
            self._drop(AuthenticationError(f"frame type 0x{type_id:02X} is not sealed"))
            return
        try:
            # The header's own five bytes are the associated data the sender sealed under.
            payload = opener.open(raw[:HEADER_SIZE], raw[HEADER_SIZE:-CRC_SIZE])
        except AuthenticationError as err:
            joined = None if self._pending is None else self._join_pending(raw)
            if joined is None:
                self._drop(err)
                return
            s, payload = self._s, joined
        else:
            if self._pending is not None:
                # This session is alive: the HELLO that asked for another was forged.
                self._pending = None
                self.stats.forged_ends += 1
                self._drop(
                    AuthenticationError("a Hello of another session while this one is alive")
                )
        s.last_rx = now
        if s.check_until is not None:
            # The session is alive: the unsealed end it was checked for was forged.
            s.check_until = None
            self.stats.forged_ends += 1
            name = s.check_name
            self._drop(AuthenticationError(f"an unsealed {name} while the session is alive"))
        for out in s.window.on_ack(ack, now):
            s.outbox.append((out.type_id, out.seq, FLAG_RELIABLE, out.payload))
            s.last_tx = now
        if type_id in _HEADER_ONLY:
            if type_id == Heartbeat.TYPE_ID and flags & FLAG_ACK_NOW:
                # A heartbeat request: prove the session alive at once (section 6).
                s.outbox.append((Heartbeat.TYPE_ID, 0, 0, b""))
                s.last_tx = now
            return
        reliable = bool(flags & FLAG_RELIABLE)
        if reliable:
            if not s.ack_due:
                s.ack_due = True
                s.ack_at = now + self.timing.ack_delay
            s.ack_owed += 1
            if flags & FLAG_ACK_NOW:
                s.ack_owed = self._ack_every  # the sender waits on this ack
            arrival = s.rx.arrive(seq)
            if arrival is not Arrival.NEW:
                s.ack_owed = self._ack_every  # a resend or a gap: ack at once
                if arrival is Arrival.DUPLICATE:
                    self.stats.duplicates += 1
                else:
                    self.stats.out_of_order += 1
                return
            if self._hold and s.hold_until is None:
                s.ack_held = seq  # what was acknowledged before this message
                s.hold_until = now + self._hold
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
