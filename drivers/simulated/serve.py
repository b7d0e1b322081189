"""Device doubles in their own process: ``dealer-station doubles`` (or
``python -m drivers.simulated.serve``).

Each serial device of the registry (``drivers.registry``: the shoe, shuffler and panel
board) is served by its double, the same class the in-process rig uses, or with
``--KIND-implementation host|qemu`` by its C firmware where one exists (``firmware/``: its
host build, or its Cortex-M image on an emulated board, through the same control calls).
Each speaks the real wire protocol over a byte stream given on the command line:

* ``pty:PATH``: a pseudo-terminal the process creates, published as a symlink at ``PATH``
  (the station opens ``PATH`` with pyserial);
* ``unix:PATH``: a unix socket the double *serves* (binds ``PATH``; QEMU connects as the
  client with ``-chardev socket,id=ID,path=PATH,reconnect=1``);
* ``unix-connect:PATH``: a unix socket the double *connects to* (QEMU serves it with
  ``-chardev socket,id=ID,path=PATH,server=on,wait=off``); retried until it exists.

A control socket (``--control PATH``) takes one JSON object per line and answers one per
line: ``{"device": "shoe", "call": "deal"}`` -> ``{"ok": true, "result": "7S"}``
(:mod:`drivers.simulated.serve_control` says what it may ask;
:mod:`drivers.simulated.serve_client` is the client).

When every port and the control socket are up, the process prints one JSON line on stdout
(``{"ready": true, "control": ..., "devices": {"shoe": {"endpoint": ..., "serial": ...,
"tty": ...}}}``; ``tty`` is the pty's own /dev/pts path), then serves until SIGTERM or
SIGINT.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import sys
import threading
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any, Final

import firmware_bridge as fb
from drivers.registry import DEVICES, Implementation, Link
from drivers.simulated.c_device import FirmwareDevice
from drivers.simulated.c_firmware import FirmwareError
from drivers.simulated.firmware import DEFAULT_FIRMWARE
from drivers.simulated.pty_port import PtyPort
from drivers.simulated.rig import FAST_TIMING
from drivers.simulated.serial_device import BytePort, PortFactory, SerialDeviceDouble
from drivers.simulated.serve_control import Controlled, ControlServer, Doubles
from drivers.simulated.socket_port import SocketPort

#: The devices this process can serve: every serial device of the registry (a USB double
#: needs the station's own pyusb backend).
SERVED: Final = {spec.name: spec for spec in DEVICES if spec.link is Link.SERIAL}
KINDS: Final = tuple(SERVED)
DEFAULT_SERIALS: Final = {name: spec.serial_number for name, spec in SERVED.items()}


def station_sections(ports: Mapping[str, Path | str], serials: Mapping[str, str]) -> str:
    """The ``[devices.<section>]`` tables of ``station.toml`` for the doubles served at
    ``ports`` (kind's text -> the path the station opens), each reporting its serial in
    ``serials`` and the doubles' firmware version."""
    return "".join(
        f'\n[devices.{SERVED[kind].section}]\nport = "{port}"\nserial = "{serials[kind]}"\n'
        f'firmware = ["{DEFAULT_FIRMWARE}"]\n'
        for kind, port in ports.items()
    )


# --- endpoints ----------------------------------------------------------------------------


def port_factory(spec: str) -> tuple[Path, PortFactory]:
    """The path and port factory of an endpoint ``pty:PATH``, ``unix:PATH`` or
    ``unix-connect:PATH``.

    Raises:
        ValueError: for any other form (one line).
    """
    scheme, sep, path = spec.partition(":")
    if not sep or not path:
        raise ValueError(f"{spec!r}: expected pty:PATH, unix:PATH or unix-connect:PATH")

    def pty(
        p: Path, on_data: Callable[[bytes], float | None], on_tick: Callable[[], float | None]
    ) -> BytePort:
        return PtyPort(p, on_data, on_tick=on_tick)

    def sock(
        listen: bool,
        p: Path,
        on_data: Callable[[bytes], float | None],
        on_tick: Callable[[], float | None],
    ) -> BytePort:
        return SocketPort(p, on_data, on_tick=on_tick, listen=listen)

    factories: dict[str, PortFactory] = {
        "pty": pty,
        "unix": partial(sock, True),
        "unix-connect": partial(sock, False),
    }
    if scheme not in factories:
        raise ValueError(f"{spec!r}: unknown endpoint kind {scheme!r} (pty, unix, unix-connect)")
    return Path(path), factories[scheme]


# --- the process --------------------------------------------------------------------------


def start_doubles(
    endpoints: Mapping[str, str],
    serials: Mapping[str, str] | None = None,
    *,
    timing: fb.Timing | None = None,
    seed: int = 0,
    secrets: Mapping[str, bytes] | None = None,
    seeds: Mapping[str, int] | None = None,
    implementations: Mapping[str, Implementation] | None = None,
) -> Doubles:
    """Start a double of each kind in ``endpoints`` (kind -> endpoint spec); ``secrets``:
    the pairing secrets of doubles that start already paired (others pair over the link,
    their pairing button held through the control socket); ``seeds``: a double's own seed
    (default ``seed`` plus its place in ``endpoints``); ``implementations``: a device served
    as its C firmware (``host`` or ``qemu``) rather than its Python double.

    Raises:
        ValueError: for an unknown kind, a malformed endpoint, an implementation the device
            does not have, or a secret for a C firmware (it pairs over its link; one line).
    """
    started: dict[str, Controlled] = {}
    try:
        for offset, (kind, where) in enumerate(endpoints.items()):
            spec = SERVED.get(kind)
            if spec is None:
                raise ValueError(f"unknown device {kind!r} ({', '.join(KINDS)})")
            path, factory = port_factory(where)
            serial = (serials or {}).get(kind, DEFAULT_SERIALS[kind])
            own_seed = (seeds or {}).get(kind, seed + offset)
            secret = (secrets or {}).get(kind)
            how = (implementations or {}).get(kind, Implementation.PYTHON)
            if how not in spec.implementations:
                raise ValueError(f"the {kind} has no {how.value} implementation")
            if how is Implementation.PYTHON:
                double = spec.double
                assert issubclass(double, SerialDeviceDouble), double
                started[kind] = double(
                    path, serial, port_factory=factory, timing=timing, seed=own_seed, secret=secret
                )
                continue
            assert spec.firmware is not None
            if secret is not None:
                raise ValueError(f"--{kind}-secret: the C firmware pairs over its link")
            runner = None
            if how is Implementation.QEMU:
                from drivers.simulated.qemu_board import QemuRunner

                runner = QemuRunner(spec.firmware.NAME)
            started[kind] = spec.firmware(
                path, serial, port_factory=factory, timing=timing, seed=own_seed, runner=runner
            )
    except BaseException:
        Doubles(started).close()
        raise
    return Doubles(started)


#: A serial number as a HELLO carries it and a configuration names it: printable ASCII.
SERIAL: Final = re.compile(r"[\x21-\x7E]([\x20-\x7E]{0,30}[\x21-\x7E])?")
SECRET_BYTES: Final = 32


def _serial(text: str) -> str:
    if not SERIAL.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a serial number (1-32 printable ASCII characters)"
        )
    return text


