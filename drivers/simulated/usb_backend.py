"""A pyusb backend that presents simulated USB devices, so the real USB driver runs unchanged.

``SimulatedUsbBackend`` subclasses ``usb.backend.IBackend`` (docs/pitfalls.md: pyusb's own
fake backend is unfinished, so this one implements enumeration, descriptors, string
descriptors over control transfers, configuration, interface claiming, kernel-driver
detach, and bulk IN/OUT with timeouts). Pass it as ``usb.core.find(backend=...)`` (the
driver takes it as ``backend=``). Each ``SimulatedUsbDevice`` is one vendor-specific device
with one interface and a bulk OUT (0x01) / bulk IN (0x81) endpoint pair: what the host
writes goes to ``on_host_data``; what the device side passes to ``send_to_host`` is what
the host's bulk reads return. ``unplug`` / ``plug`` make every call fail with ENODEV and
take the device off the bus, as a real unplug does.
"""

from __future__ import annotations

import array
import errno
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import usb.backend
import usb.core

BULK_OUT = 0x01
BULK_IN = 0x81
MAX_PACKET = 64
LANGID_EN_US = 0x0409
_GET_DESCRIPTOR = 0x06
_DESC_TYPE_STRING = 0x03
_STRING_MANUFACTURER, _STRING_PRODUCT, _STRING_SERIAL = 1, 2, 3
_LIBUSB_ERROR_NO_DEVICE = -4
_LIBUSB_ERROR_TIMEOUT = -7


@dataclass(frozen=True, slots=True)
class UsbIdentity:
    """What a device says about itself in its descriptors."""

    vendor_id: int
    product_id: int
    serial_number: str
    manufacturer: str = "Simulated Table Devices"
    product: str = "Hole card reader"


class SimulatedUsbDevice:
    """One device on the simulated bus; the device-side object owns its behaviour."""

    def __init__(self, identity: UsbIdentity, on_host_data: Callable[[bytes], object]) -> None:
        self.identity = identity
        self._on_host_data = on_host_data
        self._cond = threading.Condition()
        self._to_host = bytearray()
        self.plugged = True
        self.address = 5
        self.configuration = 0
        self.claimed: set[int] = set()
        # A generic kernel driver grabs vendor-specific devices on some systems; the
        # real driver must detach it before claiming.
        self.kernel_driver_active = True
        self.stalled = False  # True: the bulk OUT endpoint takes nothing (writes time out)

    def send_to_host(self, data: bytes) -> bool:
        """Queue bytes for the host's next bulk IN reads; False when unplugged."""
        with self._cond:
            if not self.plugged:
                return False
            self._to_host += data
            self._cond.notify_all()
        return True

    def unplug(self) -> None:
        """Take the device off the bus: pending and future calls fail with ENODEV."""
        with self._cond:
            self.plugged = False
            self._to_host.clear()
            self.claimed.clear()
            self.configuration = 0
            self._cond.notify_all()

    def plug(self) -> None:
        """Put the device back on the bus at a new address, freshly reset."""
        with self._cond:
            if self.plugged:
                return
            self.plugged = True
            self.address += 1
            self.kernel_driver_active = True

    # --- called by the backend ----------------------------------------------------------

    def host_write(self, data: bytes, timeout_ms: int) -> None:
        self._check()
        if self.stalled:
            # A wedged device NAKs every OUT packet: libusb gives up after the timeout.
            with self._cond:
                self._cond.wait_for(lambda: not self.plugged, timeout_ms / 1000)
            raise usb.core.USBTimeoutError(
                "Operation timed out", _LIBUSB_ERROR_TIMEOUT, errno.ETIMEDOUT
            )
        self._on_host_data(data)

    def host_read(self, size: int, timeout_ms: int) -> bytes:
        with self._cond:
            # 0 means "no timeout" in libusb; the driver never asks for that.
            wait = timeout_ms / 1000 if timeout_ms else None
            if not self._cond.wait_for(lambda: self._to_host or not self.plugged, wait):
                raise usb.core.USBTimeoutError(
                    "Operation timed out", _LIBUSB_ERROR_TIMEOUT, errno.ETIMEDOUT
                )
            self._check()
            data = bytes(self._to_host[:size])
            del self._to_host[:size]
            return data

    def _check(self) -> None:
        if not self.plugged:
            raise usb.core.USBError(
                "No such device (it may have been disconnected)",
                _LIBUSB_ERROR_NO_DEVICE,
                errno.ENODEV,
            )


