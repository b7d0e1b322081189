"""The smart-shoe double: a shoe loaded with given cards or a seeded Spanish shoe.

``deal()`` draws the next card exactly as a dealer pulling it past the shoe's sensor, and
the double reports it over the real protocol. The cover card sits at a position in the
shoe and is reported when it comes out; ``ShoeEmpty`` follows the last card. Faults: a
foreign 10, an arbitrary raw code, the same card reported twice, plus every switch of
:class:`DeviceFirmware` and the cable's ``unplug`` / ``plug``.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, Final

import firmware_bridge as fb
from controller.rules.cards import ALL_CARDS, DECK_COUNTS, Card
from drivers.simulated.serial_device import SerialDeviceDouble

#: What ``deal`` returns when the cover card comes out.
COVER: Final = "cover"


class ShoeDouble(SerialDeviceDouble):
    """A smart shoe on a pty (see the module docstring)."""

    KIND: ClassVar[fb.DeviceKind] = fb.DeviceKind.SHOE

    def __init__(self, path: Path, serial_number: str = "SHOE-0001", **kwargs: Any) -> None:
        super().__init__(path, serial_number, **kwargs)
        self._shoe: list[Card | str] = []
        self._shoe_lock = threading.Lock()
        self.dealt: list[Card] = []

    @property
    def remaining(self) -> int:
        """Cards (and the cover card) still in the shoe."""
        return len(self._shoe)

    def load(self, cards: Sequence[Card], cover_at: int | None = None) -> None:
        """Load ``cards`` (first dealt first) with the cover card after ``cover_at`` cards
        (None: no cover card); reports ``ShoeLoaded``."""
        self.restock(cards, cover_at)
        self._report(fb.ShoeLoadedReport())

    def restock(self, cards: Sequence[Card], cover_at: int | None = None) -> None:
        """Put ``cards`` in the shoe without a report: the shoe a restarted station finds,
        loaded (and reported so) before the restart. ``cover_at`` as in :meth:`load`."""
        if cover_at is not None and not 0 <= cover_at <= len(cards):
            raise ValueError(f"cover card position {cover_at} outside 0..{len(cards)}")
        shoe: list[Card | str] = list(cards)
        if cover_at is not None:
            shoe.insert(cover_at, COVER)
        with self._shoe_lock:
            self._shoe = shoe
            self.dealt = []

    def load_shuffled(self, decks: int = 6, seed: int = 0, cover_at: int | None = None) -> None:
        """Load ``decks`` Spanish decks shuffled by ``random.Random(seed)``; the cover card
        goes after ``cover_at`` cards (default: three quarters of the way in)."""
        if decks not in DECK_COUNTS:
            raise ValueError(f"a Spanish 21 shoe holds 6 or 8 decks, not {decks}")
        cards = [card for card in ALL_CARDS for _ in range(decks)]
        random.Random(seed).shuffle(cards)
        self.load(cards, len(cards) * 3 // 4 if cover_at is None else cover_at)

    def deal(self) -> Card | str | None:
        """Draw the next card: returns the card, ``COVER``, or None if the shoe is empty."""
        with self._shoe_lock:
            if not self._shoe:
                return None
            item = self._shoe.pop(0)
            empty = not self._shoe
            if isinstance(item, Card):
                self.dealt.append(item)
        if isinstance(item, Card):
            self._report(fb.CardDrawnReport(int(item.rank), item.suit.value))
        else:
            self._report(fb.CoverCardReport())
        if empty:
            self._report(fb.ShoeEmptyReport())
        return item

    def deal_code(self, rank: int, suit: str) -> None:
        """Report a raw card code, e.g. a foreign ``(10, "S")``."""
        self._report(fb.CardDrawnReport(rank, suit))

    def deal_ten(self, suit: str = "S") -> None:
        """A 10 (foreign to a Spanish deck) comes out of the shoe."""
        self.deal_code(10, suit)

    def repeat_last(self) -> None:
        """The sensor reports the last card a second time (a double read)."""
        if not self.dealt:
            raise ValueError("no card dealt yet")
        last = self.dealt[-1]
        self._report(fb.CardDrawnReport(int(last.rank), last.suit.value))

    def _on_command(self, message: fb.Message) -> None:
        return  # the shoe takes no commands
