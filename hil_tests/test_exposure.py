"""The hole card's identity reaches nothing the station emits before the reveal.

Everything the station puts out is captured through the real transports: every log line
(structlog and the stdlib loggers, as JSON), the journal's rows, what the panel driver was
told to light and which lamp pins changed, the console view (rendered as the simulate
command renders it), and every byte written to the devices (the doubles' ``wire_log``) with
the commands they decoded. Two rounds that differ only in the hole card must emit the same
things up to the reveal (the commitment aside: a hash under a fresh random nonce), and the
hole card's text appears in none of it.

The devices' side too: every byte each double sends and every message before it
is sealed. The shoe withholds the hole card, so no message it sends carries it before the
reveal; and every frame of a session is sealed, so no plain frame on any line carries a
card at all (sealed bytes are random: searching them for two bytes would be a lottery, so
the plain frames are what is searched).
"""

from __future__ import annotations

import dataclasses
import io
import json
import logging
import re
from typing import Any

import pytest
import structlog
from rich.console import Console
from table_driver import TableDriver

import firmware_bridge as fb
from controller.cli.simulate import LiveView
from controller.rules.cards import parse_card
from controller.service.logs import configure_logging
from controller.simulation.runner import SimulationSettings
from controller.table.prompts import State
from drivers.hal import Led, LedMode
from firmware_bridge.frame import Frame, FrameDecoder
from firmware_bridge.link_messages import Hello, HelloReply, NoSession, Refused

# The GPIO panel and the Python doubles' logs of what they sent before sealing: the station
# under test is the same with the C firmware, which keeps no such logs.
pytestmark = [pytest.mark.doubles, pytest.mark.python_double]

#: Log keys that differ between any two runs (time, the rig's temporary paths, USB address).
_VOLATILE = {"timestamp", "port", "path"}


@pytest.fixture
def captured_logs() -> Any:
    """Every log line as JSON, through the station's own logging set-up."""
    stream = io.StringIO()
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    configure_logging(level="debug", form="json", stream=stream)
    yield stream
    structlog.reset_defaults()
    for handler in root.handlers[:]:
        root.removeHandler(handler)
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)


def _round_until_reveal(station: Any, hole: str, logs: io.StringIO) -> tuple[dict[str, Any], Any]:
    """Play a round to the reveal prompt; what the station emitted so far, and the table."""
    t: TableDriver = station("PA")
    doubles = t.doubles
    sent_bytes: list[bytes] = []
    for double in (doubles.shuffler, doubles.shoe, doubles.card_reader):
        double.wire_log = []
        double.sent_log = []
        transmit = double.transmit
        double.transmit = lambda data, send=transmit: (sent_bytes.append(data), send(data))[1]
    panel = next(d for d in t.station.built.station.drivers if type(d).__name__ == "GpioPanel")
    shown: list[dict[Led, LedMode]] = []
    show = panel.show
    panel.show = lambda lamps: (shown.append(dict(lamps)), show(lamps))[1]
    console = Console(file=io.StringIO(), width=120, color_system=None)
    renderer = LiveView(SimulationSettings(journal=t.station.journal_path))
    views = []

    def look() -> None:
        views.append(t.view)
        console.print(renderer._render(t.view))

    t.ready(f"2C 9H 8C KS 7D 9D {hole} 3S 4S 5S 6S")
    for seat in (1, 3):
        t.bet(seat)
        look()
    t.press()
    for text in ("9H", "8C", "KS", "7D", "9D", hole):
        t.deal(text)
        look()
    t.peek()
    look()
    t.press(times=2)  # both seats stand
    look()
    assert t.state is State.DEALER and t.view.reveal_due
    rows = []
    for row in t.rows():
        data = dict(row.data)
        if row.kind == "hole_card_dealt":
            data["commitment"] = "<random>"
        rows.append((row.kind, data, row.round_no))
    lines = [json.loads(line) for line in logs.getvalue().splitlines()]
    emitted = {
        "journal": rows,
        "logs": [{k: v for k, v in line.items() if k not in _VOLATILE} for line in lines],
        "log_text": logs.getvalue(),
        "panel": shown,
        "lamp_pins_changed": sorted(
            n for n, pin in doubles.pin_factory.pins.items() if len(pin.states) > 1
        ),
        # The lamps the station asked to light or blink. Which lamp pins changed is
        # searched, not compared: a blinking lamp's toggles are gpiozero's background
        # thread's, so whether a prompt shown for a moment changed its pin is timing.
        "lamps_lit": sorted(
            {led.value for lamps in shown for led, mode in lamps.items() if mode is not LedMode.OFF}
        ),
        "views": views,
        "console": console.file.getvalue(),  # type: ignore[attr-defined]
        "wire": b"".join(
            chunk
            for d in (doubles.shuffler, doubles.shoe, doubles.card_reader)
            for chunk in d.wire_log
        ),
        "commands": [
            repr(m)
            for d in (doubles.shuffler, doubles.shoe, doubles.card_reader)
            for m in d.commands
            if "Heartbeat" not in type(m).__name__
        ],
        "device_messages": [
            m for d in (doubles.shuffler, doubles.shoe, doubles.card_reader) for m in d.sent_log
        ],
        "device_wire": b"".join(sent_bytes),
    }
    return emitted, t


