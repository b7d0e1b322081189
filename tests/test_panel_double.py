"""The panel-board double's lamp frames (``drivers/simulated/panel.py``)."""

from __future__ import annotations

from pathlib import Path

import firmware_bridge as fb
from drivers.hal import Led, LedMode
from drivers.simulated.panel import PanelDouble


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
