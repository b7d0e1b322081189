"""Opening a session and pairing, as docs/protocol.md (sections 4 and 4a) states them
(firmware_bridge.handshake, firmware_bridge.pairing).

- The station believes only the HELLO_REPLY that echoes its current session: a late reply
  to an older HELLO (older session, older nonce) is ignored, not taken as a failed proof;
  and the echo is covered by the proof, so a reply re-labelled for the current session
  fails authentication.
- A device pairs only with its pairing button held at the moment of the request (a device
  with no button never pairs), only for its own kind; a refused request changes nothing.
- The station takes a PAIR_REPLY only from the kind it pairs.
- The pairing secret is HKDF-SHA256(X25519, salt = Ps | Pd, info = "dealer-station pairing
  v2 " | kind byte | serial number), computed here from docs/protocol.md alone.
"""

from __future__ import annotations

import random

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from firmware_bridge import (
    PROTOCOL_VERSION,
    Connected,
    DeviceKind,
    Endpoint,
    Frame,
    HandshakeRefused,
    Identity,
    LinkState,
    Paired,
    PairingError,
    Role,
    StationPairing,
    decode_frame,
    encode_frame,
)
from firmware_bridge.codec import decode_message, encode_message
from firmware_bridge.frame import DELIMITER
from firmware_bridge.link_messages import HelloReply, PairReply, PairRequest, Refused

SECRET = bytes(range(32))
SHOE_KIND_CODE = 2  # docs/protocol.md section 4: kind 2 is the shoe
STATION = Identity(DeviceKind.SHOE, "station-1.0", "TABLE-7")
SHOE = Identity(DeviceKind.SHOE, "sho-2.3.1", "SHO-42")


def frames(data: bytes) -> list[Frame]:
    return [decode_frame(part) for part in data.split(DELIMITER) if part]


def wire(message: object) -> bytes:
    type_id, payload = encode_message(message)  # type: ignore[arg-type]
    return DELIMITER + encode_frame(Frame(PROTOCOL_VERSION, type_id, 0, 0, 0, payload))


def station(seed: int = 1) -> Endpoint:
    return Endpoint(Role.STATION, STATION, secret=SECRET, rng=random.Random(seed))


def device(secret: bytes | None = SECRET, consent: object = None) -> Endpoint:
    endpoint = Endpoint(
        Role.DEVICE,
        SHOE,
        secret=secret,
        rng=random.Random(99),
        pairing_consent=consent,  # type: ignore[arg-type]
    )
    endpoint.start(0.0)
    return endpoint


# --- the HELLO_REPLY's echo ----------------------------------------------------------------


def test_a_late_reply_to_an_older_hello_is_ignored_and_the_current_one_connects() -> None:
    s, d = station(), device()
    s.start(0.0)
    d.receive_data(s.data_to_send(), 0.0)
    late_reply = d.data_to_send()  # the answer to the first session's HELLO, still in flight
    s.reset(0.5)  # the station gave up on it: a new session, a new nonce
    second_hello = s.data_to_send()
    s.receive_data(late_reply, 0.6)
    assert s.state is LinkState.HANDSHAKING
    assert [e for e in s.events() if isinstance(e, HandshakeRefused | Connected)] == []
    assert s.stats.auth_failures == 0
    d.receive_data(second_hello, 0.7)
    s.receive_data(d.data_to_send(), 0.8)
    assert s.state is LinkState.CONNECTED
    assert [e.peer for e in s.events() if isinstance(e, Connected)] == [SHOE]


def test_a_reply_relabelled_for_the_current_session_fails_its_proof() -> None:
    s, d = station(), device()
    s.start(0.0)
    d.receive_data(s.data_to_send(), 0.0)
    (old,) = frames(d.data_to_send())
    s.reset(0.5)
    (hello,) = frames(s.data_to_send())
    current = decode_message(hello.type_id, hello.payload).session  # type: ignore[attr-defined]
    reply = decode_message(old.type_id, old.payload)
    assert isinstance(reply, HelloReply) and reply.echo != current
    forged = HelloReply(
        reply.kind,
        reply.session,
        current,
        reply.nonce,
        reply.proof,
        reply.firmware,
        reply.serial_number,
    )
    s.receive_data(wire(forged), 0.6)
    assert s.state is LinkState.REFUSED
    (refused,) = [e for e in s.events() if isinstance(e, HandshakeRefused)]
    assert refused.authentication and not refused.by_peer
    assert refused.reason == (
        "device failed authentication: not paired with this station (wrong key)"
    )


# --- pairing: the device's side -------------------------------------------------------------


def _request(kind: DeviceKind = DeviceKind.SHOE) -> bytes:
    return StationPairing(kind, "PA-S21-07").request()


