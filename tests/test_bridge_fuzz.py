"""Fuzzing the decoders: whatever bytes arrive, only ProtocolErrors, bounded memory, no hang.

A seeded loop feeds 100,000 random and mutated byte strings (fast enough to run on every
``make test``); hypothesis adds shrinking searches on top. ``bench/fuzz_bridge.py`` is the
open-ended atheris harness.
"""

from __future__ import annotations

import random
from typing import TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import (
    CardDrawnReport,
    DeviceKind,
    EchoRequest,
    Endpoint,
    Frame,
    FrameDecoder,
    Identity,
    LinkEvent,
    MessageReceived,
    MessageRejected,
    ProtocolError,
    Role,
    ShuffleDoneReport,
    WagerSensorReport,
    WagerSpotCode,
    catalogue,
    decode_frame,
    decode_message,
    encode_frame,
    encode_message,
)
from firmware_bridge.frame import MAX_ENCODED, MAX_PAYLOAD, PROTOCOL_VERSION
from firmware_bridge.link_messages import Hello, HelloReply

INPUTS = 100_000
SECRET = bytes(range(32))
T = TypeVar("T")


def of_type(events: list[LinkEvent], cls: type[T] | tuple[type[T], ...]) -> list[T]:
    return [e for e in events if isinstance(e, cls)]


SEEDS = [
    CardDrawnReport(10, "S", 1),
    ShuffleDoneReport(288, (24,) * 9 + (0,) + (24,) * 3),
    WagerSensorReport(3, WagerSpotCode.MATCH, True, 2500),
    EchoRequest(bytes(range(40))),
    Hello(DeviceKind.SHOE, 0x12345678, bytes(range(16)), "fw", "SN"),
    HelloReply(DeviceKind.SHOE, 1, 2, bytes(16), bytes(range(16)), "fw-1.0", "SHOE-1"),
]


def seed_frames() -> list[bytes]:
    out = []
    for i, msg in enumerate(SEEDS):
        type_id, payload = encode_message(msg)
        out.append(encode_frame(Frame(PROTOCOL_VERSION, type_id, i, i & 1, 0, payload)))
    return out


SEED_FRAMES = seed_frames()
TYPES = [cls.TYPE_ID for cls in catalogue()]


def mutate(rng: random.Random, data: bytes) -> bytes:
    """One of the usual fuzzing mutations."""
    b = bytearray(data)
    kind = rng.randrange(8)
    if kind == 0 and b:  # bit flips
        for _ in range(rng.randrange(1, 4)):
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
    elif kind == 1 and b:  # byte replaced with an interesting value
        b[rng.randrange(len(b))] = rng.choice((0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF))
    elif kind == 2 and b:  # truncation
        del b[rng.randrange(len(b)) :]
    elif kind == 3:  # insertion
        b[rng.randrange(len(b) + 1) : 0] = rng.randbytes(rng.randrange(1, 8))
    elif kind == 4 and b:  # deletion
        i = rng.randrange(len(b))
        del b[i : i + rng.randrange(1, 4)]
    elif kind == 5:  # splice with another seed
        other = rng.choice(SEED_FRAMES)
        b = b[: rng.randrange(len(b) + 1)] + bytearray(other[rng.randrange(len(other)) :])
    elif kind == 6:  # duplication
        b = b * rng.randrange(2, 4)
    else:  # a run longer than any frame, without a delimiter
        b = bytearray(rng.randbytes(MAX_ENCODED + rng.randrange(1, 50)).replace(b"\0", b"\1"))
    return bytes(b)


def reframed(rng: random.Random) -> bytes:
    """A well-framed frame (valid CRC) around a mutated payload of a real message type, so
    that the message decoders and the endpoint's handshake and sequence logic get reached."""
    msg = rng.choice(SEEDS)
    type_id, payload = encode_message(msg)
    if rng.random() < 0.3:
        type_id = rng.choice([*TYPES, rng.randrange(256)])
    if rng.random() < 0.8:
        payload = mutate(rng, payload)[:MAX_PAYLOAD]
    version = PROTOCOL_VERSION if rng.random() < 0.9 else rng.randrange(256)
    frame = Frame(
        version, type_id, rng.randrange(256), rng.randrange(4), rng.randrange(256), payload
    )
    return encode_frame(frame)


