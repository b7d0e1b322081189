"""USB transport on pyusb for the hole-card reader (vendor-specific bulk interface).

The reader is found by vendor:product id and its serial number string from configuration:
a device with the right ids but another serial number is refused (``WrongDeviceError``
naming both), never used. A kernel driver bound to the interface is detached, the
interface claimed, and the first bulk IN and bulk OUT endpoints carry ``firmware_bridge``
frames. An unplug shows as a failed transfer; the transport then looks for the device
again with backoff. ``backend=`` selects the pyusb backend: ``None`` for libusb on a real
station, :class:`drivers.simulated.usb_backend.SimulatedUsbBackend` for the double.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

import usb.core
import usb.util

from drivers.errors import (
    DeviceNotFoundError,
    DriverConfigError,
    LinkWriteTimeoutError,
    TransportError,
    WrongDeviceError,
)
from drivers.transport import Backoff, LinkListener, ThreadedTransport

#: Bytes asked for per bulk read; a short packet ends the transfer early.
_READ_SIZE = 512


@dataclass(frozen=True, slots=True)
class UsbSettings:
    """How to find the card reader on the bus."""

    vendor_id: int
    product_id: int
    serial_number: str
    interface: int = 0
    write_timeout: float = 0.5  # seconds

    def __post_init__(self) -> None:
        for label, value in (("vendor id", self.vendor_id), ("product id", self.product_id)):
            if not 0 <= value <= 0xFFFF:
                raise DriverConfigError(f"USB {label} must be 0..0xffff, not {value}")
        if not self.serial_number:
            raise DriverConfigError("USB serial number is empty")

    @property
    def ids(self) -> str:
        """``vvvv:pppp`` as lsusb prints it."""
        return f"{self.vendor_id:04x}:{self.product_id:04x}"


class UsbTransport(ThreadedTransport):
    """The card reader's bulk endpoints served by a reader thread."""

    def __init__(
        self,
        settings: UsbSettings,
        listener: LinkListener,
        *,
        backend: Any = None,
        name: str | None = None,
        backoff: Backoff | None = None,
        tick_interval: float = 0.02,
    ) -> None:
        super().__init__(
            name=name or f"usb {settings.ids}",
            listener=listener,
            backoff=backoff,
            tick_interval=tick_interval,
        )
        self.settings = settings
        self._backend = backend
        self._device: Any = None
        self._interface: Any = None
        self._ep_in: Any = None
        self._ep_out: Any = None

    def _open_port(self) -> str:
        wanted = self.settings.serial_number
        try:
            candidates = list(
                usb.core.find(
                    find_all=True,
                    backend=self._backend,
                    idVendor=self.settings.vendor_id,
                    idProduct=self.settings.product_id,
                )
                or ()
            )
        except (usb.core.USBError, usb.core.NoBackendError) as err:
            raise TransportError(f"USB {self.settings.ids}: cannot enumerate: {err}") from err
        if not candidates:
            raise DeviceNotFoundError(f"no USB device {self.settings.ids} on the bus")
        found: list[str] = []
        device = None
        for candidate in candidates:
            try:
                serial_number = candidate.serial_number
            except (usb.core.USBError, ValueError) as err:
                # Usually permissions: the udev rule did not give the station the device.
                serial_number = f"<unreadable: {err}>"
            if serial_number == wanted:
                device = candidate
                break
            found.append(str(serial_number))
        if device is None:
            raise WrongDeviceError(
                f"USB {self.settings.ids} has serial number {', '.join(found)}, "
                f"configured {wanted}",
                expected={"serial_number": wanted},
                found={"serial_number": ", ".join(found)},
            )
        try:
            self._claim(device)
        except usb.core.USBError as err:
            usb.util.dispose_resources(device)
            raise TransportError(f"USB {self.settings.ids} {wanted}: cannot claim: {err}") from err
        return f"usb {self.settings.ids} bus {device.bus} address {device.address} serial {wanted}"

    def _claim(self, device: Any) -> None:
        number = self.settings.interface
        with contextlib.suppress(NotImplementedError):  # not every platform has kernel drivers
            if device.is_kernel_driver_active(number):
                device.detach_kernel_driver(number)
        device.set_configuration()
        interface = device.get_active_configuration()[(number, 0)]
        usb.util.claim_interface(device, interface)

        def bulk(direction: int) -> Any:
            return usb.util.find_descriptor(
                interface,
                custom_match=lambda ep: (
                    usb.util.endpoint_direction(ep.bEndpointAddress) == direction
                    and usb.util.endpoint_type(ep.bmAttributes) == usb.util.ENDPOINT_TYPE_BULK
                ),
            )

        ep_in, ep_out = bulk(usb.util.ENDPOINT_IN), bulk(usb.util.ENDPOINT_OUT)
        if ep_in is None or ep_out is None:
            usb.util.release_interface(device, interface)
            raise usb.core.USBError(f"interface {number} has no bulk IN/OUT endpoint pair")
        self._device, self._interface = device, interface
        self._ep_in, self._ep_out = ep_in, ep_out

    def _read_port(self, timeout: float) -> bytes:
        if self._ep_in is None:
            raise TransportError(f"{self.name}: not open")
        try:
            data = self._ep_in.read(_READ_SIZE, timeout=max(1, round(timeout * 1000)))
        except usb.core.USBTimeoutError:
            return b""
        except usb.core.USBError as err:
            raise TransportError(f"{self.name}: lost: {err}") from err
        return bytes(data)

    def _write_port(self, data: bytes) -> None:
        if self._ep_out is None:
            raise TransportError(f"{self.name}: not open")
        timeout_ms = max(1, round(self.settings.write_timeout * 1000))
        try:
            written = self._ep_out.write(data, timeout=timeout_ms)
        except usb.core.USBTimeoutError as err:
            raise LinkWriteTimeoutError(
                f"{self.name}: device took no data for {self.settings.write_timeout} s"
            ) from err
        except usb.core.USBError as err:
            raise TransportError(f"{self.name}: write failed: {err}") from err
        if written != len(data):
            raise TransportError(f"{self.name}: short write, {written} of {len(data)} bytes")

    def _close_port(self) -> None:
        device, interface = self._device, self._interface
        self._device = self._interface = self._ep_in = self._ep_out = None
        if device is None:
            return
        # The device may be gone: releasing what is already released is harmless.
        with contextlib.suppress(usb.core.USBError):
            usb.util.release_interface(device, interface)
        with contextlib.suppress(usb.core.USBError):
            usb.util.dispose_resources(device)
