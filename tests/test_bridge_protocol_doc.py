"""docs/protocol.md is checked: every worked hex example, the constants table, the COBS
example and the CRC check value must match what the code does."""

from __future__ import annotations

import difflib
import hashlib
import random
import re
from pathlib import Path
from typing import Any

import pytest
from cobs import cobs
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from hypothesis import given, settings
from hypothesis import strategies as st
from test_bridge_messages import messages_of

import firmware_bridge
import firmware_bridge.link
import firmware_bridge.link_messages
import firmware_bridge.messages
import firmware_bridge.session
from firmware_bridge import (
    CardDrawnReport,
    DeviceKind,
    Endpoint,
    Frame,
    FrameDropped,
    Identity,
    Message,
    MessageReceived,
    Role,
    catalogue,
    crc16,
    decode_frame,
    decode_message,
    encode_frame,
    encode_message,
    examples,
)
from firmware_bridge.auth import session_key_material
from firmware_bridge.examples import render
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
NAMESPACE: dict[str, Any] = {
    **vars(firmware_bridge.link_messages),
    **vars(firmware_bridge.messages),
    **vars(firmware_bridge),
}
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


SECRET = bytes(range(32))
STATION_NONCE = bytes(range(16))
DEVICE_NONCE = bytes(range(16, 32))


