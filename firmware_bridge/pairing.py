"""The station's side of pairing (sans-I/O): one ``PairRequest``, one ``PairReply``.

Pairing runs outside any session, while the station is stopped, behind the supervisor key
(``dealer-station pair``) and with the device's pairing button held (the device refuses
otherwise). Both sides send an ephemeral X25519 public key; each derives the same 32-byte
pairing secret (``firmware_bridge.auth.PairingKey``), bound to the device's kind and serial
number. A tap on the line sees only the two public keys. An active attacker in the middle
at the very moment of pairing is what the physical consent and the supervisor's presence
guard against: pair with the cable in sight.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from firmware_bridge.auth import PairingKey, pairing_info
from firmware_bridge.codec import DeviceKind, decode_message, encode_message
from firmware_bridge.errors import AuthenticationError, PairingError, ProtocolError
from firmware_bridge.events import Identity
from firmware_bridge.frame import DELIMITER, PROTOCOL_VERSION, Frame, FrameDecoder, encode_frame
from firmware_bridge.link_messages import PairReply, PairRequest, Refused


@dataclass(frozen=True, slots=True)
class PairingResult:
    """A completed pairing: the device's identity and the secret to store for it."""

    device: Identity
    secret: bytes = field(repr=False)


class StationPairing:
    """Build the request, feed the device's bytes, get a :class:`PairingResult`.

    Args:
        kind: the device kind the station pairs (the device refuses another).
        station_id: the station's id, stored by the device.
    """

    def __init__(self, kind: DeviceKind, station_id: str) -> None:
        self.kind = kind
        self._key = PairingKey()
        self._decoder = FrameDecoder()
        self._request = PairRequest(kind, self._key.public, station_id[:32])
        encode_message(self._request)  # a station id that does not fit fails here

    def request(self) -> bytes:
        """The bytes to write (again, if no answer came): a delimiter, then the request."""
        type_id, payload = encode_message(self._request)
        return DELIMITER + encode_frame(Frame(PROTOCOL_VERSION, type_id, 0, 0, 0, payload))

    def receive(self, data: bytes) -> PairingResult | None:
        """Bytes from the device; the result once its reply arrived, else None.

        Raises:
            PairingError: the device refused (no consent, another kind) or sent a reply
                for another kind or an unusable key.
        """
        for item in self._decoder.feed(data):
            if isinstance(item, ProtocolError) or item.type_id not in (
                PairReply.TYPE_ID,
                Refused.TYPE_ID,
            ):
                continue  # noise, or frames of a session the device is leaving
            try:
                message = decode_message(item.type_id, item.payload)
            except ProtocolError:
                continue
            if isinstance(message, Refused):
                if message.echo == 0:
                    raise PairingError(message.reason)
                continue
            assert isinstance(message, PairReply)
            if message.kind is not self.kind:
                raise PairingError(
                    f"a {message.kind.name_text} answered, not a {self.kind.name_text}"
                )
            info = pairing_info(self.kind.code, message.serial_number)
            try:
                secret = self._key.secret(
                    message.public_key, self._key.public, message.public_key, info
                )
            except AuthenticationError as err:
                raise PairingError(str(err)) from err
            identity = Identity(message.kind, message.firmware, message.serial_number, item.version)
            return PairingResult(identity, secret)
        return None