def _refusals(data: bytes) -> list[Refused]:
    out = []
    for frame in frames(data):
        message = decode_message(frame.type_id, frame.payload)
        if isinstance(message, Refused):
            out.append(message)
    return out


def test_a_device_without_a_pairing_button_never_pairs() -> None:
    d = device(secret=SECRET, consent=None)
    d.receive_data(_request(), 0.0)
    refused = _refusals(d.data_to_send())
    assert [(r.echo, r.reason) for r in refused] == [
        (0, "pairing refused: hold the device's pairing button")
    ]
    assert [e for e in d.events() if isinstance(e, Paired)] == []
    assert d.secret == SECRET


def test_consent_is_the_button_at_the_moment_of_the_request() -> None:
    held = [False]
    d = device(secret=SECRET, consent=lambda: held[0])
    d.receive_data(_request(), 0.0)
    assert len(_refusals(d.data_to_send())) == 1 and d.secret == SECRET
    held[0] = True
    d.receive_data(_request(), 1.0)
    assert _refusals(d.data_to_send()) == []
    (paired,) = [e for e in d.events() if isinstance(e, Paired)]
    assert d.secret == paired.secret != SECRET


def test_a_refused_pairing_leaves_the_running_session_and_its_secret_alone() -> None:
    s, d = station(), device(secret=SECRET, consent=lambda: False)
    s.start(0.0)
    d.receive_data(s.data_to_send(), 0.0)
    s.receive_data(d.data_to_send(), 0.1)
    assert s.connected and d.connected
    d.receive_data(_request(), 0.2)
    d.receive_data(_request(DeviceKind.CARD_READER), 0.3)
    reasons = [r.reason for r in _refusals(d.data_to_send())]
    assert reasons == [
        "pairing refused: hold the device's pairing button",
        "pairing refused: this device is a shoe",
    ]
    assert d.connected and d.secret == SECRET


def test_a_device_refuses_a_request_for_another_kind_even_with_its_button_held() -> None:
    d = device(secret=None, consent=lambda: True)
    d.receive_data(_request(DeviceKind.SHUFFLER), 0.0)
    assert [r.reason for r in _refusals(d.data_to_send())] == [
        "pairing refused: this device is a shoe"
    ]
    assert d.secret is None and [e for e in d.events() if isinstance(e, Paired)] == []


# --- pairing: the station's side and the secret ---------------------------------------------


def _public(key: X25519PrivateKey) -> bytes:
    return key.public_key().public_bytes_raw()


def _documented_secret(
    private: X25519PrivateKey, peer_public: bytes, salt: bytes, kind: int, serial: str
) -> bytes:
    """docs/protocol.md 4a, written out here rather than taken from firmware_bridge.auth;
    ``salt`` is the station's public key, then the device's."""
    shared = private.exchange(X25519PublicKey.from_public_bytes(peer_public))
    info = b"dealer-station pairing v2 " + bytes((kind,)) + serial.encode()
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=salt, info=info).derive(shared)


def test_the_station_takes_a_pair_reply_only_from_the_kind_it_pairs() -> None:
    pairing = StationPairing(DeviceKind.SHOE, "PA-S21-07")
    device_key = X25519PrivateKey.generate()
    reader = PairReply(DeviceKind.CARD_READER, _public(device_key), "cr-1.0", "CR-9")
    with pytest.raises(PairingError, match=r"^a card_reader answered, not a shoe$"):
        pairing.receive(wire(reader))


def test_the_station_derives_the_documented_pairing_secret() -> None:
    pairing = StationPairing(DeviceKind.SHOE, "PA-S21-07")
    (frame,) = frames(pairing.request())
    request = decode_message(frame.type_id, frame.payload)
    assert isinstance(request, PairRequest) and request.kind is DeviceKind.SHOE
    device_key = X25519PrivateKey.generate()
    pd = _public(device_key)
    result = pairing.receive(wire(PairReply(DeviceKind.SHOE, pd, "sho-2.3.1", "SHO-42")))
    assert result is not None
    expected = _documented_secret(
        device_key, request.public_key, request.public_key + pd, SHOE_KIND_CODE, "SHO-42"
    )
    assert result.secret == expected
    assert result.device == Identity(DeviceKind.SHOE, "sho-2.3.1", "SHO-42", PROTOCOL_VERSION)


def test_the_device_derives_the_documented_pairing_secret() -> None:
    d = device(secret=None, consent=lambda: True)
    station_key = X25519PrivateKey.generate()
    ps = _public(station_key)
    d.receive_data(wire(PairRequest(DeviceKind.SHOE, ps, "PA-S21-07")), 0.0)
    (frame,) = frames(d.data_to_send())
    reply = decode_message(frame.type_id, frame.payload)
    assert isinstance(reply, PairReply)
    expected = _documented_secret(
        station_key, reply.public_key, ps + reply.public_key, SHOE_KIND_CODE, "SHO-42"
    )
    (paired,) = [e for e in d.events() if isinstance(e, Paired)]
    assert paired.secret == d.secret == expected and paired.station == "PA-S21-07"


