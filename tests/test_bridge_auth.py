"""firmware_bridge.auth on its own: the session keys' inputs, the sealer's counter at its
end, and the opener's shortest body (docs/protocol.md section 4: a sealed body is a 4-byte
counter, the ciphertext and a 16-byte Poly1305 tag; nonces are 16 bytes, the secret 32)."""

from __future__ import annotations

import hashlib
import hmac

import pytest
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from firmware_bridge import AuthenticationError, auth
from firmware_bridge.auth import (
    Opener,
    PairingKey,
    Sealer,
    SessionKeys,
    pairing_info,
    session_key_material,
)

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


def test_frames_are_counted_from_1_and_a_counter_is_accepted_once() -> None:
    # docs/protocol.md section 4b: each direction counts its sealed frames from 1 (0 is the
    # proof's); the receiver takes only a counter above the last one it took.
    sealer, opener = pair()
    first, second = sealer.seal(HEADER, b"a"), sealer.seal(HEADER, b"b")
    assert (first[:4], second[:4]) == (b"\x00\x00\x00\x01", b"\x00\x00\x00\x02")
    assert opener.open(HEADER, first) == b"a"
    with pytest.raises(AuthenticationError) as caught:
        opener.open(HEADER, first)
    assert str(caught.value) == "frame counter 1 replayed (last 1)"
    assert opener.open(HEADER, second) == b"b"
    with pytest.raises(AuthenticationError, match=r"^frame counter 1 replayed \(last 2\)$"):
        opener.open(HEADER, first)


def test_a_body_altered_or_under_another_header_fails_its_tag() -> None:
    sealer, opener = pair()
    body = sealer.seal(HEADER, b"card")
    altered = body[:-1] + bytes((body[-1] ^ 1,))
    for header, sealed in ((HEADER, altered), (b"\x02\x20\x01\x03\x00", body)):
        with pytest.raises(AuthenticationError) as caught:
            opener.open(header, sealed)
        assert str(caught.value) == "frame tag does not verify"
    assert opener.open(HEADER, body) == b"card"  # the refusals moved no counter


def test_the_counter_refuses_to_wrap_in_one_line() -> None:
    sealer, _ = pair()
    sealer.counter = 0xFFFFFFFF
    with pytest.raises(AuthenticationError) as caught:
        sealer.seal(HEADER, b"")
    assert str(caught.value) == "frame counter exhausted: the session must be renewed"


def test_a_proof_checks_only_over_its_own_data_and_key() -> None:
    keys = SessionKeys(SECRET, STATION_NONCE, DEVICE_NONCE, 1)
    other = SessionKeys(SECRET, DEVICE_NONCE, STATION_NONCE, 1)  # the nonces swapped
    proof = Sealer(keys.device_to_station).proof(b"hello reply")
    assert len(proof) == 16
    assert Opener(keys.device_to_station).check_proof(b"hello reply", proof) is True
    assert Opener(keys.device_to_station).check_proof(b"hello replz", proof) is False
    assert Opener(other.device_to_station).check_proof(b"hello reply", proof) is False
    assert Opener(keys.station_to_device).check_proof(b"hello reply", proof) is False


# --- the key derivations, against RFC 5869 (HKDF) and RFC 7748 (X25519) test vectors -------


def _hkdf_sha256(ikm: bytes, salt: bytes, info: bytes, length: int) -> bytes:
    """RFC 5869, written out here: extract, then expand."""
    prk = hmac.new(salt, ikm, hashlib.sha256).digest()
    okm, block = b"", b""
    for i in range(1, -(-length // 32) + 1):
        block = hmac.new(prk, block + info + bytes((i,)), hashlib.sha256).digest()
        okm += block
    return okm[:length]


# RFC 7748 section 6.1: Alice's and Bob's keys and their shared secret K.
ALICE = bytes.fromhex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
ALICE_PUBLIC = bytes.fromhex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
BOB_PUBLIC = bytes.fromhex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
SHARED = bytes.fromhex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742")


def test_session_keys_are_hkdf_of_the_secret_salted_with_both_nonces_for_the_kind() -> None:
    # docs/protocol.md section 4b: salt = station nonce | device nonce, info = "dealer-station
    # link v2 " | kind byte; 64 bytes, station-to-device key first.
    expected = _hkdf_sha256(
        SECRET, STATION_NONCE + DEVICE_NONCE, b"dealer-station link v2 \x02", 64
    )
    assert session_key_material(SECRET, STATION_NONCE, DEVICE_NONCE, 2) == expected
    assert session_key_material(SECRET, STATION_NONCE, DEVICE_NONCE, 3) != expected


@pytest.fixture
def alice(monkeypatch: pytest.MonkeyPatch) -> PairingKey:
    """A pairing key that is RFC 7748's Alice (a fresh key is random)."""

    class Fixed:
        @staticmethod
        def generate() -> X25519PrivateKey:
            return X25519PrivateKey.from_private_bytes(ALICE)

    monkeypatch.setattr(auth, "X25519PrivateKey", Fixed)
    return PairingKey()


def test_a_pairing_secret_is_hkdf_of_the_x25519_result_bound_to_both_keys_and_the_device(
    alice: PairingKey,
) -> None:
    # docs/protocol.md section 4a: secret = HKDF-SHA256(ikm = X25519(private, peer public),
    # salt = Ps | Pd, info = "dealer-station pairing v2 " | kind byte | serial number).
    assert alice.public == ALICE_PUBLIC
    info = pairing_info(2, "SHO-42")
    assert info == b"\x02SHO-42"
    expected = _hkdf_sha256(
        SHARED, ALICE_PUBLIC + BOB_PUBLIC, b"dealer-station pairing v2 \x02SHO-42", 32
    )
    assert alice.secret(BOB_PUBLIC, ALICE_PUBLIC, BOB_PUBLIC, info) == expected


def test_a_public_key_of_another_length_or_a_low_order_point_is_refused(
    alice: PairingKey,
) -> None:
    for length in (31, 33):
        with pytest.raises(AuthenticationError) as caught:
            alice.secret(bytes(length), ALICE_PUBLIC, BOB_PUBLIC, b"\x02")
        assert str(caught.value) == "a public key has 32 bytes"
    with pytest.raises(AuthenticationError, match=r"^unusable public key: "):
        alice.secret(bytes(32), ALICE_PUBLIC, bytes(32), b"\x02")  # all-zero: a low-order point
