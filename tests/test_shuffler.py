"""ShufflerDriver against ShufflerDouble across a real pty."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import firmware_bridge as fb
from controller.rules.cards import composition_problems
from drivers.device_link import ExpectedDevice
from drivers.errors import CommandError
from drivers.hal import DeviceConnected, DeviceFault, DeviceKind, DeviceLost, ShuffleDone
from drivers.serial_transport import SerialSettings
from drivers.shuffler import ShufflerDriver
from drivers.simulated.recorder import EventRecorder
from drivers.simulated.rig import FAST_BACKOFF, FAST_TIMING
from drivers.simulated.shuffler import ShufflerDouble, exact_batch

SERIAL = "SHUF-0001"
#: The pairing secret the doubles and the drivers share in these tests.
SECRET = bytes(range(32))


class Rig:
    def __init__(self, path: Path) -> None:
        self.events = EventRecorder()
        self.double = ShufflerDouble(path, SERIAL, timing=FAST_TIMING, seed=4, secret=SECRET)
        self.driver = ShufflerDriver(
            self.double.settings,
            self.events,
            ExpectedDevice(SERIAL, secret=SECRET),
            timing=FAST_TIMING,
            backoff=FAST_BACKOFF,
        )
        self.driver.start()
        self.events.expect(DeviceConnected)

    def close(self) -> None:
        self.driver.close()
        self.double.close()


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    r = Rig(tmp_path / "shuffler")
    yield r
    r.close()


@pytest.mark.parametrize("decks", [6, 8])
def test_shuffle_reports_the_counted_batch(rig: Rig, decks: int) -> None:
    rig.driver.shuffle(decks)
    done = rig.events.expect(ShuffleDone)
    assert done.card_count == 48 * decks
    assert composition_problems(decks, done.composition, done.card_count) == []
    assert 10 not in done.composition


def test_a_batch_with_a_foreign_ten_is_reported_as_counted(rig: Rig) -> None:
    _, per_rank = exact_batch(6)
    counts = dict(enumerate(per_rank, start=1))
    counts[10] = 1
    counts[7] -= 1
    rig.double.set_result(counts)
    rig.driver.shuffle(6)
    done = rig.events.expect(ShuffleDone)
    assert done.composition[10] == 1
    assert "batch holds 1 foreign 10s" in composition_problems(6, done.composition, done.card_count)


def test_jam_is_a_fault_and_shuffling_works_after_clearing(rig: Rig) -> None:
    rig.double.jam()
    assert rig.events.expect(DeviceFault).reason == "shuffler jammed"
    rig.driver.shuffle(6)
    assert rig.events.expect(DeviceFault).reason == "shuffler jammed"
    rig.double.clear_jam()
    rig.driver.shuffle(6)
    assert rig.events.expect(ShuffleDone).card_count == 288


def test_door_open_and_status_query(rig: Rig) -> None:
    rig.double.open_door()
    assert rig.events.expect(DeviceFault).reason == "shuffler door open"
    rig.driver.query_status()
    assert rig.events.expect(DeviceFault).reason == "shuffler door open"
    rig.double.close_door()
    rig.double.report_error(7, "motor stalled")
    fault = rig.events.expect(DeviceFault)
    assert fault.reason == "shuffler error 7: motor stalled"
    assert fault.details == {"code": "7"}


def test_slow_shuffle_still_answers(rig: Rig) -> None:
    rig.double.reply_delay = 0.2
    rig.driver.shuffle(8)
    assert rig.events.expect(ShuffleDone).card_count == 384


def test_corrupted_answer_is_retransmitted_once(rig: Rig) -> None:
    rig.double.noise.corrupt_next(2)
    rig.driver.shuffle(6)
    assert rig.events.expect(ShuffleDone).card_count == 288
    assert rig.double.wait_idle()
    assert rig.driver.stats.dropped >= 1
    assert not [e for e in rig.events.pending() if isinstance(e, ShuffleDone)]


def test_duplicated_and_dropped_acks_do_not_repeat_a_command(rig: Rig) -> None:
    rig.double.duplicate_acks(4)
    rig.driver.shuffle(6)
    rig.events.expect(ShuffleDone)
    assert rig.double.wait_idle()
    rig.double.drop_acks(2)
    rig.driver.shuffle(8)
    rig.events.expect(ShuffleDone)
    assert rig.double.wait_idle()
    assert rig.double.batches == 2  # each command acted on once
    assert rig.double.stats.duplicates + rig.driver.stats.duplicates >= 1


def test_command_while_unplugged_is_a_fault_and_replug_recovers(rig: Rig) -> None:
    rig.double.unplug()
    rig.events.expect(DeviceLost)
    rig.driver.shuffle(6)
    assert "not sent" in rig.events.expect(DeviceFault).reason
    rig.double.plug()
    rig.events.expect(DeviceConnected)
    rig.driver.shuffle(6)
    assert rig.events.expect(ShuffleDone).card_count == 288


def test_command_unconfirmed_when_the_shuffler_dies_is_reported(rig: Rig) -> None:
    rig.double.silent = True
    rig.driver.shuffle(6)
    rig.events.expect(DeviceLost)
    fault = rig.events.expect(DeviceFault)
    assert "ShuffleCommand" in fault.reason
    rig.double.silent = False
    rig.events.expect(DeviceConnected)


def test_batch_size_is_checked(rig: Rig) -> None:
    with pytest.raises(CommandError) as refused:
        rig.driver.shuffle(7)
    assert str(refused.value) == "a Spanish 21 batch is 6 or 8 decks, not 7"


def test_command_unconfirmed_when_the_cable_is_pulled_is_reported(rig: Rig) -> None:
    rig.double.silent = True
    rig.driver.shuffle(6)
    rig.double.unplug()
    rig.events.expect(DeviceLost)
    assert "1 commands not confirmed" in rig.events.expect(DeviceFault).reason
    rig.double.silent = False
    rig.double.plug()
    rig.events.expect(DeviceConnected)
    assert rig.double.batches == 0


def test_each_report_of_the_shuffler_becomes_its_event_message_by_message() -> None:
    # Without a link: what the driver makes of each message (the journal's rows).
    events: list[object] = []
    driver = ShufflerDriver(SerialSettings("/dev/null"), events.append, ExpectedDevice("S"))

    def made(message: fb.Message) -> list[object]:
        return list(driver._on_message(message))

    # An ace, two 10s (foreign: counted, the table refuses them), a king; no empty rank.
    counted = fb.ShuffleDoneReport(4, (1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 1))
    assert made(counted) == [ShuffleDone(4, ((1, 1), (10, 2), (13, 1)))]
    assert made(fb.JamReport()) == [DeviceFault(DeviceKind.SHUFFLER, "shuffler jammed")]
    assert made(fb.DoorOpenReport(True)) == [DeviceFault(DeviceKind.SHUFFLER, "shuffler door open")]
    assert made(fb.DoorOpenReport(False)) == []  # closed again: nothing to report
    assert made(fb.ShufflerErrorReport(7, "motor stall")) == [
        DeviceFault(DeviceKind.SHUFFLER, "shuffler error 7: motor stall", {"code": "7"})
    ]
    states = {
        fb.ShufflerState.JAMMED: "shuffler jammed",
        fb.ShufflerState.DOOR_OPEN: "shuffler door open",
        fb.ShufflerState.ERROR: "shuffler error",
    }
    for state in fb.ShufflerState:
        expected = [DeviceFault(DeviceKind.SHUFFLER, states[state])] if state in states else []
        assert made(fb.ShufflerStatus(state, 0)) == expected, state
    assert made(fb.CoverCardReport(1)) == [
        DeviceFault(DeviceKind.SHUFFLER, "unexpected CoverCardReport from the shuffler")
    ]
    assert events == []