#: The frames a session never seals (docs/protocol.md, section 4).
PLAIN_TYPES = {Hello.TYPE_ID, HelloReply.TYPE_ID, Refused.TYPE_ID, NoSession.TYPE_ID}


def _bytes_as_hex(value: Any) -> Any:
    """``value`` with every bytes field (a commitment, a nonce) as lowercase hex: the repr of
    random bytes may spell a card ("\\x15C" holds "5C") where nothing names one, and hex
    digits never do (no card text has a lowercase letter)."""
    if isinstance(value, bytes | bytearray):
        return bytes(value).hex()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: _bytes_as_hex(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return (type(value).__name__, fields)
    if isinstance(value, dict):
        return {k: _bytes_as_hex(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_bytes_as_hex(v) for v in value]
    return value


def plain_frames(wire: bytes) -> list[Frame]:
    """The frames on ``wire`` that are not sealed."""
    frames = [f for f in FrameDecoder().feed(wire) if isinstance(f, Frame)]
    assert frames
    return [f for f in frames if not f.sealed]


def _comparable(emitted: dict[str, Any]) -> dict[str, Any]:
    # Raw bytes and free text carry sequence numbers, heartbeats and timings that differ
    # between any two runs: they are searched, not compared.
    out = {
        k: v
        for k, v in emitted.items()
        if k
        not in (
            "wire",
            "log_text",
            "console",
            "device_messages",
            "device_wire",
            "lamp_pins_changed",
        )
    }
    out["logs"] = [
        {k: v for k, v in line.items() if not re.search(r"\d+\.\d+ s|address", str(v))}
        for line in out["logs"]
        if str(line.get("logger", "")).startswith("dealer_station")
    ]
    return out


def test_nothing_the_station_emits_shows_the_hole_card_before_the_reveal(
    station: Any, captured_logs: io.StringIO
) -> None:
    emitted, t = _round_until_reveal(station, "5C", captured_logs)
    t.press()  # the reveal: now, and only now, the card is shown
    assert t.data("hole_card_revealed")[0]["card"] == "5C"
    t.finish()
    captured_logs.seek(0)
    captured_logs.truncate()
    other, t2 = _round_until_reveal(station, "6D", captured_logs)
    t2.finish()

    for hole, out in (("5C", emitted), ("6D", other)):
        text = repr(
            _bytes_as_hex({k: v for k, v in out.items() if k not in ("wire", "device_wire")})
        )
        assert hole not in text
        assert hole not in out["console"]
        card = parse_card(hole)
        code = (int(card.rank), card.suit.value)
        # What the devices said, unsealed: the shoe reported the hole card only by its
        # commitment, and nothing else any device sent names it.
        said = out["device_messages"]
        cards_said = [(m.rank, m.suit) for m in said if isinstance(m, fb.CardDrawnReport)]
        assert code not in cards_said
        assert any(isinstance(m, fb.HoleCardDealtReport) for m in said)
        # On the lines, both ways: every frame but a handshake's is sealed, and no plain
        # frame carries the card.
        for wire in (out["wire"], out["device_wire"]):
            plain = plain_frames(wire)  # the session is up: none but a handshake's
            assert {f.type_id for f in plain} <= PLAIN_TYPES
            assert all(hole.encode() not in f.payload for f in plain)
    assert emitted["lamps_lit"] and emitted["lamp_pins_changed"]
    assert emitted["wire"] and emitted["commands"] and emitted["panel"]
    assert len(emitted["logs"]) > 10 and len(emitted["journal"]) > 30
    assert _comparable(emitted) == _comparable(other)
