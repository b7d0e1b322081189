"""What each side says when a handshake frame is wrong (firmware_bridge.handshake).

Hostile or mistaken frames get a clear one-line account: a dropped frame names its error
and reason (the ``FrameDropped`` a technician reads in the log), a refusal names the
version, the kind or the pairing at fault (docs/protocol.md sections 4, 4a and 4c), cut to
the 200 bytes of a REFUSED (section 7, 0x03) without splitting a character; the counters of
unsealed and forged session ends count each one. Expected texts are the protocol's.
"""

from __future__ import annotations

import dataclasses
import random

import pytest
from test_bridge_handshake import _refusals as refusals
from test_bridge_link import READER, READER_STATION, SECRET, SHOE_ID, STATION_ID, frames_in

from firmware_bridge import (
    PROTOCOL_VERSION,
    Endpoint,
    Frame,
    FrameDropped,
    HandshakeRefused,
    Identity,
    LinkDown,
    Paired,
    PeerCheck,
    Role,
    StationPairing,
    encode_frame,
    encode_message,
)
from firmware_bridge.auth import Sealer, SessionKeys
from firmware_bridge.codec import decode_message
from firmware_bridge.frame import DELIMITER, FLAG_ACK_NOW, FLAG_RELIABLE, FLAG_SEALED
from firmware_bridge.link_messages import (
    Ack,
    Heartbeat,
    Hello,
    HelloReply,
    NoSession,
    PairReply,
    PairRequest,
    Refused,
)


def plain(message: object, version: int = PROTOCOL_VERSION) -> bytes:
    type_id, payload = encode_message(message)  # type: ignore[arg-type]
    return DELIMITER + encode_frame(Frame(version, type_id, 0, 0, 0, payload))


def session_of(data: bytes) -> int:
    """The session number a burst's one HELLO or HELLO_REPLY names."""
    [frame] = frames_in(data)
    message = decode_message(frame.type_id, frame.payload)
    assert isinstance(message, Hello | HelloReply)
    return message.session


def pair(device_check: PeerCheck | None = None) -> tuple[Endpoint, Endpoint, int, int]:
    """A connected card-reader link; the session numbers (the station's, the device's)."""
    station = Endpoint(Role.STATION, READER_STATION, secret=SECRET, rng=random.Random(1))
    device = Endpoint(
        Role.DEVICE, READER, secret=SECRET, rng=random.Random(2), check_peer=device_check
    )
    device.start(0.0)
    station.start(0.0)
    hello = station.data_to_send()
    device.receive_data(hello, 0.0)
    reply = device.data_to_send()
    station.receive_data(reply, 0.0)
    assert station.connected and device.connected
    station.events(), device.events()
    return station, device, session_of(hello), session_of(reply)


def drops(endpoint: Endpoint) -> list[tuple[str, str]]:
    return [(e.reason, e.error) for e in endpoint.events() if isinstance(e, FrameDropped)]


def hello_of(session: int, kind_of: Identity = READER_STATION, version: int = 2) -> bytes:
    return plain(
        Hello(kind_of.kind, session, bytes(16), kind_of.firmware, kind_of.serial_number), version
    )


# --- the device: frames a station never sends it, or a forger does -------------------------


def test_an_unsealed_refused_of_a_proven_session_is_dropped_as_forged() -> None:
    """Section 4c: the station refuses only before it seals anything."""
    station, device, _, device_session = pair()
    station.tick(1.0)  # the station's heartbeat: the session is proven
    device.receive_data(station.data_to_send(), 1.0)
    device.events()
    device.receive_data(plain(Refused(device_session, "go away")), 1.1)
    assert drops(device) == [("an unsealed Refused of a proven session", "AuthenticationError")]
    assert (device.stats.unsealed_ends, device.stats.forged_ends) == (1, 1)
    device.receive_data(plain(Refused(device_session, "go away")), 1.2)
    assert (device.stats.unsealed_ends, device.stats.forged_ends) == (2, 2)
    assert device.connected


