"""The Raspberry Pi image's recipe (pi-image/) and the Pi's realities it configures, checked
without building it: seconds. Building and booting it is vm_tests/test_boot_arm64.py.

- UART: config.txt gets enable_uart=1 and Bluetooth off the PL011; udev names ttyAMA0; a GPIO
  panel may not use GPIO 14/15 while a device is on that UART (check-config).
- Watchdog: dtparam=watchdog=on and a RuntimeWatchdogSec= within the BCM2835's 15 s.
- SD card: the root read-only, logs in RAM, the journal on its own partition.
- GPIO: the panel's documented pin map (examples/station.toml, docs/hardware.md) on gpiozero's
  mock factory, every button and lamp on its pin.
"""

from __future__ import annotations

import queue
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory
from hypothesis import given
from hypothesis import strategies as st

from controller.service.config import load_config, parse_config
from controller.service.config_panel import UART_PORTS, PanelConfig
from controller.service.config_schema import ConfigError
from drivers.hal import Button, ButtonPressed, DeviceConnected, DeviceEvent, Led, LedMode
from drivers.panel import GpioPanel, PanelPins

ROOT = Path(__file__).resolve().parent.parent
RECIPE = ROOT / "pi-image"
ETC = RECIPE / "rootfs" / "etc"
EXAMPLE = ROOT / "examples" / "station.toml"
#: The BCM2835 watchdog's longest timeout (its driver's max_timeout), in seconds.
BCM2835_MAX_TIMEOUT = 15


def settings(path: Path) -> dict[str, str]:
    """``key=value`` lines of a config file (comments and sections left out)."""
    pairs = (line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)
    return {k.strip(): v.strip() for k, v in pairs if not k.lstrip().startswith("#")}


