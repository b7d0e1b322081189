"""SerialPanelDriver against PanelDouble across a real pty."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import firmware_bridge as fb
from drivers.device_link import ExpectedDevice
from drivers.errors import DriverConfigError
from drivers.hal import (
    Button,
    ButtonPressed,
    DeviceConnected,
    DeviceFault,
    DeviceFaultKind,
    DeviceKind,
    DeviceLost,
    ForgedFrame,
    Led,
    LedMode,
    SeatWagerChanged,
    SupervisorKey,
    WagerSpot,
)
from drivers.panel_link import PanelCodes, SerialPanelDriver
from drivers.serial_transport import SerialSettings
from drivers.simulated.panel import PanelDouble
from drivers.simulated.recorder import EventRecorder
from drivers.simulated.rig import FAST_BACKOFF, FAST_TIMING
from firmware_bridge.auth import Sealer, SessionKeys
from firmware_bridge.frame import FLAG_RELIABLE, FLAG_SEALED
from firmware_bridge.link_messages import Ack, Heartbeat

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
    # A lamp is a bit of the 32-bit PanelLamps masks: 0..31, both ends checked.
    assert PanelCodes({Led.DEAL: 31, Led.PAY: 0}, {}, supervisor_key=255).leds[Led.DEAL] == 31
    with pytest.raises(DriverConfigError, match=r"lamp number 32 outside 0\.\.31"):
        PanelCodes({Led.DEAL: 32}, {}, supervisor_key=9)
    with pytest.raises(DriverConfigError, match="lamp number -1"):
        PanelCodes({Led.DEAL: -1}, {}, supervisor_key=9)


def test_one_frame_per_panel_state(board: Board) -> None:
    """A panel state goes out as one PanelLamps frame, however many lamps change,
    and an unchanged state sends nothing."""
    many = {led: LedMode.STEADY for led in list(Led)[:8]} | {Led.FAULT: LedMode.BLINK}
    board.driver.show(many)
    assert board.lamps_settle(many)
    assert board.double.wait_idle()
    before = board.double.lamp_frames
    board.driver.show(many)  # the same state
    board.driver.show({Led.PAY: LedMode.BLINK})  # ten lamps change, one frame
    assert board.lamps_settle({Led.PAY: LedMode.BLINK} | dict.fromkeys(many, LedMode.OFF))
    assert board.double.wait_idle()
    assert board.double.lamp_frames == before + 1
    assert board.double.refused_lamp_frames == 0


def test_a_lamp_both_steady_and_blinking_is_refused_by_the_board(board: Board) -> None:
    board.driver.show({Led.DEAL: LedMode.STEADY})
    assert board.lamps_settle({Led.DEAL: LedMode.STEADY})
    bit = 1 << board.double.codes.leds[Led.PAY]
    board.double._on_command(fb.PanelLamps(steady=bit, blink=bit))  # as if it came in
    assert board.double.refused_lamp_frames == 1
    assert board.double.lamp(Led.DEAL) is LedMode.STEADY  # the lamps stay as they were
    assert board.double.lamp(Led.PAY) is LedMode.OFF


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


# --- the supervisor key never comes from a frame without a valid tag (docs/protocol.md 4b) -


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
    # Two forged frames (key on, then supervisor resume) once cleared a fault. Now: dropped.
    board.double.transmit(forged_button(key, True, 0))
    board.double.transmit(forged_button(resume, True, 1, key=bytes(32)))
    board.double.place_wager(2, WagerSpot.MAIN)  # the genuine board, after them
    # Before it only the two forgeries, journaled (docs/protocol.md section 4c).
    assert [type(board.events.next()) for _ in range(3)] == [
        ForgedFrame,
        ForgedFrame,
        SeatWagerChanged,
    ]
    assert board.driver.stats.auth_failures == 2
    assert not board.driver.supervisor_key_on
    board.double.transmit(forged_button(resume, True, 1))
    fault = board.events.expect(DeviceFault)
    assert fault.kind is DeviceFaultKind.AUTHENTICATION
    assert not any(isinstance(e, SupervisorKey | ButtonPressed) for e in board.events.history)
    # The board's own key, in sealed frames, still works.
    board.double.turn_key(True)
    assert board.events.expect(SupervisorKey) == SupervisorKey(True)


def recorded_writes(board: Board) -> list[bytes]:
    """From now on, every write the board double makes to the line, in order."""
    chunks: list[bytes] = []
    transmit = board.double.transmit

    def recording(data: bytes) -> bool:
        chunks.append(data)
        return transmit(data)

    board.double.transmit = recording
    return chunks


def test_a_press_crosses_the_line_as_one_report_and_its_release_as_none(board: Board) -> None:
    """docs/protocol.md, 0x41 ButtonReport: the board reports a press, not its release (the
    station acts on presses only: about 17 sealed frames a round for nothing); the
    one report goes out in one write and the driver reports one ButtonPressed."""
    chunks = recorded_writes(board)
    board.double.sent_log = []
    board.double.press(Button.DOUBLE)
    assert board.events.next() == ButtonPressed(Button.DOUBLE)
    assert board.double.sent_log == [
        fb.ButtonReport(board.driver.codes.buttons[Button.DOUBLE], True)
    ]
    frames = [fb.decode_frame(part) for chunk in chunks for part in chunk.split(b"\x00") if part]
    # One report on the line: one sequence number, however often a loaded machine (an ack
    # later than the 0.1 s retransmit timeout) makes the board send it again.
    assert len({f.seq for f in frames if f.type_id == fb.ButtonReport.TYPE_ID}) == 1


def test_a_release_from_a_board_that_still_sends_them_is_ignored(board: Board) -> None:
    """A board with older firmware reports releases too: the station ignores them (no event,
    no fault), while the key switch's off position still turns the key off."""
    board.double.release_report(Button.DOUBLE)
    board.double.press(Button.NEXT)
    assert board.events.next() == ButtonPressed(Button.NEXT)
    board.double.turn_key(True)
    assert board.events.next() == SupervisorKey(True)
    board.double.turn_key(False)
    assert board.events.next() == SupervisorKey(False)
    assert board.events.pending() == []


