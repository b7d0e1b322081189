"""Frame authentication: pairing secrets, per-session keys and the sealed frame body.

Every frame of a session is sealed with ChaCha20-Poly1305 (RFC 8439, from ``cryptography``):
the frame header (version, type, seq, flags, ack) is authenticated as associated data, the
message payload is encrypted, and a 16-byte Poly1305 tag follows it. The body of a sealed
frame is::

    counter (4 bytes, big-endian) | ciphertext (as long as the payload) | tag (16 bytes)

Keys:

* **Pairing secret** (32 bytes), one per device, agreed once at pairing by X25519 (both
  sides' public keys cross the wire; the shared secret never does) and HKDF-SHA256. The
  station keeps it 0600 under its state directory (or as a systemd credential), the device
  in its own flash.
* **Session keys**: at every handshake the station's HELLO carries a 16-byte nonce and the
  device's HELLO_REPLY another; HKDF-SHA256(secret, salt = station nonce | device nonce)
  gives one key per direction. A frame recorded in an earlier session fails the tag in
  every later one, and no key ever seals two frames with the same counter.
* **Counters**: each direction counts its sealed frames from 1; the receiver accepts only
  a counter above the last one it accepted (a serial line does not reorder), so a frame
  replayed within a session is refused too. Counter 0 is the HELLO_REPLY's proof.

Why the full 16-byte tag: a forgery passes with probability about 2^-128 per try (a
truncated 8-byte tag would give 2^-64, still ample given that a device faults after
:data:`AUTH_FAILURE_LIMIT` failures, but Poly1305 is specified with 16 bytes and
``cryptography`` does not truncate it). The cost is 20 bytes per frame (counter and tag),
about 1.7 ms of line time at 115200 baud: a card frame takes ~3 ms on the wire, far below
the half second between two cards a dealer draws. The AEAD also hides every payload from a
tap on the line.
"""

from __future__ import annotations

import secrets
import struct
from typing import Final

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from firmware_bridge.errors import AuthenticationError

SECRET_BYTES: Final = 32
NONCE_BYTES: Final = 16
PUBLIC_KEY_BYTES: Final = 32
TAG_BYTES: Final = 16
COUNTER: Final = struct.Struct(">I")
#: Bytes a sealed frame adds to its payload: the counter and the tag.
SEAL_OVERHEAD: Final = COUNTER.size + TAG_BYTES
#: The last counter a key may use; the session ends (and is renegotiated) before it wraps.
MAX_COUNTER: Final = 0xFFFFFFFF
#: Forged frames (a bad tag, an unsealed frame in a session, an unsealed end disproven by
#: the check) within :data:`AUTH_FAILURE_WINDOW` seconds that fault the device: noise fails
#: the CRC, not the tag (a damaged frame passes the CRC once in 65,536), so three in ten
#: seconds cannot be noise on a line that carries ~1,100 frames a second; fewer are
#: journaled and do not stop play (docs/protocol.md section 4c).
AUTH_FAILURE_LIMIT: Final = 3
AUTH_FAILURE_WINDOW: Final = 10.0

_SESSION_INFO: Final = b"dealer-station link v2 "
_PAIRING_INFO: Final = b"dealer-station pairing v2 "
_PROOF_NONCE: Final = bytes(12)
_NONCE_PREFIX: Final = bytes(8)


def new_nonce() -> bytes:
    """A handshake nonce from the operating system's secure random source."""
    return secrets.token_bytes(NONCE_BYTES)


def _nonce(counter: int) -> bytes:
    # One key per direction and per session, so the counter alone makes the nonce unique.
    return _NONCE_PREFIX + COUNTER.pack(counter)


class SessionKeys:
    """The two keys of one session, from the pairing secret and both handshake nonces."""

    __slots__ = ("device_to_station", "station_to_device")

    def __init__(self, secret: bytes, station_nonce: bytes, device_nonce: bytes, kind: int) -> None:
        if len(secret) != SECRET_BYTES:
            raise AuthenticationError(f"a pairing secret has {SECRET_BYTES} bytes")
        if len(station_nonce) != NONCE_BYTES or len(device_nonce) != NONCE_BYTES:
            raise AuthenticationError(f"handshake nonces have {NONCE_BYTES} bytes")
        okm = session_key_material(secret, station_nonce, device_nonce, kind)
        self.station_to_device = ChaCha20Poly1305(okm[:32])
        self.device_to_station = ChaCha20Poly1305(okm[32:])