def test_the_pair_request_is_one_unreliable_unsealed_frame_with_the_station_id_cut_to_32() -> None:
    # docs/protocol.md: unreliable frames carry flags 0 and seq 0; PAIR_REQUEST is never
    # sealed; its station id is text of at most 32 bytes, a longer id is cut, not refused.
    long_id = "PA-S21-07-" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123"  # 40 characters
    (frame,) = frames(StationPairing(DeviceKind.SHOE, long_id).request())
    assert (frame.version, frame.seq, frame.flags, frame.ack) == (PROTOCOL_VERSION, 0, 0, 0)
    request = decode_message(frame.type_id, frame.payload)
    assert isinstance(request, PairRequest) and request.station == long_id[:32]


def _reply(version: int = PROTOCOL_VERSION, public_key: bytes | None = None) -> bytes:
    key = public_key if public_key is not None else _public(X25519PrivateKey.generate())
    type_id, payload = encode_message(PairReply(DeviceKind.SHOE, key, "sho-2.3.1", "SHO-42"))
    return DELIMITER + encode_frame(Frame(version, type_id, 0, 0, 0, payload))


def test_noise_and_other_frames_before_the_reply_in_one_read_are_passed_over() -> None:
    # What one read may hold: line noise, a frame of the session the device is leaving, a
    # reply whose payload does not decode, a REFUSED of a session (echo not 0), the reply.
    broken = DELIMITER + encode_frame(Frame(PROTOCOL_VERSION, PairReply.TYPE_ID, 0, 0, 0, b"\x02"))
    heartbeat = DELIMITER + encode_frame(Frame(PROTOCOL_VERSION, 0x04, 0, 0, 0, b""))
    session_refusal = wire(Refused(77, "another session"))
    noise = DELIMITER + b"\x13\x37\x42" + DELIMITER
    for junk in (noise, heartbeat, broken, session_refusal):
        pairing = StationPairing(DeviceKind.SHOE, "PA-S21-07")
        result = pairing.receive(junk + _reply())
        assert result is not None, junk


def test_the_device_identity_carries_the_protocol_version_of_its_reply() -> None:
    pairing = StationPairing(DeviceKind.SHOE, "PA-S21-07")
    result = pairing.receive(_reply(version=PROTOCOL_VERSION + 1))
    assert result is not None and result.device.protocol_version == PROTOCOL_VERSION + 1


def test_a_reply_with_an_unusable_public_key_is_a_pairing_error_saying_so() -> None:
    pairing = StationPairing(DeviceKind.SHOE, "PA-S21-07")
    with pytest.raises(PairingError, match=r"^unusable public key"):
        pairing.receive(_reply(public_key=bytes(32)))  # a low-order point: no shared secret


def test_a_request_the_device_answered_is_answered_again_with_the_same_reply() -> None:
    """docs/protocol.md 4a: the same station public key again (its answer was lost) gets
    that same PAIR_REPLY, and the secret stays the one the station can compute; a request
    with a new key is a new pairing."""
    d = device(secret=None, consent=lambda: True)
    first = _request()
    d.receive_data(first, 0.0)
    (reply,) = frames(d.data_to_send())
    (paired,) = [e for e in d.events() if isinstance(e, Paired)]
    d.receive_data(first, 1.0)
    (again,) = frames(d.data_to_send())
    assert decode_message(again.type_id, again.payload) == decode_message(
        reply.type_id, reply.payload
    )
    assert [e for e in d.events() if isinstance(e, Paired)] == []
    assert d.secret == paired.secret
    d.receive_data(_request(), 2.0)  # another station key pair
    (other,) = frames(d.data_to_send())
    assert decode_message(other.type_id, other.payload) != decode_message(
        reply.type_id, reply.payload
    )
    assert d.secret != paired.secret


def test_a_device_without_a_secret_refuses_every_hello_saying_it_is_not_paired() -> None:
    """docs/firmware.md (the refusals): a device never paired refuses the station's HELLO
    with REFUSED naming the cure, and says it again to a HELLO of the same session."""
    s, d = station(), device(secret=None)
    s.start(0.0)
    hello = s.data_to_send()
    d.receive_data(hello, 0.0)
    reason = "the device is not paired with a station (dealer-station pair)"
    assert [r.reason for r in _refusals(d.data_to_send())] == [reason]
    assert d.state is LinkState.REFUSED and not d.connected
    d.receive_data(hello, 0.5)  # the station's HELLO again (its retransmission)
    assert [r.reason for r in _refusals(d.data_to_send())] == [reason]
