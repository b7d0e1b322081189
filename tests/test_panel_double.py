"""The panel-board double's lamp frames (``drivers/simulated/panel.py``)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import firmware_bridge as fb
from drivers.hal import Led, LedMode
from drivers.simulated.panel import PanelDouble

#: One double for the property test (a pty each example would be slow); see the fixture.
DOUBLE: list[PanelDouble] = []


@pytest.fixture(scope="module", autouse=True)
def one_double() -> Iterator[None]:
    with tempfile.TemporaryDirectory() as directory:
        DOUBLE.append(PanelDouble(Path(directory) / "panel"))
        try:
            yield
        finally:
            DOUBLE.pop().close()


def test_a_lamp_frame_sets_every_fitted_lamp_and_notes_unfitted_bits(tmp_path: Path) -> None:
    """Each ``PanelLamps`` frame is the whole panel: named lamps lit or blinking, every
    other lamp off; a bit with no lamp fitted is noted; a lamp both steady and blinking is
    a malformed frame, refused with the lamps left as they were (docs/protocol.md)."""
    double = PanelDouble(tmp_path / "panel")
    try:
        deal, pay = double.codes.leds[Led.DEAL], double.codes.leds[Led.PAY]
        fitted = set(double.codes.leds.values())
        unfitted = next(n for n in range(fb.PANEL_LAMP_BITS) if n not in fitted)
        double._on_command(fb.PanelLamps(steady=1 << deal | 1 << unfitted, blink=1 << pay))
        assert double.lamps == {Led.DEAL: LedMode.STEADY, Led.PAY: LedMode.BLINK}
        assert double.unknown_lamps == [unfitted]
        double._on_command(fb.PanelLamps(steady=0, blink=1 << deal))
        assert double.lamps == {Led.DEAL: LedMode.BLINK}
        double._on_command(fb.PanelLamps(steady=1 << pay, blink=1 << pay))
        assert double.lamps == {Led.DEAL: LedMode.BLINK} and double.refused_lamp_frames == 1
        double._on_command(fb.PanelLamps(steady=0, blink=0))
        assert double.lamps == {} and double.lamp(Led.DEAL) is LedMode.OFF
        assert double.lamp_frames == 3 and double.unknown_lamps == [unfitted]
    finally:
        double.close()


@settings(max_examples=200, deadline=None)
@given(st.integers(0, (1 << fb.PANEL_LAMP_BITS) - 1), st.integers(0, (1 << fb.PANEL_LAMP_BITS) - 1))
def test_any_lamp_frame_leaves_exactly_its_lit_fitted_lamps(steady: int, blink: int) -> None:
    """Whatever two masks a frame carries: refused when a lamp is both steady and blinking;
    otherwise the board shows each fitted lamp whose bit is set, in its mode, and no other."""
    double = DOUBLE[0]
    double._on_command(fb.PanelLamps(steady=0b1, blink=0))  # something lit before
    before, refused = dict(double.lamps), double.refused_lamp_frames
    double._on_command(fb.PanelLamps(steady=steady, blink=blink))
    if steady & blink:
        assert double.lamps == before and double.refused_lamp_frames == refused + 1
        return
    expected = {}
    for led, code in double.codes.leds.items():
        if steady >> code & 1:
            expected[led] = LedMode.STEADY
        elif blink >> code & 1:
            expected[led] = LedMode.BLINK
    assert double.lamps == expected
