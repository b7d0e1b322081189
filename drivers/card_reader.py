"""The hole-card reader driver over USB: asks "blackjack or not", never learns the rank.

PA 635a.7(g), NJ 13:69F-19.7(i): the reader tells only whether the dealer has blackjack.
Neither the wire message (``PeekReply``) nor the event (``PeekResult``) can carry a rank.
Each request carries a number the reader echoes; an answer to any other request (a late
answer to an earlier check) is a fault, never a result.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

import structlog

import firmware_bridge as fb
from drivers.device_link import ExpectedDevice, LinkedDevice
from drivers.errors import DriverConfigError
from drivers.hal import (
    DeviceEvent,
    DeviceFault,
    DeviceKind,
    EventSink,
    PeekAnswer,
    PeekResult,
    PeekTarget,
)
from drivers.transport import Backoff
from drivers.usb_transport import UsbSettings, UsbTransport

log = structlog.get_logger(__name__)

_TARGETS = {
    PeekTarget.LOOKING_FOR_TEN: fb.PeekTargetCode.LOOKING_FOR_TEN,
    PeekTarget.LOOKING_FOR_ACE: fb.PeekTargetCode.LOOKING_FOR_ACE,
}
_ANSWERS = {
    fb.PeekAnswerCode.BLACKJACK: PeekAnswer.BLACKJACK,
    fb.PeekAnswerCode.NO_BLACKJACK: PeekAnswer.NO_BLACKJACK,
    fb.PeekAnswerCode.NO_CARD: PeekAnswer.NO_CARD,
    fb.PeekAnswerCode.READ_ERROR: PeekAnswer.READ_ERROR,
}


class CardReaderDriver(LinkedDevice):
    """``drivers.hal.CardReader`` over the USB bulk interface."""

    KIND: ClassVar[DeviceKind] = DeviceKind.CARD_READER

    def __init__(
        self,
        settings: UsbSettings,
        sink: EventSink,
        *,
        expected: ExpectedDevice,
        backend: Any = None,
        timing: fb.Timing | None = None,
        backoff: Backoff | None = None,
        station_id: str = "station",
        refusal_retry: float = 1.0,
    ) -> None:
        # The USB serial number found the device; the HELLO must say the same.
        if expected.serial_number != settings.serial_number:
            raise DriverConfigError(
                f"USB serial {settings.serial_number!r} and HELLO serial "
                f"{expected.serial_number!r} differ"
            )
        super().__init__(
            sink, expected, station_id=station_id, timing=timing, refusal_retry=refusal_retry
        )
        self._usb = UsbTransport(
            settings, self, backend=backend, name="card_reader", backoff=backoff
        )
        self._request = 0
        self._outstanding: int | None = None
        self._answered: int | None = None

    @property
    def transport(self) -> UsbTransport:
        return self._usb

    def check(self, target: PeekTarget) -> None:
        """Ask whether the hole card gives the dealer blackjack; ``PeekResult`` follows, or
        a ``DeviceFault`` if the reader cannot be asked."""
        with self._lock:
            self._request = (self._request + 1) % 0x10000
            self._outstanding = self._request
            if not self._send(fb.PeekRequest(self._request, _TARGETS[target])):
                self._outstanding = None

    def _on_message(self, message: fb.Message) -> Iterable[DeviceEvent]:
        if isinstance(message, fb.PeekReply):
            if message.request == self._answered:
                # The same answer again after a session was lost before our ack reached
                # the reader: already delivered once.
                log.info("repeated peek answer ignored", request=message.request)
                return
            if self._outstanding is None:
                yield DeviceFault(
                    self.KIND, f"answer to request {message.request}, no question outstanding"
                )
                return
            if message.request != self._outstanding:
                yield DeviceFault(
                    self.KIND,
                    f"answer to request {message.request}, expected {self._outstanding}",
                )
                return
            self._outstanding = None
            self._answered = message.request
            yield PeekResult(_ANSWERS[message.answer])
        else:
            yield DeviceFault(self.KIND, f"unexpected {type(message).__name__} from the reader")
