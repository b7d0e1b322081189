"""SimulatedUsbBackend through pyusb's own API: what the real driver code relies on."""

from __future__ import annotations

import queue

import pytest
import usb.core
import usb.util

from drivers.simulated.usb_backend import (
    BULK_IN,
    BULK_OUT,
    SimulatedUsbBackend,
    SimulatedUsbDevice,
    UsbIdentity,
)


@pytest.fixture
def bus() -> tuple[SimulatedUsbBackend, SimulatedUsbDevice, queue.Queue[bytes]]:
    backend = SimulatedUsbBackend()
    received: queue.Queue[bytes] = queue.Queue()
    device = SimulatedUsbDevice(UsbIdentity(0x1D50, 0x6021, "RD-7"), received.put)
    backend.add(device)
    return backend, device, received


def test_descriptors_and_strings(
    bus: tuple[SimulatedUsbBackend, SimulatedUsbDevice, object],
) -> None:
    backend, _, _ = bus
    dev = usb.core.find(backend=backend, idVendor=0x1D50, idProduct=0x6021)
    assert dev is not None
    assert dev.serial_number == "RD-7"
    assert dev.product == "Hole card reader"
    config = dev[0]
    interfaces = list(config)  # ends: IndexError past the last alternate setting
    assert [i.bInterfaceClass for i in interfaces] == [0xFF]
    endpoints = {e.bEndpointAddress: usb.util.endpoint_type(e.bmAttributes) for e in interfaces[0]}
    assert endpoints == {
        BULK_OUT: usb.util.ENDPOINT_TYPE_BULK,
        BULK_IN: usb.util.ENDPOINT_TYPE_BULK,
    }
    usb.util.dispose_resources(dev)


def test_bulk_transfers_timeouts_and_unplug(
    bus: tuple[SimulatedUsbBackend, SimulatedUsbDevice, queue.Queue[bytes]],
) -> None:
    backend, device, received = bus
    dev = usb.core.find(backend=backend, idVendor=0x1D50)
    dev.detach_kernel_driver(0)
    dev.set_configuration()
    assert dev.write(BULK_OUT, b"hello", timeout=100) == 5
    assert received.get_nowait() == b"hello"
    device.send_to_host(b"answer")
    assert bytes(dev.read(BULK_IN, 64, timeout=100)) == b"answer"
    with pytest.raises(usb.core.USBTimeoutError):
        dev.read(BULK_IN, 64, timeout=5)
    device.unplug()
    with pytest.raises(usb.core.USBError) as err:
        dev.read(BULK_IN, 64, timeout=5)
    assert err.value.errno == 19  # ENODEV, as libusb reports an unplug
    assert usb.core.find(backend=backend, idVendor=0x1D50) is None
    usb.util.dispose_resources(dev)


def test_claim_needs_the_kernel_driver_detached(
    bus: tuple[SimulatedUsbBackend, SimulatedUsbDevice, object],
) -> None:
    backend, device, _ = bus
    dev = usb.core.find(backend=backend, idVendor=0x1D50)
    dev.set_configuration()
    assert dev.is_kernel_driver_active(0)
    with pytest.raises(usb.core.USBError):
        usb.util.claim_interface(dev, 0)
    dev.detach_kernel_driver(0)
    usb.util.claim_interface(dev, 0)
    assert device.claimed == {0}
    usb.util.dispose_resources(dev)
