"""The sans-I/O link endpoint: handshake, sequence/ack/retransmit, heartbeats, link-down.

One :class:`Endpoint` class serves both ends. Feed it bytes and the time, send it messages,
and collect the bytes it wants written and the events it reports. It never reads a clock,
sleeps or touches a port: the caller passes ``now`` (monotonic seconds) to every call and
calls :meth:`Endpoint.tick` by :meth:`Endpoint.next_deadline`.

Reliable messages use go-back-N: up to ``window`` frames in flight, cumulative acks, and on
a timeout every unacked frame is sent again; after ``max_tries`` sends of the oldest frame
the link goes down and the unacked messages are reported in :class:`LinkDown`.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from enum import Enum

from firmware_bridge.auth import (
    TAG_BYTES,
    Opener,
    PairingKey,
    Sealer,
    SessionKeys,
    new_nonce,
    pairing_info,
)
from firmware_bridge.codec import Message, Role, decode_message, encode_message, may_send
from firmware_bridge.errors import (
    AuthenticationError,
    NotConnectedError,
    PayloadError,
    ProtocolError,
    VersionError,
)
from firmware_bridge.events import (
    Connected,
    FrameDropped,
    HandshakeRefused,
    Identity,
    LinkDown,
    LinkEvent,
    LinkStats,
    MessageReceived,
    MessageRejected,
    Paired,
)
from firmware_bridge.frame import (
    DELIMITER,
    FLAG_RELIABLE,
    FLAG_SEALED,
    SUPPORTED_VERSIONS,
    Frame,
    FrameDecoder,
    encode_frame,
)
from firmware_bridge.handshake import PeerCheck, refusal_reason
from firmware_bridge.messages import (
    Ack,
    Heartbeat,
    Hello,
    HelloReply,
    NoSession,
    PairReply,
    PairRequest,
    Refused,
)
from firmware_bridge.reliable import (
    Arrival,
    ReceiveSequence,
    SendWindow,
    Timing,
)

#: Frames never sealed: the handshake and pairing (no session keys exist yet) and NoSession
#: (sent by a device that has none).
_PLAIN = frozenset(
    {
        Hello.TYPE_ID,
        HelloReply.TYPE_ID,
        Refused.TYPE_ID,
        NoSession.TYPE_ID,
        PairRequest.TYPE_ID,
        PairReply.TYPE_ID,
    }
)


class LinkState(Enum):
    """Where an endpoint's session stands."""

    IDLE = "idle"  # never started
    HANDSHAKING = "handshaking"  # station: sending HELLO; device: waiting for one
    CONNECTED = "connected"
    DOWN = "down"  # LinkDown reported; call reset()
    REFUSED = "refused"  # HandshakeRefused reported; call reset()


