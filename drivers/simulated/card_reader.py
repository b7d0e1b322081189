"""The hole-card reader double: a USB device on the simulated pyusb bus (or, with no
backend, on a real USB stack: :mod:`drivers.simulated.ffs_gadget` wires ``transmit`` and
``receive`` to a FunctionFS gadget's bulk endpoints).

The test (or the simulated dealer) puts a card in the reader with ``set_hole_card``; the
double answers the station's checks from it: blackjack or not, never the rank. Faults:
``misread(n)`` (the next n checks answer READ_ERROR), ``answer_other_request(n)`` (the next
n answers carry another request's number: an answer to a question not asked), an empty
reader (NO_CARD),
``unplug`` / ``plug``, a wrong USB serial number (``usb_serial``), and every switch of
:class:`DeviceFirmware`.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any, ClassVar

import firmware_bridge as fb
from controller.rules.cards import Card, Rank, parse_card
from drivers.simulated.control_calls import Call
from drivers.simulated.firmware import DeviceFirmware
from drivers.simulated.usb_backend import SimulatedUsbBackend, SimulatedUsbDevice, UsbIdentity
from drivers.usb_transport import UsbSettings

VENDOR_ID = 0x1D50  # OpenMoko's community vendor id, product ids handed out to projects
PRODUCT_ID = 0x6021
_TICK = 0.01  # as the pty doubles: timers of 50 ms need no finer tick
_MIN_SLEEP = 0.001  # a deadline already passed costs a wake-up a millisecond, not a spin


class CardReaderDouble(DeviceFirmware):
    """A card reader on a simulated USB bus (see the module docstring)."""

    KIND: ClassVar[fb.DeviceKind] = fb.DeviceKind.CARD_READER
    CONTROL: ClassVar[Mapping[str, Call]] = {
        "set_hole_card": lambda d, card=None: d.set_hole_card(
            None if card is None else parse_card(card)
        ),
        "misread": lambda d, count=1: d.misread(int(count)),
    }
    READABLE: ClassVar[frozenset[str]] = frozenset({"checks"})

    def __init__(
        self,
        backend: SimulatedUsbBackend | None,
        serial_number: str = "READ-0001",
        *,
        usb_serial: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(serial_number, **kwargs)
        self.backend = backend
        self.usb: SimulatedUsbDevice | None = None
        if backend is not None:
            self.usb = SimulatedUsbDevice(
                UsbIdentity(VENDOR_ID, PRODUCT_ID, usb_serial or serial_number), self.receive
            )
            self.transmit = self.usb.send_to_host
            backend.add(self.usb)
        self._hole_card: Card | None = None
        self._misreads = 0
        self._misnumbered = 0
        self.checks = 0
        self._stop = threading.Event()
        self._ticker = threading.Thread(target=self._tick_loop, name="reader-double", daemon=True)
        self._ticker.start()

    @property
    def settings(self) -> UsbSettings:
        """What the real driver needs to find this device (with the configured serial)."""
        return UsbSettings(VENDOR_ID, PRODUCT_ID, self.serial_number)

    def set_hole_card(self, card: Card | None) -> None:
        """Put ``card`` face down in the reader (None: take it out)."""
        with self._cond:
            self._hole_card = card

    def misread(self, count: int = 1) -> None:
        """The next ``count`` checks cannot read the card."""
        with self._cond:
            self._misreads += count

    def answer_other_request(self, count: int = 1) -> None:
        """The next ``count`` answers name a request the station did not make (one more
        than the one asked)."""
        with self._cond:
            self._misnumbered += count

    def unplug(self) -> None:
        """Pull the reader's USB cable (on the simulated bus)."""
        if self.usb is None:
            raise ValueError("this reader is not on the simulated bus")
        self.usb.unplug()

    def plug(self) -> None:
        """Plug it back in (it re-enumerates at a new address)."""
        if self.usb is None:
            raise ValueError("this reader is not on the simulated bus")
        self.usb.plug()

    def close(self) -> None:
        """Take the reader off the bus and stop its timer thread; idempotent."""
        self._stop.set()
        with self._lock:
            self._cond.notify_all()  # wake the timer thread at once
        if self._ticker.is_alive() and self._ticker is not threading.current_thread():
            self._ticker.join(5.0)
        if self.backend is not None and self.usb is not None:
            self.backend.remove(self.usb)

    def _tick_loop(self) -> None:
        # Ticks when the firmware's next deadline comes (what tick() returns), and again
        # after each burst from the host (receive notifies: it may set a deadline), not
        # every _TICK: the reader is idle most of a round.
        with self._lock:
            while not self._stop.is_set():
                wait = self.tick()
                self._sleep(_TICK if wait is None else max(wait, _MIN_SLEEP))

    def _answer(self, target: fb.PeekTargetCode) -> fb.PeekAnswerCode:
        if self._misreads:
            self._misreads -= 1
            return fb.PeekAnswerCode.READ_ERROR
        card = self._hole_card
        if card is None:
            return fb.PeekAnswerCode.NO_CARD
        if target is fb.PeekTargetCode.LOOKING_FOR_TEN:
            blackjack = card.rank >= Rank.JACK
        else:
            blackjack = card.rank is Rank.ACE
        return fb.PeekAnswerCode.BLACKJACK if blackjack else fb.PeekAnswerCode.NO_BLACKJACK

    def _on_command(self, message: fb.Message) -> None:
        if isinstance(message, fb.PeekRequest):
            self.checks += 1
            request = message.request
            if self._misnumbered:
                self._misnumbered -= 1
                request = (request + 1) % 0x10000
            self._reply(fb.PeekReply(request, self._answer(message.target)))