def test_session_trace_is_what_two_endpoints_exchange(monkeypatch: pytest.MonkeyPatch) -> None:
    section = TEXT[TEXT.index("## 6b.") : TEXT.index("## 7.")]
    wires = [hexbytes(w) for w in re.findall(r"^wire:    ([0-9A-F ]+)$", section, re.MULTILINE)]
    assert len(wires) == 9
    # Nonces as the document gives them (in the order the endpoints below draw them).
    nonces = iter([bytes(16), bytes(16), DEVICE_NONCE, STATION_NONCE])
    monkeypatch.setattr(firmware_bridge.session, "new_nonce", lambda: next(nonces))
    station = Endpoint(
        Role.STATION,
        Identity(DeviceKind.SHOE, "st-1.0", "T7"),
        rng=FixedSessions(0x1234ABCD),
        secret=SECRET,
    )
    shoe = Endpoint(
        Role.DEVICE,
        Identity(DeviceKind.SHOE, "2.3.1", "SH42"),
        rng=FixedSessions(0x0BADCAFE),
        secret=SECRET,
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
    # Section 5: a lone ACK waits ACK_DELAY (10 ms) for a frame of the station's own to
    # carry it; none comes, so it goes out then, no sooner.
    assert station.data_to_send() == b""
    assert station.next_deadline() == pytest.approx(0.02)
    station.tick(0.02)
    assert station.data_to_send() == wires[3]
    shoe.receive_data(wires[3], 0.02)
    shoe.send(CardDrawnReport(10, "C", 2), 0.03)
    assert shoe.data_to_send() == wires[4]
    station.receive_data(wires[4], 0.03)
    station.tick(0.04)
    assert station.data_to_send() == wires[5]  # lost on the way
    shoe.tick(0.135)
    assert shoe.data_to_send() == wires[6]  # resent: sealed again, counter 3
    station.receive_data(wires[6], 0.135)
    assert station.data_to_send() == wires[7]  # a duplicate is acked at once
    delivered = [e.message for e in station.events() if isinstance(e, MessageReceived)]
    assert delivered == [CardDrawnReport(7, "H", 1), CardDrawnReport(10, "C", 2)]
    assert station.next_deadline() == pytest.approx(1.135)
    station.tick(1.135)
    assert station.data_to_send() == wires[8]
    # The document's closing sentence: a replay of frame 5 is dropped, delivered nothing.
    station.receive_data(wires[4], 1.2)
    events = station.events()
    assert [e.error for e in events if isinstance(e, FrameDropped)] == ["AuthenticationError"]
    assert not [e for e in events if isinstance(e, MessageReceived)]


def test_key_example_is_hkdf_sha256_of_the_secret_and_both_nonces() -> None:
    # Computed here with cryptography's HKDF from the document's own description, not
    # with firmware_bridge: the document and the code must both follow the spec.
    shown = re.search(
        r"station-to-device key: ([0-9A-F ]+)\ndevice-to-station key: ([0-9A-F ]+)\n", TEXT
    )
    assert shown is not None
    okm = HKDF(
        algorithm=hashes.SHA256(),
        length=64,
        salt=STATION_NONCE + DEVICE_NONCE,
        info=b"dealer-station link v2 " + bytes((2,)),
    ).derive(SECRET)
    assert hexbytes(shown[1]) == okm[:32] and hexbytes(shown[2]) == okm[32:]
    assert session_key_material(SECRET, STATION_NONCE, DEVICE_NONCE, 2) == okm


def test_sealed_frames_of_the_trace_open_with_the_documented_keys() -> None:
    section = TEXT[TEXT.index("## 6b.") : TEXT.index("## 7.")]
    shown = re.search(
        r"station-to-device key: ([0-9A-F ]+)\ndevice-to-station key: ([0-9A-F ]+)\n", TEXT
    )
    assert shown is not None
    to_device, to_station = (ChaCha20Poly1305(hexbytes(shown[i])) for i in (1, 2))
    blocks = re.findall(
        r"sealed:  (.+)\nheader:  ([0-9A-F ]+)\ncounter: ([0-9A-F ]+)\nbody:    ([0-9A-F ]+)\n",
        section,
    )
    assert len(blocks) == 7
    for message_text, header, counter, body in blocks:
        message = eval(message_text, dict(NAMESPACE))
        head = hexbytes(header)
        aead = to_station if message.SENDER is Role.DEVICE else to_device
        if message.SENDER is None:  # Ack, Heartbeat: the trace's are the station's
            aead = to_device
        nonce = bytes(8) + hexbytes(counter)
        assert aead.decrypt(nonce, hexbytes(body), head) == encode_message(message)[1]


def test_hole_card_commitment_example_opens_with_the_revealed_card() -> None:
    reveal = next(m for m in EXAMPLES if m["message"].startswith("HoleCardRevealReport"))
    message = eval(reveal["message"], dict(NAMESPACE))
    text = f"KD|{message.nonce.hex()}"
    assert message.commitment == hashlib.sha256(text.encode()).digest()
    dealt = next(m for m in EXAMPLES if m["message"].startswith("HoleCardDealtReport"))
    assert eval(dealt["message"], dict(NAMESPACE)).commitment == message.commitment


# --- the worked examples are the codec's (firmware_bridge.examples) ------------------------


def test_the_worked_examples_are_what_the_codec_makes() -> None:
    made = render(TEXT)
    diff = "".join(
        difflib.unified_diff(TEXT.splitlines(True), made.splitlines(True), "docs", "codec")
    )
    assert made == TEXT, f"run: python -m firmware_bridge.examples --write\n{diff}"


def test_every_message_declares_an_example_of_its_own_class() -> None:
    for cls in catalogue():
        assert isinstance(cls.EXAMPLE, cls), cls.__name__
        seq, flags, ack = cls.EXAMPLE_HEADER
        assert 0 <= seq <= 0xFF and 0 <= flags <= 0xFF and 0 <= ack <= 0xFF


def test_a_message_without_a_section_or_a_section_without_a_message_is_refused() -> None:
    shoe_empty = re.search(r"### 0x23 ShoeEmptyReport\n.*?(?=### )", TEXT, re.S)
    assert shoe_empty is not None
    with pytest.raises(ValueError, match="no section in the message catalogue for 0x23"):
        render(TEXT.replace(shoe_empty.group(0), ""))
    with pytest.raises(ValueError, match="0x23 ShoeEmpty: no such message"):
        render(TEXT.replace("### 0x23 ShoeEmptyReport", "### 0x23 ShoeEmpty"))
    # A section written without its example gets one after its text.
    bare = TEXT.replace(shoe_empty.group(0), shoe_empty.group(0).split("```text")[0])
    assert render(bare).count("message: ShoeEmptyReport(") == 1


def test_the_generator_shows_writes_and_refuses_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = tmp_path / "protocol.md"
    lamps = "payload: 00 02 00 10 00 00 20 00"  # the PanelLamps example's
    assert TEXT.count(lamps) == 1
    doc.write_text(TEXT.replace(lamps, "payload: 00 02 00 10 00 00 20 01"))
    assert examples.main([str(doc)]) == 1
    assert "-payload: 00 02 00 10 00 00 20 01" in capsys.readouterr().out
    assert examples.main([str(doc), "--write"]) == 0
    assert doc.read_text() == TEXT
    assert examples.main([str(doc)]) == 0
    doc.write_text(TEXT.replace("### 0x23 ShoeEmptyReport", "### 0x23 ShoeEmpty"))
    assert examples.main([str(doc)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such message" in err


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(catalogue(), key=lambda c: c.TYPE_ID)).flatmap(messages_of))
def test_an_example_line_builds_its_message_again(message: Message) -> None:
    assert eval(examples.literal(message), dict(NAMESPACE)) == message