def _secret(text: str) -> bytes:
    try:
        secret = bytes.fromhex(text)
    except ValueError:
        raise argparse.ArgumentTypeError("a pairing secret is 64 hex digits") from None
    if len(secret) != SECRET_BYTES:
        raise argparse.ArgumentTypeError(
            f"a pairing secret is {SECRET_BYTES} bytes (64 hex digits), not {len(secret)}"
        )
    return secret


def path_problem(endpoints: Mapping[str, str], control: Path) -> str:
    """What is wrong with where the doubles would publish (``""``: nothing): a path named
    twice, or one that exists already (a pty's symlink, a listening socket or the control
    socket would replace it). ``unix-connect:`` paths must exist: the double connects."""
    seen: dict[str, str] = {}
    for kind, spec in [*endpoints.items(), ("control", f"control:{control}")]:
        scheme, _, path = spec.partition(":")
        real = os.path.realpath(path)
        if real in seen:
            return f"{path} is named for {seen[real]} and {kind}: one path a device"
        seen[real] = kind
        if scheme != "unix-connect" and os.path.lexists(path):
            return f"{path} exists: the {kind} double does not replace it (remove it first)"
    return ""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``dealer-station doubles``."""
    for kind, spec in SERVED.items():
        parser.add_argument(
            f"--{kind}", metavar="ENDPOINT", help="pty:PATH, unix:PATH or unix-connect:PATH"
        )
        if spec.firmware is not None:
            parser.add_argument(
                f"--{kind}-implementation",
                choices=[how.value for how in spec.implementations],
                default=Implementation.PYTHON.value,
                help="its Python double (default), or its C firmware: the host build or the"
                " Cortex-M image on an emulated board (make -C firmware)",
            )
        parser.add_argument(
            f"--{kind}-serial",
            metavar="SERIAL",
            type=_serial,
            default=DEFAULT_SERIALS[kind],
            help="the serial number its HELLO reports (1-32 printable ASCII characters)",
        )
        parser.add_argument(
            f"--{kind}-secret",
            metavar="HEX",
            type=_secret,
            help="start already paired with this 32-byte secret (64 hex digits)",
        )
    parser.add_argument(
        "--control", type=Path, required=True, metavar="PATH", help="control socket (JSON lines)"
    )
    parser.add_argument(
        "--timing",
        choices=("standard", "fast"),
        default="standard",
        help="protocol timers: the station's defaults, or the simulated rig's fast ones",
    )
    parser.add_argument("--seed", type=int, default=0)


def run(args: argparse.Namespace) -> int:
    """Serve the doubles until SIGTERM or SIGINT; 2 with one line for bad arguments."""
    endpoints = {k: getattr(args, k) for k in KINDS if getattr(args, k)}
    if not endpoints:
        names = ", ".join(f"--{kind}" for kind in KINDS)
        print(f"dealer-station doubles: name at least one of {names}", file=sys.stderr)
        return 2
    for spec in endpoints.values():
        try:
            port_factory(spec)
        except ValueError as err:
            print(f"dealer-station doubles: {err}", file=sys.stderr)
            return 2
    problem = path_problem(endpoints, args.control)
    if problem:
        print(f"dealer-station doubles: {problem}", file=sys.stderr)
        return 2
    serials = {k: getattr(args, f"{k}_serial") for k in KINDS}
    secrets = {k: getattr(args, f"{k}_secret") for k in KINDS if getattr(args, f"{k}_secret")}
    timing = FAST_TIMING if args.timing == "fast" else None
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    implementations = {
        k: Implementation(getattr(args, f"{k}_implementation"))
        for k, spec in SERVED.items()
        if spec.firmware is not None
    }
    try:
        doubles = start_doubles(
            endpoints,
            serials,
            timing=timing,
            seed=args.seed,
            secrets=secrets,
            implementations=implementations,
        )
    except (ValueError, OSError, FirmwareError) as err:
        print(f"dealer-station doubles: {err}", file=sys.stderr)
        return 2
    try:
        server = ControlServer(args.control, doubles)
    except OSError as err:
        doubles.close()
        print(f"dealer-station doubles: {args.control}: {err.strerror}", file=sys.stderr)
        return 2
    thread = threading.Thread(target=server.serve_forever, name="control", daemon=True)
    thread.start()
    print(json.dumps(ready_line(doubles, endpoints, args.control)), flush=True)
    try:
        stop.wait()
    finally:
        server.shutdown()
        server.server_close()
        args.control.unlink(missing_ok=True)
        doubles.close()
    return 0


def ready_line(doubles: Doubles, endpoints: Mapping[str, str], control: Path) -> dict[str, Any]:
    """What the process prints once it serves."""
    devices: dict[str, Any] = {}
    for kind, double in doubles.doubles.items():
        entry: dict[str, Any] = {"endpoint": endpoints[kind], "serial": double.serial_number}
        port = double.port if isinstance(double, SerialDeviceDouble | FirmwareDevice) else None
        if isinstance(port, PtyPort):
            entry["tty"] = str(port.path.resolve())
        devices[kind] = entry
    return {"ready": True, "control": str(control), "devices": devices}


def main() -> int:
    """``python -m drivers.simulated.serve``."""
    parser = argparse.ArgumentParser(prog="python -m drivers.simulated.serve",
                                     description=__doc__.splitlines()[0])  # fmt: skip
    add_arguments(parser)
    return run(parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
