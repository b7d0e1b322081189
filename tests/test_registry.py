"""The device registry (``drivers.registry``) and what derives from it.

Each spec is consistent with the classes it names; the configuration, the drivers a
composition root builds, the doubles ``dealer-station doubles`` serves, the udev rules,
``examples/station.toml`` and docs/hardware.md follow the registry both ways; and the
choice of what stands for a device on a simulated rig refuses what a device does not have,
in one line.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import firmware_bridge as fb
from controller.service import config as cfg
from drivers.card_reader import CardReaderDriver
from drivers.device_link import ExpectedDevice
from drivers.errors import TransportError
from drivers.hal import FAULT_LAMPS, DeviceKind, DeviceLost, Led
from drivers.registry import (
    DEVICES,
    DriverParts,
    Implementation,
    Link,
    device_names,
    markdown_table,
    seed_offset,
    spec_for,
    spec_named,
)
from drivers.serial_transport import SerialSettings
from drivers.shoe import ShoeDriver
from drivers.simulated import serve
from drivers.simulated.rig import _chosen
from drivers.simulated.usb_backend import SimulatedUsbBackend, SimulatedUsbDevice, UsbIdentity
from drivers.usb_transport import UsbSettings
from firmware_bridge.codec import decode_message, encode_message
from firmware_bridge.link_messages import Hello

ROOT = Path(__file__).resolve().parents[1]


def test_every_kind_has_one_spec_and_one_code() -> None:
    assert [spec.kind for spec in DEVICES] == list(DeviceKind)
    assert len({kind.code for kind in DeviceKind}) == len(DeviceKind)
    assert all(0 < kind.code < 0x100 for kind in DeviceKind)
    assert len({spec.section for spec in DEVICES}) == len(DEVICES)
    for spec in DEVICES:
        assert spec_for(spec.kind) is spec and spec_named(spec.name) is spec
    assert spec_named("dice") is None


def test_the_hal_and_the_wire_name_a_kind_alike() -> None:
    # One class: the text the journal writes, the byte HELLO carries (docs/protocol.md).
    from drivers import hal

    assert hal.DeviceKind is fb.DeviceKind
    assert [(k.value, k.code) for k in DeviceKind] == [
        ("shuffler", 1),
        ("shoe", 2),
        ("card_reader", 3),
        ("panel", 4),
    ]
    hello = Hello(DeviceKind.CARD_READER, 7, bytes(16), "fw", "S")
    type_id, payload = encode_message(hello)
    assert payload[0] == 3  # the kind's byte leads the payload
    assert decode_message(type_id, payload) == hello


@pytest.mark.parametrize("spec", DEVICES, ids=[s.name for s in DEVICES])
def test_each_spec_names_classes_of_its_kind(spec: Any) -> None:
    assert spec.driver.KIND is spec.kind
    assert spec.double.KIND is spec.kind
    if spec.firmware is not None:
        assert spec.firmware.KIND is spec.kind
        assert spec.firmware.CONTROL == spec.double.CONTROL  # the same calls, either way
        assert spec.firmware.READABLE == spec.double.READABLE - spec.double.DOUBLE_ONLY
    assert spec.fault_lamp is FAULT_LAMPS.get(spec.kind)
    assert (spec.udev is None) == (spec.link is Link.USB)
    assert 0 <= seed_offset(spec.kind) < len(DEVICES)


@pytest.mark.parametrize("spec", DEVICES, ids=[s.name for s in DEVICES])
def test_each_spec_builds_its_driver(spec: Any) -> None:
    settings: SerialSettings | UsbSettings = (
        UsbSettings(0x1209, 0x5321, "S-1") if spec.link is Link.USB else SerialSettings("/dev/x")
    )
    driver = spec.make_driver(
        DriverParts(settings, lambda event: None, ExpectedDevice("S-1"), decks=6)
    )
    try:
        assert isinstance(driver, spec.driver)
    finally:
        driver.close()


def test_the_fault_lamps_are_lamps_of_known_devices() -> None:
    assert set(FAULT_LAMPS) <= set(DeviceKind)
    assert all(isinstance(lamp, Led) for lamp in FAULT_LAMPS.values())


def test_docs_hardware_shows_the_registry() -> None:
    text = (ROOT / "docs" / "hardware.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- registry: begin -->\n(.*?)\n<!-- registry: end -->", text, re.S)
    assert block is not None, "docs/hardware.md has no registry table"
    assert block.group(1) == markdown_table()


def test_the_example_configuration_has_every_device_and_nothing_else() -> None:
    text = (ROOT / "examples" / "station.toml").read_text(encoding="utf-8")
    sections = set(re.findall(r"^\[devices\.(\w+)\]", text, re.M))
    declared = {spec.section for spec in DEVICES} | {
        spec.gpio_section for spec in DEVICES if spec.gpio_section
    }
    assert sections <= declared
    for spec in DEVICES:
        assert {spec.section, spec.gpio_section} & sections, f"no [devices.{spec.section}]"
    config = cfg.load_config(ROOT / "examples" / "station.toml")
    assert set(config.devices.configured) == {spec.kind for spec in DEVICES}


def test_the_udev_rules_name_every_serial_device_and_no_other() -> None:
    rules = (ROOT / "systemd" / "99-dealer-station.rules").read_text(encoding="utf-8")
    links = set(re.findall(r'SYMLINK\+="([\w-]+)"', rules))
    assert links == {spec.udev for spec in DEVICES if spec.udev}


def test_a_section_no_device_declares_is_refused() -> None:
    data = {
        "table_id": "T",
        "profile": "NJ",  # no peek without the licensee's card reader (NJ 19.7(i))
        "decks": 6,
        "devices": {
            "shoe": {"port": "/dev/dealer-shoe", "serial": "S", "firmware": ["v1"]},
            "panel_board": {"port": "/dev/dealer-panel", "serial": "P", "firmware": ["v1"]},
            "dice_tower": {"port": "/dev/ttyUSB9", "serial": "D", "firmware": ["v1"]},
        },
    }
    with pytest.raises(cfg.ConfigError, match=r"devices\.dice_tower: unknown key"):
        cfg.parse_config(data, Path("station.toml"))
    del data["devices"]["dice_tower"]  # type: ignore[attr-defined]
    config = cfg.parse_config(data, Path("station.toml"))
    assert list(config.devices.configured) == [DeviceKind.SHOE, DeviceKind.PANEL]


def test_doubles_serves_every_serial_device_and_offers_its_c_firmware() -> None:
    assert set(serve.KINDS) == {s.name for s in DEVICES if s.link is Link.SERIAL}
    import argparse

    parser = argparse.ArgumentParser()
    serve.add_arguments(parser)
    args = parser.parse_args(["--control", "/tmp/c", "--shoe-implementation", "host"])
    assert args.shoe_implementation == "host" and args.panel_implementation == "python"
    for spec in DEVICES:
        if spec.link is Link.SERIAL and spec.firmware is None:
            with pytest.raises(SystemExit):
                parser.parse_args(["--control", "/tmp/c", f"--{spec.name}-implementation", "host"])


def test_a_c_firmware_is_never_served_with_a_secret(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="the C firmware pairs over its link"):
        serve.start_doubles(
            {"shoe": f"pty:{tmp_path / 'shoe'}"},
            secrets={"shoe": bytes(32)},
            implementations={"shoe": Implementation.HOST},
        )


IMPLEMENTATIONS = st.dictionaries(
    st.sampled_from(list(DeviceKind)), st.sampled_from(Implementation)
)


@settings(max_examples=200, deadline=None)
@given(
    firmware=st.one_of(st.none(), st.sampled_from(["host", "qemu"]), st.text(max_size=6)),
    chosen=IMPLEMENTATIONS,
)
def test_what_stands_for_each_device_is_its_own_or_one_line(
    firmware: str | None, chosen: dict[DeviceKind, Implementation]
) -> None:
    try:
        result = _chosen(firmware, chosen)
    except ValueError as err:
        assert "\n" not in str(err)
        bad_firmware = firmware not in (None, "host", "qemu")
        lacking = [k for k, how in chosen.items() if how not in spec_for(k).implementations]
        assert bad_firmware or lacking
        return
    for kind, how in result.items():
        assert how in spec_for(kind).implementations
    for kind, how in chosen.items():
        assert result[kind] is how  # one device's choice stands over --devices
    if firmware is not None:
        for spec in DEVICES:
            if spec.firmware is not None and spec.kind not in chosen:
                assert result[spec.kind] is Implementation(firmware)


def _parts(spec: Any, events: list[object], **extra: Any) -> DriverParts:
    settings: SerialSettings | UsbSettings = (
        UsbSettings(0x1209, 0x5321, "S-1")
        if spec.link is Link.USB
        else SerialSettings(f"/dev/dealer-{spec.name}")
    )
    return DriverParts(settings, events.append, ExpectedDevice("S-1"), decks=6, **extra)


@pytest.mark.parametrize("spec", DEVICES, ids=[s.name for s in DEVICES])
def test_the_driver_a_spec_builds_is_wired_as_the_composition_root_says(spec: Any) -> None:
    # The port configured, the table's event sink, the link options: a driver built with
    # any of them dropped talks to the wrong port, to nobody, or with default timers.
    events: list[object] = []
    parts = _parts(spec, events)
    driver = spec.make_driver(parts)
    try:
        assert driver.transport.settings is parts.settings
        driver.link_down(TransportError("cable pulled"))  # what the transport reports
        assert events == [DeviceLost(spec.kind, "cable pulled")]
    finally:
        driver.close()
    # Options reach the driver's constructor: one it does not take is refused there.
    with pytest.raises(TypeError, match="no_such_option"):
        spec.make_driver(_parts(spec, [], options={"no_such_option": 1}))


def test_the_shoe_counts_copies_against_the_tables_batch() -> None:
    driver = spec_for(DeviceKind.SHOE).make_driver(_parts(spec_for(DeviceKind.SHOE), []))
    assert isinstance(driver, ShoeDriver)
    try:
        assert driver.decks == 6  # NY 5324.12(a): six or eight Spanish decks
    finally:
        driver.close()


def test_the_card_reader_is_looked_for_on_the_bus_it_is_given() -> None:
    # A simulated bus with the configured reader on it: the driver opens that device (on
    # the system's bus, where no such reader is plugged, it would never open).
    backend = SimulatedUsbBackend()
    backend.add(SimulatedUsbDevice(UsbIdentity(0x1209, 0x5321, "S-1"), lambda data: None))
    spec = spec_for(DeviceKind.CARD_READER)
    driver = spec.make_driver(_parts(spec, [], usb_backend=backend))
    assert isinstance(driver, CardReaderDriver)
    driver.start()
    try:
        deadline = time.monotonic() + 5.0
        while not driver.transport.is_open and time.monotonic() < deadline:
            time.sleep(0.01)
        assert driver.transport.is_open
    finally:
        driver.close()


def test_settings_of_the_wrong_link_are_refused_by_name() -> None:
    serial = DriverParts(SerialSettings("/dev/x"), lambda e: None, ExpectedDevice("S"), decks=6)
    usb = DriverParts(UsbSettings(1, 2, "S"), lambda e: None, ExpectedDevice("S"), decks=6)
    with pytest.raises(TypeError, match=r"^expected USB settings, got SerialSettings$"):
        serial.usb()
    with pytest.raises(TypeError, match=r"^expected serial settings, got UsbSettings$"):
        usb.serial()


def test_the_device_names_are_listed_in_the_registrys_order() -> None:
    # `dealer-station pair`'s help and its error for an unknown device list these.
    assert device_names() == "shuffler, shoe, card_reader, panel"
