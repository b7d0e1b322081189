"""SerialPanelDriver against PanelDouble across a real pty."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import firmware_bridge as fb
from drivers.device_link import ExpectedDevice
from drivers.errors import DriverConfigError
from drivers.hal import (
    Button,
    ButtonPressed,
    DeviceConnected,
    DeviceFault,
    DeviceFaultKind,
    DeviceLost,
    Led,
    LedMode,
    SeatWagerChanged,
    SupervisorKey,
    WagerSpot,
)
from drivers.panel_link import PanelCodes, SerialPanelDriver
from drivers.simulated.panel import PanelDouble
from drivers.simulated.recorder import EventRecorder
from drivers.simulated.rig import FAST_BACKOFF, FAST_TIMING
from firmware_bridge.auth import Sealer, SessionKeys
from firmware_bridge.frame import FLAG_RELIABLE, FLAG_SEALED

SERIAL = "PANEL-0001"
#: The pairing secret the doubles and the drivers share in these tests.
SECRET = bytes(range(32))


class Board:
    def __init__(self, path: Path) -> None:
        self.events = EventRecorder()
        self.double = PanelDouble(path, SERIAL, timing=FAST_TIMING, seed=8, secret=SECRET)
        self.driver = SerialPanelDriver(
            self.double.settings,
            self.events,
            ExpectedDevice(SERIAL, secret=SECRET),
            timing=FAST_TIMING,
            backoff=FAST_BACKOFF,
        )
        self.driver.start()
        self.events.expect(DeviceConnected)

    def lamps_settle(self, wanted: dict[Led, LedMode]) -> bool:
        return self.double.wait_for(
            lambda: all(self.double.lamps.get(led, LedMode.OFF) is m for led, m in wanted.items()),
            5.0,
        )

    def close(self) -> None:
        self.driver.close()
        self.double.close()


@pytest.fixture
def board(tmp_path: Path) -> Iterator[Board]:
    b = Board(tmp_path / "panel")
    yield b
    b.close()


def test_show_lights_exactly_the_named_lamps(board: Board) -> None:
    board.driver.show({Led.DEAL: LedMode.BLINK, Led.seat(7): LedMode.STEADY})
    assert board.lamps_settle({Led.DEAL: LedMode.BLINK, Led.seat(7): LedMode.STEADY})
    board.driver.show({Led.PAY: LedMode.STEADY})
    assert board.lamps_settle(
        {Led.DEAL: LedMode.OFF, Led.seat(7): LedMode.OFF, Led.PAY: LedMode.STEADY}
    )
    assert board.driver.lamp_mode(Led.PAY) is LedMode.STEADY
    assert board.double.unknown_lamps == []


def test_lamps_are_restored_after_the_board_reboots(board: Board) -> None:
    board.driver.show({Led.FAULT: LedMode.BLINK})
    assert board.lamps_settle({Led.FAULT: LedMode.BLINK})
    assert board.double.wait_idle()
    board.double.power_cycle()
    assert board.double.lamps == {}
    board.events.expect(DeviceLost)
    board.events.expect(DeviceConnected)
    assert board.lamps_settle({Led.FAULT: LedMode.BLINK})


def test_buttons_key_and_wagers(board: Board) -> None:
    board.double.press(Button.DOUBLE)
    assert board.events.next() == ButtonPressed(Button.DOUBLE)
    board.double.press(Button.SUPERVISOR_VOID)  # key off: ignored
    board.double.turn_key(True)
    assert board.events.next() == SupervisorKey(True)
    board.double.press(Button.SUPERVISOR_VOID)
    assert board.events.next() == ButtonPressed(Button.SUPERVISOR_VOID)
    board.double.place_wager(6, WagerSpot.INSURANCE, cents=2_500)
    assert board.events.next() == SeatWagerChanged(6, WagerSpot.INSURANCE, True, 2_500)
    board.double.turn_key(False)
    assert board.events.next() == SupervisorKey(False)
    assert board.driver.supervisor_key_on is False


def test_unknown_button_number_is_a_fault(board: Board) -> None:
    board.double.press_code(77)
    assert "button 77" in board.events.expect(DeviceFault).reason


def test_wiring_table_is_checked() -> None:
    with pytest.raises(DriverConfigError, match="used twice"):
        PanelCodes({Led.DEAL: 1}, {Button.NEXT: 3, Button.SPLIT: 3}, supervisor_key=9)
    with pytest.raises(DriverConfigError, match="outside"):
        PanelCodes({Led.DEAL: 256}, {}, supervisor_key=9)


def test_unplugged_board_gets_its_lamps_back_without_a_fault(board: Board) -> None:
    board.double.silent = True
    board.driver.show({Led.BETS: LedMode.STEADY})  # sent, never acked
    board.double.unplug()
    board.events.expect(DeviceLost)
    board.double.silent = False
    board.double.plug()
    board.events.expect(DeviceConnected)
    assert board.lamps_settle({Led.BETS: LedMode.STEADY})
    assert not [e for e in board.events.history if isinstance(e, DeviceFault)]


# --- issue 14: the supervisor key never comes from a frame without a valid tag ------------


def forged_button(code: int, pressed: bool, seq: int, *, key: bytes | None = None) -> bytes:
    """A ButtonReport frame written on the panel's line by someone else: the right type,
    sequence number and CRC, unsealed or sealed with a key of their own."""
    payload = fb.encode_message(fb.ButtonReport(code, pressed))[1]
    frame = fb.Frame(fb.PROTOCOL_VERSION, fb.ButtonReport.TYPE_ID, seq, FLAG_RELIABLE, 0, payload)
    if key is not None:
        frame = frame._replace(flags=FLAG_RELIABLE | FLAG_SEALED)
        sealer = Sealer(SessionKeys(key, bytes(16), bytes(16), 4).device_to_station)
        frame = frame._replace(payload=sealer.seal(frame.header(), payload))
    return fb.encode_frame(frame)


def test_forged_key_and_resume_frames_never_reach_the_station(board: Board) -> None:
    codes = board.double.codes
    key, resume = codes.supervisor_key, codes.buttons[Button.SUPERVISOR_RESUME]
    # Issue 14: two frames (key on, then supervisor resume) cleared a fault. Now: dropped.
    board.double.transmit(forged_button(key, True, 0))
    board.double.transmit(forged_button(resume, True, 1, key=bytes(32)))
    board.double.place_wager(2, WagerSpot.MAIN)  # the genuine board, after them
    assert isinstance(board.events.next(), SeatWagerChanged)  # nothing came before it
    assert board.driver.stats.auth_failures == 2
    assert not board.driver.supervisor_key_on
    board.double.transmit(forged_button(resume, True, 1))
    fault = board.events.expect(DeviceFault)
    assert fault.kind is DeviceFaultKind.AUTHENTICATION
    assert not any(isinstance(e, SupervisorKey | ButtonPressed) for e in board.events.history)
    # The board's own key, in sealed frames, still works.
    board.double.turn_key(True)
    assert board.events.expect(SupervisorKey) == SupervisorKey(True)