def session_key_material(
    secret: bytes, station_nonce: bytes, device_nonce: bytes, kind: int
) -> bytes:
    """HKDF-SHA256(ikm = secret, salt = station nonce | device nonce, info = "dealer-station
    link v2 " | kind byte), 64 bytes: the station-to-device key, then device-to-station."""
    return HKDF(
        algorithm=hashes.SHA256(),
        length=64,
        salt=station_nonce + device_nonce,
        info=_SESSION_INFO + bytes((kind,)),
    ).derive(secret)


class Sealer:
    """Seals the frames one side sends in a session (its own key, its own counter)."""

    __slots__ = ("_aead", "counter")

    def __init__(self, aead: ChaCha20Poly1305) -> None:
        self._aead = aead
        self.counter = 0

    def seal(self, header: bytes, payload: bytes) -> bytes:
        """The sealed body for ``payload`` under ``header``.

        Raises:
            AuthenticationError: the counter would wrap (the session must be renewed).
        """
        if self.counter >= MAX_COUNTER:
            raise AuthenticationError("frame counter exhausted: the session must be renewed")
        self.counter += 1
        counter = COUNTER.pack(self.counter)
        return counter + self._aead.encrypt(_nonce(self.counter), payload, header)

    def proof(self, data: bytes) -> bytes:
        """The tag over ``data`` with counter 0 (the HELLO_REPLY's proof of the secret)."""
        return self._aead.encrypt(_PROOF_NONCE, b"", data)


class Opener:
    """Opens the frames the peer sends in a session, refusing replays and forgeries."""

    __slots__ = ("_aead", "last")

    def __init__(self, aead: ChaCha20Poly1305) -> None:
        self._aead = aead
        self.last = 0

    def open(self, header: bytes, body: bytes) -> bytes:
        """The payload of a sealed ``body`` sent under ``header``.

        Raises:
            AuthenticationError: too short, a counter not above the last one accepted, or
                a tag that does not verify (forged, altered or from another session).
        """
        if len(body) < SEAL_OVERHEAD:
            raise AuthenticationError(f"sealed body of {len(body)} bytes is too short")
        # The hot path of every frame of a session: the counter's own bytes make the nonce.
        counter_bytes = body[:4]
        counter = int.from_bytes(counter_bytes, "big")
        if counter <= self.last:
            raise AuthenticationError(f"frame counter {counter} replayed (last {self.last})")
        try:
            payload = self._aead.decrypt(_NONCE_PREFIX + counter_bytes, body[4:], header)
        except InvalidTag:
            raise AuthenticationError("frame tag does not verify") from None
        self.last = counter
        return payload

    def check_proof(self, data: bytes, proof: bytes) -> bool:
        """Whether ``proof`` is the peer's counter-0 tag over ``data``."""
        try:
            self._aead.decrypt(_PROOF_NONCE, proof, data)
        except InvalidTag:
            return False
        return True


# --- pairing ------------------------------------------------------------------------------


class PairingKey:
    """One side's ephemeral X25519 key for one pairing exchange."""

    def __init__(self) -> None:
        self._private = X25519PrivateKey.generate()
        self.public = self._private.public_key().public_bytes_raw()

    def secret(
        self, peer_public: bytes, station_public: bytes, device_public: bytes, info: bytes
    ) -> bytes:
        """The pairing secret both sides derive (``info``: the device's kind and serial).

        Raises:
            AuthenticationError: a public key that is not 32 bytes or is degenerate.
        """
        if len(peer_public) != PUBLIC_KEY_BYTES:
            raise AuthenticationError(f"a public key has {PUBLIC_KEY_BYTES} bytes")
        try:
            shared = self._private.exchange(X25519PublicKey.from_public_bytes(peer_public))
        except ValueError as err:  # an all-zero shared secret (a low-order point)
            raise AuthenticationError(f"unusable public key: {err}") from err
        return HKDF(
            algorithm=hashes.SHA256(),
            length=SECRET_BYTES,
            salt=station_public + device_public,
            info=_PAIRING_INFO + info,
        ).derive(shared)


def pairing_info(kind: int, serial_number: str) -> bytes:
    """What binds a pairing secret to one device: its kind code and serial number."""
    return bytes((kind,)) + serial_number.encode()
