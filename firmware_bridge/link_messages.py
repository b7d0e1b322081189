"""The link layer's own messages (type numbers 0x01-0x0F): opening a session, pairing,
heartbeats, acks and the device's "no session".

The endpoint sends and handles them itself (``firmware_bridge.link``, ``firmware_bridge.handshake``
and ``firmware_bridge.pairing``): they are never delivered to the caller, and a caller may not
send them (``codec.may_send``). All but ``Heartbeat`` and ``Ack`` travel unsealed
(``handshake.PLAIN``): no session keys exist yet, or the device has none. The devices'
messages are in ``firmware_bridge.messages``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from firmware_bridge.codec import DeviceKind, Message, Role, message
from firmware_bridge.wire_types import U32, Code, FixedBytes, Text

_KIND = Code(DeviceKind, lambda kind: kind.code)
_NONCE = FixedBytes(16)
_TAG = FixedBytes(16)
_PUBLIC_KEY = FixedBytes(32)


@message(
    0x01,
    sender=Role.STATION,
    device=None,
    control=True,
    example={
        "kind": DeviceKind.SHOE,
        "session": 0x1234ABCD,
        "nonce": bytes(range(16)),
        "firmware": "st-1.0",
        "serial_number": "T7",
    },
)
@dataclass(frozen=True, slots=True)
class Hello(Message):
    """Station -> device: open a session. ``kind`` is the device the station expects.

    ``nonce`` (16 random bytes) is the station's half of the session keys. Its layout is
    kept from protocol version 2 on, so that a peer of another version can still read it
    and refuse with a clear reason. HELLO is never sealed: no session keys exist yet.
    """

    kind: Annotated[DeviceKind, _KIND]
    session: Annotated[int, U32]
    nonce: Annotated[bytes, _NONCE]
    firmware: Annotated[str, Text(32)]
    serial_number: Annotated[str, Text(32)]


@message(
    0x02,
    sender=Role.DEVICE,
    device=None,
    control=True,
    example={
        "kind": DeviceKind.SHOE,
        "session": 0x0BADCAFE,
        "echo": 0x1234ABCD,
        "nonce": bytes(range(16, 32)),
        "proof": b'\xd3z\xa5-"\xdej\xe8"\x81*\xfe\x15\xba9\xa1',
        "firmware": "2.3.1",
        "serial_number": "SH42",
    },
)
@dataclass(frozen=True, slots=True)
class HelloReply(Message):
    """Device -> station: accept the session ``echo`` (the station's HELLO session).

    ``nonce`` is the device's half of the session keys; ``proof`` is the Poly1305 tag, under
    the device-to-station session key with counter 0, over this message with ``proof`` set
    to 16 zero bytes: it proves the device holds the pairing secret and binds its kind,
    serial number and firmware version to the session.
    """

    kind: Annotated[DeviceKind, _KIND]
    session: Annotated[int, U32]
    echo: Annotated[int, U32]
    nonce: Annotated[bytes, _NONCE]
    proof: Annotated[bytes, _TAG]
    firmware: Annotated[str, Text(32)]
    serial_number: Annotated[str, Text(32)]


@message(
    0x03,
    sender=None,
    device=None,
    control=True,
    example={"echo": 0x1234ABCD, "reason": "wrong shoe"},
)
@dataclass(frozen=True, slots=True)
class Refused(Message):
    """Either side: the peer's HELLO (session ``echo``) is refused, for ``reason``."""

    echo: Annotated[int, U32]
    reason: Annotated[str, Text(200)]


@message(0x04, sender=None, device=None, control=True, example={}, header=(0, 0, 5))
@dataclass(frozen=True, slots=True)
class Heartbeat(Message):
    """Either side: I am alive (sent when nothing else was sent for a heartbeat interval)."""


@message(0x05, sender=None, device=None, control=True, example={}, header=(0, 0, 3))
@dataclass(frozen=True, slots=True)
class Ack(Message):
    """Either side: carries only the header's ack field, when no other frame goes out."""


@message(0x06, sender=Role.DEVICE, device=None, control=True, example={})
@dataclass(frozen=True, slots=True)
class NoSession(Message):
    """Device -> station: a frame arrived but the device has no session (it restarted)."""


@message(
    0x07,
    sender=Role.STATION,
    device=None,
    control=True,
    example={"kind": DeviceKind.SHOE, "public_key": bytes(range(32)), "station": "PA-S21-07"},
)
@dataclass(frozen=True, slots=True)
class PairRequest(Message):
    """Station -> device, outside a session: pair with this station (X25519 public key).

    A device answers only while its pairing button is held (physical consent); otherwise
    it refuses (``Refused`` with echo 0). Never sealed: it creates the secret.
    """

    kind: Annotated[DeviceKind, _KIND]
    public_key: Annotated[bytes, _PUBLIC_KEY]
    station: Annotated[str, Text(32)]


@message(
    0x08,
    sender=Role.DEVICE,
    device=None,
    control=True,
    example={
        "kind": DeviceKind.SHOE,
        "public_key": bytes(range(32, 64)),
        "firmware": "sho-2.3.1",
        "serial_number": "SHO-0000042",
    },
)
@dataclass(frozen=True, slots=True)
class PairReply(Message):
    """Device -> station: paired; its X25519 public key and identity (bound into the
    secret by the key derivation, so a changed serial number gives another secret)."""

    kind: Annotated[DeviceKind, _KIND]
    public_key: Annotated[bytes, _PUBLIC_KEY]
    firmware: Annotated[str, Text(32)]
    serial_number: Annotated[str, Text(32)]