def inputs(rng: random.Random, count: int) -> list[bytes]:
    seeds = SEED_FRAMES
    out = []
    for i in range(count):
        if i % 3 == 0:
            out.append(rng.randbytes(rng.randrange(0, 300)))
        elif i % 3 == 1:
            out.append(reframed(rng))
        else:
            data = rng.choice(seeds)
            for _ in range(rng.randrange(1, 4)):
                data = mutate(rng, data)
            out.append(data)
    return out


@pytest.mark.timeout(60)
def test_hundred_thousand_inputs_raise_only_protocol_errors() -> None:
    rng = random.Random(0xB21D6E)
    decoder = FrameDecoder()
    station = Endpoint(
        Role.STATION, Identity(DeviceKind.SHOE, "st", "T1"), rng=random.Random(1), secret=SECRET
    )
    station.start(0.0)
    device = Endpoint(
        Role.DEVICE, Identity(DeviceKind.SHOE, "fw", "S1"), rng=random.Random(2), secret=SECRET
    )
    device.start(0.0)
    delivered = 0
    outcomes = {"frame": 0, "message": 0, "error": 0}
    for i, data in enumerate(inputs(rng, INPUTS)):
        # One frame at a time: strip the delimiter the way a receiver would.
        try:
            frame = decode_frame(data[:-1] if data.endswith(b"\x00") else data)
        except ProtocolError:
            outcomes["error"] += 1
        else:
            outcomes["frame"] += 1
            try:
                decode_message(frame.type_id, frame.payload)
                outcomes["message"] += 1
            except ProtocolError:
                outcomes["error"] += 1
        # As a stream: the decoder and a live endpoint swallow everything.
        for item in decoder.feed(data):
            assert isinstance(item, (Frame, ProtocolError))
        for endpoint in (station, device):
            endpoint.receive_data(data, i * 0.001)
            endpoint.tick(i * 0.001)
            delivered += len(of_type(endpoint.events(), (MessageReceived, MessageRejected)))
            endpoint.data_to_send()
            assert len(endpoint._decoder._buffer) <= MAX_ENCODED
        assert len(decoder._buffer) <= MAX_ENCODED
    # The mutations kept some inputs valid, so the message decoders were reached too.
    assert outcomes["frame"] > INPUTS // 4 and outcomes["message"] > INPUTS // 20
    # The device accepted fuzzed HELLOs, so the seal check was reached: and not one fuzzed
    # frame got past it (none carries a tag made with the session's key).
    assert device.stats.auth_failures > 100
    assert delivered == 0


@settings(max_examples=1000)
@given(st.binary(max_size=400))
def test_any_bytes_decode_to_a_frame_or_a_protocol_error(data: bytes) -> None:
    try:
        frame = decode_frame(data)
    except ProtocolError:
        return
    assert len(frame.payload) <= MAX_ENCODED


@settings(max_examples=1000)
@given(st.integers(0, 255), st.binary(max_size=260))
def test_any_payload_decodes_to_a_message_or_a_protocol_error(type_id: int, payload: bytes) -> None:
    try:
        msg = decode_message(type_id, payload)
    except ProtocolError:
        return
    assert encode_message(msg) == (type_id, payload)  # a decoded message re-encodes exactly


@settings(max_examples=300)
@given(st.lists(st.binary(max_size=80), max_size=20))
def test_endpoint_never_raises_on_any_stream(chunks: list[bytes]) -> None:
    device = Endpoint(
        Role.DEVICE, Identity(DeviceKind.PANEL, "p", "P1"), rng=random.Random(2), secret=SECRET
    )
    device.start(0.0)
    for i, chunk in enumerate(chunks):
        device.receive_data(chunk, i * 0.01)
        device.tick(i * 0.01)
        device.data_to_send()
