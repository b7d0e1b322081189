"""The smart shoe driver: cards, the cover card, loaded and empty, over serial.

Cards arrive as raw codes (rank number 1..13, suit letter); this driver turns them into
``controller.rules.cards.Card``. A 10 or any code outside a Spanish deck becomes
``ForeignCardDrawn`` (NY 5324.12(a): the deck has no 10s), and so does a card the shoe
reports more often than ``decks`` Spanish decks hold since the last load (a card from
another deck), so the procedure faults instead of dealing it.

Every draw (card or cover card) carries its number since the last load, ``ShoeEmpty`` the
last one and ``ShoeLoaded`` a load number. A number already delivered is a report sent
again after a lost session (or a double read): dropped, logged and counted in ``repeats``,
so nothing reaches the procedure twice. A number that skips ahead means reports were lost:
a ``DeviceFault`` naming the expected and found numbers, then the draw itself; so is a
repeated number that carries another card. Neither log nor fault names the card (it may
be the hole card). Before any load (a station started mid-shoe) the first number heard is
the start.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import ClassVar

import structlog

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

log = structlog.get_logger(__name__)

#: What the driver remembers of a cover card draw (card draws keep their raw code).
_COVER = "cover"


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
        # Draw number -> what it was (raw card code or _COVER), since the last load.
        self._draws: dict[int, str] = {}
        self._last_draw: int | None = None
        self._load: int | None = None
        self._empty_delivered = False
        # Card reports rejected as unreadable since the last delivered draw: their numbers
        # could not be read, so a gap of that many is already reported as a foreign card.
        self._unreadable = 0
        #: Repeated reports dropped since the driver started.
        self.repeats = 0
        self._serial = SerialTransport(settings, self, name="shoe", backoff=backoff)

    @property
    def transport(self) -> SerialTransport:
        return self._serial

    def _on_message(self, message: fb.Message) -> Iterable[DeviceEvent]:
        if isinstance(message, fb.CardDrawnReport):
            fresh, fault = self._check_draw(message.draw, f"{message.rank}{message.suit}")
            yield from fault
            if fresh:
                yield self._card(message.rank, message.suit)
        elif isinstance(message, fb.CoverCardReport):
            fresh, fault = self._check_draw(message.draw, _COVER)
            yield from fault
            if fresh:
                yield CoverCardSeen()
        elif isinstance(message, fb.ShoeLoadedReport):
            if message.load == self._load:
                # The current load, sent again: it must not restart the draw count.
                self._repeat(f"load {message.load}")
                return
            self._load = message.load
            self._seen.clear()
            self._draws.clear()
            self._last_draw = 0
            self._empty_delivered = False
            self._unreadable = 0
            yield ShoeLoaded()
        elif isinstance(message, fb.ShoeEmptyReport):
            yield from self._empty(message.draws)
        else:
            yield DeviceFault(self.KIND, f"unexpected {type(message).__name__} from the shoe")

    def _on_rejected(self, reason: str, type_id: int) -> DeviceEvent:
        if type_id == fb.CardDrawnReport.TYPE_ID:
            self._unreadable += 1
            # A card left the shoe and nobody can say which: never deal past it.
            return ForeignCardDrawn(f"unreadable card code: {reason}")
        return super()._on_rejected(reason, type_id)

    def _check_draw(self, draw: int, what: str) -> tuple[bool, list[DeviceFault]]:
        """Whether draw number ``draw`` (of ``what``) is new and must be delivered, and the
        fault to report first (a gap before it, or a repeat that is not the same draw)."""
        last = self._last_draw
        if last is not None and draw <= last:
            before = self._draws.get(draw)
            if before is None or before == what:
                # Sent again after a lost session, or read twice: delivered already.
                self._repeat(f"draw {draw}")
                return False, []
            # Not what that draw was: a shoe that lost its count, say. The card did leave
            # the shoe, so it is delivered after the fault rather than lost.
            reason = f"the shoe reported draw {draw} again as something else (last {last})"
            return True, [DeviceFault(self.KIND, reason, {"draw": str(draw)})]
        faults = []
        if last is not None and draw - (last + 1) > self._unreadable:
            faults.append(self._gap(last + 1, draw))
        self._last_draw = draw
        self._draws[draw] = what
        self._unreadable = 0
        return True, faults

    def _empty(self, draws: int) -> Iterable[DeviceEvent]:
        last = self._last_draw
        if last is not None and draws < last:
            yield DeviceFault(
                self.KIND,
                f"the shoe reported empty after draw {draws}, but draw {last} was delivered",
                {"expected_draw": str(last), "found_draw": str(draws)},
            )
            return
        if last is not None and draws == last and self._empty_delivered:
            self._repeat(f"empty after draw {draws}")
            return
        if last is not None and draws - last > self._unreadable:
            yield self._gap(last + 1, draws)
        self._last_draw = draws
        self._empty_delivered = True
        self._unreadable = 0
        yield ShoeEmpty()

    def _repeat(self, what: str) -> None:
        self.repeats += 1
        log.info("repeated shoe report dropped", report=what, last_draw=self._last_draw)

    def _gap(self, expected: int, found: int) -> DeviceFault:
        # Reports were lost (a shoe restarted with reports it never sent): cards left the
        # shoe that the procedure never saw.
        return DeviceFault(
            self.KIND,
            f"shoe reports lost: expected draw {expected}, found draw {found}",
            {"expected_draw": str(expected), "found_draw": str(found)},
        )

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
