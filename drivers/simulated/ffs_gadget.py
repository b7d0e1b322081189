"""The card-reader double as a real USB device: a Linux USB gadget on FunctionFS.

``python -m drivers.simulated.ffs_gadget`` (root, Linux) builds a configfs gadget with the
reader's vendor/product ids and serial number and one vendor-specific interface with a
bulk IN and a bulk OUT endpoint (FunctionFS), binds it to a USB device controller (the
``dummy_hcd`` loopback in the boot test's VM, or a board's own UDC) and serves it with
:class:`drivers.simulated.card_reader.CardReaderDouble`: the station's pyusb driver on the
same machine then talks to it through the real kernel USB stack (libusb, usbfs, udev,
the unit's device policy). The descriptors follow the kernel's ``ffs-test.c``.

It serves the same JSON-lines control socket as :mod:`drivers.simulated.serve`, with the
device named ``reader`` (``set_hole_card``, ``misread``, ``get checks``), and prints one
JSON line once bound; SIGTERM unbinds and removes the gadget.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import queue
import signal
import struct
import subprocess
import sys
import threading
from pathlib import Path
from typing import Final

from drivers.simulated.card_reader import CardReaderDouble
from drivers.simulated.serve_control import ControlServer, Doubles

GADGETS: Final = Path("/sys/kernel/config/usb_gadget")
UDCS: Final = Path("/sys/class/udc")
FUNCTION: Final = "reader"
DESCRIPTORS_MAGIC_V2: Final = 3
STRINGS_MAGIC: Final = 2
HAS_FS_DESC, HAS_HS_DESC = 1, 2
EVENT_SIZE: Final = 12  # struct usb_functionfs_event
ENABLE, DISABLE = 2, 3
_BACKLOG: Final = 64  # frames kept for the station while it does not read


def descriptors() -> bytes:
    """FunctionFS v2 descriptors: one vendor interface, bulk IN (ep1) and OUT (ep2)."""

    def interface() -> bytes:
        return struct.pack("<BBBBBBBBB", 9, 4, 0, 0, 2, 0xFF, 0, 0, 1)

    def endpoint(address: int, packet: int) -> bytes:
        return struct.pack("<BBBBHB", 7, 5, address, 2, packet, 0)

    full = interface() + endpoint(0x81, 64) + endpoint(0x02, 64)
    high = interface() + endpoint(0x81, 512) + endpoint(0x02, 512)
    body = struct.pack("<II", 3, 3) + full + high
    return struct.pack("<III", DESCRIPTORS_MAGIC_V2, 12 + len(body), HAS_FS_DESC | HAS_HS_DESC) + (
        body
    )


def strings(interface_name: str = "hole-card reader") -> bytes:
    """FunctionFS strings: US English, the interface's name."""
    text = interface_name.encode() + b"\0"
    body = struct.pack("<IIH", 1, 1, 0x0409) + text
    return struct.pack("<II", STRINGS_MAGIC, 8 + len(body)) + body


class Gadget:
    """The configfs gadget and its FunctionFS mount (see the module docstring)."""

    def __init__(self, name: str, vendor_id: int, product_id: int, serial: str) -> None:
        self.root = GADGETS / name
        self.mount = Path(f"/dev/ffs-{name}")
        self.ids = (vendor_id, product_id)
        self.serial = serial

    def create(self) -> None:
        """Make the gadget and mount its FunctionFS instance (not bound yet)."""
        root = self.root
        root.mkdir()
        (root / "idVendor").write_text(f"{self.ids[0]:#06x}")
        (root / "idProduct").write_text(f"{self.ids[1]:#06x}")
        english = root / "strings/0x409"
        english.mkdir(parents=True)
        (english / "serialnumber").write_text(self.serial)
        (english / "manufacturer").write_text("dealer-station test double")
        (english / "product").write_text("hole-card reader")
        config = root / "configs/c.1"
        config.mkdir(parents=True)
        (config / "strings/0x409").mkdir(parents=True)
        (config / "strings/0x409/configuration").write_text("reader")
        function = root / f"functions/ffs.{FUNCTION}"
        function.mkdir(parents=True)
        (config / f"ffs.{FUNCTION}").symlink_to(function)
        self.mount.mkdir(exist_ok=True)
        subprocess.run(["mount", "-t", "functionfs", FUNCTION, str(self.mount)], check=True)

    def bind(self) -> str:
        """Bind to the first USB device controller; returns its name."""
        udcs = sorted(p.name for p in UDCS.iterdir())
        if not udcs:
            raise OSError(errno.ENODEV, "no USB device controller (modprobe dummy_hcd)")
        (self.root / "UDC").write_text(udcs[0])
        return udcs[0]

    def remove(self) -> None:
        """Unbind and take the gadget apart; tolerates a half-built one."""
        root = self.root
        with contextlib.suppress(OSError):
            (root / "UDC").write_text("\n")
        subprocess.run(["umount", str(self.mount)], check=False, capture_output=True)
        for path in (
            root / f"configs/c.1/ffs.{FUNCTION}",
            root / "configs/c.1/strings/0x409",
            root / "configs/c.1",
            root / f"functions/ffs.{FUNCTION}",
            root / "strings/0x409",
            root,
            self.mount,
        ):
            with contextlib.suppress(OSError):
                path.unlink() if path.is_symlink() else path.rmdir()


