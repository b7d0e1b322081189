"""The message catalogue (firmware_bridge.codec), asked at run time: who may send what on
which link (docs/protocol.md's message table: a card is the shoe's to report, a peek the
station's to ask of the card reader, an echo either side's on any link, a heartbeat the
endpoint's own), and what a new registration must not take: a type number outside
1..255 or one already taken."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

import pytest

import firmware_bridge as fb
from firmware_bridge import codec
from firmware_bridge.codec import DeviceKind, Message, Role, catalogue, may_send, message
from firmware_bridge.errors import PayloadError, UnknownMessageError
from firmware_bridge.link_messages import Heartbeat
from firmware_bridge.wire_types import U8, U16, Blob, Counts, FixedBytes, Text, UInt8


@pytest.mark.parametrize(
    ("cls", "role", "kind", "sends"),
    [
        (fb.CardDrawnReport, Role.DEVICE, DeviceKind.SHOE, True),
        (fb.CardDrawnReport, Role.STATION, DeviceKind.SHOE, False),
        (fb.CardDrawnReport, Role.DEVICE, DeviceKind.PANEL, False),
        (fb.PeekRequest, Role.STATION, DeviceKind.CARD_READER, True),
        (fb.PeekRequest, Role.DEVICE, DeviceKind.CARD_READER, False),
        (fb.PeekRequest, Role.STATION, DeviceKind.SHOE, False),
        (fb.EchoRequest, Role.STATION, DeviceKind.PANEL, True),
        (fb.EchoRequest, Role.DEVICE, DeviceKind.SHUFFLER, True),
        (Heartbeat, Role.STATION, DeviceKind.SHOE, False),
        (Heartbeat, Role.DEVICE, DeviceKind.SHOE, False),
    ],
)
def test_who_may_send_what_on_which_link(
    cls: type[Message], role: Role, kind: DeviceKind, sends: bool
) -> None:
    assert may_send(cls, role, kind) is sends


def test_the_catalogue_lists_every_message_once_in_type_order() -> None:
    listed = catalogue()
    numbers = [cls.TYPE_ID for cls in listed]
    assert numbers == sorted(set(numbers))
    assert fb.CardDrawnReport in listed and Heartbeat in listed
    assert listed[numbers.index(0x20)] is fb.CardDrawnReport


@pytest.fixture
def scratch_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Registrations in a test go into copies of the registry, gone after it."""
    monkeypatch.setattr(codec, "_BY_TYPE", dict(codec._BY_TYPE))
    monkeypatch.setattr(codec, "_BY_CLASS", dict(codec._BY_CLASS))


def _probe() -> type[Message]:
    @dataclass(frozen=True, slots=True)
    class Probe(Message):
        value: Annotated[int, U8]

    return Probe


@pytest.mark.usefixtures("scratch_registry")
@pytest.mark.parametrize(("type_id", "shown"), [(0, "0x00"), (0x100, "0x100"), (0x20, "0x20")])
def test_a_type_number_outside_1_to_255_or_taken_is_refused(type_id: int, shown: str) -> None:
    with pytest.raises(TypeError) as caught:
        message(type_id, sender=None, device=None)(_probe())
    assert str(caught.value) == f"Probe: type number {shown} is taken or invalid"


@pytest.mark.usefixtures("scratch_registry")
def test_the_last_type_number_is_free_and_registers_and_round_trips() -> None:
    # 0xFF, the top of the range, is no catalogued message (0x01, the bottom, is HELLO).
    assert 0xFF not in codec._BY_TYPE and 0x01 in codec._BY_TYPE
    probe = message(0xFF, sender=Role.DEVICE, device=DeviceKind.PANEL)(_probe())
    assert (probe.TYPE_ID, probe.SENDER, probe.DEVICE, probe.CONTROL) == (
        0xFF,
        Role.DEVICE,
        DeviceKind.PANEL,
        False,
    )
    number, payload = codec.encode_message(probe(7))  # type: ignore[call-arg]
    assert number == 0xFF
    assert codec.decode_message(number, payload) == probe(7)  # type: ignore[call-arg]


