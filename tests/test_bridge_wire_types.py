"""The field encodings of docs/protocol.md section 7, one wire type at a time, built at test
time (the catalogue builds its own while it is imported): `u8`/`u16`/`u32` unsigned
big-endian over their whole range, `bool` one byte 0 or 1, a code one byte from its listed
values, a letter from its set, a u32 whose 0xFFFFFFFF means "unknown", counts, `text` and
`bytes` after a length byte, records after a count, fixed byte strings. Each check is
tried on both sides of its limit, and each refusal is one line that names the value and
what was expected (what a technician reads when a device sends a bad field)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum

import pytest

from firmware_bridge import DeviceKind, PayloadError
from firmware_bridge.wire_types import (
    Blob,
    Code,
    Counts,
    FixedBytes,
    Flag,
    Letter,
    OptionalU32,
    Records,
    Text,
    UInt,
    UInt8,
)


def _packed(fmt: str | None, *values: object) -> bytes:
    assert fmt is not None
    return struct.pack(">" + fmt, *values)


# --- u8, u16, u32 -------------------------------------------------------------------------


@pytest.mark.parametrize(("size", "top"), [(1, 0xFF), (2, 0xFFFF), (4, 0xFFFF_FFFF)])
def test_an_unsigned_field_takes_its_whole_range_big_endian_and_nothing_past_it(
    size: int, top: int
) -> None:
    field = UInt(size)
    assert field.to_wire(0) == 0 and field.to_wire(top) == top
    assert field.from_wire(0) == 0 and field.from_wire(top) == top
    # Big-endian, `size` bytes: the top value is all ones, 1 is a one in the last byte.
    assert _packed(field.fmt, top) == b"\xff" * size
    assert _packed(field.fmt, 1) == bytes(size - 1) + b"\x01"
    for bad in (top + 1, -1):
        with pytest.raises(PayloadError) as caught:
            field.to_wire(bad)
        assert str(caught.value) == f"{bad} is not an integer in 0..{top}"
    with pytest.raises(PayloadError, match=f"^{top + 1} is outside 0..{top}$"):
        field.from_wire(top + 1)


@pytest.mark.parametrize("value", [True, 1.0, "1", None])
def test_an_unsigned_field_takes_integers_only(value: object) -> None:
    with pytest.raises(PayloadError, match=r"is not an integer in 0..255"):
        UInt(1).to_wire(value)


def test_a_limited_field_refuses_either_side_of_its_limits() -> None:
    # A shoe's draw number: 1..65535 (0 is no draw).
    draw = UInt(2, 1, 0xFFFF)
    assert draw.to_wire(1) == 1 and draw.to_wire(0xFFFF) == 0xFFFF
    with pytest.raises(PayloadError, match=r"^0 is outside 1..65535$"):
        draw.from_wire(0)
    with pytest.raises(PayloadError, match=r"^0 is not an integer in 1..65535$"):
        draw.to_wire(0)


def test_a_one_byte_field_is_0_to_255_unless_limited() -> None:
    byte = UInt8()
    assert _packed(byte.fmt, 0xFF) == b"\xff"
    assert byte.to_wire(0) == 0 and byte.to_wire(0xFF) == 0xFF
    with pytest.raises(PayloadError, match=r"^256 is not an integer in 0..255$"):
        byte.to_wire(0x100)
    rank = UInt8(1, 13)  # a card's rank, ace 1 .. king 13
    assert rank.to_wire(1) == 1 and rank.to_wire(13) == 13 and rank.from_wire(10) == 10
    for bad in (0, 14):
        with pytest.raises(PayloadError, match=f"^{bad} is outside 1..13$"):
            rank.from_wire(bad)


# --- bool, codes, letters -----------------------------------------------------------------


def test_a_flag_is_one_byte_0_or_1() -> None:
    flag = Flag()
    assert (flag.to_wire(False), flag.to_wire(True)) == (0, 1)
    assert (flag.from_wire(0), flag.from_wire(1)) == (False, True)
    with pytest.raises(PayloadError, match=r"^boolean byte 2 is neither 0 nor 1$"):
        flag.from_wire(2)
    with pytest.raises(PayloadError, match=r"^1 is not a bool$"):
        flag.to_wire(1)


class _Answer(IntEnum):
    NO_BLACKJACK = 0
    BLACKJACK = 1
    READ_ERROR = 7


def test_a_code_is_its_members_byte_and_no_other() -> None:
    code = Code(_Answer)
    assert code.to_wire(_Answer.READ_ERROR) == 7
    assert code.from_wire(7) is _Answer.READ_ERROR and code.from_wire(0) is _Answer.NO_BLACKJACK
    with pytest.raises(PayloadError, match=r"^2 is not a _Answer code$"):
        code.from_wire(2)
    with pytest.raises(PayloadError, match=r"^7 is not a _Answer$"):
        code.to_wire(7)


def test_a_device_kind_travels_as_its_documented_byte() -> None:
    # docs/protocol.md section 4: shuffler 1, shoe 2, card reader 3, panel 4.
    kind = Code(DeviceKind, lambda member: member.code)
    assert [kind.to_wire(k) for k in DeviceKind] == [1, 2, 3, 4]
    assert kind.from_wire(3) is DeviceKind.CARD_READER
    with pytest.raises(PayloadError, match=r"^0 is not a DeviceKind code$"):
        kind.from_wire(0)


def test_a_suit_is_one_of_its_four_letters() -> None:
    suit = Letter("SHDC")
    assert suit.to_wire("H") == ord("H") and suit.from_wire(ord("C")) == "C"
    for bad in ("X", "SH", "", 83):
        with pytest.raises(PayloadError) as caught:
            suit.to_wire(bad)
        assert str(caught.value) == f"{bad!r} is not one of S H D C"
    with pytest.raises(PayloadError, match=r"^byte 0x58 is not one of S H D C$"):
        suit.from_wire(ord("X"))


# --- a u32 that may be unknown ------------------------------------------------------------


def test_an_unknown_amount_is_0xffffffff_and_no_amount_may_take_that_value() -> None:
    cents = OptionalU32()
    assert cents.to_wire(None) == 0xFFFF_FFFF and cents.from_wire(0xFFFF_FFFF) is None
    assert cents.to_wire(0) == 0 and cents.to_wire(0xFFFF_FFFE) == 0xFFFF_FFFE
    assert cents.from_wire(0xFFFF_FFFE) == 0xFFFF_FFFE
    for bad in (0xFFFF_FFFF, -1, True):
        with pytest.raises(PayloadError) as caught:
            cents.to_wire(bad)
        assert str(caught.value) == f"{bad!r} is not None or an integer in 0..4294967294"


# --- counts -------------------------------------------------------------------------------


def test_counts_are_a_tuple_of_that_many_two_byte_numbers() -> None:
    per_rank = Counts(13)  # a shuffler's cards per rank, ace .. king
    assert per_rank.items == 13
    assert _packed(per_rank.fmt, *range(13)) == b"".join(n.to_bytes(2, "big") for n in range(13))
    full = (0xFFFF,) * 13
    assert per_rank.to_wire(full) == full and per_rank.from_wire(full) == full
    for bad in ((0,) * 12, [0] * 13, (0,) * 12 + (0x10000,), (0,) * 12 + (-1,), (0,) * 12 + (1.0,)):
        with pytest.raises(PayloadError) as caught:
            per_rank.to_wire(bad)
        assert str(caught.value) == f"expected a tuple of 13 counts 0..65535, got {bad!r}"


# --- text and bytes after a length byte ---------------------------------------------------


def test_text_is_a_length_byte_then_utf8_up_to_its_limit_in_bytes() -> None:
    serial = Text(32)
    assert serial.pack_var("SHO-42") == b"\x06SHO-42"
    assert serial.pack_var("") == b"\x00"
    assert serial.pack_var("é" * 16) == b"\x20" + "é".encode() * 16  # 32 bytes, 16 letters
    with pytest.raises(PayloadError, match=r"^text of 34 bytes exceeds 32$"):
        serial.pack_var("é" * 17)
    with pytest.raises(PayloadError, match=r"^b'SHO' is not text$"):
        serial.pack_var(b"SHO")
    assert Text().pack_var("a" * 64)[0] == 64  # the default limit: 64 bytes
    with pytest.raises(PayloadError, match=r"exceeds 64$"):
        Text().pack_var("a" * 65)


def test_text_is_read_to_its_length_and_refused_past_the_payload_or_its_limit() -> None:
    serial = Text(32)
    assert serial.unpack_var(b"\x00\x03abcX", 1) == ("abc", 5)
    assert serial.unpack_var(b"\x20" + b"a" * 32, 0) == ("a" * 32, 33)
    with pytest.raises(PayloadError, match=r"^payload ends before a text length$"):
        serial.unpack_var(b"\x03abc", 4)
    # A length over the limit, with the bytes there to read, and one past the payload.
    with pytest.raises(PayloadError, match=r"^text length 33 overruns the payload or 32$"):
        serial.unpack_var(b"\x21" + b"a" * 40, 0)
    with pytest.raises(PayloadError, match=r"^text length 4 overruns the payload or 32$"):
        serial.unpack_var(b"\x04abc", 0)
    with pytest.raises(PayloadError, match=r"^text is not UTF-8: "):
        serial.unpack_var(b"\x02\xff\xfe", 0)
    assert Text().unpack_var(b"\x40" + b"a" * 64, 0)[1] == 65
    with pytest.raises(PayloadError, match=r"overruns the payload or 64$"):
        Text().unpack_var(b"\x41" + b"a" * 65, 0)


def test_bytes_are_a_length_byte_then_up_to_their_limit() -> None:
    data = Blob(4)
    assert data.pack_var(b"\x00\x01") == b"\x02\x00\x01"
    assert data.pack_var(b"ping") == b"\x04ping"
    for bad in (b"pings", "ping", bytearray(b"ping")):
        with pytest.raises(PayloadError) as caught:
            data.pack_var(bad)
        assert str(caught.value) == f"expected at most 4 bytes, got {bad!r}"
    assert Blob().pack_var(bytes(200))[0] == 200  # the default limit: 200 bytes
    with pytest.raises(PayloadError, match=r"^expected at most 200 bytes"):
        Blob().pack_var(bytes(201))


def test_bytes_are_read_to_their_length_and_refused_past_the_payload_or_their_limit() -> None:
    data = Blob(4)
    assert data.unpack_var(b"\x09\x02\x00\x01\x09", 1) == (b"\x00\x01", 4)
    assert data.unpack_var(b"\x04ping", 0) == (b"ping", 5)
    with pytest.raises(PayloadError, match=r"^payload ends before a byte-string length$"):
        data.unpack_var(b"\x00", 1)
    with pytest.raises(PayloadError, match=r"^length 5 overruns the payload or 4$"):
        data.unpack_var(b"\x05pings", 0)
    with pytest.raises(PayloadError, match=r"^length 3 overruns the payload or 4$"):
        data.unpack_var(b"\x03pi", 0)
    assert Blob().unpack_var(b"\xc8" + bytes(200), 0)[1] == 201
    with pytest.raises(PayloadError, match=r"overruns the payload or 200$"):
        Blob().unpack_var(b"\xc9" + bytes(201), 0)


# --- records after a count ----------------------------------------------------------------


@dataclass(frozen=True)
class _Spot:
    seat: int


def _spots() -> Records:
    return Records(_Spot, 2, 3, lambda s: bytes((s.seat, 0xAA)), lambda b: _Spot(b[0]))


def test_records_are_a_count_1_to_their_limit_then_each_record() -> None:
    spots = _spots()
    assert spots.pack_var((_Spot(1),)) == b"\x01\x01\xaa"
    assert spots.pack_var((_Spot(1), _Spot(2), _Spot(7))) == b"\x03\x01\xaa\x02\xaa\x07\xaa"
    for bad in ((), (_Spot(1),) * 4, [_Spot(1)], (_Spot(1), 2)):
        with pytest.raises(PayloadError) as caught:
            spots.pack_var(bad)
        assert str(caught.value) == f"expected a tuple of 1..3 _Spot, got {bad!r}"


def test_records_are_read_by_their_count_and_refused_past_the_payload_or_their_limit() -> None:
    spots = _spots()
    assert spots.unpack_var(b"\xee\x02\x01\xaa\x07\xaa", 1) == ((_Spot(1), _Spot(7)), 6)
    assert spots.unpack_var(b"\x03" + b"\x01\xaa" * 3, 0)[1] == 7
    with pytest.raises(PayloadError, match=r"^payload ends before a record count$"):
        spots.unpack_var(b"\x01\x01\xaa", 3)
    for count, tail in ((0, b""), (4, b"\x01\xaa" * 4), (2, b"\x01\xaa\x01")):
        with pytest.raises(PayloadError) as caught:
            spots.unpack_var(bytes((count,)) + tail, 0)
        assert str(caught.value) == f"{count} records overrun the payload or 1..3"


# --- fixed byte strings -------------------------------------------------------------------


def test_a_fixed_byte_string_has_exactly_its_size() -> None:
    nonce = FixedBytes(16)
    assert struct.calcsize(">" + (nonce.fmt or "")) == 16
    assert nonce.to_wire(bytes(range(16))) == bytes(range(16))
    assert nonce.from_wire(bytes(16)) == bytes(16)
    for bad in (bytes(15), bytes(17), "x" * 16):
        with pytest.raises(PayloadError) as caught:
            nonce.to_wire(bad)
        assert str(caught.value) == f"expected 16 bytes, got {bad!r}"
