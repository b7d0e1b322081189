"""The shoe and the panel board as the C reference firmware: the control methods and
readable state of :class:`drivers.simulated.shoe.ShoeDouble` and
:class:`drivers.simulated.panel.PanelDouble` over the bench control channel
(docs/firmware.md) of a :class:`drivers.simulated.c_device.FirmwareDevice`."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import firmware_bridge as fb
from controller.rules.cards import ALL_CARDS, Card, parse_card
from drivers.hal import Button, Led, LedMode, WagerSpot
from drivers.panel_link import PanelCodes
from drivers.simulated.c_device import FirmwareDevice
from drivers.simulated.control_calls import Call
from drivers.simulated.panel import PanelDouble
from drivers.simulated.shoe import COVER, ShoeDouble


class FirmwareShoe(FirmwareDevice):
    """The C shoe firmware: the control methods of :class:`ShoeDouble`."""

    KIND: ClassVar[fb.DeviceKind] = fb.DeviceKind.SHOE
    NAME: ClassVar[str] = "shoe"
    CONTROL: ClassVar[Mapping[str, Call]] = ShoeDouble.CONTROL
    READABLE: ClassVar[frozenset[str]] = ShoeDouble.READABLE - ShoeDouble.DOUBLE_ONLY

    def __init__(self, path: Path, serial_number: str = "SHOE-0001", **kwargs: Any) -> None:
        super().__init__(path, serial_number, **kwargs)
        self.dealt: list[Card] = []
        self._lie: Card | None = None

    @property
    def draws(self) -> int:
        """The number of the last draw since the load."""
        return self._number("draws")

    @property
    def remaining(self) -> int:
        """Cards (and the cover card) still in the shoe."""
        return self._number("remaining")

    def load(self, cards: Sequence[Card], cover_at: int | None = None) -> None:
        """Load ``cards`` with the cover card after ``cover_at`` of them; reports it."""
        self._fill("load", cards, cover_at)

    def restock(
        self,
        cards: Sequence[Card],
        cover_at: int | None = None,
        *,
        load: int | None = None,
        draws: int = 0,
    ) -> None:
        """The shoe a restarted station finds: loaded, without a report, its load number
        (None: kept) and last draw number what the shoe kept (``ShoeDouble.restock``)."""
        self._fill("restock", cards, cover_at)
        if load is not None or draws:
            self.ask(f"count {-1 if load is None else load} {draws}")

    def _fill(self, verb: str, cards: Sequence[Card], cover_at: int | None) -> None:
        if cover_at is not None and not 0 <= cover_at <= len(cards):
            raise ValueError(f"cover card position {cover_at} outside 0..{len(cards)}")
        where = -1 if cover_at is None else cover_at
        self.ask(f"{verb} {where} " + " ".join(c.text for c in cards))
        self.dealt = []

    def load_shuffled(self, decks: int = 6, seed: int = 0, cover_at: int | None = None) -> None:
        """Load ``decks`` Spanish decks shuffled by ``random.Random(seed)``."""
        cards = [card for card in ALL_CARDS for _ in range(decks)]
        random.Random(seed).shuffle(cards)
        self.load(cards, len(cards) * 3 // 4 if cover_at is None else cover_at)

    def deal(self, *, hole: bool = False) -> Card | str | None:
        """Pull the next card past the sensor (``hole``: through the hole-card slot)."""
        out = self.ask("deal hole" if hole else "deal")
        if out == "none":
            return None
        if out == "cover":
            return COVER
        card = parse_card(out)
        self.dealt.append(card)
        return card

    @property
    def hole_from(self) -> int | None:
        """The draw the station named as the hole card's (``HoleCardNext``), if any."""
        return int(self.status()["hole_from"]) or None

    @property
    def withheld(self) -> dict[bytes, tuple[Card, bytes]]:
        """The hole cards the shoe keeps, by commitment: (card, nonce), read over the
        bench's control channel (never over the link)."""
        held: dict[bytes, tuple[Card, bytes]] = {}
        for item in self.ask("held").split():
            commitment, card, nonce = item.split(":")
            held[bytes.fromhex(commitment)] = (parse_card(card), bytes.fromhex(nonce))
        return held

    @property
    def lie_at_reveal(self) -> Card | None:
        """Reveal this card instead of the one withheld (a tampered shoe)."""
        return self._lie

    @lie_at_reveal.setter
    def lie_at_reveal(self, card: Card | None) -> None:
        self.ask("lie 0 S" if card is None else f"lie {int(card.rank)} {card.suit.value}")
        self._lie = card

    def deal_hole_card(self) -> Card | str | None:
        """Draw the next card through the hole-card slot."""
        return self.deal(hole=True)

    def deal_code(self, rank: int, suit: str) -> None:
        """A card with a raw code comes out of the shoe (not from the batch)."""
        self.ask(f"code {rank} {suit}")

    def deal_ten(self, suit: str = "S") -> None:
        """A foreign 10 comes out of the shoe."""
        self.deal_code(10, suit)

    def repeat_last(self) -> None:
        """The sensor reports the last card again (the same draw number)."""
        self.ask("repeat")


