"""Tests of the message catalogue (firmware_bridge.link_messages and firmware_bridge.messages,
laid out by codec)."""

from __future__ import annotations

import struct
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge import (
    CardDrawnReport,
    CoverCardReport,
    DeviceKind,
    Message,
    PayloadError,
    PeekAnswerCode,
    PeekReply,
    PeekRequest,
    PeekTargetCode,
    ShoeEmptyReport,
    ShuffleCommand,
    ShuffleDoneReport,
    UnknownMessageError,
    WagerSensorReport,
    WagerSensorScan,
    WagerSpotCode,
    catalogue,
    decode_message,
    encode_message,
)
from firmware_bridge.auth import SEAL_OVERHEAD
from firmware_bridge.codec import wire_fields
from firmware_bridge.frame import MAX_PAYLOAD
from firmware_bridge.link_messages import Hello
from firmware_bridge.messages import EchoRequest
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
    WireType,
)


def strategy_for(wt: WireType) -> st.SearchStrategy[Any]:
    """Every valid value of one wire type."""
    if isinstance(wt, UInt):
        return st.integers(wt.lo, wt.hi)
    if isinstance(wt, Flag):
        return st.booleans()
    if isinstance(wt, Code):
        return st.sampled_from(list(wt.enum))
    if isinstance(wt, Letter):
        return st.sampled_from(list(wt.allowed))
    if isinstance(wt, OptionalU32):
        return st.none() | st.integers(0, OptionalU32.NONE - 1)
    if isinstance(wt, Counts):
        return st.tuples(*[st.integers(0, 0xFFFF)] * wt.n)
    if isinstance(wt, Text):
        return st.text(max_size=wt.max_len).filter(lambda t: len(t.encode()) <= wt.max_len)
    if isinstance(wt, Blob):
        return st.binary(max_size=wt.max_len)
    if isinstance(wt, FixedBytes):
        return st.binary(min_size=wt.size, max_size=wt.size)
    if isinstance(wt, Records):
        return st.lists(messages_of(wt.kind), min_size=1, max_size=wt.max_count).map(tuple)
    raise AssertionError(f"no strategy for {wt!r}")


def messages_of(cls: type[Message]) -> st.SearchStrategy[Message]:
    return st.builds(cls, **{name: strategy_for(wt) for name, wt in wire_fields(cls)})


ALL = catalogue()


def test_catalogue_covers_every_device() -> None:
    names = {cls.__name__ for cls in ALL}
    assert {
        "ShuffleCommand",
        "StatusQuery",
        "ShufflerStatus",
        "ShuffleDoneReport",
        "JamReport",
        "DoorOpenReport",
        "ShufflerErrorReport",
        "CardDrawnReport",
        "CoverCardReport",
        "ShoeLoadedReport",
        "ShoeEmptyReport",
        "PeekRequest",
        "PeekReply",
        "PanelLamps",
        "ButtonReport",
        "WagerSensorReport",
        "WagerSensorScan",
    } <= names
    assert len({cls.TYPE_ID for cls in ALL}) == len(ALL)


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
@given(data=st.data())
def test_every_message_round_trips(cls: type[Message], data: st.DataObject) -> None:
    msg = data.draw(messages_of(cls))
    type_id, payload = encode_message(msg)
    assert type_id == cls.TYPE_ID
    assert decode_message(type_id, payload) == msg


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
@given(data=st.data())
def test_truncated_or_padded_payloads_are_refused(cls: type[Message], data: st.DataObject) -> None:
    msg = data.draw(messages_of(cls))
    type_id, payload = encode_message(msg)
    with pytest.raises(PayloadError):
        decode_message(type_id, payload + data.draw(st.binary(min_size=1, max_size=4)))
    if payload:
        with pytest.raises(PayloadError):
            decode_message(type_id, payload[: data.draw(st.integers(0, len(payload) - 1))])


def test_foreign_ten_is_representable() -> None:
    msg = CardDrawnReport(10, "H", 1)
    assert decode_message(*encode_message(msg)) == msg
    assert encode_message(msg) == (0x20, b"\x0aH\x00\x01")


def test_shoe_reports_carry_the_draw_number() -> None:
    # Draw numbers count the cards (and the cover card) since ShoeLoadedReport, from 1.
    assert encode_message(CardDrawnReport(7, "D", 385)) == (0x20, b"\x07D\x01\x81")
    assert encode_message(CoverCardReport(300)) == (0x21, b"\x01\x2c")
    assert encode_message(ShoeEmptyReport(385)) == (0x23, b"\x01\x81")
    assert encode_message(ShoeEmptyReport(0)) == (0x23, b"\x00\x00")
    assert decode_message(0x20, b"\x01S\xff\xff") == CardDrawnReport(1, "S", 0xFFFF)


@pytest.mark.parametrize(
    "bad",
    [
        CardDrawnReport(0, "S", 1),
        CardDrawnReport(14, "S", 1),
        CardDrawnReport(1, "X", 1),
        CardDrawnReport(1, "SS", 1),
        CardDrawnReport(1, "S", 0),  # draws count from 1
        CardDrawnReport(1, "S", 0x10000),
        CoverCardReport(0),
        ShoeEmptyReport(-1),
        ShuffleCommand(0),
        WagerSensorReport(8, WagerSpotCode.MAIN, True, None),
        WagerSensorReport(1, WagerSpotCode.MAIN, 1, None),  # type: ignore[arg-type]
        WagerSensorReport(1, WagerSpotCode.MAIN, True, -5),
        WagerSensorReport(1, 1, True, None),  # type: ignore[arg-type]
        ShuffleDoneReport(384, (32,) * 12),
        PeekRequest(70000, PeekTargetCode.LOOKING_FOR_ACE),
        Hello(DeviceKind.SHOE, 1, bytes(16), "x" * 33, "serial"),
    ],
    ids=repr,
)
def test_out_of_range_values_are_refused_on_encode(bad: Message) -> None:
    with pytest.raises(PayloadError):
        encode_message(bad)


