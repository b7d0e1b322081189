"""Who may talk to whom: the checks both sides run on the peer's HELLO."""

from __future__ import annotations

from collections.abc import Callable

from firmware_bridge.codec import Role
from firmware_bridge.events import Identity
from firmware_bridge.frame import SUPPORTED_VERSIONS

#: A caller's extra check of the peer: returns a refusal reason, or None to accept.
PeerCheck = Callable[[Identity], "str | None"]


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
