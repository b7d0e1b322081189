"""Hardware abstraction: the device interfaces and the typed events they deliver.

The procedure sees the table's hardware only through this module. Every driver, real or
simulated, turns what its device says into the immutable events below and hands them to
one callback (``EventSink``), normally ``queue.Queue.put`` of the controller's single
event queue. Commands go the other way through the ``Protocol`` methods; none of them
blocks on the device: answers come back as events.

The card reader interface has no way to carry the hole card's rank: it only answers
blackjack / no blackjack / no card / read error (PA 635a.7(g), NJ 13:69F-19.7(i)).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Final, Protocol, runtime_checkable

from controller.rules.cards import Card

# The table's devices: one name for the HAL and the wire (its text is ``value``, its byte in
# HELLO ``code``); drivers/registry.py declares what the station knows of each.
from firmware_bridge.codec import DeviceKind as DeviceKind  # noqa: PLC0414 - re-exported


class PeekAnswer(Enum):
    """The only answers a card reader gives."""

    BLACKJACK = "blackjack"
    NO_BLACKJACK = "no_blackjack"
    NO_CARD = "no_card"
    READ_ERROR = "read_error"


class PeekTarget(Enum):
    """What the reader looks for, given the dealer's up card class."""

    LOOKING_FOR_TEN = "looking_for_ten"  # up card is an ace: a J/Q/K in the hole is blackjack
    LOOKING_FOR_ACE = "looking_for_ace"  # up card is J/Q/K: an ace in the hole is blackjack


class Button(Enum):
    """Buttons on the dealer panel. Supervisor buttons are live only with the key on."""

    NEXT = "next"  # stand / next / confirm
    DOUBLE = "double"
    SPLIT = "split"
    SURRENDER = "surrender"
    RESCUE = "rescue"
    DEALER_CHANGE = "dealer_change"
    DISCLOSE_BURN = "disclose_burn"
    SUPERVISOR_RESUME = "supervisor_resume"
    SUPERVISOR_VOID = "supervisor_void"
    SUPERVISOR_RESHUFFLE = "supervisor_reshuffle"


#: Buttons a panel passes on only while the supervisor key is on (GPIO or the panel board).
SUPERVISOR_BUTTONS: Final = frozenset(
    {Button.SUPERVISOR_RESUME, Button.SUPERVISOR_VOID, Button.SUPERVISOR_RESHUFFLE}
)


class WagerSpot(Enum):
    """Betting areas a seat sensor watches."""

    MAIN = "main"
    MATCH = "match"
    INSURANCE = "insurance"


class Led(Enum):
    """Lamps on the dealer panel."""

    SHUFFLE = "shuffle"
    LOAD = "load"
    BURN = "burn"
    BETS = "bets"
    DEAL = "deal"
    INSURANCE = "insurance"
    PEEK = "peek"
    DEALER = "dealer"
    PAY = "pay"
    COLLECT = "collect"
    PUSH = "push"
    BONUS = "bonus"
    RESHUFFLE = "reshuffle"
    FAULT = "fault"
    SHUFFLER_FAULT = "shuffler_fault"
    SHOE_FAULT = "shoe_fault"
    READER_FAULT = "reader_fault"
    SEAT_1 = "seat_1"
    SEAT_2 = "seat_2"
    SEAT_3 = "seat_3"
    SEAT_4 = "seat_4"
    SEAT_5 = "seat_5"
    SEAT_6 = "seat_6"
    SEAT_7 = "seat_7"

    @staticmethod
    def seat(number: int) -> Led:
        """The lamp in front of seat ``number`` (1..7)."""
        return Led(f"seat_{number}")


#: The lamp that shows a device's faults (a device not here shows the general fault lamp
#: only). Here, beside the lamps, because the table sees the devices only through this
#: module; drivers/registry.py gives each spec its lamp from it.
FAULT_LAMPS: Final[Mapping[DeviceKind, Led]] = {
    DeviceKind.SHUFFLER: Led.SHUFFLER_FAULT,
    DeviceKind.SHOE: Led.SHOE_FAULT,
    DeviceKind.CARD_READER: Led.READER_FAULT,
}


