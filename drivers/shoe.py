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
be the hole card). A restarted station resumes the count from its journal
(:meth:`ShoeDriver.resume_count`); before any load it knows (a station started mid-shoe)
the first number heard is the start.

The hole card never reaches the station before the reveal: the shoe withholds it and
reports ``HoleCardDealtReport`` (its draw number and commitment) -> ``HoleCardDealt``;
:meth:`ShoeDriver.expect_hole_card` tells the shoe the next card is the hole card, and
:meth:`ShoeDriver.reveal_hole_card` asks for it at the reveal -> ``HoleCardRevealed`` (the
procedure checks the commitment). A reveal this driver did not ask for reaches the
station without its card and nonce (``HoleCardRevealed.asked`` False).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any, ClassVar

import structlog

import firmware_bridge as fb
from controller.rules.cards import DECK_COUNTS, Card, card_from_codes
from controller.rules.errors import ForeignCardError
from drivers.device_link import ExpectedDevice
from drivers.errors import DriverConfigError
from drivers.hal import (
    CardDrawn,
    CoverCardSeen,
    DeviceEvent,
    DeviceFault,
    DeviceKind,
    EventSink,
    ForeignCardDrawn,
    HoleCardDealt,
    HoleCardRevealed,
    ShoeEmpty,
    ShoeLoaded,
)
from drivers.serial_driver import SerialDriver
from drivers.serial_transport import SerialSettings

log = structlog.get_logger(__name__)

#: What the driver remembers of a cover card draw (card draws keep their raw code).
_COVER = "cover"