@pytest.mark.parametrize(
    ("role", "message", "reason"),
    [
        (
            Role.DEVICE,
            HelloReply(READER.kind, 5, 6, bytes(16), bytes(16), "x", "y"),
            "HelloReply is not for a device",
        ),
        (Role.STATION, Hello(READER.kind, 5, bytes(16), "x", "y"), "Hello is not for a station"),
    ],
)
def test_a_handshake_frame_for_the_other_side_is_dropped_naming_it(
    role: Role, message: object, reason: str
) -> None:
    station, device, _, _ = pair()
    endpoint = device if role is Role.DEVICE else station
    endpoint.receive_data(plain(message), 1.0)
    assert drops(endpoint) == [(reason, "PayloadError")]
    assert endpoint.connected and endpoint.data_to_send() == b""


def test_an_unreadable_handshake_frame_is_dropped_as_a_payload_error() -> None:
    _, device, _, _ = pair()
    device.receive_data(DELIMITER + encode_frame(Frame(2, Hello.TYPE_ID, 0, 0, 0, b"\x02")), 1.0)
    [(reason, error)] = drops(device)
    assert error == "PayloadError" and reason
    assert device.connected


def test_a_frame_of_another_protocol_version_is_dropped_naming_the_version() -> None:
    _, device, _, _ = pair()
    device.receive_data(DELIMITER + encode_frame(Frame(9, Heartbeat.TYPE_ID, 0, 0, 0, b"")), 1.0)
    assert drops(device) == [("frame of protocol version 9 dropped", "VersionError")]


def test_a_session_frame_outside_a_session_is_dropped_and_only_a_device_says_no_session() -> None:
    """Section 4c: a device without a session answers NO_SESSION at once; a handshaking
    station has nothing to say (it is the one sending HELLO)."""
    frame = DELIMITER + encode_frame(Frame(2, 0x31, 0, FLAG_SEALED, 0, bytes(24)))
    device = Endpoint(Role.DEVICE, READER, secret=SECRET, rng=random.Random(2))
    device.start(0.0)
    device.receive_data(frame, 0.0)
    assert drops(device) == [("frame type 0x31 outside a session", "NotConnectedError")]
    assert [f.type_id for f in frames_in(device.data_to_send())] == [NoSession.TYPE_ID]
    station = Endpoint(Role.STATION, READER_STATION, secret=SECRET, rng=random.Random(1))
    station.start(0.0)
    station.data_to_send()  # its HELLO
    station.receive_data(frame, 0.0)
    assert drops(station) == [("frame type 0x31 outside a session", "NotConnectedError")]
    assert station.data_to_send() == b""


def test_a_no_session_sent_to_a_device_is_ignored() -> None:
    """NO_SESSION is the device's word (section 7, 0x06): a device that hears one does not
    start checking its session."""
    _, device, _, _ = pair()
    device.receive_data(plain(NoSession()), 1.0)
    assert device.stats.unsealed_ends == 0
    assert device.data_to_send() == b"" and device.connected


# --- the station: a device's refusal of a session it joined ---------------------------------


def test_an_unsealed_refused_of_a_joined_session_makes_the_station_check_it() -> None:
    """Section 4c: a heartbeat request (ACK_NOW, no payload: an ordinary heartbeat's size)
    goes out; a sealed answer proves the REFUSED forged, and it is dropped by its name."""
    station, device, station_session, _ = pair()
    station.tick(1.0)
    [heartbeat] = frames_in(station.data_to_send())
    station.receive_data(plain(Refused(station_session, "go away")), 1.5)
    [request] = frames_in(wire := station.data_to_send())
    assert (request.type_id, request.seq, request.flags) == (
        Heartbeat.TYPE_ID,
        0,
        FLAG_SEALED | FLAG_ACK_NOW,
    )
    assert len(request.payload) == len(heartbeat.payload)  # sealed, and nothing in it
    device.receive_data(wire, 1.5)
    station.receive_data(device.data_to_send(), 1.5)
    assert drops(station) == [
        ("an unsealed Refused while the session is alive", "AuthenticationError")
    ]
    assert station.connected


def test_a_refused_of_a_joined_session_no_answer_confirms_is_the_link_down_with_its_reason() -> (
    None
):
    station, _, station_session, _ = pair()
    station.receive_data(plain(Refused(station_session, "go away")), 1.0)
    station.data_to_send()
    station.tick(1.0 + station.timing.retransmit_timeout * station.timing.max_tries)
    assert [e for e in station.events() if isinstance(e, LinkDown)] == [
        LinkDown("device refused the session: go away", ())
    ]


# --- refusals: their texts, on both sides ---------------------------------------------------


