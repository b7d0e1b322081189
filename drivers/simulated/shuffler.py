"""The shuffler double: shuffles on command and reports the counted batch.

By default a batch of N decks counts exactly N Spanish decks; ``set_result`` makes the next
batch report something else (a missing card, a foreign 10). Faults: ``jam`` (the shuffle
stops with a jam report until ``clear_jam``), ``open_door`` / ``close_door``,
``report_error``, ``reply_delay`` (a slow shuffle), and every switch of
:class:`DeviceFirmware` and the cable.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import firmware_bridge as fb
from controller.rules.cards import CARDS_PER_DECK, FOREIGN_RANK_TEN
from drivers.simulated.control_calls import Call, rank_counts_arg
from drivers.simulated.serial_device import SerialDeviceDouble

RANKS = range(1, 14)


def exact_batch(decks: int) -> tuple[int, tuple[int, ...]]:
    """Card count and per-rank counts (ranks 1..13) of ``decks`` Spanish decks."""
    per_rank = tuple(0 if rank == FOREIGN_RANK_TEN else 4 * decks for rank in RANKS)
    return decks * CARDS_PER_DECK, per_rank


class ShufflerDouble(SerialDeviceDouble):
    """An automatic shuffler on a pty (see the module docstring)."""

    KIND: ClassVar[fb.DeviceKind] = fb.DeviceKind.SHUFFLER
    CONTROL: ClassVar[Mapping[str, Call]] = {
        "jam": lambda d: d.jam(),
        "clear_jam": lambda d: d.clear_jam(),
        "open_door": lambda d: d.open_door(),
        "close_door": lambda d: d.close_door(),
        "report_error": lambda d, code, text: d.report_error(int(code), str(text)),
        "set_result": lambda d, per_rank: d.set_result(rank_counts_arg(per_rank)),
    }
    READABLE: ClassVar[frozenset[str]] = frozenset({"batches", "state", "jammed", "door_open"})

    def __init__(self, path: Path, serial_number: str = "SHUF-0001", **kwargs: Any) -> None:
        super().__init__(path, serial_number, **kwargs)
        self.jammed = False
        self.door_open = False
        self.state = fb.ShufflerState.IDLE
        self._next_result: tuple[int, tuple[int, ...]] | None = None
        self.batches = 0

    def set_result(self, per_rank: Mapping[int, int]) -> None:
        """Make the next batch count ``per_rank`` (rank number -> cards, 10 allowed)."""
        counts = tuple(per_rank.get(rank, 0) for rank in RANKS)
        self._next_result = (sum(counts), counts)

    def jam(self) -> None:
        """Jam now; a shuffle in progress or commanded later reports the jam."""
        with self._cond:
            self.jammed = True
            self.state = fb.ShufflerState.JAMMED
            # A shuffle in progress never completes: its slow ShuffleDone is not sent.
            self._scheduled = [
                (at, m) for at, m in self._scheduled if not isinstance(m, fb.ShuffleDoneReport)
            ]
            self._report(fb.JamReport())

    def clear_jam(self) -> None:
        """The operator cleared the jam."""
        with self._cond:
            self.jammed = False
            self.state = fb.ShufflerState.IDLE

    def open_door(self) -> None:
        """Open the shuffler's door."""
        with self._cond:
            self.door_open = True
            self.state = fb.ShufflerState.DOOR_OPEN
            self._report(fb.DoorOpenReport(True))

    def close_door(self) -> None:
        """Close the door again."""
        with self._cond:
            self.door_open = False
            self.state = fb.ShufflerState.IDLE
            self._report(fb.DoorOpenReport(False))

    def report_error(self, code: int, text: str) -> None:
        """Report a firmware error."""
        self._report(fb.ShufflerErrorReport(code, text))

    def _on_command(self, message: fb.Message) -> None:
        if isinstance(message, fb.ShuffleCommand):
            if self.jammed:
                self._report(fb.JamReport())
            elif self.door_open:
                self._report(fb.DoorOpenReport(True))
            else:
                count, per_rank = self._next_result or exact_batch(message.decks)
                self._next_result = None
                self.batches += 1
                self.state = fb.ShufflerState.DONE
                self._reply(fb.ShuffleDoneReport(count, per_rank))
        elif isinstance(message, fb.StatusQuery):
            self._reply(fb.ShufflerStatus(self.state, 0))
