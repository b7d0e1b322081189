"""Each framing error names itself (firmware_bridge.frame; docs/protocol.md section 2):
the reason goes into the link's FrameDropped event and its drop counts, so an operator
reading them learns what the line did. Limits: a payload of at most 240 bytes, a frame of
7..247 bytes, 248 encoded bytes between delimiters.

An oversize run is discarded and reported once, also when the run begins in the middle of a
read and ends in a later one."""

from __future__ import annotations

import binascii

import pytest
from cobs import cobs

from firmware_bridge import PROTOCOL_VERSION, Frame, encode_frame
from firmware_bridge.errors import FrameLengthError, ProtocolError
from firmware_bridge.frame import CRC, CRC_INIT, DELIMITER, FrameDecoder, unframe


def _raw(length: int) -> bytes:
    """A frame of ``length`` bytes (header, payload, its correct CRC) with no zero byte in
    it, so that COBS adds exactly one byte: 247 bytes encode to the 248 allowed."""
    for salt in range(1, 256):
        body = bytes([PROTOCOL_VERSION, 0x20, 1, 1, 1])
        body += bytes((salt + i) % 255 + 1 for i in range(length - 7))
        raw = body + CRC.pack(binascii.crc_hqx(body, CRC_INIT))
        if 0 not in raw:
            return raw
    raise AssertionError("no zero-free frame found")


def test_encoding_refuses_a_long_payload_or_a_header_field_out_of_range_by_name() -> None:
    with pytest.raises(FrameLengthError) as caught:
        encode_frame(Frame(PROTOCOL_VERSION, 0x20, 0, 0, 0, bytes(241)))
    assert str(caught.value) == "payload of 241 bytes exceeds 240"
    with pytest.raises(ProtocolError) as caught:
        encode_frame(Frame(PROTOCOL_VERSION, 0x20, 256, 0, 0, b""))
    assert str(caught.value).startswith("header field out of range in Frame(version=2")


def test_each_bad_run_between_delimiters_names_what_is_wrong() -> None:
    short = cobs.encode(bytes([2, 0x20, 0, 0, 0, 1]))  # 6 bytes: no room for the CRC
    with pytest.raises(FrameLengthError) as caught:
        unframe(short)
    assert str(caught.value) == "frame of 6 bytes is shorter than 7"
    long = cobs.encode(_raw(248))  # COBS adds a byte: 249 encoded, one over the limit
    assert len(long) == 249
    with pytest.raises(FrameLengthError) as caught:
        unframe(long)
    assert str(caught.value) == "frame of 249 encoded bytes exceeds 248"
    corrupt = bytearray(_raw(8))
    corrupt[5] ^= 0x01  # one payload bit flipped on the line
    with pytest.raises(ProtocolError) as caught:
        unframe(cobs.encode(bytes(corrupt)))
    assert str(caught.value) == "CRC mismatch in a 8-byte frame"
    with pytest.raises(ProtocolError) as caught:
        unframe(b"\x05\x01")  # the code byte promises four more bytes than there are
    assert str(caught.value).startswith("bad COBS encoding: ")


def test_the_longest_frame_opens() -> None:
    encoded = cobs.encode(_raw(247))
    assert len(encoded) == 248 and len(unframe(encoded)) == 247


def test_an_oversize_run_that_ends_a_read_is_reported_once_when_it_ends() -> None:
    good = encode_frame(Frame(PROTOCOL_VERSION, 0x20, 0, 0, 0, b"card"))
    decoder = FrameDecoder()
    # A delimiter, then 300 bytes of junk with no delimiter yet: the start is dropped.
    assert decoder.feed(DELIMITER + b"\x01" * 300) == []
    assert decoder.feed(b"\x01" * 10) == []  # still the same run: nothing kept
    out = decoder.feed(b"\x01" * 5 + DELIMITER + good)
    assert [str(item) for item in out[:1]] == ["frame longer than 248 bytes discarded"]
    assert isinstance(out[0], FrameLengthError)
    assert out[1:] == [Frame(PROTOCOL_VERSION, 0x20, 0, 0, 0, b"card")]


def test_an_oversize_run_within_one_read_is_reported_once() -> None:
    good = encode_frame(Frame(PROTOCOL_VERSION, 0x20, 0, 0, 0, b"card"))
    decoder = FrameDecoder()
    assert decoder.feed(b"\x01" * 300) == []  # no delimiter at all yet
    out = decoder.feed(DELIMITER + good)
    assert [type(item) for item in out] == [FrameLengthError, Frame]
    assert str(out[0]) == "frame longer than 248 bytes discarded"
