"""Exceptions of the drivers package: one root, leaves that also inherit the matching builtin.

Drivers never let these escape to the procedure: a lost or refused device is an event
(``DeviceLost`` / ``DeviceFault``). They travel between a transport and its driver, and
they reach a caller only for bad configuration.
"""

from __future__ import annotations

from collections.abc import Mapping


class DriverError(Exception):
    """Root of every error the drivers package raises."""


class DriverConfigError(DriverError, ValueError):
    """A driver or pin map was configured with values it cannot use."""


class TransportError(DriverError, OSError):
    """A link to a device could not be opened, or broke while in use."""


class DeviceNotFoundError(TransportError, FileNotFoundError):
    """No device is present where the configuration says it should be."""


class WrongDeviceError(TransportError):
    """A device is present but its identity is not the configured one.

    ``expected`` and ``found`` name the mismatching fields, e.g.
    ``{"serial_number": "RD-0001"}`` against ``{"serial_number": "RD-0999"}``.
    """

    def __init__(self, message: str, expected: Mapping[str, str], found: Mapping[str, str]):
        super().__init__(message)
        self.expected = dict(expected)
        self.found = dict(found)


class LinkNotOpenError(TransportError, ConnectionError):
    """A write was attempted while the link is down; the transport is reconnecting."""


class LinkWriteTimeoutError(TransportError, TimeoutError):
    """The device did not take the bytes within the write timeout."""


class CommandError(DriverError, ValueError):
    """A driver command was called with an argument the device cannot take."""