class FfsPort:
    """The double's two bulk endpoints: OUT bytes to ``receive``, ``write`` to IN."""

    def __init__(self, mount: Path, double: CardReaderDouble) -> None:
        self.double = double
        self.ep0 = os.open(mount / "ep0", os.O_RDWR)
        os.write(self.ep0, descriptors())
        os.write(self.ep0, strings())
        self.ep_in = os.open(mount / "ep1", os.O_RDWR)
        self.ep_out = os.open(mount / "ep2", os.O_RDWR)
        self.enabled = threading.Event()
        self._out: queue.Queue[bytes] = queue.Queue(_BACKLOG)
        double.transmit = self.write
        for target in (self._events, self._reader, self._writer):
            threading.Thread(target=target, daemon=True, name=target.__name__).start()

    def write(self, data: bytes) -> bool:
        """Queue bytes for the station (dropped when it has not read the last 64)."""
        with contextlib.suppress(queue.Full):
            self._out.put_nowait(data)
        return True

    def _events(self) -> None:
        while True:
            event = os.read(self.ep0, EVENT_SIZE)
            if len(event) < EVENT_SIZE:
                continue
            kind = event[8]
            if kind == ENABLE:
                self.enabled.set()
            elif kind == DISABLE:
                self.enabled.clear()

    def _reader(self) -> None:
        while True:
            self.enabled.wait()
            try:
                data = os.read(self.ep_out, 512)
            except OSError as err:
                if err.errno not in (errno.ESHUTDOWN, errno.EINTR, errno.EAGAIN):
                    raise
                continue
            if data:
                self.double.receive(data)

    def _writer(self) -> None:
        while True:
            data = self._out.get()
            self.enabled.wait()
            with contextlib.suppress(OSError):  # the host went away: the frame is lost
                os.write(self.ep_in, data)


def main(argv: list[str] | None = None) -> int:
    """Serve the reader gadget until SIGTERM; 2 with one line when it cannot start."""
    parser = argparse.ArgumentParser(prog="python -m drivers.simulated.ffs_gadget")
    parser.add_argument("--vid", type=lambda v: int(v, 0), required=True)
    parser.add_argument("--pid", type=lambda v: int(v, 0), required=True)
    parser.add_argument("--serial", required=True, help="USB serial and HELLO serial")
    parser.add_argument("--control", type=Path, required=True)
    parser.add_argument("--name", default="dsreader", help="configfs gadget name")
    args = parser.parse_args(argv)
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    gadget = Gadget(args.name, args.vid, args.pid, args.serial)
    double = CardReaderDouble(None, args.serial)
    try:
        gadget.remove()  # what a killed run left behind
        gadget.create()
        FfsPort(gadget.mount, double)
        udc = gadget.bind()
        server = ControlServer(args.control, Doubles({"reader": double}))
    except (OSError, subprocess.CalledProcessError) as err:
        gadget.remove()
        print(f"ffs_gadget: {err}", file=sys.stderr)
        return 2
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(json.dumps({"ready": True, "udc": udc, "control": str(args.control)}), flush=True)
    try:
        stop.wait()
    finally:
        server.shutdown()
        gadget.remove()
        double.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
