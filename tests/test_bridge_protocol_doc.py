"""docs/protocol.md is checked: every worked hex example, the constants table, the COBS
example and the CRC check value must match what the code does."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest
from cobs import cobs

import firmware_bridge
import firmware_bridge.messages
from firmware_bridge import (
    CardDrawnReport,
    DeviceKind,
    Endpoint,
    Frame,
    Identity,
    MessageReceived,
    Role,
    catalogue,
    crc16,
    decode_frame,
    decode_message,
    encode_frame,
    encode_message,
)
from firmware_bridge.frame import CRC, HEADER, MAX_ENCODED

DOC = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"
TEXT = DOC.read_text(encoding="utf-8")
EXAMPLE = re.compile(
    r"message: (?P<message>.+)\n"
    r"header:  (?P<header>[0-9A-F ]+)\n"
    r"payload: (?P<payload>[0-9A-F ]+|\(none\))\n"
    r"crc:     (?P<crc>[0-9A-F ]+)\n"
    r"wire:    (?P<wire>[0-9A-F ]+)\n"
)
NAMESPACE: dict[str, Any] = {**vars(firmware_bridge.messages), **vars(firmware_bridge)}
EXAMPLES = list(EXAMPLE.finditer(TEXT))


def hexbytes(text: str) -> bytes:
    return b"" if text == "(none)" else bytes.fromhex(text)


def test_every_message_has_a_worked_example() -> None:
    shown = {m["message"].split("(", 1)[0] for m in EXAMPLES}
    assert shown == {cls.__name__ for cls in catalogue()}
    # Every example block was parsed (none silently skipped by a typo in its layout).
    assert len(EXAMPLES) == TEXT.count("\nmessage: ")


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda m: m["message"].split("(")[0])
def test_worked_example_matches_the_code(example: re.Match[str]) -> None:
    message = eval(example["message"], dict(NAMESPACE))  # the document's own expression
    header = hexbytes(example["header"])
    payload = hexbytes(example["payload"])
    wire = hexbytes(example["wire"])
    type_id, encoded = encode_message(message)
    assert encoded == payload
    version, header_type, seq, flags, ack = HEADER.unpack(header)
    assert header_type == type_id
    assert CRC.unpack(hexbytes(example["crc"]))[0] == crc16(header + payload)
    frame = Frame(version, type_id, seq, flags, ack, payload)
    assert encode_frame(frame) == wire
    assert decode_frame(wire[:-1]) == frame
    assert decode_message(type_id, payload) == message


def test_card_drawn_example_is_under_16_bytes() -> None:
    card = next(m for m in EXAMPLES if m["message"].startswith("CardDrawnReport"))
    assert len(hexbytes(card["wire"])) < 16


def test_constants_table_matches_the_defaults() -> None:
    rows = dict(re.findall(r"^\| `([A-Z_]+)` \| ([0-9.]+)(?: s)? \|", TEXT, re.MULTILINE))
    assert rows, "constants table not found"
    for name, value in rows.items():
        assert float(value) == getattr(firmware_bridge, name), name


def test_cobs_and_crc_statements() -> None:
    raw, encoded = re.search(
        r"the bytes `([0-9A-F ]+)` encode as\s+`([0-9A-F ]+)`", TEXT, re.IGNORECASE
    ).groups()  # type: ignore[union-attr]
    assert cobs.encode(bytes.fromhex(raw)) == bytes.fromhex(encoded)
    assert "`0x29B1`" in TEXT and crc16(b"123456789") == 0x29B1
    assert f"**{MAX_ENCODED} bytes**" in TEXT


class FixedSessions(random.Random):
    """Hands out the session numbers the document's trace shows."""

    def __init__(self, *sessions: int) -> None:
        super().__init__(0)
        self.sessions = list(sessions)

    def randrange(self, *args: Any, **kwargs: Any) -> int:  # type: ignore[override]
        return self.sessions.pop(0)


def test_session_trace_is_what_two_endpoints_exchange() -> None:
    section = TEXT[TEXT.index("## 6b.") : TEXT.index("## 7.")]
    wires = [hexbytes(m["wire"]) for m in EXAMPLE.finditer(section)]
    assert len(wires) == 7
    station = Endpoint(
        Role.STATION,
        Identity(DeviceKind.SHOE, "st-1.0", "T7"),
        rng=FixedSessions(0x1234ABCD),
    )
    shoe = Endpoint(
        Role.DEVICE, Identity(DeviceKind.SHOE, "2.3.1", "SH42"), rng=FixedSessions(0x0BADCAFE)
    )
    shoe.start(0.0)
    station.start(0.0)
    assert station.data_to_send() == b"\x00" + wires[0]
    shoe.receive_data(wires[0], 0.0)
    assert shoe.data_to_send() == b"\x00" + wires[1]
    station.receive_data(wires[1], 0.0)
    assert station.connected and shoe.connected
    shoe.send(CardDrawnReport(7, "H", 1), 0.01)
    assert shoe.data_to_send() == wires[2]
    station.receive_data(wires[2], 0.01)
    assert station.data_to_send() == wires[3]
    shoe.receive_data(wires[3], 0.01)
    shoe.send(CardDrawnReport(10, "C", 2), 0.02)
    assert shoe.data_to_send() == wires[4]
    station.receive_data(wires[4], 0.02)
    assert station.data_to_send() == wires[5]  # lost on the way
    shoe.tick(0.125)
    assert shoe.data_to_send() == wires[4]  # resent, same bytes
    station.receive_data(wires[4], 0.125)
    assert station.data_to_send() == wires[5]
    delivered = [e.message for e in station.events() if isinstance(e, MessageReceived)]
    assert delivered == [CardDrawnReport(7, "H", 1), CardDrawnReport(10, "C", 2)]
    assert station.next_deadline() == pytest.approx(1.125)
    station.tick(1.125)
    assert station.data_to_send() == wires[6]