def _interface_number(intf: object) -> int:
    """libusb's backend passes the interface number through ctypes as a C int: anything
    else (None) is a ``ctypes.ArgumentError`` there, a ``TypeError`` here."""
    if not isinstance(intf, int) or isinstance(intf, bool):
        raise TypeError(f"an interface number, not {intf!r}")
    return intf


class _Handle:
    """What ``open_device`` returns: the device it was opened on."""

    def __init__(self, device: SimulatedUsbDevice) -> None:
        self.device = device


class SimulatedUsbBackend(usb.backend.IBackend):  # type: ignore[misc]
    """A bus of simulated devices behind the pyusb backend interface."""

    def __init__(self) -> None:
        self._devices: list[SimulatedUsbDevice] = []

    def add(self, device: SimulatedUsbDevice) -> None:
        """Attach a device to the bus."""
        self._devices.append(device)

    def remove(self, device: SimulatedUsbDevice) -> None:
        """Detach a device from the bus for good; idempotent."""
        device.unplug()
        if device in self._devices:
            self._devices.remove(device)

    # --- enumeration and descriptors ----------------------------------------------------

    def enumerate_devices(self) -> Iterator[SimulatedUsbDevice]:
        return iter([d for d in self._devices if d.plugged])

    def get_device_descriptor(self, dev: SimulatedUsbDevice) -> SimpleNamespace:
        return SimpleNamespace(
            bLength=18,
            bDescriptorType=1,
            bcdUSB=0x0200,
            bDeviceClass=0,
            bDeviceSubClass=0,
            bDeviceProtocol=0,
            bMaxPacketSize0=MAX_PACKET,
            idVendor=dev.identity.vendor_id,
            idProduct=dev.identity.product_id,
            bcdDevice=0x0100,
            iManufacturer=_STRING_MANUFACTURER,
            iProduct=_STRING_PRODUCT,
            iSerialNumber=_STRING_SERIAL,
            bNumConfigurations=1,
            address=dev.address,
            bus=1,
            port_number=1,
            port_numbers=(1,),
            speed=3,
        )

    def get_configuration_descriptor(self, dev: SimulatedUsbDevice, config: int) -> Any:
        if config != 0:
            raise IndexError("configuration index out of range")
        return SimpleNamespace(
            bLength=9,
            bDescriptorType=2,
            wTotalLength=9 + 9 + 7 + 7,
            bNumInterfaces=1,
            bConfigurationValue=1,
            iConfiguration=0,
            bmAttributes=0x80,
            bMaxPower=50,
            extra_descriptors=[],
        )

    def get_interface_descriptor(
        self, dev: SimulatedUsbDevice, intf: int, alt: int, config: int
    ) -> SimpleNamespace:
        # IndexError for anything else, or pyusb's iteration never ends (docs/pitfalls.md).
        if (intf, alt, config) != (0, 0, 0):
            raise IndexError("interface index out of range")
        return SimpleNamespace(
            bLength=9,
            bDescriptorType=4,
            bInterfaceNumber=0,
            bAlternateSetting=0,
            bNumEndpoints=2,
            bInterfaceClass=0xFF,
            bInterfaceSubClass=0,
            bInterfaceProtocol=0,
            iInterface=0,
            extra_descriptors=[],
        )

    def get_endpoint_descriptor(
        self, dev: SimulatedUsbDevice, ep: int, intf: int, alt: int, config: int
    ) -> SimpleNamespace:
        if (intf, alt, config) != (0, 0, 0) or ep not in (0, 1):
            raise IndexError("endpoint index out of range")
        return SimpleNamespace(
            bLength=7,
            bDescriptorType=5,
            bEndpointAddress=(BULK_OUT, BULK_IN)[ep],
            bmAttributes=0x02,  # bulk
            wMaxPacketSize=MAX_PACKET,
            bInterval=0,
            bRefresh=0,
            bSynchAddress=0,
            extra_descriptors=[],
        )

    # --- device handle ------------------------------------------------------------------

    def open_device(self, dev: SimulatedUsbDevice) -> _Handle:
        dev._check()
        return _Handle(dev)

    def close_device(self, dev_handle: _Handle) -> None:
        return

    def set_configuration(self, dev_handle: _Handle, config_value: int) -> None:
        dev_handle.device._check()
        dev_handle.device.configuration = config_value

    def get_configuration(self, dev_handle: _Handle) -> int:
        dev_handle.device._check()
        return dev_handle.device.configuration

    def claim_interface(self, dev_handle: _Handle, intf: int) -> None:
        device = dev_handle.device
        device._check()
        if device.kernel_driver_active:
            raise usb.core.USBError("Resource busy", -6, errno.EBUSY)
        device.claimed.add(intf)

    def release_interface(self, dev_handle: _Handle, intf: int) -> None:
        # libusb_release_interface fails with LIBUSB_ERROR_NO_DEVICE once it is unplugged.
        dev_handle.device._check()
        dev_handle.device.claimed.discard(intf)

    def is_kernel_driver_active(self, dev_handle: _Handle, intf: int) -> bool:
        _interface_number(intf)
        dev_handle.device._check()
        return dev_handle.device.kernel_driver_active

    def detach_kernel_driver(self, dev_handle: _Handle, intf: int) -> None:
        _interface_number(intf)
        dev_handle.device._check()
        dev_handle.device.kernel_driver_active = False

    def attach_kernel_driver(self, dev_handle: _Handle, intf: int) -> None:
        dev_handle.device.kernel_driver_active = True

    # --- transfers ----------------------------------------------------------------------

    def ctrl_transfer(  # noqa: PLR0917 - the IBackend signature
        self,
        dev_handle: _Handle,
        bmRequestType: int,  # noqa: N803 - pyusb's parameter names
        bRequest: int,  # noqa: N803
        wValue: int,  # noqa: N803
        wIndex: int,  # noqa: N803
        data: array.array[int],
        timeout: int,
    ) -> int:
        device = dev_handle.device
        device._check()
        if bRequest != _GET_DESCRIPTOR or wValue >> 8 != _DESC_TYPE_STRING:
            raise usb.core.USBError("Pipe error", -9, errno.EPIPE)
        index = wValue & 0xFF
        if index == 0:
            body = LANGID_EN_US.to_bytes(2, "little")
        else:
            strings = {
                _STRING_MANUFACTURER: device.identity.manufacturer,
                _STRING_PRODUCT: device.identity.product,
                _STRING_SERIAL: device.identity.serial_number,
            }
            if index not in strings:
                raise usb.core.USBError("Pipe error", -9, errno.EPIPE)
            body = strings[index].encode("utf-16-le")
        descriptor = bytes([2 + len(body), _DESC_TYPE_STRING]) + body
        count = min(len(descriptor), len(data))
        data[:count] = array.array("B", descriptor[:count])
        return count

    def bulk_write(
        self, dev_handle: _Handle, ep: int, intf: int, data: array.array[int], timeout: int
    ) -> int:
        if ep != BULK_OUT:
            raise usb.core.USBError("Pipe error", -9, errno.EPIPE)
        dev_handle.device.host_write(bytes(data), timeout)
        return len(data)

    def bulk_read(
        self, dev_handle: _Handle, ep: int, intf: int, buff: array.array[int], timeout: int
    ) -> int:
        if ep != BULK_IN:
            raise usb.core.USBError("Pipe error", -9, errno.EPIPE)
        chunk = dev_handle.device.host_read(len(buff), timeout)
        buff[: len(chunk)] = array.array("B", chunk)
        return len(chunk)
