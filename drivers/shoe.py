"""The smart shoe driver: cards, the cover card, loaded and empty, over serial.

Cards arrive as raw codes (rank number 1..13, suit letter); this driver turns them into
``controller.rules.cards.Card``. A 10 or any code outside a Spanish deck becomes
``ForeignCardDrawn`` (NY 5324.12(a): the deck has no 10s), and so does a card the shoe
reports more often than ``decks`` Spanish decks hold since the last load (a double read or
a card from another deck), so the procedure faults instead of dealing it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import ClassVar

import firmware_bridge as fb
from controller.rules.cards import DECK_COUNTS, Card, card_from_codes
from controller.rules.errors import ForeignCardError
from drivers.device_link import ExpectedDevice, LinkedDevice
from drivers.errors import DriverConfigError
from drivers.hal import (
    CardDrawn,
    CoverCardSeen,
    DeviceEvent,
    DeviceFault,
    DeviceKind,
    EventSink,
    ForeignCardDrawn,
    ShoeEmpty,
    ShoeLoaded,
)
from drivers.serial_transport import SerialSettings, SerialTransport
from drivers.transport import Backoff


class ShoeDriver(LinkedDevice):
    """``drivers.hal.ShoeSensor`` over a serial link."""

    KIND: ClassVar[DeviceKind] = DeviceKind.SHOE

    def __init__(
        self,
        settings: SerialSettings,
        sink: EventSink,
        expected: ExpectedDevice,
        *,
        decks: int | None = None,
        timing: fb.Timing | None = None,
        backoff: Backoff | None = None,
        station_id: str = "station",
        refusal_retry: float = 1.0,
    ) -> None:
        if decks is not None and decks not in DECK_COUNTS:
            raise DriverConfigError(f"a Spanish 21 shoe holds 6 or 8 decks, not {decks}")
        super().__init__(
            sink, expected, station_id=station_id, timing=timing, refusal_retry=refusal_retry
        )
        self.decks = decks
        self._seen: Counter[Card] = Counter()
        self._serial = SerialTransport(settings, self, name="shoe", backoff=backoff)

    @property
    def transport(self) -> SerialTransport:
        return self._serial

    def _on_message(self, message: fb.Message) -> Iterable[DeviceEvent]:
        if isinstance(message, fb.CardDrawnReport):
            yield self._card(message.rank, message.suit)
        elif isinstance(message, fb.CoverCardReport):
            yield CoverCardSeen()
        elif isinstance(message, fb.ShoeLoadedReport):
            self._seen.clear()
            yield ShoeLoaded()
        elif isinstance(message, fb.ShoeEmptyReport):
            yield ShoeEmpty()
        else:
            yield DeviceFault(self.KIND, f"unexpected {type(message).__name__} from the shoe")

    def _on_rejected(self, reason: str, type_id: int) -> DeviceEvent:
        if type_id == fb.CardDrawnReport.TYPE_ID:
            # A card left the shoe and nobody can say which: never deal past it.
            return ForeignCardDrawn(f"unreadable card code: {reason}")
        return super()._on_rejected(reason, type_id)

    def _card(self, rank: int, suit: str) -> DeviceEvent:
        try:
            card = card_from_codes(rank, suit)
        except ForeignCardError as err:
            return ForeignCardDrawn(str(err))
        self._seen[card] += 1
        if self.decks is not None and self._seen[card] > self.decks:
            return ForeignCardDrawn(
                f"duplicate card {card}: copy {self._seen[card]} in a {self.decks}-deck shoe"
            )
        return CardDrawn(card)
