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
from firmware_bridge.link_messages import Heartbeat
from firmware_bridge.wire_types import U8


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