def test_a_station_names_the_kind_it_expects_and_the_kind_it_met() -> None:
    """A paired device of another kind whose firmware answers anyway (a Python device never
    does: it refuses first): the reply proves the secret, and the station refuses it with
    its own account of the mismatch (section 4)."""
    station = Endpoint(Role.STATION, READER_STATION, secret=SECRET, rng=random.Random(1))
    station.start(0.0)
    [frame] = frames_in(station.data_to_send())
    hello = decode_message(frame.type_id, frame.payload)
    assert isinstance(hello, Hello)
    nonce = bytes(range(16, 32))
    keys = SessionKeys(SECRET, hello.nonce, nonce, READER_STATION.kind.code)
    unproved = HelloReply(SHOE_ID.kind, 5, hello.session, nonce, bytes(16), "fw", "S1")
    proof = Sealer(keys.device_to_station).proof(encode_message(unproved)[1])
    station.receive_data(plain(dataclasses.replace(unproved, proof=proof)), 0.0)
    [refused] = [e for e in station.events() if isinstance(e, HandshakeRefused)]
    assert (refused.reason, refused.by_peer, refused.authentication) == (
        "device kind mismatch: the station expects a card_reader, the device is a shoe",
        False,
        False,
    )


def test_an_unpaired_station_refuses_every_reply_saying_so() -> None:
    station = Endpoint(Role.STATION, STATION_ID, secret=None, rng=random.Random(1))
    device = Endpoint(Role.DEVICE, SHOE_ID, secret=SECRET, rng=random.Random(2))
    device.start(0.0)
    station.start(0.0)
    device.receive_data(station.data_to_send(), 0.0)
    station.receive_data(device.data_to_send(), 0.0)
    assert [e for e in station.events() if isinstance(e, HandshakeRefused)] == [
        HandshakeRefused(
            "the station is not paired with this device (dealer-station pair)",
            by_peer=False,
            peer=SHOE_ID,
            authentication=True,
        )
    ]
    assert station.peer == SHOE_ID  # what it claimed, for the fault; never connected


@pytest.mark.parametrize("connected", [False, True])
def test_a_device_refuses_a_station_of_another_protocol_version_naming_both(
    connected: bool,
) -> None:
    """A HELLO of version 3 (its layout kept from version 2 on, so it reads): refused with
    both versions named, whether it opens the first session or another one."""
    if connected:
        _, device, _, _ = pair()
    else:
        device = Endpoint(Role.DEVICE, READER, secret=SECRET, rng=random.Random(2))
        device.start(0.0)
    device.receive_data(hello_of(77, version=3), 1.0)
    assert [(r.echo, r.reason) for r in refusals(device.data_to_send())] == [
        (77, "protocol version 3 of the station is not supported (the device speaks version 2)")
    ]
    assert device.connected is connected


def reader_device(connected: bool, check: PeerCheck) -> Endpoint:
    """A card reader with its own check of the station: connected to TABLE-7, or waiting."""
    if connected:
        return pair(device_check=check)[1]
    device = Endpoint(Role.DEVICE, READER, secret=SECRET, rng=random.Random(2), check_peer=check)
    device.start(0.0)
    return device


TABLE_9 = Identity(READER.kind, "station-1.0", "TABLE-9")


def only_table_7(peer: Identity) -> str | None:
    return None if peer.serial_number == "TABLE-7" else f"station {peer.serial_number} is not ours"


@pytest.mark.parametrize("connected", [False, True])
def test_a_device_refuses_a_station_its_own_check_refuses(connected: bool) -> None:
    device = reader_device(connected, only_table_7)
    device.receive_data(hello_of(78, TABLE_9), 1.0)
    assert [(r.echo, r.reason) for r in refusals(device.data_to_send())] == [
        (78, "station TABLE-9 is not ours")
    ]


@pytest.mark.parametrize("connected", [False, True])
def test_a_refusal_is_cut_to_200_bytes_without_splitting_a_character(connected: bool) -> None:
    """Section 7 (0x03): the reason is at most 200 bytes of UTF-8; a character the cut
    would split is left out whole."""

    def long_reason(peer: Identity) -> str | None:
        if peer.serial_number == "TABLE-7":
            return None
        return "x" * 199 + "é" + "tail"  # é is two bytes: bytes 200 and 201

    device = reader_device(connected, long_reason)
    device.receive_data(hello_of(79, TABLE_9), 1.0)
    assert [(r.echo, r.reason) for r in refusals(device.data_to_send())] == [(79, "x" * 199)]


