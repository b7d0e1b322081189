"""The smart-shoe double: a shoe loaded with given cards or a seeded Spanish shoe.

``deal()`` draws the next card exactly as a dealer pulling it past the shoe's sensor, and
the double reports it over the real protocol. The cover card sits at a position in the
shoe and is reported when it comes out; ``ShoeEmpty`` follows the last card. Every draw
(card or cover card) carries its number since the last load; a report sent again after a
lost session keeps it, and the count survives ``power_cycle`` (it belongs to the batch);
loads are numbered the same way.
Faults: a foreign 10 or an arbitrary raw code (a real card: the next number), the last
card reported twice (a double read: the same number), plus every switch of
:class:`DeviceFirmware` and the cable's ``unplug`` / ``plug``.

The hole card is withheld, as docs/protocol.md ("The hole card") asks of a real shoe: the
card drawn with :meth:`ShoeDouble.deal_hole_card` (the shoe's hole-card slot), or the first
card from the draw number the station's ``HoleCardNext`` names, is reported only as
``HoleCardDealtReport`` with a commitment made with a nonce from ``secrets`` (even in a
seeded simulation). The shoe keeps card and nonce (``withheld``, across power cycles: its
flash) until the next load, and answers every ``HoleCardRevealRequest`` for it the same
way (a station that crashed between asking and hearing asks again). ``lie_at_reveal``
makes it reveal another card (a tampered shoe); ``defer_reveals`` keeps its answers until
:meth:`ShoeDouble.answer_deferred` (a shoe slow to answer: the station has moved on).
"""

from __future__ import annotations

import random
import secrets
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Final

import firmware_bridge as fb
from controller.rules.cards import ALL_CARDS, DECK_COUNTS, Card
from controller.rules.commitment import NONCE_BYTES, hole_card_commitment
from drivers.simulated.control_calls import Call, cards_arg
from drivers.simulated.serial_device import SerialDeviceDouble

#: What ``deal`` returns when the cover card comes out.
COVER: Final = "cover"