def test_config_txt_gets_the_uart_without_bluetooth_and_the_watchdog() -> None:
    lines = [
        line.strip()
        for line in (ETC / "default" / "raspi-firmware-custom").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert "enable_uart=1" in lines
    assert {"dtoverlay=disable-bt", "dtoverlay=miniuart-bt"} & set(lines)
    assert "dtparam=watchdog=on" in lines
    # raspi-firmware appends this file only when it writes config.txt: setup.sh checks it did.
    setup = (RECIPE / "setup.sh").read_text()
    assert "grep -q '^enable_uart=1'" in setup and "grep -q '^dtparam=watchdog=on'" in setup


def test_no_console_or_getty_on_the_uart() -> None:
    setup = (RECIPE / "setup.sh").read_text()
    assert 'CONSOLES="tty0"' in setup
    assert "serial-getty@ttyAMA0.service" in setup


def test_udev_names_the_header_uart_for_the_station() -> None:
    rule = (ETC / "udev" / "rules.d" / "90-dealer-station-uart.rules").read_text()
    line = next(r for r in rule.splitlines() if r and not r.startswith("#"))
    assert 'KERNEL=="ttyAMA0"' in line and 'SYMLINK+="dealer-uart"' in line
    assert 'GROUP="dialout"' in line and 'MODE="0660"' in line
    assert "/dev/dealer-uart" in UART_PORTS


def test_systemd_feeds_the_hardware_watchdog_within_its_range() -> None:
    watchdog = settings(ETC / "systemd" / "system.conf.d" / "dealer-station-watchdog.conf")
    seconds = int(watchdog["RuntimeWatchdogSec"].removesuffix("s"))
    assert 0 < seconds < BCM2835_MAX_TIMEOUT


def test_logs_stay_in_ram_and_are_rate_limited() -> None:
    journald = settings(ETC / "systemd" / "journald.conf.d" / "dealer-station-sd-card.conf")
    assert journald["Storage"] == "volatile"
    assert journald["ForwardToSyslog"] == "no"
    assert int(journald["RateLimitBurst"]) > 0 and journald["RateLimitIntervalSec"]


def test_the_root_is_read_only_and_the_journal_has_its_own_partition() -> None:
    mounts = {}
    for line in (ETC / "fstab").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            source, target, kind, options, *_ = line.split()
            mounts[target] = (source, kind, options.split(","))
    assert mounts["/"][0] == "LABEL=RASPIROOT" and "ro" in mounts["/"][2]
    assert "ro" in mounts["/boot/firmware"][2]
    assert mounts["/srv/table"][0] == "LABEL=DSDATA" and "rw" in mounts["/srv/table"][2]
    assert mounts["/var/lib/dealer-station"][0] == "/srv/table/dealer-station"
    assert "bind" in mounts["/var/lib/dealer-station"][2]
    assert mounts["/var/lib/systemd/timesync"][0] == "/srv/table/timesync"
    assert mounts["/tmp"][1] == "tmpfs" and mounts["/var/tmp"][1] == "tmpfs"


def _config(shoe_port: str, panel: str | None = None) -> str:
    text = EXAMPLE.read_text().replace('port = "/dev/dealer-shoe"', f'port = "{shoe_port}"')
    assert shoe_port in text
    if panel is not None:
        start = text.index("\n[devices.panel]\n") + 1
        after = text.find("\n[", text.index("[devices.panel.leds]"))
        text = text[:start] + panel + (text[after:] if after >= 0 else "\n")
    return text


def test_check_config_refuses_a_gpio_panel_on_the_uart_a_device_uses(tmp_path: Path) -> None:
    config = tmp_path / "station.toml"
    config.write_text(_config("/dev/dealer-uart"))
    with pytest.raises(ConfigError) as refused:
        load_config(config)
    message = str(refused.value)
    assert "\n" not in message
    assert "GPIO14 (leds.bets) and GPIO15 (leds.deal)" in message
    assert "devices.shoe uses (/dev/dealer-uart)" in message
    # The same panel with the shoe on USB is fine: nothing uses the UART.
    config.write_text(_config("/dev/dealer-shoe"))
    assert isinstance(load_config(config).devices.panel, PanelConfig)


UART_OR_NOT = [*sorted(UART_PORTS), "/dev/dealer-shoe", "/dev/ttyUSB0", "/dev/ttyAMA1"]
#: Ten buttons away from the pins drawn below.
BUTTONS = "".join(f"{b.value} = {pin}\n" for b, pin in zip(Button, range(2, 12), strict=True))


@given(st.sampled_from(UART_OR_NOT), st.sets(st.sampled_from([13, 14, 15, 16]), max_size=4))
def test_the_uart_check_refuses_exactly_gpio_14_and_15_beside_a_uart_device(
    port: str, lamps: set[int]
) -> None:
    names = ("peek", "dealer", "pay", "push")
    leds = "".join(f"{name} = {pin}\n" for name, pin in zip(names, sorted(lamps), strict=False))
    panel = (
        "[devices.panel]\nsupervisor_key = 26\n"
        f"[devices.panel.buttons]\n{BUTTONS}[devices.panel.leds]\n{leds}"
    )
    data = tomllib.loads(_config(port, panel))
    refused = port in UART_PORTS and bool(lamps & {14, 15})
    try:
        parse_config(data, Path("station.toml"))
    except ConfigError as err:
        assert refused, err
        assert "\n" not in str(err)
    else:
        assert not refused


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    mock = MockFactory()
    yield mock
    mock.reset()


def test_the_documented_pin_map_drives_every_button_and_lamp(factory: MockFactory) -> None:
    """The example configuration's pins (docs/hardware.md's map, what the image documents)
    on gpiozero's mock factory: each button pressed on its pin is that button, each lamp
    lights its pin."""
    config = load_config(EXAMPLE)
    assert isinstance(config.devices.panel, PanelConfig)
    wired = config.devices.panel
    doc = (ROOT / "docs" / "hardware.md").read_text()
    for led, pin in wired.leds.items():
        assert re.search(rf"^\| lamp {led.value.replace('_', ' ')} \| {pin} \|", doc, re.M), led
    events: queue.Queue[DeviceEvent] = queue.Queue()
    pins = PanelPins(dict(wired.leds), dict(wired.buttons), wired.supervisor_key, {})
    panel = GpioPanel(pins, events.put, pin_factory=factory, debounce=0.0)
    panel.start()
    try:
        assert isinstance(events.get(timeout=5), DeviceConnected)
        factory.pin(wired.supervisor_key).drive_low()  # key on: the supervisor buttons count
        for pin in wired.buttons.values():
            factory.pin(pin).drive_low()
            factory.pin(pin).drive_high()
        pressed = []
        while not events.empty():
            event = events.get_nowait()
            if isinstance(event, ButtonPressed):
                pressed.append(event.button)
        assert pressed == list(wired.buttons)
        panel.show(dict.fromkeys(wired.leds, LedMode.STEADY))
        assert all(factory.pin(pin).state for pin in wired.leds.values())
        panel.show({Led.DEAL: LedMode.STEADY})
        assert [led for led, pin in wired.leds.items() if factory.pin(pin).state] == [Led.DEAL]
    finally:
        panel.close()
