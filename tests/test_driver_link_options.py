"""Every linked driver (shuffler, shoe, card reader, panel board) passes the link options it
is built with to its link: the station id each device is told in the HELLO, the link's
timing, the retry of a refused device, the reconnect backoff; and names its link after the
device (the name in every transport log line and of the reader thread).

The four drivers each declare and forward these options: a driver that drops one keeps
working on the defaults, which is why only a check like this one notices.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from drivers.device_link import LinkedDevice
from drivers.hal import DeviceConnected
from drivers.simulated.recorder import EventRecorder
from drivers.simulated.rig import FAST_BACKOFF, SimulatedRig
from drivers.simulated.wiring import RigDrivers
from drivers.transport import Backoff

STATION_ID = "PA-S21-07"
RETRY = 0.25
BACKOFF = Backoff(0.01, cap=0.03)


@pytest.fixture
def wired() -> Iterator[tuple[SimulatedRig, RigDrivers, EventRecorder]]:
    rig = SimulatedRig(panel_board=True, seed=11)
    events = EventRecorder()
    drivers = rig.build_drivers(events, station_id=STATION_ID, refusal_retry=RETRY, backoff=BACKOFF)
    drivers.start()
    try:
        yield rig, drivers, events
    finally:
        drivers.close()
        rig.close()


def linked(drivers: RigDrivers) -> list[LinkedDevice]:
    panel = drivers.panel
    assert isinstance(panel, LinkedDevice)
    return [drivers.shuffler, drivers.shoe, drivers.card_reader, panel]


def test_each_driver_tells_its_device_the_station_id_and_names_its_link(
    wired: tuple[SimulatedRig, RigDrivers, EventRecorder],
) -> None:
    rig, drivers, events = wired
    for _ in range(4):
        events.expect(DeviceConnected)
    doubles = [rig.shuffler, rig.shoe, rig.card_reader, rig.panel_board]
    for driver, double in zip(linked(drivers), doubles, strict=True):
        assert double is not None
        peer = double._endpoint.peer  # what the device read in the station's HELLO
        assert peer is not None and peer.serial_number == STATION_ID, driver.KIND
        assert driver.transport.name == driver.KIND.value


def test_each_driver_passes_its_timing_retry_and_backoff_to_its_link(
    wired: tuple[SimulatedRig, RigDrivers, EventRecorder],
) -> None:
    rig, drivers, _ = wired
    assert BACKOFF != FAST_BACKOFF
    for driver in linked(drivers):
        assert driver._endpoint.timing is rig.timing, driver.KIND
        assert driver._refusal_retry == RETRY, driver.KIND
        assert driver.transport._backoff is BACKOFF, driver.KIND


def test_unset_options_are_the_defaults_the_daemon_runs_with() -> None:
    # docs/hardware.md: a refused device is checked again every second. The daemon passes
    # no station id: every device is told "station".
    rig = SimulatedRig(panel_board=True, seed=12)
    try:
        drivers = rig.build_drivers(EventRecorder())
        for driver in linked(drivers):
            assert driver._endpoint.identity.serial_number == "station", driver.KIND
            assert driver._refusal_retry == 1.0, driver.KIND
        drivers.close()
    finally:
        rig.close()
