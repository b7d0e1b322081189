"""The automatic shuffler driver over serial: shuffle command, counted result, faults."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

import firmware_bridge as fb
from controller.rules.cards import DECK_COUNTS
from drivers.errors import CommandError
from drivers.hal import DeviceEvent, DeviceFault, DeviceKind, ShuffleDone
from drivers.serial_driver import SerialDriver

_STATE_FAULTS = {
    fb.ShufflerState.JAMMED: "shuffler jammed",
    fb.ShufflerState.DOOR_OPEN: "shuffler door open",
    fb.ShufflerState.ERROR: "shuffler error",
}


class ShufflerDriver(SerialDriver):
    """``drivers.hal.Shuffler`` over a serial link."""

    KIND: ClassVar[DeviceKind] = DeviceKind.SHUFFLER

    def shuffle(self, decks: int) -> None:
        """Command a shuffle of ``decks`` (6 or 8) Spanish decks; ``ShuffleDone`` follows,
        or a ``DeviceFault`` (jam, door open, not connected).

        Raises:
            CommandError: ``decks`` is not 6 or 8 (a programming error, not a device fault).
        """
        if decks not in DECK_COUNTS:
            raise CommandError(f"a Spanish 21 batch is 6 or 8 decks, not {decks}")
        self._send(fb.ShuffleCommand(decks))

    def query_status(self) -> None:
        """Ask the shuffler for its state; a fault state comes back as ``DeviceFault``."""
        self._send(fb.StatusQuery())

    def _on_message(self, message: fb.Message) -> Iterable[DeviceEvent]:
        if isinstance(message, fb.ShuffleDoneReport):
            per_rank = tuple((rank, n) for rank, n in message.composition.items() if n)
            yield ShuffleDone(message.card_count, per_rank)
        elif isinstance(message, fb.JamReport):
            yield DeviceFault(self.KIND, "shuffler jammed")
        elif isinstance(message, fb.DoorOpenReport):
            if message.open:
                yield DeviceFault(self.KIND, "shuffler door open")
        elif isinstance(message, fb.ShufflerErrorReport):
            yield DeviceFault(
                self.KIND,
                f"shuffler error {message.code}: {message.text}",
                {"code": str(message.code)},
            )
        elif isinstance(message, fb.ShufflerStatus):
            if message.state in _STATE_FAULTS:
                yield DeviceFault(self.KIND, _STATE_FAULTS[message.state])
        else:
            yield DeviceFault(self.KIND, f"unexpected {type(message).__name__} from the shuffler")