# --- a message's layout, compiled at registration ------------------------------------------
# docs/protocol.md section 7: fields in declaration order, integers big-endian, a variable
# field (text, bytes) last, and a payload of exactly the layout's length. The catalogue's
# own messages are compiled while it is imported; these are compiled here, at test time.


@dataclass(frozen=True, slots=True)
class _Mixed(Message):
    a: Annotated[int, U8]
    b: Annotated[int, U16]
    c: Annotated[tuple[int, ...], Counts(2)]
    d: Annotated[bytes, FixedBytes(2)]
    e: Annotated[str, Text(8)]
    f: Annotated[bytes, Blob(4)]


@dataclass(frozen=True, slots=True)
class _Pair(Message):
    x: Annotated[int, U8]
    y: Annotated[int, U16]


@dataclass(frozen=True, slots=True)
class _Tally(Message):
    per_rank: Annotated[tuple[int, ...], Counts(2)]


MIXED = _Mixed(0x12, 0x3456, (1, 0x0203), b"\xaa\xbb", "hi", b"\x00")
#          a   b      c            d      e (len, "hi")  f (len, 00)
MIXED_PAYLOAD = bytes.fromhex("12 3456 0001 0203 AABB 02 6869 01 00")


@pytest.mark.usefixtures("scratch_registry")
def test_a_message_is_laid_out_field_by_field_in_declaration_order() -> None:
    mixed = message(0xF1, sender=None, device=None)(_Mixed)
    assert codec.encode_message(MIXED) == (0xF1, MIXED_PAYLOAD)
    assert codec.decode_message(0xF1, MIXED_PAYLOAD) == MIXED
    assert [(name, type(wt).__name__) for name, wt in codec.wire_fields(mixed)] == [
        ("a", "UInt"),
        ("b", "UInt"),
        ("c", "Counts"),
        ("d", "FixedBytes"),
        ("e", "Text"),
        ("f", "Blob"),
    ]
    # Fixed part: 1 + 2 + 2 * 2 + 2 = 9 bytes; then the variable fields.
    with pytest.raises(PayloadError, match=r"^_Mixed payload of 8 bytes, expected at least 9$"):
        codec.decode_message(0xF1, MIXED_PAYLOAD[:8])
    with pytest.raises(PayloadError, match=r"^2 stray bytes after _Mixed$"):
        codec.decode_message(0xF1, MIXED_PAYLOAD + b"\x00\x00")
    with pytest.raises(PayloadError, match=r"^text of 9 bytes exceeds 8$"):
        codec.encode_message(_Mixed(0, 0, (0, 0), b"\x00\x00", "x" * 9, b""))


@pytest.mark.usefixtures("scratch_registry")
def test_a_message_of_fixed_fields_has_exactly_their_length() -> None:
    message(0xF2, sender=None, device=None)(_Pair)
    assert codec.encode_message(_Pair(1, 0x0203)) == (0xF2, b"\x01\x02\x03")
    assert codec.decode_message(0xF2, b"\x01\x02\x03") == _Pair(1, 0x0203)
    for short_or_long in (b"\x01\x02", b"\x01\x02\x03\x04"):
        with pytest.raises(PayloadError) as caught:
            codec.decode_message(0xF2, short_or_long)
        assert str(caught.value) == f"_Pair payload of {len(short_or_long)} bytes, expected 3"
    with pytest.raises(PayloadError, match=r"^256 is not an integer in 0..255$"):
        codec.encode_message(_Pair(0x100, 0))


@pytest.mark.usefixtures("scratch_registry")
def test_a_field_is_checked_on_decode_against_its_limits() -> None:
    @dataclass(frozen=True, slots=True)
    class Rank(Message):
        rank: Annotated[int, UInt8(1, 13)]

    message(0xF3, sender=None, device=None)(Rank)
    assert codec.decode_message(0xF3, b"\x0d") == Rank(13)
    with pytest.raises(PayloadError, match=r"^0 is outside 1..13$"):
        codec.decode_message(0xF3, b"\x00")


