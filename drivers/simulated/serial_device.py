"""A device double on a simulated serial cable: ``DeviceFirmware`` behind a ``PtyPort``."""

from __future__ import annotations

from abc import ABC
from pathlib import Path
from typing import Any

from drivers.serial_transport import SerialSettings
from drivers.simulated.firmware import DeviceFirmware
from drivers.simulated.pty_port import PtyPort


class SerialDeviceDouble(DeviceFirmware, ABC):
    """A double whose station side opens ``path`` with pyserial. Plugged in at creation."""

    def __init__(self, path: Path, serial_number: str, **kwargs: Any) -> None:
        super().__init__(serial_number, **kwargs)
        self.port = PtyPort(path, self.receive, on_tick=self.tick)
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