class LedMode(Enum):
    """How a lamp is lit."""

    OFF = "off"
    STEADY = "steady"
    BLINK = "blink"


# --- events -------------------------------------------------------------------------------


# A shoe report's draw number (``firmware_bridge`` numbers each card and the cover card from 1
# after a load): None from a shoe that numbers nothing (a test's double, the hand-dealt
# simulation). It rides on the journal rows the report writes, so that a restarted station
# knows which reports it holds already (``controller.table.recovery``). Not part of the
# event's equality: the same card reported is the same event, whatever its number.


@dataclass(frozen=True, slots=True)
class CardDrawn:
    """The shoe reports a Spanish card leaving it (``draw``: its number, see above)."""

    card: Card
    draw: int | None = field(default=None, compare=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class ForeignCardDrawn:
    """The shoe reports a card that is not in a Spanish deck (a 10, or an unknown code);
    ``draw`` None also for a report whose number could not be read."""

    description: str
    draw: int | None = field(default=None, compare=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class CoverCardSeen:
    """The shoe reports the cover (cutting) card (``draw``: its number)."""

    draw: int | None = field(default=None, compare=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class ShoeLoaded:
    """The shoe reports it has been loaded with a batch (``load``: the shoe's count of its
    loads, None when it numbers none)."""

    load: int | None = field(default=None, compare=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class ShoeEmpty:
    """The shoe reports it holds no more cards (``draws``: the number of its last draw)."""

    draws: int | None = field(default=None, compare=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class ShuffleDone:
    """The shuffler finished a batch and counted it: total and cards per rank number (1..13)."""

    card_count: int
    per_rank: tuple[tuple[int, int], ...]

    @property
    def composition(self) -> Mapping[int, int]:
        """Cards per rank number, 10 included when the shuffler saw foreign cards."""
        return dict(self.per_rank)


@dataclass(frozen=True, slots=True)
class HoleCardDealt:
    """The shoe withheld the hole card: only its commitment (SHA-256 hex of "CARD|NONCE",
    ``controller.rules.commitment``) is known until the reveal (``draw``: its number)."""

    commitment: str
    draw: int | None = field(default=None, compare=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class HoleCardRevealed:
    """The shoe's answer at the reveal: the hole card of ``commitment`` with its nonce (hex),
    or ``card`` None when the shoe no longer holds it (``problem`` says why). ``asked``
    False: an answer this driver never asked for (the station before a restart did, and the
    shoe sent it again on the new link; or nobody did): its card and nonce are dropped, so
    no hole card reaches the station unasked."""

    commitment: str
    card: Card | None
    nonce: str | None
    problem: str | None = None
    asked: bool = True


@dataclass(frozen=True, slots=True)
class PeekResult:
    """The card reader's answer to a blackjack check."""

    answer: PeekAnswer


@dataclass(frozen=True, slots=True)
class ButtonPressed:
    """A dealer or supervisor button was pressed (debounced)."""

    button: Button


@dataclass(frozen=True, slots=True)
class SupervisorKey:
    """The supervisor key switch was turned on or off."""

    on: bool


@dataclass(frozen=True, slots=True)
class SeatWagerChanged:
    """A seat's wager sensor changed. ``cents`` is the amount where the sensor can tell it."""

    seat: int
    spot: WagerSpot
    present: bool
    cents: int | None = None


@dataclass(frozen=True, slots=True)
class DeviceConnected:
    """A device completed its handshake and matches configuration."""

    device: DeviceKind
    serial_number: str
    firmware: str


@dataclass(frozen=True, slots=True)
class DeviceLost:
    """A device disappeared (unplugged, silent, link down). The driver keeps reconnecting."""

    device: DeviceKind
    reason: str


class DeviceFaultKind(Enum):
    """What sort of device fault: the procedure gives the tampering kinds their own code."""

    GENERAL = "general"  # jam, door open, misread, refused identity, lost reports...
    AUTHENTICATION = "authentication"  # forged frames, or a device without the pairing key


@dataclass(frozen=True, slots=True)
class DeviceFault:
    """A device reported a fault or was refused (jam, door open, misread, wrong identity...)."""

    device: DeviceKind
    reason: str
    details: Mapping[str, str] = field(default_factory=dict)
    kind: DeviceFaultKind = DeviceFaultKind.GENERAL


@dataclass(frozen=True, slots=True)
class ForgedFrame:
    """A frame on a device's link failed its seal, below the rate that faults the device
    (docs/protocol.md section 4c): journaled, play goes on."""

    device: DeviceKind
    reason: str
    #: Forged frames in the current session, this one included.
    count: int


DeviceEvent = (
    CardDrawn
    | ForeignCardDrawn
    | CoverCardSeen
    | ShoeLoaded
    | ShoeEmpty
    | HoleCardDealt
    | HoleCardRevealed
    | ShuffleDone
    | PeekResult
    | ButtonPressed
    | SupervisorKey
    | SeatWagerChanged
    | DeviceConnected
    | DeviceLost
    | DeviceFault
    | ForgedFrame
)

EventSink = Callable[[DeviceEvent], None]


# --- interfaces ---------------------------------------------------------------------------


class Device(Protocol):
    """What every device driver offers: start delivering events, and stop."""

    def start(self) -> None:
        """Open the link and begin delivering events to the sink. Never raises for a
        missing device: that is a ``DeviceLost`` event and the driver keeps trying."""

    def close(self) -> None:
        """Stop the reader and release the port; idempotent."""


class Shuffler(Device, Protocol):
    """The automatic card shuffler."""

    def shuffle(self, decks: int) -> None:
        """Command a shuffle of a batch of ``decks`` decks; ``ShuffleDone`` follows."""


class ShoeSensor(Device, Protocol):
    """The smart shoe: reports cards, the cover card, loaded and empty; withholds the hole
    card (``HoleCardDealt``) until asked for it at the reveal."""

    def expect_hole_card(self) -> None:
        """The next card out of the shoe is the hole card: the shoe must withhold it."""

    def reveal_hole_card(self, commitment: str) -> None:
        """Ask for the hole card committed as ``commitment`` (hex); ``HoleCardRevealed``
        follows. Also after a restart, for a round journaled between deal and reveal."""

    def cancel_hole_card(self) -> None:
        """No hole card is due any more (the round was voided before it was dealt): the
        shoe must not withhold the next card."""


@runtime_checkable
class CountedShoe(Protocol):
    """A shoe driver that numbers the shoe's draws (``drivers.shoe.ShoeDriver``): the
    station hands it, before it starts, the count its journal holds."""

    def resume_count(self, load: int | None, draw: int | None, *, empty: bool) -> None:
        """The shoe's load and last draw the journal holds (None: not known), and whether
        the shoe was journaled empty after it: reports up to there are repeats."""


@runtime_checkable
class CommitAware(Protocol):
    """A driver whose device hears that its reports arrived only once the station has
    journaled the events they gave (``drivers.device_link.LinkedDevice``): a station stopped
    in between gets them again from the device, instead of losing them."""

    def hold_acks_until_committed(self) -> None:
        """Before the driver starts: hold each acknowledgement until :meth:`committed`."""

    def committed(self, event: DeviceEvent) -> None:
        """``event`` and every event before it are on disk."""


class CardReader(Device, Protocol):
    """The hole-card reader. It answers blackjack or not, never the rank."""

    def check(self, target: PeekTarget) -> None:
        """Ask whether the hole card in the reader gives the dealer blackjack; a
        ``PeekResult`` follows."""


class DealerPanel(Device, Protocol):
    """LEDs that prompt the dealer, buttons, the supervisor key and seat wager sensors."""

    def show(self, lamps: Mapping[Led, LedMode]) -> None:
        """Light exactly ``lamps``; every lamp not named goes off."""
