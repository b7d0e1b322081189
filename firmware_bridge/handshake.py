"""Opening a session: who may talk to whom, HELLO / HELLO_REPLY / REFUSED, and pairing.

:func:`refusal_reason` is the check both sides run on the peer's HELLO. :class:`SessionSetup`
is the half of :class:`firmware_bridge.link.Endpoint` that opens sessions: it answers
(device) or checks (station) the handshake, proves and verifies the pairing secret, sets the
session's keys and refuses a wrong peer. It holds the state both halves share; the
endpoint in ``link.py`` adds the session's traffic (seals, sequence numbers, acks, timers).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from typing import Final

from firmware_bridge.auth import (
    TAG_BYTES,
    Opener,
    PairingKey,
    Sealer,
    SessionKeys,
    pairing_info,
)
from firmware_bridge.codec import Message, Role, decode_message, encode_message
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
    LinkEvent,
    LinkStats,
    Paired,
)
from firmware_bridge.frame import CRC_SIZE, FLAG_ACK_NOW, HEADER_SIZE, SUPPORTED_VERSIONS
from firmware_bridge.link_messages import (
    Heartbeat,
    Hello,
    HelloReply,
    NoSession,
    PairReply,
    PairRequest,
    Refused,
)
from firmware_bridge.reliable import Timing
from firmware_bridge.session import LinkState, Session

#: A caller's extra check of the peer: returns a refusal reason, or None to accept.
PeerCheck = Callable[[Identity], "str | None"]

#: Frames never sealed: the handshake and pairing (no session keys exist yet) and NoSession
#: (sent by a device that has none).
PLAIN: Final = frozenset(
    {
        Hello.TYPE_ID,
        HelloReply.TYPE_ID,
        Refused.TYPE_ID,
        NoSession.TYPE_ID,
        PairRequest.TYPE_ID,
        PairReply.TYPE_ID,
    }
)
_HANDSHAKE: Final = frozenset({Hello.TYPE_ID, HelloReply.TYPE_ID, Refused.TYPE_ID})


def refusal_reason(role: Role, me: Identity, peer: Identity, check: PeerCheck | None) -> str | None:
    """Why the ``role`` side (``me``) refuses ``peer``, or None to accept it.

    Always checked: the peer's protocol version and that both name the same device kind
    (the station names the kind it expects). Then the caller's ``check`` (serial number,
    firmware version, ...). Reasons read the same on both ends of the link.
    """
    peer_role = Role.DEVICE if role is Role.STATION else Role.STATION
    if peer.protocol_version not in SUPPORTED_VERSIONS:
        spoken = ", ".join(str(v) for v in sorted(SUPPORTED_VERSIONS))
        return (
            f"protocol version {peer.protocol_version} of the {peer_role.value} is not "
            f"supported (the {role.value} speaks version {spoken})"
        )
    if peer.kind is not me.kind:
        station, device = (me, peer) if role is Role.STATION else (peer, me)
        return (
            f"device kind mismatch: the station expects a {station.kind.name_text}, "
            f"the device is a {device.kind.name_text}"
        )
    if check is not None:
        return check(peer)
    return None


class SessionSetup:
    """The session-opening half of an endpoint (see the module docstring).

    Not used on its own: :class:`firmware_bridge.link.Endpoint` sets every attribute below
    in its constructor and ``_begin``, and supplies ``_begin`` and ``_link_down``.
    """

    role: Role
    identity: Identity
    secret: bytes | None
    stats: LinkStats
    timing: Timing
    _check_peer: PeerCheck | None
    _pairing_consent: Callable[[], bool] | None
    _pair_answer: tuple[bytes, PairReply] | None
    _rng: random.Random
    _events: list[LinkEvent]
    #: The current session (``firmware_bridge.session``): a new one each time one begins.
    _s: Session
    #: Device side: a new session a HELLO asked for while this one is up, answered and not
    #: joined until one of its sealed frames opens (docs/protocol.md section 4c).
    _pending: Session | None

    def _begin(self, now: float, session: int | None = None) -> None:
        raise NotImplementedError  # pragma: no cover - the endpoint's

    def _link_down(self, reason: str) -> None:
        raise NotImplementedError  # pragma: no cover - the endpoint's

    # --- shared by both halves ------------------------------------------------------------

    def _drop(self, err: ProtocolError) -> None:
        name = type(err).__name__
        if isinstance(err, AuthenticationError):
            self.stats.auth_failures += 1
        self.stats.dropped += 1
        self.stats.drops_by_reason[name] = self.stats.drops_by_reason.get(name, 0) + 1
        self._events.append(FrameDropped(str(err), name))

    def _queue_message(self, message: Message, now: float) -> None:
        type_id, payload = encode_message(message)
        self._s.outbox.append((type_id, 0, 0, payload))
        self._s.last_tx = now

    def _connect(self, peer: Identity, peer_session: int, now: float) -> None:
        self._s.peer = peer
        self._s.peer_session = peer_session
        self._s.state = LinkState.CONNECTED
        self._s.last_rx = now
        self._events.append(Connected(peer))

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
        if self._s.state is not LinkState.REFUSED:
            self._s.refusal = reason
            self._s.state = LinkState.REFUSED
            self._s.sealer = self._s.opener = None
            self._events.append(
                HandshakeRefused(reason, by_peer=False, peer=peer, authentication=authentication)
            )

    # --- frames outside a session ----------------------------------------------------------

    def _on_frame_outside_session(self, type_id: int, version: int, raw: bytes, now: float) -> None:
        """A frame that is not a session's sealed traffic: a plain type (handshake,
        pairing, NoSession), a version this side does not speak, or any frame while no
        session is up. ``raw`` is the checked frame as ``frame.unframe`` returns it."""
        if type_id in _HANDSHAKE:
            self._on_handshake(type_id, version, raw[HEADER_SIZE:-CRC_SIZE], now)
            return
        if version not in SUPPORTED_VERSIONS:
            self._drop(VersionError(f"frame of protocol version {version} dropped"))
            return
        if type_id == PairRequest.TYPE_ID:
            if self.role is Role.DEVICE:
                self._on_pair_request(raw[HEADER_SIZE:-CRC_SIZE], now)
            return
        if type_id == PairReply.TYPE_ID:
            return  # for the station's pairing exchange (firmware_bridge.pairing)
        if self._s.state is not LinkState.CONNECTED:
            if self.role is Role.DEVICE and self._s.state in (
                LinkState.HANDSHAKING,
                LinkState.DOWN,
            ):
                # Tell the station at once rather than let it wait for its retransmits.
                self._queue_message(NoSession(), now)
            self._drop(NotConnectedError(f"frame type 0x{type_id:02X} outside a session"))
            return
        if type_id == NoSession.TYPE_ID and self.role is Role.STATION:
            # Unsealed (a device without a session has no keys): anyone can write one, so it
            # only makes the station check the session (docs/protocol.md section 4c).
            self._check_session(
                "device has no session (it restarted or ended the session)", "NoSession", now
            )

    def _check_session(self, reason: str, name: str, now: float) -> None:
        """An unsealed frame says the session ended: ask the peer to prove it alive (a
        heartbeat request); no sealed frame within the check time and the link is down for
        ``reason``, one that opens proves the unsealed frame forged (section 4c)."""
        self.stats.unsealed_ends += 1
        if self._s.check_until is not None:
            return  # already checking: one answer settles both
        t = self.timing
        self._s.check_until = now + t.retransmit_timeout * t.max_tries
        self._s.check_reason = reason
        self._s.check_name = name
        self._s.outbox.append((Heartbeat.TYPE_ID, 0, FLAG_ACK_NOW, b""))
        self._s.last_tx = now

    # --- handshake ------------------------------------------------------------------------

    def _on_handshake(self, type_id: int, version: int, payload: bytes, now: float) -> None:
        try:
            msg = decode_message(type_id, payload)
        except ProtocolError as err:
            self._drop(err)
            return
        if isinstance(msg, Refused):
            pending = self._pending
            if pending is not None and msg.echo == pending.session:
                self._pending = None  # the station refused the new session: keep this one
                return
            if msg.echo == self._s.session and self._s.state is LinkState.CONNECTED:
                if self.role is Role.STATION:
                    # A device refuses HELLOs, never a session it joined: check it.
                    self._check_session(f"device refused the session: {msg.reason}", "Refused", now)
                    return
                if self._s.opener is not None and self._s.opener.last > 0:
                    # The station refuses only before it seals anything (section 4c).
                    self.stats.unsealed_ends += 1
                    self.stats.forged_ends += 1
                    self._drop(AuthenticationError("an unsealed Refused of a proven session"))
                    return
            if msg.echo == self._s.session and self._s.state in (
                LinkState.HANDSHAKING,
                LinkState.CONNECTED,
            ):
                self._s.state = LinkState.REFUSED
                self._s.refused_session = self._s.peer_session  # late HELLOs of it stay refused
                unconfirmed = self._s.window.take_unconfirmed()
                self._events.append(HandshakeRefused(msg.reason, True, self._s.peer, unconfirmed))
            return
        if isinstance(msg, Hello) and self.role is Role.DEVICE:
            self._on_hello(msg, version, now)
        elif isinstance(msg, HelloReply) and self.role is Role.STATION:
            self._on_hello_reply(msg, version, now)
        else:
            self._drop(PayloadError(f"{type(msg).__name__} is not for a {self.role.value}"))

    def _on_hello(self, hello: Hello, version: int, now: float) -> None:
        if self._s.state is LinkState.IDLE:
            return
        peer = Identity(hello.kind, hello.firmware, hello.serial_number, version)
        if self._s.state is LinkState.CONNECTED and hello.session != self._s.peer_session:
            self._hello_of_another_session(hello, peer, now)
            return
        if self._s.state is LinkState.DOWN:
            if hello.session == self._s.peer_session:
                return  # a late HELLO of the session that went down
            self._begin(now)  # a device follows the station into any new session
        if self._s.state is LinkState.REFUSED and hello.session != self._s.refused_session:
            self._begin(now)
        if self._s.state is LinkState.HANDSHAKING:
            reason = refusal_reason(self.role, self.identity, peer, self._check_peer)
            if reason is None and self.secret is None:
                reason = "the device is not paired with a station (dealer-station pair)"
            if reason is not None:
                self._s.refused_session = hello.session
                self._refuse(reason, hello.session, peer, now)
                return
            self._answer_hello(self._s, hello)
            self._connect(peer, hello.session, now)
        if self._s.state is LinkState.REFUSED:
            if self._s.refusal:  # we refused it: say so again; if the station refused us, hush
                self._refuse(self._s.refusal, hello.session, peer, now)
            return
        # Connected: (re)send the reply; a lost reply shows as a resent HELLO.
        if self._s.reply is not None:
            self._queue_message(self._s.reply, now)

    def _answer_hello(self, s: Session, hello: Hello) -> None:
        """Derive session ``s``'s keys from ``hello`` and make its HELLO_REPLY (the proof)."""
        assert self.secret is not None
        keys = SessionKeys(self.secret, hello.nonce, s.nonce, self.identity.kind.code)
        s.sealer = Sealer(keys.device_to_station)
        s.opener = Opener(keys.station_to_device)
        me = self.identity
        reply = HelloReply(
            me.kind,
            s.session,
            hello.session,
            s.nonce,
            bytes(TAG_BYTES),
            me.firmware,
            me.serial_number,
        )
        s.reply = dataclasses.replace(reply, proof=s.sealer.proof(encode_message(reply)[1]))

    def _hello_of_another_session(self, hello: Hello, peer: Identity, now: float) -> None:
        """A HELLO of a new session while connected (section 4c): answered, and the new
        session kept pending until one of its sealed frames opens; the session goes on."""
        pending = self._pending
        if pending is not None and hello.session == pending.peer_session:
            assert pending.reply is not None
            self._queue_pending(pending, pending.reply)  # its reply was lost: the same again
            return
        self.stats.unsealed_ends += 1
        reason = refusal_reason(self.role, self.identity, peer, self._check_peer)
        if reason is None and self.secret is None:
            reason = "the device is not paired with a station (dealer-station pair)"
        if reason is not None:
            text = reason.encode()[:200].decode(errors="ignore")
            self._queue_message(Refused(hello.session, text), now)  # this session stays
            return
        pending = Session(self._new_session_number(), self.timing, now)
        self._answer_hello(pending, hello)
        pending.peer, pending.peer_session = peer, hello.session
        pending.state = LinkState.CONNECTED
        self._pending = pending
        assert pending.reply is not None
        self._queue_pending(pending, pending.reply)

    def _queue_pending(self, pending: Session, message: Message) -> None:
        type_id, payload = encode_message(message)
        pending.outbox.append((type_id, 0, 0, payload))

    def _new_session_number(self) -> int:
        """A random non-zero session number, not the current one."""
        while True:
            number = self._rng.randrange(1, 1 << 32)
            if number != self._s.session:
                return number

    def _on_hello_reply(self, reply: HelloReply, version: int, now: float) -> None:
        if self._s.state is not LinkState.HANDSHAKING or reply.echo != self._s.session:
            return  # a late duplicate, or an answer to an older HELLO
        peer = Identity(reply.kind, reply.firmware, reply.serial_number, version)
        self._s.peer = peer
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
            keys = SessionKeys(self.secret, self._s.nonce, reply.nonce, self.identity.kind.code)
        except AuthenticationError as err:
            return f"device failed authentication: {err}"
        opener = Opener(keys.device_to_station)
        unproved = dataclasses.replace(reply, proof=bytes(TAG_BYTES))
        if not opener.check_proof(encode_message(unproved)[1], reply.proof):
            return "device failed authentication: not paired with this station (wrong key)"
        self._s.opener = opener
        self._s.sealer = Sealer(keys.station_to_device)
        return None

    # --- pairing --------------------------------------------------------------------------

    def _on_pair_request(self, payload: bytes, now: float) -> None:
        """Device side of pairing: answer only with the pairing button held (consent)."""
        try:
            request = decode_message(PairRequest.TYPE_ID, payload)
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
            info = pairing_info(me.kind.code, me.serial_number)
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