#: Lamps wired to the first bits only: the rest are lamps this board does not have.
FEW_LAMPS = PanelCodes({led: n for n, led in enumerate(list(Led)[:10])}, {}, supervisor_key=9)


def unstarted_driver() -> SerialPanelDriver:
    return SerialPanelDriver(
        SerialSettings("/nonexistent/panel"),
        EventRecorder(),
        ExpectedDevice(SERIAL, secret=SECRET),
        codes=FEW_LAMPS,
    )


@given(st.dictionaries(st.sampled_from(list(Led)), st.sampled_from(list(LedMode))))
def test_show_asks_for_exactly_the_named_lamps_that_the_board_has(
    lamps: dict[Led, LedMode],
) -> None:
    """Any panel state: each wired lamp in the mode named (OFF if not named), the others
    OFF, and the masks that would go out are the wiring table's bits of those lamps."""
    driver = unstarted_driver()
    driver.show(lamps)
    wired = FEW_LAMPS.leds
    for led in Led:
        wanted = lamps.get(led, LedMode.OFF) if led in wired else LedMode.OFF
        assert driver.lamp_mode(led) is wanted
    steady = sum(
        1 << wired[led] for led, m in lamps.items() if led in wired and m is LedMode.STEADY
    )
    blink = sum(1 << wired[led] for led, m in lamps.items() if led in wired and m is LedMode.BLINK)
    assert driver._wanted == (steady, blink)
    assert not steady & blink


@given(
    st.dictionaries(
        st.one_of(st.sampled_from(list(Led)), st.text(max_size=8), st.integers()),
        st.one_of(st.sampled_from(list(LedMode)), st.text(max_size=8), st.none()),
        min_size=1,
    )
)
def test_show_refuses_anything_but_lamps_and_modes(lamps: dict[object, object]) -> None:
    """A key that is not a Led or a value that is not a LedMode is a TypeError, and the
    state asked before stays as it was."""
    hostile = any(not isinstance(k, Led) or not isinstance(v, LedMode) for k, v in lamps.items())
    driver = unstarted_driver()
    driver.show({Led.DEAL: LedMode.BLINK})
    if hostile:
        with pytest.raises(TypeError):
            driver.show(lamps)  # type: ignore[arg-type]
        assert driver.lamp_mode(Led.DEAL) is LedMode.BLINK
    else:
        driver.show(lamps)  # type: ignore[arg-type]