class FirmwarePanel(FirmwareDevice):
    """The C panel-board firmware: the control methods of :class:`PanelDouble`."""

    KIND: ClassVar[fb.DeviceKind] = fb.DeviceKind.PANEL
    NAME: ClassVar[str] = "panel"
    SCANS: ClassVar[bool] = True
    CONTROL: ClassVar[Mapping[str, Call]] = PanelDouble.CONTROL
    READABLE: ClassVar[frozenset[str]] = PanelDouble.READABLE

    def __init__(
        self,
        path: Path,
        serial_number: str = "PANEL-0001",
        *,
        codes: PanelCodes | None = None,
        **kwargs: Any,
    ) -> None:
        self.codes = codes or PanelCodes.default()
        self._leds = {code: led for led, code in self.codes.leds.items()}
        self._key_switch = False
        super().__init__(path, serial_number, **kwargs)

    def pair(self, station: str = "rig", *, consent: Sequence[str] = ()) -> bytes:
        """Pair: the board's own key switch turned as well as its button held."""
        try:
            return super().pair(station, consent=("key_switch 1", *consent))
        finally:
            self.ask("key_switch 0")

    @property
    def key_on(self) -> bool:
        """Whether the board's own key switch is turned (it guards pairing)."""
        return self._key_switch

    @key_on.setter
    def key_on(self, on: bool) -> None:
        self.ask(f"key_switch {int(on)}")
        self._key_switch = on

    @property
    def lamps(self) -> dict[Led, LedMode]:
        """How each lamp the wiring table knows is lit (dark lamps have no entry)."""
        status = self.status()
        steady, blink = int(status["steady"]), int(status["blink"])
        lamps: dict[Led, LedMode] = {}
        for code, led in self._leds.items():
            if steady >> code & 1:
                lamps[led] = LedMode.STEADY
            elif blink >> code & 1:
                lamps[led] = LedMode.BLINK
        return lamps

    @property
    def unknown_lamps(self) -> list[int]:
        """Lamp numbers lit that the wiring table lacks."""
        status = self.status()
        lit = int(status["steady"]) | int(status["blink"])
        return [n for n in range(fb.PANEL_LAMP_BITS) if lit >> n & 1 and n not in self._leds]

    @property
    def lamp_frames(self) -> int:
        """PanelLamps frames applied."""
        return self._number("lamp_frames")

    @property
    def refused_lamp_frames(self) -> int:
        """PanelLamps frames refused (a lamp both steady and blinking)."""
        return self._number("refused_lamp_frames")

    def lamp(self, led: Led) -> LedMode:
        """How ``led`` is lit."""
        return self.lamps.get(led, LedMode.OFF)

    def press(self, button: Button) -> None:
        """Press and release ``button`` (the board reports the press)."""
        self.press_code(self.codes.buttons[button])

    def press_code(self, code: int) -> None:
        """Press a raw button number."""
        self.ask(f"press {code}")

    def turn_key(self, on: bool) -> None:
        """Turn the supervisor key (reported both ways)."""
        self.ask(f"key {self.codes.supervisor_key} {int(on)}")

    def place_wager(
        self, seat: int, spot: WagerSpot, present: bool = True, cents: int | None = None
    ) -> None:
        """A seat's wager sensor changes."""
        code = {WagerSpot.MAIN: 1, WagerSpot.MATCH: 2, WagerSpot.INSURANCE: 3}[spot]
        self.ask(f"wager {seat} {code} {int(present)} {-1 if cents is None else cents}")