#: A WagerSensorReport payload: seat 4, match, present, 25.00 (section 7's example).
SEAT_4_MATCH = bytes.fromhex("04 02 01 00 00 09 C4")


def test_a_scan_of_31_reports_fits_and_carries_them_in_order() -> None:
    """Both ends of the record count (1 and 31), each record as a WagerSensorReport."""
    reports = tuple(
        WagerSensorReport(1 + n % 7, WagerSpotCode(1 + n % 3), n % 2 == 0, n * 100)
        for n in range(31)
    )
    for scan in (WagerSensorScan(reports[:1]), WagerSensorScan(reports)):
        type_id, payload = encode_message(scan)
        assert payload[0] == len(scan.reports)
        assert len(payload) == 1 + 7 * len(scan.reports)
        assert payload[1:8] == encode_message(scan.reports[0])[1]
        assert decode_message(type_id, payload) == scan
    with pytest.raises(PayloadError):
        encode_message(WagerSensorScan((*reports, reports[0])))
    with pytest.raises(PayloadError):
        encode_message(WagerSensorScan(()))


@pytest.mark.parametrize(
    ("type_id", "payload"),
    [
        (0x20, b"\x00S\x00\x01"),  # rank 0
        (0x20, b"\x0eS\x00\x01"),  # rank 14
        (0x20, b"\x01s\x00\x01"),  # lower-case suit
        (0x20, b"\x01S\x00\x00"),  # draw 0
        (0x20, b"\x01S"),  # the layout before draw numbers
        (0x21, b"\x00\x00"),  # cover card as draw 0
        (0x31, b"\x00\x01\x09"),  # answer code 9
        (0x31, b"\x00\x01\x00"),  # answer code 0 (codes are 1..4)
        (0x42, b"\x04\x00\x01\x00\x00\x00\x00"),  # wager spot code 0 (1..3)
        (0x42, b"\x04\x04\x01\x00\x00\x00\x00"),  # wager spot code 4
        (0x44, b"\x00"),  # a scan of no reports
        (0x44, b"\x02" + SEAT_4_MATCH),  # two reports announced, one there
        (0x44, b"\x20" + SEAT_4_MATCH * 32),  # 32 reports: 31 at most
        (0x44, b"\x01\x08" + SEAT_4_MATCH[1:]),  # a record with seat 8
        (0x44, b"\x01" + SEAT_4_MATCH + b"\x00"),  # a stray byte after the records
        (0x15, b"\x02"),  # boolean 2
        (0x16, b"\x01\x05ab"),  # text length overruns
        (0x16, b"\x01\x02\xff\xfe"),  # text not UTF-8
    ],
)
def test_bad_payloads_are_refused_on_decode(type_id: int, payload: bytes) -> None:
    with pytest.raises(PayloadError):
        decode_message(type_id, payload)


def test_unknown_types_are_refused() -> None:
    with pytest.raises(UnknownMessageError):
        decode_message(0xEE, b"")

    class NotInCatalogue(Message):
        __slots__ = ()

    with pytest.raises(UnknownMessageError):
        encode_message(NotInCatalogue())


def test_no_card_reader_message_can_carry_the_hole_card() -> None:
    # PA 635a.7(g), NJ 13:69F-19.7(i): the reader tells blackjack or not, never the rank.
    reader = [c for c in ALL if c.DEVICE is DeviceKind.CARD_READER]
    assert {c.__name__ for c in reader} == {"PeekRequest", "PeekReply"}
    assert [n for n, _ in wire_fields(PeekReply)] == ["request", "answer"]
    assert {a.name for a in PeekAnswerCode} == {
        "BLACKJACK",
        "NO_BLACKJACK",
        "NO_CARD",
        "READ_ERROR",
    }
    for cls in reader:
        for name, wt in wire_fields(cls):
            assert not isinstance(wt, (Letter, Text, Blob)), name
            assert "rank" not in name and "card" not in name


def test_shuffle_done_composition_counts_rank_ten() -> None:
    counts = tuple(24 if r != 10 else 0 for r in range(1, 14))
    done = ShuffleDoneReport(288, counts)
    assert done.composition[10] == 0
    assert done.composition[1] == 24
    assert decode_message(*encode_message(done)) == done


def largest_payload(cls: type[Message]) -> int:
    """The longest payload a message of ``cls`` can have, from its wire types."""
    size = 0
    for _, wt in wire_fields(cls):
        if isinstance(wt, (Text, Blob)):
            size += 1 + wt.max_len  # a length byte and at most max_len bytes
        elif isinstance(wt, Records):
            size += 1 + wt.max_count * wt.size  # a count byte and at most max_count records
        else:
            assert wt.fmt is not None
            size += struct.calcsize(">" + wt.fmt)
    return size


def test_every_message_fits_one_frame_once_sealed() -> None:
    """The endpoint packs frames without a length check (it is on every frame's path): no
    catalogued message may outgrow a frame with the seal's counter and tag. The largest is
    an echo of 200 bytes: 1 + 200 + 4 + 16 = 221 <= 240."""
    assert largest_payload(EchoRequest) == 201
    for cls in ALL:
        assert largest_payload(cls) + SEAL_OVERHEAD <= MAX_PAYLOAD, cls.__name__
