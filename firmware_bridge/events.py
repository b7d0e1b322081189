"""What an :class:`~firmware_bridge.link.Endpoint` reports: its identity types and events."""

from __future__ import annotations

from dataclasses import dataclass, field

from firmware_bridge.codec import DeviceKind, Message, Role
from firmware_bridge.frame import PROTOCOL_VERSION


@dataclass(frozen=True, slots=True)
class Identity:
    """What one side says in its HELLO.

    For the station, ``kind`` is the kind of device it expects on this link, and
    ``firmware`` / ``serial_number`` are the station software's version and station id.
    """

    kind: DeviceKind
    firmware: str
    serial_number: str
    protocol_version: int = PROTOCOL_VERSION


@dataclass(frozen=True, slots=True)
class Connected:
    """The handshake completed; ``peer`` is the other side's HELLO identity."""

    peer: Identity


@dataclass(frozen=True, slots=True)
class MessageReceived:
    """A message from the peer, delivered exactly once and in order when ``reliable``."""

    message: Message
    reliable: bool = True


@dataclass(frozen=True, slots=True)
class LinkDown:
    """The session ended: tries ran out, the peer went silent or restarted.

    ``unconfirmed`` lists the reliable messages sent in this session whose delivery the peer
    never acknowledged (it may or may not have received the first ones), oldest first:
    nothing is lost silently. Call ``Endpoint.reset`` to start a new session.
    """

    reason: str
    unconfirmed: tuple[Message, ...] = ()


@dataclass(frozen=True, slots=True)
class HandshakeRefused:
    """The handshake failed for ``reason``: refused by the peer (``by_peer``) or by us.

    ``peer`` is the peer's identity when its HELLO could be read. A device that sent
    messages before the station refused it finds them in ``unconfirmed`` (never accepted).
    """

    reason: str
    by_peer: bool
    peer: Identity | None = None
    unconfirmed: tuple[Message, ...] = ()
    #: The peer could not prove it holds the pairing secret (an impostor, or unpaired).
    authentication: bool = False


@dataclass(frozen=True, slots=True)
class Paired:
    """Device side: a station paired with this device (its pairing button was held);
    ``secret`` keys every later session, ``station`` is the station's id."""

    secret: bytes = field(repr=False)
    station: str


@dataclass(frozen=True, slots=True)
class FrameDropped:
    """A frame was dropped before acting on it (bad CRC/COBS/length, wrong version, out of
    sequence, no session); ``error`` names the ProtocolError class."""

    reason: str
    error: str


@dataclass(frozen=True, slots=True)
class MessageRejected:
    """A frame arrived intact and in sequence (so it was acked) but its message could not
    be accepted: unknown type, bad payload, or not a message this peer may send. The driver
    should treat it as a device fault: the message is not silently lost."""

    reason: str
    type_id: int


LinkEvent = (
    Connected
    | MessageReceived
    | LinkDown
    | HandshakeRefused
    | FrameDropped
    | MessageRejected
    | Paired
)


@dataclass(slots=True)
class LinkStats:
    """Running counters of one endpoint (live, mutable; copy them to keep a snapshot)."""

    frames_sent: int = 0
    frames_received: int = 0
    bytes_received: int = 0
    retransmits: int = 0
    duplicates: int = 0
    out_of_order: int = 0
    dropped: int = 0
    #: Frames dropped because their seal failed (forged, replayed, altered, not sealed).
    auth_failures: int = 0
    #: Unsealed NoSession / Refused frames that claimed the session had ended, and HELLOs of
    #: another session while it was up (section 4c),
    #: and those of them a sealed frame then proved forged (also in ``auth_failures``).
    unsealed_ends: int = 0
    forged_ends: int = 0
    rejected: int = 0
    #: Held acknowledgements sent when their hold ran out, not released by the application
    #: (``Endpoint.hold_acks``): commits slower than the hold.
    holds_expired: int = 0
    drops_by_reason: dict[str, int] = field(default_factory=dict)


__all__ = [
    "Connected",
    "FrameDropped",
    "HandshakeRefused",
    "Identity",
    "LinkDown",
    "LinkEvent",
    "LinkStats",
    "MessageReceived",
    "MessageRejected",
    "Paired",
    "Role",
]
