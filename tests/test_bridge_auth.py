"""firmware_bridge.auth on its own: the session keys' inputs, the sealer's counter at its
end, and the opener's shortest body (docs/protocol.md section 4: a sealed body is a 4-byte
counter, the ciphertext and a 16-byte Poly1305 tag; nonces are 16 bytes, the secret 32)."""

from __future__ import annotations

import pytest

from firmware_bridge import AuthenticationError
from firmware_bridge.auth import Opener, Sealer, SessionKeys

SECRET = bytes(range(32))
STATION_NONCE = bytes(16)
DEVICE_NONCE = bytes(range(16, 32))
HEADER = b"\x02\x20\x01\x02\x00"


def pair() -> tuple[Sealer, Opener]:
    keys = SessionKeys(SECRET, STATION_NONCE, DEVICE_NONCE, 1)
    return Sealer(keys.station_to_device), Opener(keys.station_to_device)


@pytest.mark.parametrize(
    ("station", "device"), [(15, 16), (16, 15), (17, 16), (16, 17), (0, 16), (16, 0)]
)
def test_handshake_nonces_of_any_length_but_16_bytes_are_refused(station: int, device: int) -> None:
    with pytest.raises(AuthenticationError, match="nonces have 16 bytes"):
        SessionKeys(SECRET, bytes(station), bytes(device), 1)


@pytest.mark.parametrize("length", [31, 33])
def test_a_pairing_secret_of_any_length_but_32_bytes_is_refused(length: int) -> None:
    with pytest.raises(AuthenticationError, match="32 bytes"):
        SessionKeys(bytes(length), STATION_NONCE, DEVICE_NONCE, 1)


def test_the_counter_seals_its_last_value_then_stops_before_it_wraps() -> None:
    # 4 counter bytes: 0xFFFFFFFF is the last counter a key may use; one more frame would
    # reuse a nonce, so the session must be renewed instead.
    sealer, opener = pair()
    sealer.counter = 0xFFFFFFFE
    body = sealer.seal(HEADER, b"last")
    assert body[:4] == b"\xff\xff\xff\xff"
    assert opener.open(HEADER, body) == b"last"
    with pytest.raises(AuthenticationError, match="counter exhausted"):
        sealer.seal(HEADER, b"one more")
    assert sealer.counter == 0xFFFFFFFF


def test_a_body_shorter_than_counter_and_tag_is_refused_and_the_shortest_opens() -> None:
    sealer, opener = pair()
    empty = sealer.seal(HEADER, b"")
    assert len(empty) == 4 + 16  # counter and tag, no payload
    with pytest.raises(AuthenticationError, match="19 bytes is too short"):
        opener.open(HEADER, empty[:19])
    assert opener.open(HEADER, empty) == b""
