"""``dealer-station pair DEVICE``: pair a device with this station (its link's secret).

Run it with the station stopped (the device's port must be free), as root or the service
user, with the supervisor key turned on (read from the panel's key line) and the device's
pairing button held (the device refuses otherwise): three things a wire under the table
does not have. The device and the station agree on a secret by X25519 over the device's
own link (``firmware_bridge.pairing``); the station writes it 0600 in the pairing
directory (``[pairing] directory``, docs/operations.md). The command waits ``--timeout``
seconds for the device's consent and needs nothing on stdin, so scripts can run it.

A panel board (``[devices.panel_board]``) is paired the same way, except that the board
itself reads its key switch: it consents only with its pairing button held and its key
turned on, so the station's GPIO key line is not read (there is none).

Exit status: 0 paired; 2 a usage or configuration problem (one line on stderr); 3 the
device refused or did not answer, or the supervisor key is off.
"""

from __future__ import annotations

import argparse
import os
import pwd
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.cli.journal_verify import one_line
from controller.service.config import DEFAULT_CONFIG_PATH, StationConfig, load_config
from controller.service.config_schema import ConfigError

if TYPE_CHECKING:
    from drivers.registry import DeviceSpec

EXIT_USAGE = 2
EXIT_REFUSED = 3
SERVICE_USER = "dealer-station"


class PairError(Exception):
    """Pairing cannot go ahead; the message is one line, ``code`` the exit status."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """DEVICE, the configuration, the wait for the device's consent."""
    from drivers.registry import device_names

    parser.add_argument("device", metavar="DEVICE", help=f"one of {device_names()}")
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG_PATH, metavar="FILE")
    parser.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="how long to wait for the device's pairing button (default 60)",
    )
    parser.add_argument(
        "--without-key-switch",
        action="store_true",
        help="a station with no GPIO key line (a test rig): skip the supervisor key check",
    )


def run(args: argparse.Namespace) -> int:
    """Pair, store the secret; see the module docstring for the exit status."""
    try:
        path = pair(args)
    except ConfigError as err:
        print(f"dealer-station pair: {err}", file=sys.stderr)
        return EXIT_USAGE
    except PairError as err:
        print(f"dealer-station pair: {one_line(str(err))}", file=sys.stderr)
        return err.code
    print(f"dealer-station pair: {args.device} paired; secret written to {path}")
    return 0


def pair(args: argparse.Namespace) -> Path:
    """Do the pairing of ``args.device``; return where the secret was written.

    Raises:
        ConfigError: the configuration is bad.
        PairError: anything else that stops the pairing (one line, with its exit status).
    """
    import firmware_bridge as fb
    from drivers.errors import DriverError
    from drivers.pairing import PairedDevice, PairingStore, pair_over
    from drivers.registry import Pairing, device_names, spec_named

    spec = spec_named(args.device)
    if spec is None:
        raise PairError(f"unknown device {args.device!r}: one of {device_names()}")
    if not 0 < args.timeout <= 3600:
        raise PairError(f"--timeout {args.timeout}: between 0 and 3600 seconds")
    config = load_config(args.config)
    _check_user()
    if spec.pairing is Pairing.OWN_KEY:
        _check_board(config, spec)  # the board checks its own key switch (docs/panel.md)
    elif not args.without_key_switch:
        _check_supervisor_key(config)
    kind = spec.kind
    make_transport, serial_number = _transport_for(config, spec)
    print(
        f"dealer-station pair: hold the pairing button on the {args.device} "
        f"(waiting {args.timeout:g} s)",
        file=sys.stderr,
    )
    try:
        result = pair_over(make_transport, kind, config.table_id, timeout=args.timeout)
    except fb.PairingError as err:
        raise PairError(f"the {args.device} refused: {err}", EXIT_REFUSED) from err
    except TimeoutError as err:
        raise PairError(str(err), EXIT_REFUSED) from err
    if result.device.serial_number != serial_number:
        raise PairError(
            f"the {args.device} reports serial {result.device.serial_number!r}, "
            f"configured {serial_number!r}: nothing written",
            EXIT_REFUSED,
        )
    store = PairingStore(config.pairing.directory)
    try:
        return store.save(args.device, PairedDevice(serial_number, result.secret))
    except DriverError as err:
        raise PairError(str(err)) from err


def _check_user() -> None:
    euid = os.geteuid()
    if euid == 0:
        return
    try:
        name = pwd.getpwuid(euid).pw_name
    except KeyError:
        name = str(euid)
    if name != SERVICE_USER:
        raise PairError(f"run as root or {SERVICE_USER}, not {name}")


def _check_supervisor_key(config: StationConfig) -> None:
    """The supervisor key must be on: read from the GPIO panel's key line (a physical
    line, never a frame from a device)."""
    from controller.service.config_panel import PanelConfig
    from drivers.panel import read_supervisor_key

    panel = config.devices.panel
    if not isinstance(panel, PanelConfig):
        # A panel board's key reaches the station only in the board's authenticated frames,
        # which a station that is not running does not read.
        raise PairError(
            "pairing reads the supervisor key from the GPIO panel's key line; this table's panel"
            " is a serial panel board: pair from a station with the GPIO key wired",
            EXIT_REFUSED,
        )
    try:
        on = read_supervisor_key(panel.supervisor_key)
    except Exception as err:  # gpiozero raises its own errors where there is no GPIO
        import gpiozero

        if isinstance(err, gpiozero.BadPinFactory):
            raise PairError(
                "cannot read the supervisor key switch: no GPIO on this machine"
                " (--without-key-switch on a test rig)"
            ) from err
        raise PairError(f"cannot read the supervisor key switch: {err}") from err
    if not on:
        raise PairError("turn the supervisor key on to pair a device", EXIT_REFUSED)


def _check_board(config: StationConfig, spec: DeviceSpec) -> None:
    from controller.service.config_panel import PanelConfig

    if isinstance(config.devices.get(spec.kind), PanelConfig):
        raise PairError(
            f"this table's {spec.name} is wired to GPIO: there is no {spec.name} board to pair"
        )


def _transport_for(config: StationConfig, spec: DeviceSpec) -> tuple[Any, str]:
    from controller.service.config_devices import SerialDevice, UsbDevice, link_settings
    from drivers.serial_transport import SerialSettings, SerialTransport
    from drivers.usb_transport import UsbTransport

    device = config.devices.get(spec.kind)
    if not isinstance(device, SerialDevice | UsbDevice):
        raise PairError(f"no [devices.{spec.name}] in the configuration")
    settings = link_settings(device)
    if isinstance(settings, SerialSettings):
        return (lambda listener: SerialTransport(settings, listener)), device.serial_number
    return (lambda listener: UsbTransport(settings, listener)), device.serial_number