@pytest.mark.usefixtures("scratch_registry")
def test_a_single_field_message_encodes_checks_and_decodes_alone() -> None:
    probe = message(0xF4, sender=None, device=None)(_probe())
    assert codec.encode_message(probe(0xFF)) == (0xF4, b"\xff")  # type: ignore[call-arg]
    with pytest.raises(PayloadError, match=r"^256 is not an integer in 0..255$"):
        codec.encode_message(probe(0x100))  # type: ignore[call-arg]
    message(0xF5, sender=None, device=None)(_Tally)
    assert codec.encode_message(_Tally((1, 2))) == (0xF5, b"\x00\x01\x00\x02")
    assert codec.decode_message(0xF5, b"\x00\x01\x00\x02") == _Tally((1, 2))
    with pytest.raises(PayloadError, match=r"^_Tally payload of 2 bytes, expected 4$"):
        codec.decode_message(0xF5, b"\x00\x01")


@pytest.mark.usefixtures("scratch_registry")
def test_a_variable_field_before_a_fixed_one_is_refused_at_registration() -> None:
    @dataclass(frozen=True, slots=True)
    class Backwards(Message):
        note: Annotated[str, Text(8)]
        value: Annotated[int, U8]

    with pytest.raises(TypeError) as caught:
        message(0xF6, sender=None, device=None)(Backwards)
    assert str(caught.value) == "Backwards: variable-size fields must come last"
    assert 0xF6 not in codec._BY_TYPE


@dataclass(frozen=True, slots=True)
class _Bare(Message):
    value: int


@dataclass(frozen=True, slots=True)
class _NoWireType(Message):
    value: Annotated[int, "a note, not a wire type"]


@dataclass(frozen=True, slots=True)
class _TwoWireTypes(Message):
    value: Annotated[int, U8, U16]


@pytest.mark.usefixtures("scratch_registry")
@pytest.mark.parametrize("cls", [_Bare, _NoWireType, _TwoWireTypes])
def test_a_field_without_exactly_one_wire_type_is_refused_at_registration(
    cls: type[Message],
) -> None:
    with pytest.raises(TypeError) as caught:
        message(0xF7, sender=None, device=None)(cls)
    assert str(caught.value) == f"{cls.__name__}.value: annotate as Annotated[T, WireType]"


def test_an_unknown_type_number_or_class_is_named_in_the_refusal() -> None:
    with pytest.raises(UnknownMessageError, match=r"^unknown message type 0x7F$"):
        codec.decode_message(0x7F, b"")
    with pytest.raises(UnknownMessageError, match=r"^_Pair is not in the message catalogue$"):
        codec.wire_fields(_Pair)
    with pytest.raises(UnknownMessageError, match=r"^_Pair is not in the message catalogue$"):
        codec.encode_message(_Pair(1, 2))


@dataclass(frozen=True, slots=True)
class _Named(Message):
    seat: Annotated[int, U8]
    note: Annotated[str, Text(8)]


@pytest.mark.usefixtures("scratch_registry")
def test_numbers_then_text_encode_and_decode_in_turn() -> None:
    message(0xF8, sender=None, device=None)(_Named)
    assert codec.encode_message(_Named(7, "hi")) == (0xF8, b"\x07\x02hi")
    assert codec.decode_message(0xF8, b"\x07\x02hi") == _Named(7, "hi")
    assert codec.decode_message(0xF8, b"\x07\x00") == _Named(7, "")


@pytest.mark.usefixtures("scratch_registry")
def test_a_registration_keeps_its_worked_example_and_header() -> None:
    # docs/protocol.md section 7 shows each message's example under its header's sequence
    # number, flags and ack (firmware_bridge.examples).
    named = message(
        0xF9, sender=None, device=None, example={"seat": 3, "note": "ok"}, header=(5, 1, 4)
    )(_Named)
    example = named.EXAMPLE
    assert example == _Named(3, "ok")
    assert named.EXAMPLE_HEADER == (5, 1, 4)
    pair = message(0xFA, sender=None, device=None)(_Pair)
    assert pair.EXAMPLE is None and pair.EXAMPLE_HEADER == (0, 0, 0)