def test_a_connected_device_unpaired_since_refuses_a_hello_of_another_session() -> None:
    """A technician cleared the pairing: the next station's HELLO is refused (section 4a),
    the running session stays (section 4c)."""
    _, device, _, _ = pair()
    device.secret = None
    device.receive_data(hello_of(80), 1.0)
    assert [(r.echo, r.reason) for r in refusals(device.data_to_send())] == [
        (80, "the device is not paired with a station (dealer-station pair)")
    ]
    assert device.connected


def test_each_hello_of_another_session_counts_as_an_unsealed_end() -> None:
    _, device, _, _ = pair()
    device.receive_data(hello_of(81), 1.0)
    device.receive_data(hello_of(82), 1.1)
    assert device.stats.unsealed_ends == 2


def test_the_pending_session_has_a_nonzero_number_of_its_own() -> None:
    """Section 4: a session number is a random non-zero 32-bit number; 0 means none."""
    _, device, _, device_session = pair()
    for n, session in enumerate(range(83, 93)):
        device.receive_data(hello_of(session), 1.0 + n)
        [frame] = frames_in(device.data_to_send())
        reply = decode_message(frame.type_id, frame.payload)
        assert isinstance(reply, HelloReply) and reply.echo == session
        assert 0 < reply.session < 1 << 32 and reply.session != device_session


def test_each_forged_end_is_counted() -> None:
    """Section 4c: a HELLO of another session disproved by the running session's next
    sealed frame, and an unsealed REFUSED disproved by the answer to the heartbeat request,
    each count as one forged end, every time."""
    station, device, station_session, _ = pair()
    for n in range(1, 3):
        t = 2.0 * n  # a heartbeat is due at each t + 0.5
        device.receive_data(hello_of(90 + n), t)
        device.data_to_send()
        station.tick(t + 0.5)  # the running session's heartbeat
        device.receive_data(station.data_to_send(), t + 0.5)
        assert device.stats.forged_ends == n
        station.receive_data(plain(Refused(station_session, "go away")), t + 0.6)
        device.receive_data(station.data_to_send(), t + 0.6)
        station.receive_data(device.data_to_send(), t + 0.6)
        assert station.stats.forged_ends == n
    assert station.connected and device.connected


def test_an_unsealed_frame_in_a_session_is_dropped_as_not_sealed() -> None:
    """Section 4b: every frame of a session is sealed; one that is not never reaches the
    station's events, whatever it says."""
    station, _, _, _ = pair()
    unsealed = Frame(PROTOCOL_VERSION, 0x31, 0, FLAG_RELIABLE, 0, b"\x00\x07\x01")
    station.receive_data(DELIMITER + encode_frame(unsealed), 1.0)
    assert drops(station) == [("frame type 0x31 is not sealed", "AuthenticationError")]
    assert station.stats.auth_failures == 1


def test_a_heartbeat_request_is_answered_once_and_a_plain_heartbeat_not_at_all() -> None:
    """Section 6: only a HEARTBEAT with ACK_NOW asks for an answer (else two sides would
    answer each other's heartbeats for ever); an ACK, even flagged, asks for none."""
    station, device, _, _ = pair()
    station.tick(1.0)  # a plain heartbeat
    device.receive_data(station.data_to_send(), 1.0)
    assert device.data_to_send() == b""
    station.receive_data(plain(NoSession()), 1.1)  # the station asks: a heartbeat request
    device.receive_data(station.data_to_send(), 1.1)
    [answer] = frames_in(device.data_to_send())
    # A heartbeat of its own: unreliable, not asking back, nothing in it but the seal.
    assert (answer.type_id, answer.seq, answer.flags) == (Heartbeat.TYPE_ID, 0, FLAG_SEALED)
    device.tick(2.2)  # an ordinary heartbeat, a second later, for comparison
    [ordinary] = frames_in(device.data_to_send())
    assert (ordinary.type_id, ordinary.seq, ordinary.flags) == (Heartbeat.TYPE_ID, 0, FLAG_SEALED)
    assert len(answer.payload) == len(ordinary.payload)
    sealer = station._s.sealer
    assert sealer is not None
    header = Frame(PROTOCOL_VERSION, Ack.TYPE_ID, 0, FLAG_SEALED | FLAG_ACK_NOW, 0, b"").header()
    flagged_ack = Frame(
        PROTOCOL_VERSION, Ack.TYPE_ID, 0, FLAG_SEALED | FLAG_ACK_NOW, 0, sealer.seal(header, b"")
    )
    device.receive_data(DELIMITER + encode_frame(flagged_ack), 2.3)
    assert device.data_to_send() == b""


