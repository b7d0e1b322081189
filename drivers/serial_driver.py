"""The base of every driver whose device is on a serial port (the shuffler, the shoe, the
panel board): the port, its transport and the link's options, set up once.

A serial driver declares its ``KIND`` and turns messages into events (``_on_message``);
its constructor takes what every one takes: the port's settings, the event sink, what the
configuration expects of the device, and the link's timers and back-off. The transport's
thread is named after the kind.
"""

from __future__ import annotations

import firmware_bridge as fb
from drivers.device_link import ExpectedDevice, LinkedDevice
from drivers.hal import EventSink
from drivers.serial_transport import SerialSettings, SerialTransport
from drivers.transport import Backoff


class SerialDriver(LinkedDevice):
    """A ``LinkedDevice`` on a serial port (see the module docstring)."""

    def __init__(
        self,
        settings: SerialSettings,
        sink: EventSink,
        expected: ExpectedDevice,
        *,
        timing: fb.Timing | None = None,
        backoff: Backoff | None = None,
        station_id: str = "station",
        refusal_retry: float = 1.0,
    ) -> None:
        super().__init__(
            sink, expected, station_id=station_id, timing=timing, refusal_retry=refusal_retry
        )
        self._serial = SerialTransport(settings, self, name=self.KIND.value, backoff=backoff)

    @property
    def transport(self) -> SerialTransport:
        return self._serial