class ShoeDriver(SerialDriver):
    """``drivers.hal.ShoeSensor`` over a serial link."""

    KIND: ClassVar[DeviceKind] = DeviceKind.SHOE

    def __init__(
        self,
        settings: SerialSettings,
        sink: EventSink,
        expected: ExpectedDevice,
        *,
        decks: int | None = None,
        **link: Any,
    ) -> None:
        """``decks``: the batch the shoe holds, for its count of each card; ``link``: the
        options of :class:`SerialDriver` (timing, backoff, station_id, refusal_retry)."""
        if decks is not None and decks not in DECK_COUNTS:
            raise DriverConfigError(f"a Spanish 21 shoe holds 6 or 8 decks, not {decks}")
        super().__init__(settings, sink, expected, **link)
        self.decks = decks
        # Copies of each card since the load, by the card's text: a str hashes once and
        # keeps it, a Card hashes its two Enums in Python each time (a card a frame).
        self._seen: Counter[str] = Counter()
        # The shoe's codes -> the shared Card (a 10 or a bad code is never kept).
        self._by_codes: dict[tuple[int, str], Card] = {}
        # Draw number -> what it was (raw card code or _COVER), since the last load.
        self._draws: dict[int, str] = {}
        self._last_draw: int | None = None
        self._load: int | None = None
        self._empty_delivered = False
        # Card reports rejected as unreadable since the last delivered draw: their numbers
        # could not be read, so a gap of that many is already reported as a foreign card.
        self._unreadable = 0
        # Commitments asked for at the reveal and not answered yet.
        self._reveals_asked: set[bytes] = set()
        # Revealed hole cards already counted among the batch's copies (since the load).
        self._holes_counted: set[bytes] = set()
        #: Repeated reports dropped since the driver started.
        self.repeats = 0

    def resume_count(self, load: int | None, draw: int | None, *, empty: bool = False) -> None:
        """Before :meth:`start`: the shoe's load and its last draw that the journal holds,
        and whether it journaled the shoe empty after it (``controller.table.recovery``;
        None: not known). A report the shoe sends again
        after a restart (it was never acknowledged to the station before) is then dropped
        as a repeat instead of reaching the procedure twice, and a report lost at the
        restart is a gap (``DeviceFault``); without them the first number heard is the
        start, as for a station started mid-shoe."""
        with self._lock:
            self._load = load
            self._last_draw = draw if draw is not None else (0 if load is not None else None)
            self._draws.clear()
            self._empty_delivered = empty

    def expect_hole_card(self) -> None:
        """Tell the shoe the next card out is the dealer's hole card (it withholds it):
        the next draw number after the last one heard, so that a card already drawn (its
        report still on the way) is never mistaken for it; nothing when the last draw heard
        is a hole card (the dealer was quicker than the table)."""
        with self._lock:
            last = self._last_draw or 0
            if self._draws.get(last, "").startswith("hole "):
                return  # the hole card came out already (its report was ahead of the table)
            self._send(fb.HoleCardNext(last + 1))

    def cancel_hole_card(self) -> None:
        """Tell the shoe no hole card is due (a void before the hole card came out), so
        the first card of the next round is not withheld as one."""
        with self._lock:
            self._send(fb.HoleCardCancel())

    def reveal_hole_card(self, commitment: str) -> None:
        """Ask the shoe for the hole card committed as ``commitment`` (64 hex digits);
        ``HoleCardRevealed`` follows (or a ``DeviceFault`` if it cannot be asked)."""
        try:
            raw = bytes.fromhex(commitment)
        except ValueError:
            raw = b""
        if len(raw) != 32:
            self._emit(DeviceFault(self.KIND, f"not a hole-card commitment: {commitment!r}"))
            return
        with self._lock:
            self._reveals_asked.add(raw)
            if not self._send(fb.HoleCardRevealRequest(raw)):
                self._reveals_asked.discard(raw)

    def _on_message(self, message: fb.Message) -> Iterable[DeviceEvent]:
        # A card is nearly every message: a tuple for it, not a generator.
        if isinstance(message, fb.CardDrawnReport):
            rank, suit = message.rank, message.suit
            fresh, fault = self._check_draw(message.draw, f"{rank}{suit}")
            if not fresh:
                return fault
            card = self._card(rank, suit, message.draw)
            return (*fault, card) if fault else (card,)
        return self._other_message(message)

    def _other_message(self, message: fb.Message) -> Iterable[DeviceEvent]:
        if isinstance(message, fb.CoverCardReport):
            fresh, fault = self._check_draw(message.draw, _COVER)
            yield from fault
            if fresh:
                yield CoverCardSeen(draw=message.draw)
        elif isinstance(message, fb.ShoeLoadedReport):
            if message.load == self._load:
                # The current load, sent again: it must not restart the draw count.
                self._repeat(f"load {message.load}")
                return
            self._load = message.load
            self._seen.clear()
            self._holes_counted.clear()
            self._draws.clear()
            self._last_draw = 0
            self._empty_delivered = False
            self._unreadable = 0
            yield ShoeLoaded(load=message.load)
        elif isinstance(message, fb.ShoeEmptyReport):
            yield from self._empty(message.draws)
        elif isinstance(message, fb.HoleCardDealtReport):
            fresh, fault = self._check_draw(message.draw, "hole " + message.commitment.hex())
            yield from fault
            if fresh:
                yield HoleCardDealt(message.commitment.hex(), draw=message.draw)
        elif isinstance(message, fb.HoleCardRevealReport):
            yield from self._revealed(message)
        else:
            yield DeviceFault(self.KIND, f"unexpected {type(message).__name__} from the shoe")

    def _on_unconfirmed(self, commands: str) -> Iterable[DeviceEvent]:
        # The shoe's commands are safe to lose: HoleCardNext only backs up the hole-card
        # slot, and a reveal not answered is asked for again at the dealer's next press
        # (the shoe answers a repeat the same way). The loss itself is DeviceLost.
        return ()

    def _revealed(self, message: fb.HoleCardRevealReport) -> Iterable[DeviceEvent]:
        commitment = message.commitment
        if commitment not in self._reveals_asked:
            # Not asked on this link: a station killed after asking is answered again on
            # the next one (the shoe re-sends what was never acknowledged). Card and nonce
            # stay here; the table journals the answer and asks itself when it needs them.
            problem = "the shoe revealed a hole card this station did not ask for"
            yield HoleCardRevealed(commitment.hex(), None, None, problem, asked=False)
            return
        self._reveals_asked.discard(commitment)
        if message.rank == 0:
            problem = "the shoe does not hold that hole card"
            yield HoleCardRevealed(commitment.hex(), None, None, problem)
            return
        try:
            card = card_from_codes(message.rank, message.suit)
        except ForeignCardError as err:
            yield HoleCardRevealed(commitment.hex(), None, None, f"the shoe revealed {err}")
            return
        if commitment not in self._holes_counted:
            # It left the shoe at the deal: it counts among the batch's copies from now.
            self._holes_counted.add(commitment)
            self._seen[card.text] += 1
        yield HoleCardRevealed(commitment.hex(), card, message.nonce.hex())

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
        yield ShoeEmpty(draws=draws)

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

    def _card(self, rank: int, suit: str, draw: int) -> DeviceEvent:
        card = self._by_codes.get((rank, suit))
        if card is None:
            try:
                card = card_from_codes(rank, suit)
            except ForeignCardError as err:
                return ForeignCardDrawn(str(err), draw=draw)
            self._by_codes[rank, suit] = card
        seen = self._seen
        copies = seen[card.text] = seen[card.text] + 1
        if self.decks is not None and copies > self.decks:
            return ForeignCardDrawn(
                f"duplicate card {card}: copy {copies} in a {self.decks}-deck shoe", draw=draw
            )
        return CardDrawn(card, draw=draw)
