"""Tests of firmware_bridge.frame: COBS + CRC framing and the streaming decoder."""

from __future__ import annotations

import pytest
from cobs import cobs
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge import (
    MAX_PAYLOAD,
    CobsError,
    CrcError,
    Frame,
    FrameDecoder,
    FrameLengthError,
    ProtocolError,
    crc16,
    decode_frame,
    encode_frame,
)
from firmware_bridge.frame import MAX_ENCODED, unframe, wire_frame

frames = st.builds(
    Frame,
    version=st.integers(0, 255),
    type_id=st.integers(0, 255),
    seq=st.integers(0, 255),
    flags=st.integers(0, 255),
    ack=st.integers(0, 255),
    payload=st.binary(max_size=MAX_PAYLOAD),
)


def test_crc16_is_ccitt_false() -> None:
    # The catalogued check value of CRC-16/CCITT-FALSE.
    assert crc16(b"123456789") == 0x29B1


def test_card_drawn_frame_layout() -> None:
    frame = Frame(1, 0x20, 0, 1, 0, bytes([10, ord("S")]))
    wire = encode_frame(frame)
    assert wire == bytes.fromhex("03 01 20 02 01 05 0a 53 8f 4e 00")
    assert len(wire) < 16
    assert decode_frame(wire[:-1]) == frame


@given(frames)
def test_frame_round_trip(frame: Frame) -> None:
    wire = encode_frame(frame)
    assert wire.count(0) == 1 and wire[-1] == 0
    assert len(wire) - 1 <= MAX_ENCODED
    assert decode_frame(wire[:-1]) == frame


@given(st.lists(frames, min_size=1, max_size=8), st.data())
def test_stream_decoder_handles_any_split(batch: list[Frame], data: st.DataObject) -> None:
    wire = b"".join(encode_frame(f) for f in batch)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(wire)), max_size=10)))
    decoder = FrameDecoder()
    got: list[Frame | ProtocolError] = []
    start = 0
    for cut in [*cuts, len(wire)]:
        got += decoder.feed(wire[start:cut])
        start = cut
    assert got == batch


def test_stream_decoder_one_byte_at_a_time() -> None:
    batch = [Frame(1, t, t, 1, 0, bytes(range(t))) for t in range(0, 60, 7)]
    decoder = FrameDecoder()
    got: list[Frame | ProtocolError] = []
    for b in b"".join(encode_frame(f) for f in batch):
        got += decoder.feed(bytes([b]))
    assert got == batch


def test_encode_refuses_oversize_payload_and_bad_header() -> None:
    with pytest.raises(FrameLengthError):
        encode_frame(Frame(1, 1, 0, 0, 0, bytes(MAX_PAYLOAD + 1)))
    with pytest.raises(ProtocolError):
        encode_frame(Frame(1, 256, 0, 0, 0, b""))


def test_every_single_bit_flip_is_caught() -> None:
    wire = encode_frame(Frame(1, 0x20, 3, 1, 7, b"\x0dH"))[:-1]
    for i in range(len(wire)):
        for bit in range(8):
            damaged = bytearray(wire)
            damaged[i] ^= 1 << bit
            if 0 in damaged:
                continue  # the delimiter splits it: covered by the stream tests
            with pytest.raises((CrcError, CobsError, FrameLengthError)):
                decode_frame(bytes(damaged))


def test_the_longest_frame_passes_and_one_byte_more_is_refused() -> None:
    # docs/protocol.md section 2: a frame decodes to 7..247 bytes (5 header bytes, at most
    # 240 payload bytes, 2 CRC bytes) and is at most 248 bytes encoded (COBS adds one byte
    # per started 254).
    longest = Frame(1, 0x20, 1, 0, 0, bytes(range(1, 241)))
    wire = encode_frame(longest)[:-1]  # without the 0x00 delimiter
    assert len(wire) == 248
    assert decode_frame(wire) == longest
    raw = unframe(wire)[:-2] + b"\x41"  # 246 bytes of header and payload, one more
    raw += crc16(raw).to_bytes(2, "big")  # a good CRC: only the length is wrong
    assert len(raw) == 248
    with pytest.raises(FrameLengthError, match="249 encoded bytes exceeds 248"):
        decode_frame(cobs.encode(raw))


@pytest.mark.parametrize("lead", [b"", b"\x00"])
def test_the_longest_frame_waiting_for_its_delimiter_is_kept(lead: bytes) -> None:
    # A read that ends right before the delimiter of a 248-byte encoded frame (the longest
    # the protocol allows) holds a whole frame: the decoder keeps it for the next read.
    longest = Frame(1, 0x20, 1, 0, 0, bytes(range(1, 241)))
    wire = encode_frame(longest)
    decoder = FrameDecoder()
    assert decoder.feed(lead + wire[:-1]) == []
    assert decoder.feed(wire[-1:]) == [longest]


