"""What the simulated dealer's hands do to the devices: :class:`TableSide`, and
:class:`RigSide` on an in-process :class:`~drivers.simulated.rig.SimulatedRig`.

The dealing loop (``controller.simulation.dealing``) acts only through a table side:
draw from the shoe, press a button, turn the key, put chips on a spot, load the shoe,
slide the hole card into the reader, and the faults a table sees (a foreign card, a cable
pulled, a misread). ``controller.simulation.split_doubles.ServedSide`` is the side of the
split table's doubles process; the boot test has its own (``vm_tests/remote_table.py``).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Literal, Protocol

from controller.rules.cards import Card
from drivers.hal import Button, WagerSpot
from drivers.simulated.firmware import Holding

#: The devices whose cable the simulated faults pull.
Pluggable = Literal["shoe", "reader"]


class TableSide(Protocol):
    """What the simulated dealer's hands do to the devices (see the module docstring)."""

    def draw(self, hole: bool) -> Card | str | None:
        """Take the next card out of the shoe (through the hole-card slot when ``hole``):
        the card, the cover card's text, or None when the shoe is empty."""
        ...

    def draw_foreign(self, suit: str) -> None:
        """A 10 (foreign to a Spanish deck) comes out of the shoe."""

    def press(self, button: Button) -> None:
        """Press and release a panel button."""

    def turn_key(self, on: bool) -> None:
        """Turn the supervisor key on or off."""

    def place_wager(self, seat: int, spot: WagerSpot, present: bool, cents: int | None) -> None:
        """Put chips on (or take them off) a seat's sensed spot."""

    def load_shoe(self, decks: int, seed: int, cover_at: int) -> None:
        """Put a batch shuffled by ``seed`` into the shoe, the cover card at ``cover_at``."""

    def insert_hole_card(self, card: Card | None) -> None:
        """Slide ``card`` face down into the card reader (None: take it out). Returns once
        the reader holds it: the dealer's next press makes the station read it."""

    def wait_idle(self, device: Pluggable, timeout: float) -> bool:
        """Wait until ``device`` is connected with every report acknowledged."""
        ...

    def unplug(self, device: Pluggable) -> None:
        """Pull ``device``'s cable."""

    def plug(self, device: Pluggable) -> None:
        """Plug ``device``'s cable back in."""

    def misread(self) -> None:
        """The card reader's next check cannot read the card."""

    def holding(self) -> AbstractContextManager[None]:
        """The serial doubles' reports made inside go out together when the block ends
        (``DeviceFirmware.holding``): one look's actions reach each link in one burst."""
        ...

    def deliver(self, device: Literal["shoe", "panel"], timeout: float) -> bool:
        """Send what ``device`` reported so far (inside :meth:`holding` too) and wait, at
        most ``timeout`` seconds, until the station has it on its event queue
        (``DeviceFirmware.deliver``): an action on another device cannot overtake it.
        False when it could not say so (no session, the timeout): the dealer then looks up
        before acting on another device."""
        ...


class RigSide:
    """A :class:`TableSide` on an in-process :class:`~drivers.simulated.rig.SimulatedRig`."""

    def __init__(self, rig: Any) -> None:
        self.rig = rig

    def draw(self, hole: bool) -> Card | str | None:
        """See :meth:`TableSide.draw`."""
        item: Card | str | None = self.rig.shoe.deal(hole=hole)
        return item

    def draw_foreign(self, suit: str) -> None:
        """See :meth:`TableSide.draw_foreign`."""
        self.rig.shoe.deal_ten(suit)

    def press(self, button: Button) -> None:
        """See :meth:`TableSide.press`."""
        self.rig.press(button)

    def turn_key(self, on: bool) -> None:
        """See :meth:`TableSide.turn_key`."""
        self.rig.turn_key(on)

    def place_wager(self, seat: int, spot: WagerSpot, present: bool, cents: int | None) -> None:
        """See :meth:`TableSide.place_wager`."""
        self.rig.place_wager(seat, spot, present, cents)

    def load_shoe(self, decks: int, seed: int, cover_at: int) -> None:
        """See :meth:`TableSide.load_shoe`."""
        self.rig.shoe.load_shuffled(decks, seed=seed, cover_at=cover_at)

    def insert_hole_card(self, card: Card | None) -> None:
        """See :meth:`TableSide.insert_hole_card`."""
        self.rig.card_reader.set_hole_card(card)

    def _double(self, device: Pluggable) -> Any:
        return self.rig.shoe if device == "shoe" else self.rig.card_reader

    def wait_idle(self, device: Pluggable, timeout: float) -> bool:
        """See :meth:`TableSide.wait_idle`."""
        return bool(self._double(device).wait_idle(timeout))

    def unplug(self, device: Pluggable) -> None:
        """See :meth:`TableSide.unplug`."""
        self._double(device).unplug()

    def plug(self, device: Pluggable) -> None:
        """See :meth:`TableSide.plug`."""
        self._double(device).plug()

    def misread(self) -> None:
        """See :meth:`TableSide.misread`."""
        self.rig.card_reader.misread()

    def deliver(self, device: Literal["shoe", "panel"], timeout: float) -> bool:
        """See :meth:`TableSide.deliver` (a GPIO panel's press is on the station's queue
        when ``press`` returns: the mock pin calls the driver at once)."""
        if device == "shoe":
            return bool(self.rig.shoe.deliver(timeout))
        board = self.rig.panel_board
        return True if board is None else bool(board.deliver(timeout))

    def holding(self) -> AbstractContextManager[None]:
        """See :meth:`TableSide.holding` (the GPIO panel has no reports to hold)."""
        board = self.rig.panel_board
        return Holding((self.rig.shoe,) if board is None else (self.rig.shoe, board))
