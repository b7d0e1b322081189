"""A device double on a simulated serial cable: ``DeviceFirmware`` behind a byte port.

The port is a :class:`PtyPort` by default (the station opens the pty's path with pyserial);
``port_factory`` puts the same double on another byte stream, such as the unix socket of
a QEMU ``usb-serial`` chardev (:class:`drivers.simulated.socket_port.SocketPort`).
"""

from __future__ import annotations

from abc import ABC
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from drivers.serial_transport import SerialSettings
from drivers.simulated.firmware import DeviceFirmware
from drivers.simulated.line_noise import Manipulator
from drivers.simulated.pty_port import PtyPort


class BytePort(Protocol):
    """What a double needs of its cable (``PtyPort`` and ``SocketPort`` provide it)."""

    path: Path
    manipulator: Manipulator | None

    @property
    def plugged(self) -> bool:
        """Whether the cable is plugged in."""
        ...

    def plug(self) -> None:
        """Plug the cable in."""

    def unplug(self) -> None:
        """Pull the cable."""

    def close(self) -> None:
        """Unplug for good."""

    def stall(self, stalled: bool) -> None:
        """Stop (or resume) draining what the station writes."""

    def write(self, data: bytes) -> bool:
        """Send bytes to the station; False when unplugged."""
        ...


#: Builds a port at ``path`` that hands bytes to ``on_data`` and ticks ``on_tick``.
PortFactory = Callable[
    [Path, Callable[[bytes], float | None], Callable[[], float | None]], BytePort
]


def pty_port(
    path: Path, on_data: Callable[[bytes], float | None], on_tick: Callable[[], float | None]
) -> PtyPort:
    """The default port: a pseudo-terminal published at ``path``."""
    return PtyPort(path, on_data, on_tick=on_tick)


class SerialDeviceDouble(DeviceFirmware, ABC):
    """A double whose station side opens ``path`` with pyserial (or, with another
    ``port_factory``, reaches it over another byte stream). Plugged in at creation."""

    def __init__(
        self,
        path: Path,
        serial_number: str,
        *,
        port_factory: PortFactory = pty_port,
        **kwargs: Any,
    ) -> None:
        super().__init__(serial_number, **kwargs)
        self.port: BytePort = port_factory(path, self.receive, self.tick)
        self.transmit = self.port.write
        self.port.plug()

    @property
    def settings(self) -> SerialSettings:
        """What the real driver needs to open this device."""
        return SerialSettings(str(self.port.path))

    def unplug(self) -> None:
        """Pull the USB-serial cable (the device keeps power and its backlog)."""
        self.port.unplug()

    def plug(self) -> None:
        """Plug the cable back in (a new pty behind the same path)."""
        self.port.plug()

    def close(self) -> None:
        """Unplug for good and stop the port's thread; idempotent."""
        self.port.close()
