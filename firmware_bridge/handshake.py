"""Who may talk to whom: the checks both sides run on the peer's HELLO."""

from __future__ import annotations

from collections.abc import Callable

from firmware_bridge.events import Identity
from firmware_bridge.frame import SUPPORTED_VERSIONS

#: A caller's extra check of the peer: returns a refusal reason, or None to accept.
PeerCheck = Callable[[Identity], "str | None"]


def refusal_reason(me: Identity, peer: Identity, check: PeerCheck | None) -> str | None:
    """Why ``me`` refuses ``peer``, or None to accept it.

    Always checked: the peer's protocol version and that both name the same device kind
    (the station names the kind it expects). Then the caller's ``check`` (serial number,
    firmware version, ...).
    """
    if peer.protocol_version not in SUPPORTED_VERSIONS:
        spoken = ", ".join(str(v) for v in sorted(SUPPORTED_VERSIONS))
        return (
            f"protocol version {peer.protocol_version} is not supported "
            f"(this side speaks version {spoken})"
        )
    if peer.kind is not me.kind:
        return f"peer is a {peer.kind.name_text}, expected a {me.kind.name_text}"
    if check is not None:
        return check(peer)
    return None