def test_every_frame_received_is_counted_once() -> None:
    """``LinkStats`` (the technician's counters): frames one side received are the frames
    the other sent, on a clean line."""
    station, device, _, _ = pair()
    base = station.stats.bytes_received
    written = 0
    for n in range(1, 4):
        station.tick(float(n))
        device.receive_data(station.data_to_send(), float(n))
        device.tick(n + 0.5)
        station.receive_data(wire := device.data_to_send(), n + 0.5)
        written += len(wire)
    assert station.stats.bytes_received - base == written > 0
    assert station.stats.frames_received == device.stats.frames_sent >= 4
    assert device.stats.frames_received == station.stats.frames_sent >= 4


# --- pairing requests (section 4a) on a device ----------------------------------------------


def pairing_device(consent: bool) -> tuple[Endpoint, Endpoint]:
    """A connected card-reader link whose device's pairing button is held or not."""
    station = Endpoint(Role.STATION, READER_STATION, secret=SECRET, rng=random.Random(1))
    device = Endpoint(
        Role.DEVICE,
        READER,
        secret=SECRET,
        rng=random.Random(2),
        pairing_consent=lambda: consent,
    )
    device.start(0.0)
    station.start(0.0)
    device.receive_data(station.data_to_send(), 0.0)
    station.receive_data(device.data_to_send(), 0.0)
    assert device.connected
    device.events()
    return station, device


def test_an_unreadable_or_unusable_pair_request_is_dropped_and_pairs_nothing() -> None:
    _, device = pairing_device(consent=True)
    garbled = DELIMITER + encode_frame(Frame(2, PairRequest.TYPE_ID, 0, 0, 0, b"\x03\x00"))
    device.receive_data(garbled, 0.5)
    # The all-zero X25519 key is a point of small order: no secret can come of it.
    device.receive_data(plain(PairRequest(READER.kind, bytes(32), "PA-S21-07")), 0.6)
    assert [error for _, error in drops(device)] == ["PayloadError", "AuthenticationError"]
    assert device.secret == SECRET and device.connected
    assert device.data_to_send() == b""


def test_a_refused_pair_request_leaves_the_sessions_heartbeat_on_time() -> None:
    """A REFUSED (echo 0) to a pairing without the button goes out; the running session's
    own heartbeat still follows 1 s after the device last sent (section 6)."""
    _, device = pairing_device(consent=False)
    device.receive_data(StationPairing(READER.kind, "PA-S21-07").request(), 0.5)
    assert [r.echo for r in refusals(device.data_to_send())] == [0]
    device.tick(1.4)
    assert device.data_to_send() == b""
    device.tick(1.5)
    [heartbeat] = frames_in(device.data_to_send())
    assert heartbeat.type_id == Heartbeat.TYPE_ID


def test_a_pair_request_answered_again_in_the_new_session_leaves_its_heartbeat_on_time() -> None:
    """The station's PAIR_REQUEST again after the device paired and joined the station's
    next session (its reply was slow): the same PAIR_REPLY, and the session runs on."""
    _, device = pairing_device(consent=True)
    request = StationPairing(READER.kind, "PA-S21-07").request()
    device.receive_data(request, 0.5)
    device.data_to_send()
    [paired] = [e for e in device.events() if isinstance(e, Paired)]
    station = Endpoint(Role.STATION, READER_STATION, secret=paired.secret, rng=random.Random(3))
    station.start(0.6)
    device.receive_data(station.data_to_send(), 0.6)
    station.receive_data(device.data_to_send(), 0.6)
    assert station.connected and device.connected
    device.receive_data(request, 0.7)
    assert [f.type_id for f in frames_in(device.data_to_send())] == [PairReply.TYPE_ID]
    device.tick(1.69)
    assert device.data_to_send() == b""
    device.tick(1.7)
    assert [f.type_id for f in frames_in(device.data_to_send())] == [Heartbeat.TYPE_ID]