def test_decode_errors_are_specific() -> None:
    with pytest.raises(FrameLengthError):
        decode_frame(b"\x03\x01\x02")  # decodes to 2 bytes: shorter than header + CRC
    with pytest.raises(CobsError):
        decode_frame(b"\x05\x01")  # COBS code promises more bytes than follow
    with pytest.raises(FrameLengthError):
        decode_frame(b"\x01" * (MAX_ENCODED + 1))
    good = encode_frame(Frame(1, 4, 0, 0, 0, b""))[:-1]
    with pytest.raises(CrcError):
        decode_frame(good[:-1] + bytes([good[-1] ^ 0x40]))


def test_decoder_resynchronises_after_garbage_and_cut_frames() -> None:
    a = Frame(1, 0x20, 0, 1, 0, b"\x01S")
    b = Frame(1, 0x21, 1, 1, 0, b"")
    wire_a, wire_b = encode_frame(a), encode_frame(b)
    decoder = FrameDecoder()
    stream = b"\xff\x13garbage" + wire_a[:4] + b"\x00" + wire_a + wire_b[:3] + wire_b[4:] + wire_b
    got = decoder.feed(stream)
    frames_out = [x for x in got if isinstance(x, Frame)]
    errors = [x for x in got if isinstance(x, ProtocolError)]
    assert frames_out == [a, b]
    assert len(errors) == 2  # garbage + the cut frame (one run), the frame missing a byte


def test_decoder_memory_is_bounded_without_delimiters() -> None:
    decoder = FrameDecoder()
    for _ in range(1000):
        assert decoder.feed(b"\x01" * 100) == []
    assert len(decoder._buffer) <= MAX_ENCODED
    good = Frame(1, 4, 0, 0, 0, b"")
    got = decoder.feed(b"\x00" + encode_frame(good))
    assert isinstance(got[0], FrameLengthError)
    assert got[1:] == [good]


def test_oversize_run_split_across_feeds_is_discarded_once() -> None:
    decoder = FrameDecoder()
    good = Frame(1, 4, 0, 0, 0, b"")
    out = decoder.feed(b"\x02" * (MAX_ENCODED - 5))
    out += decoder.feed(b"\x02" * 10 + b"\x00" + encode_frame(good))
    assert isinstance(out[0], FrameLengthError)
    assert out[1:] == [good]


def test_reset_forgets_a_partial_frame() -> None:
    decoder = FrameDecoder()
    good = Frame(1, 4, 0, 0, 0, b"")
    decoder.feed(encode_frame(good)[:3])
    decoder.reset()
    assert decoder.feed(encode_frame(good)) == [good]


@given(st.lists(st.binary(max_size=80), max_size=8))
def test_feed_raw_agrees_with_feed_on_any_bytes(chunks: list[bytes]) -> None:
    """The endpoint's hot path (``feed_raw``: checked frames as bytes) sees exactly what
    ``feed`` reports, error for error, on any stream: one deframer, two views of it."""
    frames_view, raw_view = FrameDecoder(), FrameDecoder()
    for chunk in chunks:
        framed = frames_view.feed(chunk)
        raw = raw_view.feed_raw(chunk)
        assert len(framed) == len(raw)
        for frame, item in zip(framed, raw, strict=True):
            if isinstance(frame, Frame):
                assert isinstance(item, bytes)
                assert item[:5] == frame.header()
                assert item[5:-2] == frame.payload
                assert crc16(item) == 0  # the CRC is still on, and checked
            else:
                assert type(item) is type(frame)


@given(frames)
def test_wire_frame_is_encode_frame_of_a_packed_header(frame: Frame) -> None:
    assert wire_frame(frame.header() + frame.payload) == encode_frame(frame)


def test_unframe_keeps_the_header_bytes_as_sent() -> None:
    # The card-drawn example above, COBS undone by hand: 03 -> 01 20 + 00, 02 -> 01 + 00,
    # 05 -> 0a 53 8f 4e. Header 01 20 00 01 00 (the seal's associated data), payload 0a 53.
    raw = unframe(bytes.fromhex("03 01 20 02 01 05 0a 53 8f 4e"))
    assert raw == bytes.fromhex("01 20 00 01 00 0a 53 8f 4e")
    with pytest.raises(CrcError):
        unframe(bytes.fromhex("03 01 20 02 01 05 0a 53 8f 4f"))
