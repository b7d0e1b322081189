"""The panel board driver (drivers.panel_link) on what it must not take for granted: its
wiring table's limits, numbers and messages it does not know, lamps before any prompt, a
key reported in the state it already had. The board is the real double over a pty.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_panel_link import Board, unstarted_driver

import firmware_bridge as fb
from drivers.errors import DriverConfigError
from drivers.hal import Button, ButtonPressed, DeviceFault, DeviceKind, Led, LedMode, SupervisorKey
from drivers.panel_link import PanelCodes


@pytest.fixture
def board(tmp_path: Path) -> Iterator[Board]:
    started = Board(tmp_path / "panel")
    yield started
    started.close()


def test_input_numbers_are_a_byte_and_each_is_used_once() -> None:
    # Buttons and the key share the board's input numbers, 0..255.
    codes = PanelCodes({}, {Button.NEXT: 0}, supervisor_key=255)
    assert (codes.buttons[Button.NEXT], codes.supervisor_key) == (0, 255)
    with pytest.raises(DriverConfigError, match=r"^input number 256 outside 0\.\.255$"):
        PanelCodes({}, {Button.NEXT: 0}, supervisor_key=256)
    with pytest.raises(DriverConfigError, match=r"^input number -1 outside 0\.\.255$"):
        PanelCodes({}, {Button.NEXT: -1}, supervisor_key=9)
    with pytest.raises(DriverConfigError, match=r"^input numbers used twice: \[3, 3\]$"):
        PanelCodes({}, {Button.NEXT: 3}, supervisor_key=3)


def test_a_button_number_the_table_does_not_know_is_a_panel_fault(board: Board) -> None:
    board.double.press_code(77)
    fault = board.events.expect(DeviceFault)
    assert (fault.device, fault.reason) == (
        DeviceKind.PANEL,
        "panel reports button 77, not in its wiring table",
    )


def test_a_message_the_board_has_no_business_sending_is_a_panel_fault(board: Board) -> None:
    board.double._report(fb.EchoReply(b"hello"))
    fault = board.events.expect(DeviceFault)
    assert (fault.device, fault.reason) == (DeviceKind.PANEL, "unexpected EchoReply from the panel")


def test_before_any_prompt_every_lamp_is_dark(board: Board) -> None:
    assert board.double.wait_idle()
    assert board.double.lamps == {}
    assert all(board.driver.lamp_mode(led) is LedMode.OFF for led in Led)


def test_a_key_reported_in_the_state_it_had_is_no_event(board: Board) -> None:
    board.double.turn_key(False)  # it was off: nothing to tell the procedure
    board.double.press(Button.NEXT)
    assert board.events.next() == ButtonPressed(Button.NEXT)
    board.double.turn_key(True)
    assert board.events.next() == SupervisorKey(True)


def test_show_names_the_lamp_or_mode_it_refuses() -> None:
    driver = unstarted_driver()
    with pytest.raises(TypeError, match=r"^show\(\) takes Led -> LedMode, got 'deal': "):
        driver.show({"deal": LedMode.STEADY})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match=r"^show\(\) takes Led -> LedMode, got <Led\.DEAL"):
        driver.show({Led.DEAL: "steady"})  # type: ignore[dict-item]