class ShoeDouble(SerialDeviceDouble):
    """A smart shoe on a pty (see the module docstring)."""

    KIND: ClassVar[fb.DeviceKind] = fb.DeviceKind.SHOE
    CONTROL: ClassVar[Mapping[str, Call]] = {
        "load_shuffled": lambda d, decks=6, seed=0, cover_at=None: d.load_shuffled(
            int(decks), int(seed), cover_at
        ),
        "load": lambda d, cards, cover_at=None: d.load(cards_arg(cards), cover_at),
        "restock": lambda d, cards, cover_at=None, load=None, draws=0: d.restock(
            cards_arg(cards), cover_at, load=None if load is None else int(load), draws=int(draws)
        ),
        "deal": lambda d, hole=False: d.deal(hole=bool(hole)),
        "deal_hole_card": lambda d: d.deal_hole_card(),
        "deal_ten": lambda d, suit="S": d.deal_ten(str(suit)),
        "deal_code": lambda d, rank, suit: d.deal_code(int(rank), str(suit)),
        "repeat_last": lambda d: d.repeat_last(),
        "deliver": lambda d, timeout=5.0: d.deliver(float(timeout)),
    }
    READABLE: ClassVar[frozenset[str]] = frozenset({"remaining", "draws", "dealt", "hole_log"})
    #: Each hole card dealt with its commitment: the truth ``bench/kill_loop.py`` checks a
    #: restarted station's reveal against.
    DOUBLE_ONLY: ClassVar[frozenset[str]] = frozenset({"hole_log"})

    def __init__(self, path: Path, serial_number: str = "SHOE-0001", **kwargs: Any) -> None:
        super().__init__(path, serial_number, **kwargs)
        self._shoe: list[Card | str] = []
        self._shoe_lock = threading.Lock()
        self._draws = 0
        self._loads = 0
        self._last_card: fb.CardDrawnReport | None = None
        self.dealt: list[Card] = []
        #: Hole cards withheld, by commitment: (card, nonce). Kept until revealed.
        self.withheld: dict[bytes, tuple[Card, bytes]] = {}
        #: Every hole card this shoe withheld, in order, across loads: (commitment in hex,
        #: card). What a real shoe's own log tells an investigator (a test's ground truth).
        self.hole_log: list[tuple[str, Card]] = []
        self._hole_from: int | None = None
        #: Reveal this card instead of the one withheld (a tampered shoe).
        self.lie_at_reveal: Card | None = None
        #: Keep the answers to reveal requests until :meth:`answer_deferred`.
        self.defer_reveals = False
        self._deferred: list[fb.HoleCardRevealRequest] = []

    @property
    def remaining(self) -> int:
        """Cards (and the cover card) still in the shoe."""
        return len(self._shoe)

    def load(self, cards: Sequence[Card], cover_at: int | None = None) -> None:
        """Load ``cards`` (first dealt first) with the cover card after ``cover_at`` cards
        (None: no cover card); reports ``ShoeLoaded``."""
        self.restock(cards, cover_at)
        with self._shoe_lock:
            self._loads = (self._loads + 1) & 0xFFFF
            load = self._loads
        with self._cond:
            self.withheld = {}  # a new batch: the last one's hole cards are gone
        self._report(fb.ShoeLoadedReport(load))

    def restock(
        self,
        cards: Sequence[Card],
        cover_at: int | None = None,
        *,
        load: int | None = None,
        draws: int = 0,
    ) -> None:
        """Put ``cards`` in the shoe without a report: the shoe a restarted station finds,
        loaded (and reported so) before the restart. ``cover_at`` as in :meth:`load`;
        ``load`` and ``draws``: the load number (None: kept) and the last draw number the
        shoe kept in its flash (docs/protocol.md, "Draw numbers"), 0 to count from the
        start."""
        if cover_at is not None and not 0 <= cover_at <= len(cards):
            raise ValueError(f"cover card position {cover_at} outside 0..{len(cards)}")
        if not 0 <= draws <= 0xFFFF or (load is not None and not 0 <= load <= 0xFFFF):
            raise ValueError(f"load {load} or draw {draws} outside 0..65535")
        shoe: list[Card | str] = list(cards)
        if cover_at is not None:
            shoe.insert(cover_at, COVER)
        with self._shoe_lock:
            self._shoe = shoe
            self._draws = draws
            if load is not None:
                self._loads = load
            self._hole_from = None  # draw numbers start again: an old arming means nothing
            self._last_card = None
            self.dealt = []

    def load_shuffled(self, decks: int = 6, seed: int = 0, cover_at: int | None = None) -> None:
        """Load ``decks`` Spanish decks shuffled by ``random.Random(seed)``; the cover card
        goes after ``cover_at`` cards (default: three quarters of the way in)."""
        if decks not in DECK_COUNTS:
            raise ValueError(f"a Spanish 21 shoe holds 6 or 8 decks, not {decks}")
        cards = [card for card in ALL_CARDS for _ in range(decks)]
        random.Random(seed).shuffle(cards)
        self.load(cards, len(cards) * 3 // 4 if cover_at is None else cover_at)

    @property
    def draws(self) -> int:
        """The number of the last draw since the load (cards, foreign ones and the cover)."""
        return self._draws

    @property
    def hole_from(self) -> int | None:
        """The draw the station named as the hole card's (``HoleCardNext``), if any."""
        return self._hole_from

    def deal_hole_card(self) -> Card | str | None:
        """Draw the next card through the hole-card slot: withheld if it is a card."""
        return self.deal(hole=True)

    def deal(self, *, hole: bool = False) -> Card | str | None:
        """Draw the next card: returns the card, ``COVER``, or None if the shoe is empty.
        The card is withheld as the hole card when ``hole`` or when the station said so."""
        with self._shoe_lock:
            if not self._shoe:
                return None
            item = self._shoe.pop(0)
            empty = not self._shoe
            self._draws += 1
            draw = self._draws
            if isinstance(item, Card):
                self.dealt.append(item)
        if isinstance(item, Card):
            with self._cond:
                armed = self._hole_from is not None and draw >= self._hole_from
                hole = hole or armed
                if hole:
                    self._hole_from = None
            if hole:
                self._withhold(item, draw)
            else:
                self._report_card(fb.CardDrawnReport(int(item.rank), item.suit.value, draw))
        else:
            self._report(fb.CoverCardReport(draw))
        if empty:
            self._report(fb.ShoeEmptyReport(draw))
        return item

    def deal_code(self, rank: int, suit: str) -> None:
        """A card with a raw code, e.g. a foreign ``(10, "S")``, physically comes out of the
        shoe (not out of the loaded batch): it takes the next draw number."""
        with self._shoe_lock:
            self._draws += 1
            draw = self._draws
        self._report_card(fb.CardDrawnReport(rank, suit, draw))

    def deal_ten(self, suit: str = "S") -> None:
        """A 10 (foreign to a Spanish deck) comes out of the shoe."""
        self.deal_code(10, suit)

    def repeat_last(self) -> None:
        """The sensor reports the last card a second time (a double read): same card, same
        draw number, so the station drops it as a repeat."""
        with self._shoe_lock:
            last = self._last_card
        if last is None:
            raise ValueError("no card dealt yet")
        self._report(last)

    def _report_card(self, report: fb.CardDrawnReport) -> None:
        with self._shoe_lock:
            self._last_card = report
        self._report(report)

    def _withhold(self, card: Card, draw: int) -> None:
        nonce = secrets.token_bytes(NONCE_BYTES)
        commitment = bytes.fromhex(hole_card_commitment(card.text, nonce.hex()))
        with self._cond:
            self.withheld[commitment] = (card, nonce)
            self.hole_log.append((commitment.hex(), card))
        self._report(fb.HoleCardDealtReport(draw, commitment))

    def _on_command(self, message: fb.Message) -> None:
        if isinstance(message, fb.HoleCardNext):
            if message.draw > self._draws:  # not a draw already past
                self._hole_from = message.draw
        elif isinstance(message, fb.HoleCardCancel):
            self._hole_from = None
        elif isinstance(message, fb.HoleCardRevealRequest):
            with self._cond:
                if self.defer_reveals:
                    self._deferred.append(message)
                    self._cond.notify_all()
                    return
            self._answer_reveal(message)

    @property
    def deferred(self) -> int:
        """How many reveal requests wait for :meth:`answer_deferred`."""
        with self._cond:
            return len(self._deferred)

    def answer_deferred(self) -> int:
        """Answer the reveal requests kept while ``defer_reveals`` was set (with what the
        shoe holds now), in order, and stop keeping them; returns how many."""
        with self._cond:
            self.defer_reveals = False
            deferred, self._deferred = self._deferred, []
        for message in deferred:
            self._answer_reveal(message)
        return len(deferred)

    def _answer_reveal(self, message: fb.HoleCardRevealRequest) -> None:
        held = self.withheld.get(message.commitment)
        if held is None:
            self._reply(fb.HoleCardRevealReport(message.commitment, 0, "S", bytes(16)))
            return
        card, nonce = held
        if self.lie_at_reveal is not None:
            card = self.lie_at_reveal
        self._reply(
            fb.HoleCardRevealReport(message.commitment, int(card.rank), card.suit.value, nonce)
        )
