"""``dealer-station pair``: the supervisor key, the device's consent, the 0600 secret file,
and a link that then authenticates with it (docs/protocol.md 4a)."""

from __future__ import annotations

import contextlib
import os
import queue
import stat
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gpiozero
import pytest
from gpiozero.pins.mock import MockFactory, MockPin

import firmware_bridge as fb
from controller.cli.main import main
from drivers.device_link import ExpectedDevice
from drivers.hal import DeviceConnected, DeviceEvent, DeviceKind
from drivers.pairing import PairingStore, pair_over
from drivers.registry import device_names
from drivers.serial_transport import SerialSettings, SerialTransport
from drivers.shoe import ShoeDriver
from drivers.simulated.pty_port import PtyPort
from drivers.simulated.rig import FAST_BACKOFF, FAST_TIMING
from drivers.simulated.shoe import ShoeDouble

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "station.toml"
SERIAL = "SHO-0000042"  # the example's shoe
FIRMWARE = "sho-2.3.1"  # on the example's allow-list
KEY_PIN = 26  # the example's supervisor key
WAIT = 5.0


class KeyTurnedOn(MockPin):
    """The key switch closed: the line reads low whatever the pull-up says."""

    def _set_pull(self, value: str) -> None:
        super()._set_pull(value)
        self.drive_low()


@pytest.fixture
def shoe() -> Iterator[ShoeDouble]:
    # Under /dev (tmpfs /dev/shm), as check-config wants a device path there.
    with tempfile.TemporaryDirectory(dir="/dev/shm", prefix="dealer-pair-") as tmp:
        double = ShoeDouble(Path(tmp) / "shoe", SERIAL, firmware=FIRMWARE, timing=FAST_TIMING)
        try:
            yield double
        finally:
            double.close()


def config_for(tmp_path: Path, shoe: ShoeDouble) -> Path:
    text = EXAMPLE.read_text()
    text = text.replace('port = "/dev/dealer-shoe"', f'port = "{shoe.port.path}"')
    text = text.replace('"/var/lib/dealer-station/pairing"', f'"{tmp_path / "pairing"}"')
    config = tmp_path / "station.toml"
    config.write_text(text)
    return config


def key(on: bool) -> None:
    gpiozero.Device.pin_factory = MockFactory(pin_class=KeyTurnedOn if on else MockPin)


@pytest.fixture(autouse=True)
def _reset_pins() -> Iterator[None]:
    yield
    factory: Any = gpiozero.Device.pin_factory
    if factory is not None:
        factory.reset()
    gpiozero.Device.pin_factory = None


def pair(config: Path, *extra: str) -> int:
    return main(["pair", "shoe", "--config", str(config), "--timeout", "5", *extra])


def test_pairing_writes_a_0600_secret_the_link_then_authenticates_with(
    tmp_path: Path, shoe: ShoeDouble, capsys: pytest.CaptureFixture[str]
) -> None:
    key(on=True)
    shoe.pairing_button = True  # the device's consent, held while the station asks
    assert pair(config_for(tmp_path, shoe)) == 0
    shoe.pairing_button = False
    path = tmp_path / "pairing" / "shoe.key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    paired = PairingStore(tmp_path / "pairing").load("shoe")
    assert paired is not None and paired.serial_number == SERIAL
    assert paired.secret == shoe.secret and len(paired.secret) == 32
    assert "shoe paired" in capsys.readouterr().out
    # The station's driver, with that secret, completes an authenticated handshake.
    events: queue.Queue[DeviceEvent] = queue.Queue()
    driver = ShoeDriver(
        shoe.settings,
        events.put,
        ExpectedDevice(SERIAL, firmware=frozenset({FIRMWARE}), secret=paired.secret),
        timing=FAST_TIMING,
        backoff=FAST_BACKOFF,
    )
    driver.start()
    try:
        assert events.get(timeout=5) == DeviceConnected(DeviceKind.SHOE, SERIAL, FIRMWARE)
    finally:
        driver.close()