def test_the_wagers_of_one_scan_cross_in_one_frame_and_arrive_in_order(board: Board) -> None:
    """docs/protocol.md, 0x44 WagerSensorScan: the sensor changes a board reads in one scan
    go out in one frame; the station gives one SeatWagerChanged for each, in the order the
    board read them, and a button pressed in the same scan keeps its place between them."""
    chunks = recorded_writes(board)
    with board.double.holding():
        board.double.place_wager(1, WagerSpot.MAIN, cents=2_500)
        board.double.place_wager(1, WagerSpot.MATCH, cents=500)
        board.double.place_wager(3, WagerSpot.MAIN, cents=1_000)
        board.double.press(Button.NEXT)
        board.double.place_wager(3, WagerSpot.MAIN, present=False)
    assert [board.events.next() for _ in range(5)] == [
        SeatWagerChanged(1, WagerSpot.MAIN, True, 2_500),
        SeatWagerChanged(1, WagerSpot.MATCH, True, 500),
        SeatWagerChanged(3, WagerSpot.MAIN, True, 1_000),
        ButtonPressed(Button.NEXT),
        SeatWagerChanged(3, WagerSpot.MAIN, False, None),
    ]
    frames = [fb.decode_frame(part) for chunk in chunks for part in chunk.split(b"\x00") if part]
    types = [f.type_id for f in frames if f.type_id not in (Ack.TYPE_ID, Heartbeat.TYPE_ID)]
    # The three wagers before the press in one scan; the one after it alone.
    assert types == [
        fb.WagerSensorScan.TYPE_ID,
        fb.ButtonReport.TYPE_ID,
        fb.WagerSensorReport.TYPE_ID,
    ]


def test_a_scan_longer_than_a_frame_holds_goes_in_several(board: Board) -> None:
    """More changes in one scan than one WagerSensorScan carries (31): the board sends them
    in as many scans as it takes, and every change arrives, in order."""
    board.double.sent_log = []
    changes = [
        (1 + n % 7, list(WagerSpot)[n % 3], n % 2 == 0) for n in range(fb.WAGER_SCAN_MAX + 2)
    ]
    with board.double.holding():
        for seat, spot, present in changes:
            board.double.place_wager(seat, spot, present=present)
    events = [board.events.next() for _ in changes]
    assert events == [SeatWagerChanged(s, p, present, None) for s, p, present in changes]
    scans = [m for m in board.double.sent_log if isinstance(m, fb.WagerSensorScan)]
    assert [len(s.reports) for s in scans] == [fb.WAGER_SCAN_MAX, 2]


def test_an_ack_the_board_sends_twice_is_refused_as_a_replay_and_changes_nothing(
    board: Board,
) -> None:
    # A line that repeats a frame (a flaky cable, a recorded frame played back) delivers the
    # same sealed counter twice: the station drops the copy (frame counters only go up,
    # docs/protocol.md section 5) and the link goes on without a fault or a resend.
    board.double.duplicate_acks(1)
    board.driver.show({Led.DEAL: LedMode.STEADY})
    assert board.lamps_settle({Led.DEAL: LedMode.STEADY})
    assert board.double.wait_for(lambda: board.driver.stats.auth_failures >= 1, 5.0)
    assert board.double.wait_idle()
    assert board.driver.stats.drops_by_reason == {"AuthenticationError": 1}
    board.driver.show({Led.PAY: LedMode.STEADY})
    assert board.lamps_settle({Led.DEAL: LedMode.OFF, Led.PAY: LedMode.STEADY})
    assert not [e for e in board.events.pending() if isinstance(e, DeviceFault | DeviceLost)]


def test_input_numbers_take_the_whole_byte_and_nothing_past_it() -> None:
    # A ButtonReport's number is one byte (docs/protocol.md, 0x41): 0..255.
    codes = PanelCodes(leds={}, buttons={Button.NEXT: 0}, supervisor_key=255)
    assert codes.supervisor_key == 255
    with pytest.raises(DriverConfigError) as refused:
        PanelCodes(leds={}, buttons={Button.NEXT: 0}, supervisor_key=256)
    assert str(refused.value) == "input number 256 outside 0..255"


def test_a_message_a_panel_has_no_business_sending_is_a_fault_of_the_panel() -> None:
    driver = SerialPanelDriver(SerialSettings("/dev/null"), EventRecorder(), ExpectedDevice("P"))
    assert list(driver._on_message(fb.CoverCardReport(1))) == [
        DeviceFault(DeviceKind.PANEL, "unexpected CoverCardReport from the panel")
    ]
    assert list(driver._on_message(fb.ButtonReport(77, True))) == [
        DeviceFault(DeviceKind.PANEL, "panel reports button 77, not in its wiring table")
    ]


def test_show_refuses_what_is_not_a_lamp_or_a_mode_naming_both() -> None:
    driver = SerialPanelDriver(SerialSettings("/dev/null"), EventRecorder(), ExpectedDevice("P"))
    with pytest.raises(TypeError) as refused:
        driver.show({"deal": LedMode.STEADY})  # type: ignore[dict-item]
    assert str(refused.value) == (
        "show() takes Led -> LedMode, got 'deal': <LedMode.STEADY: 'steady'>"
    )
    with pytest.raises(TypeError) as refused:
        driver.show({Led.DEAL: "on"})  # type: ignore[dict-item]
    assert str(refused.value) == "show() takes Led -> LedMode, got <Led.DEAL: 'deal'>: 'on'"
