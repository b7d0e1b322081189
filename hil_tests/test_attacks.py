"""Attacks on the links against the whole station on the doubles: each fails to do harm.

Someone with a wire on the shoe's line writes a `CardDrawnReport` with the right sequence
and draw numbers (it was journaled as seat 1's hit); an impostor board reports the right
serial number with firmware "EVIL-9.9" (it passed the handshake). The forged panel frames,
the tap on the line and the second opener of the tty are tested where they act:
``tests/test_panel_link.py``, ``hil_tests/test_exposure.py``,
``tests/test_serial_transport.py``.
"""

from __future__ import annotations

from typing import Any

import pytest

import firmware_bridge as fb
from controller.table.prompts import State
from drivers.hal import DeviceFault, DeviceLost, ForgedFrame
from firmware_bridge.frame import FLAG_RELIABLE
from firmware_bridge.link_messages import Hello, NoSession

pytestmark = pytest.mark.doubles

# One seat: seat 1 9H 8D, up KS (a peek), hole 7D; the next card would be 3D.
ONE_SEAT = "2C 9H KS 8D 7D 3D QC 6H 9C 2D 3C 4D 5S 6C 8H 5H"


def test_a_forged_card_on_the_shoe_line_is_never_a_hit(station: Any) -> None:
    t = station("PA")
    t.ready(ONE_SEAT)
    t.bet(1)
    t.press()
    t.deal("9H", "KS", "8D", "7D")
    t.peek()
    assert t.state is State.PLAYERS
    shoe = t.doubles.shoe
    rows_before = len(t.rows())
    # The shoe's next reliable sequence number and its next draw number: all a tap learns
    # from the header (the payloads are sealed) and from counting frames.
    seq = shoe.next_seq
    payload = fb.encode_message(fb.CardDrawnReport(1, "S", shoe.draws + 1))[1]
    forged = fb.encode_frame(
        fb.Frame(fb.PROTOCOL_VERSION, fb.CardDrawnReport.TYPE_ID, seq, FLAG_RELIABLE, 0, payload)
    )
    with t.expect(DeviceFault):
        for _ in range(fb.AUTH_FAILURE_LIMIT):  # dropped, dropped, then the device faults
            shoe.transmit(forged)
    assert t.state is State.FAULT and t.fault == "device_authentication"
    new_rows = t.rows()[rows_before:]
    assert not [r for r in new_rows if r.kind in ("card", "decision")]  # no hit, no card
    devices = [r.data for r in new_rows if r.kind == "device"]
    # The first two journaled as forged; the third within 10 s faults the shoe.
    assert [d["status"] for d in devices] == ["forged", "forged", "fault"]
    assert "failed authentication within 10 s" in devices[2]["reason"]
    assert t.doubles.shoe.connected  # the genuine shoe's session was never disturbed


def test_an_impostor_with_the_right_serial_and_evil_firmware_is_refused_once(
    station: Any,
) -> None:
    t = station("PA")
    shoe = t.doubles.shoe
    rows_before = len(t.rows())
    shoe.firmware = "EVIL-9.9"  # a board reflashed (it even holds the pairing key)
    with t.expect(DeviceLost, DeviceFault):
        shoe.power_cycle()
    refused = [r.data for r in t.rows()[rows_before:] if r.kind == "device"]
    assert [r["status"] for r in refused] == ["lost", "fault"]
    assert refused[1]["found_firmware"] == "EVIL-9.9"
    assert refused[1]["found_serial_number"] == shoe.serial_number
    assert "not on the allow-list" in refused[1]["reason"]
    # The driver keeps retrying (a good board may be plugged in): no second row for it.
    shoe.wait_for(lambda: len(shoe.refusals) >= 3, 10.0)
    assert [r.kind for r in t.rows()[rows_before:]].count("device") == 2


# --- docs/protocol.md section 4c: forged ends and the rate of forgeries --------------------


def test_a_forged_frame_below_the_rate_is_journaled_and_play_goes_on(station: Any) -> None:
    t = station("PA")
    t.ready(ONE_SEAT)
    shoe = t.doubles.shoe
    rows_before = len(t.rows())
    payload = fb.encode_message(fb.CardDrawnReport(1, "S", shoe.draws + 1))[1]
    forged = fb.encode_frame(
        fb.Frame(
            fb.PROTOCOL_VERSION,
            fb.CardDrawnReport.TYPE_ID,
            shoe.next_seq,
            FLAG_RELIABLE,
            0,
            payload,
        )
    )
    with t.expect(ForgedFrame):
        shoe.transmit(forged)
    (row,) = [r.data for r in t.rows()[rows_before:] if r.kind == "device"]
    assert (row["status"], row["count"]) == ("forged", 1)
    assert t.state is State.BETTING  # one forged frame does not stop the table
    t.bet(1)
    t.press()
    t.deal("9H", "KS", "8D", "7D")  # the genuine shoe deals on
    assert [d["card"] for d in t.data("card")] == ["9H", "KS", "8D"]


def test_a_forged_no_session_does_not_take_the_shoe_down(station: Any) -> None:
    t = station("PA")
    t.ready(ONE_SEAT)
    shoe = t.doubles.shoe
    rows_before = len(t.rows())
    no_session = fb.encode_frame(fb.Frame(fb.PROTOCOL_VERSION, NoSession.TYPE_ID, 0, 0, 0, b""))
    with t.expect(ForgedFrame):  # checked with a heartbeat request, answered: forged
        shoe.transmit(b"\0" + no_session)
    kinds = [(r.kind, r.data.get("status")) for r in t.rows()[rows_before:]]
    assert ("device", "forged") in kinds and ("device", "lost") not in kinds
    assert t.state is State.BETTING and shoe.connected


def test_a_forged_hello_does_not_take_the_shoe_down(station: Any) -> None:
    t = station("PA")
    t.ready(ONE_SEAT)
    shoe = t.doubles.shoe
    sessions = shoe.sessions
    rows_before = len(t.rows())
    # A HELLO of a new session written on the shoe's line, as a station that restarted
    # would send it: unsealed (docs/protocol.md section 4c), so anyone can.
    payload = fb.encode_message(Hello(fb.DeviceKind.SHOE, 0x5EED, bytes(16), "st-1.0", "T1"))[1]
    shoe.receive(
        b"\0" + fb.encode_frame(fb.Frame(fb.PROTOCOL_VERSION, Hello.TYPE_ID, 0, 0, 0, payload))
    )
    t.bet(1)
    t.press()
    t.deal("9H", "KS", "8D", "7D")  # the shoe deals on in its session
    assert [d["card"] for d in t.data("card")] == ["9H", "KS", "8D"]
    kinds = [(r.kind, r.data.get("status")) for r in t.rows()[rows_before:]]
    assert ("device", "lost") not in kinds and t.state is not State.FAULT
    assert shoe.connected and shoe.sessions == sessions  # never left its session