def test_without_the_device_consent_nothing_is_written(
    tmp_path: Path, shoe: ShoeDouble, capsys: pytest.CaptureFixture[str]
) -> None:
    key(on=True)
    assert pair(config_for(tmp_path, shoe)) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == (
        "dealer-station pair: the shoe refused: pairing refused: hold the device's pairing button"
    )
    assert not (tmp_path / "pairing" / "shoe.key").exists()
    assert shoe.secret is None


def test_with_the_supervisor_key_off_the_device_is_not_even_asked(
    tmp_path: Path, shoe: ShoeDouble, capsys: pytest.CaptureFixture[str]
) -> None:
    key(on=False)
    shoe.pairing_button = True
    assert pair(config_for(tmp_path, shoe)) == 3
    assert capsys.readouterr().err.strip() == (
        "dealer-station pair: turn the supervisor key on to pair a device"
    )
    assert shoe.secret is None and shoe.commands == []


def test_only_root_or_the_service_user_may_pair(
    tmp_path: Path,
    shoe: ShoeDouble,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    key(on=True)
    monkeypatch.setattr("os.geteuid", lambda: 65534)
    assert pair(config_for(tmp_path, shoe)) == 2
    assert "run as root or dealer-station, not nobody" in capsys.readouterr().err


def test_an_unknown_device_is_a_usage_error(
    tmp_path: Path, shoe: ShoeDouble, capsys: pytest.CaptureFixture[str]
) -> None:
    config = config_for(tmp_path, shoe)
    assert main(["pair", "dice", "--config", str(config)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"dealer-station pair: unknown device 'dice': one of {device_names()}"
    )


def test_a_gpio_panel_has_no_link_to_pair(
    tmp_path: Path, shoe: ShoeDouble, capsys: pytest.CaptureFixture[str]
) -> None:
    """``pair panel`` is for a panel board (tests/test_serve_daemon.py pairs one); the
    example's panel is wired to GPIO."""
    key(on=True)
    config = config_for(tmp_path, shoe)
    assert main(["pair", "panel", "--config", str(config), "--timeout", "5"]) == 2
    assert capsys.readouterr().err.strip() == (
        "dealer-station pair: this table's panel is wired to GPIO: there is no panel board to pair"
    )


def test_a_device_plugged_in_after_pairing_began_is_still_paired(shoe: ShoeDouble) -> None:
    # The technician starts `pair` and then connects the shoe: the station keeps looking
    # until its timeout, not only for the first interval.
    shoe.port.unplug()
    shoe.pairing_button = True
    plugged = threading.Timer(0.3, shoe.port.plug)
    plugged.start()
    try:
        result = pair_over(
            lambda listener: SerialTransport(shoe.settings, listener, backoff=FAST_BACKOFF),
            DeviceKind.SHOE,
            "T1",
            timeout=5.0,
            interval=0.05,
        )
    finally:
        plugged.cancel()
    assert result.device.serial_number == SERIAL and result.secret == shoe.secret


def test_a_device_that_never_answers_times_out_in_one_line(shoe: ShoeDouble) -> None:
    shoe.port.unplug()  # nothing on the port, ever
    with pytest.raises(TimeoutError) as timed_out:
        pair_over(
            lambda listener: SerialTransport(shoe.settings, listener, backoff=FAST_BACKOFF),
            DeviceKind.SHOE,
            "T1",
            timeout=0.3,
            interval=0.05,
        )
    assert str(timed_out.value) == "no pairing answer from the shoe in 0.3 s"


def times_out(port: PtyPort, timeout: float, **options: float) -> TimeoutError:
    """Pair a shoe over ``port`` (``interval``, ``write_timeout`` as given), which must time
    out; the port is closed after."""
    settings = SerialSettings(str(port.path), write_timeout=options.pop("write_timeout", 2.0))
    try:
        with pytest.raises(TimeoutError) as timed_out:
            pair_over(
                lambda listener: SerialTransport(settings, listener, backoff=FAST_BACKOFF),
                DeviceKind.SHOE,
                "T1",
                timeout=timeout,
                **options,
            )
    finally:
        port.close()
    return timed_out.value


def requests_in(heard: queue.Queue[bytes]) -> float:
    """How many pairing requests (of a shoe, for table T1) the port took."""
    asked = b""
    while not heard.empty():
        asked += heard.get_nowait()
    return len(asked) / len(fb.StationPairing(DeviceKind.SHOE, "T1").request())


@pytest.mark.parametrize(("timeout", "interval"), [(0.3, 3.0), (0.5, 0.1)])
def test_a_port_that_opens_but_never_answers_times_out_at_the_timeout(
    tmp_path: Path, timeout: float, interval: float
) -> None:
    # Something is on the port (a device in the wrong mode, another kind of board) but it
    # never answers the pairing request: the technician gets the one-line timeout when the
    # timeout is up, whether it is shorter than the interval between requests (not after
    # the interval) or longer (asked again meanwhile), and never waits forever. Only a
    # generous upper bound is checked: a loaded CPU makes the call later, never earlier.
    heard: queue.Queue[bytes] = queue.Queue()
    silent = PtyPort(tmp_path / "ttySilent", heard.put)
    silent.plug()
    began = time.monotonic()
    error = times_out(silent, timeout, interval=interval)
    assert time.monotonic() - began < timeout + 1.5
    assert str(error) == f"no pairing answer from the shoe in {timeout} s"
    assert requests_in(heard) >= 1  # it was asked


def test_a_wedged_port_that_takes_no_request_times_out_in_one_line(tmp_path: Path) -> None:
    # The device stopped reading and the tty's buffer is full: each pairing request times
    # out on the write; pairing goes on asking until its timeout, then says so in one line.
    wedged = PtyPort(tmp_path / "ttyWedged", queue.Queue[bytes]().put)
    wedged.plug()
    wedged.stall(True)
    filler = os.open(os.path.realpath(wedged.path), os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK)
    # To the last byte, and again until a round takes nothing: the kernel moves what was
    # written on to the other end's buffer a moment later, making room again (under load a
    # single round left room, the request went out, and no write timed out).
    queued, before = 0, -1
    try:
        while queued != before:
            before = queued
            for chunk in (1024, 1):
                with contextlib.suppress(BlockingIOError):
                    while True:
                        queued += os.write(filler, b"\x00" * chunk)
            threading.Event().wait(0.05)
    finally:
        os.close(filler)
    error = times_out(wedged, 0.4, interval=0.1, write_timeout=0.05)
    assert str(error) == "no pairing answer from the shoe in 0.4 s"


def test_a_chattering_port_is_asked_once_an_interval_not_at_each_burst(tmp_path: Path) -> None:
    # A board that answers every request with bytes that are no pairing answer (line noise,
    # another protocol) is asked again only when the interval is up (3 s here, past the
    # timeout: one request, or two when the port is found open before it reports itself
    # up), not at each burst it sends (a storm of requests).
    heard: queue.Queue[bytes] = queue.Queue()

    def chatter(data: bytes) -> None:
        heard.put(data)
        noisy.write(b"\x55\xaa noise")

    noisy = PtyPort(tmp_path / "ttyNoisy", chatter)
    noisy.plug()
    times_out(noisy, 0.5, interval=3.0)
    assert 1 <= requests_in(heard) <= 2


def test_a_silent_device_is_asked_again_every_half_second(tmp_path: Path) -> None:
    # docs/operations.md: the command asks again every half second until --timeout; in 2 s
    # that is at 0, 0.5, 1.0 and 1.5 s at least (the first may go twice: once when the
    # port is found open, once more when it reports itself up), where a 1.5 s pace would
    # ask three times at most.
    heard: queue.Queue[bytes] = queue.Queue()
    silent = PtyPort(tmp_path / "ttySilent", heard.put)
    silent.plug()
    times_out(silent, 2.0)
    assert requests_in(heard) >= 4