class Endpoint:
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

    _state: LinkState
    _session: int
    _peer_session: int
    _peer: Identity | None
    _outbox: list[Frame]
    _leading_delimiter: bool
    _window: SendWindow
    _rx: ReceiveSequence
    _ack_due: bool
    _last_rx: float
    _last_tx: float
    _hello_at: float
    _hello_tries: int
    _refused_session: int
    _refusal: str

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
        self.identity = identity
        self.secret = secret
        self._pairing_consent = pairing_consent
        self._pair_answer: tuple[bytes, PairReply] | None = None
        self.timing = timing or Timing()
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
        self._events: list[LinkEvent] = []
        self._begin(0.0, session=0)
        self._state = LinkState.IDLE  # no session until start()

    # --- public API -----------------------------------------------------------------------

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
        if not may_send(cls, self.role, self.identity.kind):
            kind = self.identity.kind.name_text
            raise PayloadError(f"a {self.role.value} on a {kind} link does not send {cls.__name__}")
        if self._state is not LinkState.CONNECTED:
            raise NotConnectedError(f"cannot send {cls.__name__}: link is {self._state.value}")
        type_id, payload = encode_message(message)
        self._now = now
        if not reliable:
            self._queue_frame(type_id, 0, 0, payload, now)
            return
        out = self._window.submit(type_id, payload, message, now)
        if out is not None:
            self._queue_frame(type_id, out.seq, FLAG_RELIABLE, payload, now)

    def receive_data(self, data: bytes, now: float) -> None:
        """Take bytes from the peer. Never raises: bad frames become FrameDropped events."""
        self._now = now
        self.stats.bytes_received += len(data)
        for item in self._decoder.feed(data):
            if isinstance(item, ProtocolError):
                self._drop(item)
            else:
                self._on_frame(item, now)

    def data_to_send(self) -> bytes:
        """Bytes to write to the peer now (possibly empty); each call drains them."""
        if self._ack_due and not self._outbox and self._state is LinkState.CONNECTED:
            self._queue_frame(Ack.TYPE_ID, 0, 0, b"", self._now)
        self._ack_due = False
        ack = self._rx.expected
        sealer = self._sealer
        if sealer is None:
            out = b"".join(encode_frame(f._replace(ack=ack)) for f in self._outbox)
        else:
            out = b"".join(self._sealed(sealer, f, ack) for f in self._outbox)
        self.stats.frames_sent += len(self._outbox)
        self._outbox.clear()
        if out and self._leading_delimiter:
            # The first bytes of a session flush whatever partial frame the peer holds.
            self._leading_delimiter = False
            out = DELIMITER + out
        return out

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
        if now - self._last_rx >= t.silence_timeout:
            self._link_down(f"peer silent for {now - self._last_rx:.2f} s")
            return
        oldest = self._window.expired(now)
        if oldest is not None:
            name = type(oldest.message).__name__
            self._link_down(f"no ack for {name} (seq {oldest.seq}) after {oldest.tries} tries")
            return
        for out in self._window.resend(now):
            self._queue_frame(out.type_id, out.seq, FLAG_RELIABLE, out.payload, now)
            self.stats.retransmits += 1
        if now >= self._last_tx + t.heartbeat_interval:
            self._queue_frame(Heartbeat.TYPE_ID, 0, 0, b"", now)

    def next_deadline(self) -> float | None:
        """When :meth:`tick` next has work to do (None: not until more bytes arrive)."""
        t = self.timing
        if self._state is LinkState.HANDSHAKING and self.role is Role.STATION:
            return self._hello_at + t.hello_interval
        if self._state is not LinkState.CONNECTED:
            return None
        deadline = min(self._last_rx + t.silence_timeout, self._last_tx + t.heartbeat_interval)
        resend = self._window.deadline()
        return deadline if resend is None else min(deadline, resend)

    def events(self) -> list[LinkEvent]:
        """Drain and return the events reported since the last call, oldest first."""
        out, self._events = self._events, []
        return out

    def _sealed(self, sealer: Sealer, frame: Frame, ack: int) -> bytes:
        if frame.type_id in _PLAIN:
            return encode_frame(frame._replace(ack=ack))
        frame = frame._replace(ack=ack, flags=frame.flags | FLAG_SEALED)
        try:
            body = sealer.seal(frame.header(), frame.payload)
        except AuthenticationError as err:
            self._link_down(str(err))  # counter exhausted: a new session renews the keys
            return b""
        return encode_frame(frame._replace(payload=body))

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
        self._last_rx = now
        self._last_tx = now
        self._hello_at = now
        self._hello_tries = 0
        self._refused_session = 0
        self._refusal = ""
        self._now = now
        self._nonce = new_nonce()
        self._sealer: Sealer | None = None
        self._opener: Opener | None = None
        self._reply: HelloReply | None = None

    def _send_hello(self, now: float) -> None:
        me = self.identity
        hello = Hello(me.kind, self._session, self._nonce, me.firmware, me.serial_number)
        self._queue_message(hello, now)
        self._hello_at = now
        self._hello_tries += 1

    def _connect(self, peer: Identity, peer_session: int, now: float) -> None:
        self._peer = peer
        self._peer_session = peer_session
        self._state = LinkState.CONNECTED
        self._last_rx = now
        self._events.append(Connected(peer))

    def _link_down(self, reason: str) -> None:
        unconfirmed = self._window.take_unconfirmed()
        self._outbox.clear()
        self._sealer = self._opener = None  # the session's keys die with it
        self._state = LinkState.DOWN
        self._events.append(LinkDown(reason, unconfirmed))

    def _refuse(
        self,
        reason: str,
        echo: int,
        peer: Identity | None,
        now: float,
        *,
        authentication: bool = False,
    ) -> None:
        self._queue_message(Refused(echo, reason.encode()[:200].decode(errors="ignore")), now)
        if self._state is not LinkState.REFUSED:
            self._refusal = reason
            self._state = LinkState.REFUSED
            self._sealer = self._opener = None
            self._events.append(
                HandshakeRefused(reason, by_peer=False, peer=peer, authentication=authentication)
            )

    # --- receiving ------------------------------------------------------------------------

    def _drop(self, err: ProtocolError) -> None:
        name = type(err).__name__
        if isinstance(err, AuthenticationError):
            self.stats.auth_failures += 1
        self.stats.dropped += 1
        self.stats.drops_by_reason[name] = self.stats.drops_by_reason.get(name, 0) + 1
        self._events.append(FrameDropped(str(err), name))

    def _on_frame(self, frame: Frame, now: float) -> None:
        self.stats.frames_received += 1
        if frame.type_id in (Hello.TYPE_ID, HelloReply.TYPE_ID, Refused.TYPE_ID):
            self._on_handshake(frame, now)
            return
        if frame.version not in SUPPORTED_VERSIONS:
            self._drop(VersionError(f"frame of protocol version {frame.version} dropped"))
            return
        if frame.type_id == PairRequest.TYPE_ID:
            if self.role is Role.DEVICE:
                self._on_pair_request(frame, now)
            return
        if frame.type_id == PairReply.TYPE_ID:
            return  # for the station's pairing exchange (firmware_bridge.pairing)
        if self._state is not LinkState.CONNECTED:
            if self.role is Role.DEVICE and self._state in (LinkState.HANDSHAKING, LinkState.DOWN):
                # Tell the station at once rather than let it wait for its retransmits.
                self._queue_message(NoSession(), now)
            self._drop(NotConnectedError(f"frame type 0x{frame.type_id:02X} outside a session"))
            return
        if frame.type_id == NoSession.TYPE_ID:
            # Unsealed (a device without a session has no keys): a forged one can only end
            # the session, as cutting the cable would.
            if self.role is Role.STATION:
                self._link_down("device has no session (it restarted or ended the session)")
            return
        opener = self._opener
        if opener is None or not frame.sealed:
            self._drop(AuthenticationError(f"frame type 0x{frame.type_id:02X} is not sealed"))
            return
        try:
            frame = frame._replace(payload=opener.open(frame.header(), frame.payload))
        except AuthenticationError as err:
            self._drop(err)
            return
        self._last_rx = now
        for out in self._window.on_ack(frame.ack, now):
            self._queue_frame(out.type_id, out.seq, FLAG_RELIABLE, out.payload, now)
        if frame.type_id in (Heartbeat.TYPE_ID, Ack.TYPE_ID):
            return
        if frame.reliable:
            self._ack_due = True
            arrival = self._rx.arrive(frame.seq)
            if arrival is Arrival.DUPLICATE:
                self.stats.duplicates += 1
                return
            if arrival is Arrival.OUT_OF_ORDER:
                self.stats.out_of_order += 1
                return
        self._deliver(frame)

    def _deliver(self, frame: Frame) -> None:
        try:
            msg = decode_message(frame.type_id, frame.payload)
        except ProtocolError as err:
            self._reject(str(err), frame.type_id)
            return
        peer_role = Role.DEVICE if self.role is Role.STATION else Role.STATION
        if not may_send(type(msg), peer_role, self.identity.kind):
            name = type(msg).__name__
            self._reject(f"{name} is not a message this peer may send", frame.type_id)
            return
        self._events.append(MessageReceived(msg, frame.reliable))

    def _reject(self, reason: str, type_id: int) -> None:
        self.stats.rejected += 1
        self._events.append(MessageRejected(reason, type_id))

    def _on_handshake(self, frame: Frame, now: float) -> None:
        try:
            msg = decode_message(frame.type_id, frame.payload)
        except ProtocolError as err:
            self._drop(err)
            return
        if isinstance(msg, Refused):
            if msg.echo == self._session and self._state in (
                LinkState.HANDSHAKING,
                LinkState.CONNECTED,
            ):
                self._state = LinkState.REFUSED
                self._refused_session = self._peer_session  # late HELLOs of it stay refused
                unconfirmed = self._window.take_unconfirmed()
                self._events.append(HandshakeRefused(msg.reason, True, self._peer, unconfirmed))
            return
        if isinstance(msg, Hello) and self.role is Role.DEVICE:
            self._on_hello(msg, frame.version, now)
        elif isinstance(msg, HelloReply) and self.role is Role.STATION:
            self._on_hello_reply(msg, frame.version, now)
        else:
            self._drop(PayloadError(f"{type(msg).__name__} is not for a {self.role.value}"))

    def _on_hello(self, hello: Hello, version: int, now: float) -> None:
        if self._state is LinkState.IDLE:
            return
        peer = Identity(hello.kind, hello.firmware, hello.serial_number, version)
        if self._state is LinkState.CONNECTED and hello.session != self._peer_session:
            self._link_down("station started a new session")
        if self._state is LinkState.DOWN:
            if hello.session == self._peer_session:
                return  # a late HELLO of the session that went down
            self._begin(now)  # a device follows the station into any new session
        if self._state is LinkState.REFUSED and hello.session != self._refused_session:
            self._begin(now)
        if self._state is LinkState.HANDSHAKING:
            reason = refusal_reason(self.role, self.identity, peer, self._check_peer)
            if reason is None and self.secret is None:
                reason = "the device is not paired with a station (dealer-station pair)"
            if reason is not None:
                self._refused_session = hello.session
                self._refuse(reason, hello.session, peer, now)
                return
            assert self.secret is not None
            keys = SessionKeys(self.secret, hello.nonce, self._nonce, self.identity.kind)
            self._sealer = Sealer(keys.device_to_station)
            self._opener = Opener(keys.station_to_device)
            me = self.identity
            reply = HelloReply(
                me.kind,
                self._session,
                hello.session,
                self._nonce,
                bytes(TAG_BYTES),
                me.firmware,
                me.serial_number,
            )
            self._reply = dataclasses.replace(
                reply, proof=self._sealer.proof(encode_message(reply)[1])
            )
            self._connect(peer, hello.session, now)
        if self._state is LinkState.REFUSED:
            if self._refusal:  # we refused it: say so again; if the station refused us, hush
                self._refuse(self._refusal, hello.session, peer, now)
            return
        # Connected: (re)send the reply; a lost reply shows as a resent HELLO.
        if self._reply is not None:
            self._queue_message(self._reply, now)

    def _on_hello_reply(self, reply: HelloReply, version: int, now: float) -> None:
        if self._state is not LinkState.HANDSHAKING or reply.echo != self._session:
            return  # a late duplicate, or an answer to an older HELLO
        peer = Identity(reply.kind, reply.firmware, reply.serial_number, version)
        self._peer = peer
        # Nothing in the reply is believed before its proof: an impostor's serial number
        # and firmware version are only what it claims.
        failure = self._verify_reply(reply)
        if failure is not None:
            self._refuse(failure, reply.session, peer, now, authentication=True)
            return
        reason = refusal_reason(self.role, self.identity, peer, self._check_peer)
        if reason is not None:
            self._refuse(reason, reply.session, peer, now)
            return
        self._connect(peer, reply.session, now)

    def _verify_reply(self, reply: HelloReply) -> str | None:
        """Check the reply's proof of the pairing secret and set the session keys; the
        reason it fails, or None."""
        if self.secret is None:
            return "the station is not paired with this device (dealer-station pair)"
        try:
            keys = SessionKeys(self.secret, self._nonce, reply.nonce, self.identity.kind)
        except AuthenticationError as err:
            return f"device failed authentication: {err}"
        opener = Opener(keys.device_to_station)
        unproved = dataclasses.replace(reply, proof=bytes(TAG_BYTES))
        if not opener.check_proof(encode_message(unproved)[1], reply.proof):
            return "device failed authentication: not paired with this station (wrong key)"
        self._opener = opener
        self._sealer = Sealer(keys.station_to_device)
        return None

    def _on_pair_request(self, frame: Frame, now: float) -> None:
        """Device side of pairing: answer only with the pairing button held (consent)."""
        try:
            request = decode_message(frame.type_id, frame.payload)
        except ProtocolError as err:
            self._drop(err)
            return
        assert isinstance(request, PairRequest)
        me = self.identity
        consent = self._pairing_consent
        answered = self._pair_answer
        if answered is not None and answered[0] == request.public_key:
            # The same request again (its answer was slow or lost): the same answer, never
            # a second secret the station would not know of.
            self._queue_message(answered[1], now)
            return
        if request.kind is not me.kind:
            reason = f"pairing refused: this device is a {me.kind.name_text}"
        elif consent is None or not consent():
            reason = "pairing refused: hold the device's pairing button"
        else:
            key = PairingKey()
            info = pairing_info(me.kind, me.serial_number)
            try:
                secret = key.secret(request.public_key, request.public_key, key.public, info)
            except AuthenticationError as err:
                self._drop(err)
                return
            self._begin(now)  # a new secret ends any session of the old one
            self.secret = secret
            self._events.append(Paired(secret, request.station))
            reply = PairReply(me.kind, key.public, me.firmware, me.serial_number)
            self._pair_answer = (request.public_key, reply)
            self._queue_message(reply, now)
            return
        self._queue_message(Refused(0, reason), now)

    # --- sending --------------------------------------------------------------------------

    def _queue_message(self, message: Message, now: float) -> None:
        type_id, payload = encode_message(message)
        self._queue_frame(type_id, 0, 0, payload, now)

    def _queue_frame(self, type_id: int, seq: int, flags: int, payload: bytes, now: float) -> None:
        self._outbox.append(Frame(self._version, type_id, seq, flags, 0, payload))
        self._last_tx = now
