"""The message catalogue: each device's messages, one class each.

Type numbers: 0x01-0x0F link layer (``firmware_bridge.link_messages``), 0x10 shuffler,
0x20 shoe, 0x30 card reader, 0x40 panel, 0x70 diagnostics. Cards travel as raw codes (rank
number 1..13 and a suit letter); a 10 is representable because a real shoe can read a
foreign 10 and the station must see it to fault. Converting to
``controller.rules.cards.Card`` is the driver's job.

No message carries the hole card before the reveal: the card reader answers only blackjack /
no blackjack / no card / read error (PA 635a.7(g), NJ 13:69F-19.7(i)), and the shoe
withholds the hole card (``HoleCardDealtReport`` carries its commitment) until the station
asks for it at the reveal (``HoleCardRevealRequest``). Every frame of a session is sealed
(``firmware_bridge.auth``), so no payload crosses the line in clear anyway.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Annotated, Final

from firmware_bridge.codec import DeviceKind, Message, Role, decode_message, encode_message, message
from firmware_bridge.wire_types import (
    U8,
    U16,
    U32,
    Blob,
    Code,
    Counts,
    FixedBytes,
    Flag,
    Letter,
    OptionalU32,
    Records,
    Text,
    UInt,
    UInt8,
)

SUITS: Final = "SHDC"
RANK_COUNT: Final = 13
_SUIT = Letter(SUITS)
_RANK = UInt8(1, RANK_COUNT)
_NONCE = FixedBytes(16)
_COMMITMENT = FixedBytes(32)

# --- shuffler -----------------------------------------------------------------------------


class ShufflerState(IntEnum):
    """What the shuffler is doing, as reported in :class:`ShufflerStatus`."""

    IDLE = 1
    SHUFFLING = 2
    DONE = 3
    JAMMED = 4
    DOOR_OPEN = 5
    ERROR = 6


@message(
    0x10, sender=Role.STATION, device=DeviceKind.SHUFFLER, example={"decks": 6}, header=(0, 1, 0)
)
@dataclass(frozen=True, slots=True)
class ShuffleCommand(Message):
    """Station -> shuffler: shuffle a batch of ``decks`` decks (6 or 8 for Spanish 21)."""

    decks: Annotated[int, UInt8(1, 16)]


@message(0x11, sender=Role.STATION, device=DeviceKind.SHUFFLER, example={}, header=(1, 1, 0))
@dataclass(frozen=True, slots=True)
class StatusQuery(Message):
    """Station -> shuffler: report your status."""


@message(
    0x12,
    sender=Role.DEVICE,
    device=DeviceKind.SHUFFLER,
    example={"state": ShufflerState.SHUFFLING, "card_count": 120},
    header=(0, 1, 2),
)
@dataclass(frozen=True, slots=True)
class ShufflerStatus(Message):
    """Shuffler -> station: current state and the card count of the current batch."""

    state: Annotated[ShufflerState, Code(ShufflerState)]
    card_count: Annotated[int, U16]


@message(
    0x13,
    sender=Role.DEVICE,
    device=DeviceKind.SHUFFLER,
    example={"card_count": 289, "per_rank": (24, 24, 24, 24, 24, 24, 24, 24, 24, 1, 24, 24, 24)},
    header=(1, 1, 2),
)
@dataclass(frozen=True, slots=True)
class ShuffleDoneReport(Message):
    """Shuffler -> station: batch shuffled; ``per_rank[i]`` counts rank ``i + 1`` (10 too)."""

    card_count: Annotated[int, U16]
    per_rank: Annotated[tuple[int, ...], Counts(RANK_COUNT)]

    @property
    def composition(self) -> dict[int, int]:
        """Cards per rank number 1..13 (the foreign rank 10 included)."""
        return {rank: count for rank, count in enumerate(self.per_rank, start=1)}


@message(0x14, sender=Role.DEVICE, device=DeviceKind.SHUFFLER, example={}, header=(2, 1, 2))
@dataclass(frozen=True, slots=True)
class JamReport(Message):
    """Shuffler -> station: cards jammed; the batch cannot be trusted."""


@message(
    0x15, sender=Role.DEVICE, device=DeviceKind.SHUFFLER, example={"open": True}, header=(3, 1, 2)
)
@dataclass(frozen=True, slots=True)
class DoorOpenReport(Message):
    """Shuffler -> station: the shuffler's door is open (``open``) or closed again."""

    open: Annotated[bool, Flag()]


@message(
    0x16,
    sender=Role.DEVICE,
    device=DeviceKind.SHUFFLER,
    example={"code": 7, "text": "motor"},
    header=(4, 1, 2),
)
@dataclass(frozen=True, slots=True)
class ShufflerErrorReport(Message):
    """Shuffler -> station: a device-specific error ``code`` with a readable ``text``."""

    code: Annotated[int, U8]
    text: Annotated[str, Text(100)]


# --- shoe ---------------------------------------------------------------------------------


# Every report of something leaving the shoe (a card or the cover card) carries its draw
# number: 1 for the first draw after ShoeLoadedReport, counted by the shoe and kept with the
# batch (across sessions and firmware restarts), so that a report sent again after a lost
# session is recognised as a repeat and a lost one as a gap. Loads are numbered likewise.
_DRAW = UInt(2, 1, 0xFFFF)


@message(
    0x20,
    sender=Role.DEVICE,
    device=DeviceKind.SHOE,
    example={"rank": 10, "suit": "S", "draw": 37},
    header=(0, 1, 0),
)
@dataclass(frozen=True, slots=True)
class CardDrawnReport(Message):
    """Shoe -> station: draw ``draw`` was a card: rank number 1..13 (10 = foreign) and suit."""

    rank: Annotated[int, _RANK]
    suit: Annotated[str, _SUIT]
    draw: Annotated[int, _DRAW]


@message(0x21, sender=Role.DEVICE, device=DeviceKind.SHOE, example={"draw": 289}, header=(1, 1, 0))
@dataclass(frozen=True, slots=True)
class CoverCardReport(Message):
    """Shoe -> station: draw ``draw`` was the cover (cutting) card."""

    draw: Annotated[int, _DRAW]


@message(0x22, sender=Role.DEVICE, device=DeviceKind.SHOE, example={"load": 12}, header=(2, 1, 0))
@dataclass(frozen=True, slots=True)
class ShoeLoadedReport(Message):
    """Shoe -> station: load number ``load`` (counted by the shoe, wrapping) put a batch in
    the shoe; draw numbers start again at 1."""

    load: Annotated[int, U16]


@message(
    0x23, sender=Role.DEVICE, device=DeviceKind.SHOE, example={"draws": 385}, header=(255, 1, 0)
)
@dataclass(frozen=True, slots=True)
class ShoeEmptyReport(Message):
    """Shoe -> station: the shoe holds no more cards; ``draws`` is the last draw number."""

    draws: Annotated[int, U16]


@message(
    0x24,
    sender=Role.DEVICE,
    device=DeviceKind.SHOE,
    example={
        "draw": 4,
        "commitment": bytes.fromhex(
            "0C7B0F5A8F739D91AA1A8FE34866E9EC673A8957B23B60D6D01DFA326D777081"
        ),
    },
    header=(3, 1, 0),
)
@dataclass(frozen=True, slots=True)
class HoleCardDealtReport(Message):
    """Shoe -> station: draw ``draw`` was the dealer's hole card, withheld: only the shoe's
    ``commitment`` (SHA-256 of ``"CARD|NONCE"``, see ``controller.rules.cards``) crosses
    the link. The shoe keeps the card and nonce until asked (across station restarts)."""

    draw: Annotated[int, _DRAW]
    commitment: Annotated[bytes, _COMMITMENT]


@message(0x25, sender=Role.STATION, device=DeviceKind.SHOE, example={"draw": 4}, header=(4, 1, 0))
@dataclass(frozen=True, slots=True)
class HoleCardNext(Message):
    """Station -> shoe: the first card with draw number ``draw`` or later is the dealer's
    hole card: withhold it (the shoe's hole-card slot does the same without being told).
    The number makes a late command harmless: it never withholds a card already past."""

    draw: Annotated[int, _DRAW]


@message(0x28, sender=Role.STATION, device=DeviceKind.SHOE, example={}, header=(6, 1, 0))
@dataclass(frozen=True, slots=True)
class HoleCardCancel(Message):
    """Station -> shoe: forget the last ``HoleCardNext``: the round was voided before its
    hole card was dealt, so the next card out is an ordinary card (not withheld)."""


@message(
    0x26,
    sender=Role.STATION,
    device=DeviceKind.SHOE,
    example={
        "commitment": bytes.fromhex(
            "0C7B0F5A8F739D91AA1A8FE34866E9EC673A8957B23B60D6D01DFA326D777081"
        )
    },
    header=(5, 1, 0),
)
@dataclass(frozen=True, slots=True)
class HoleCardRevealRequest(Message):
    """Station -> shoe: the dealer turns the hole card committed as ``commitment``."""

    commitment: Annotated[bytes, _COMMITMENT]


@message(
    0x27,
    sender=Role.DEVICE,
    device=DeviceKind.SHOE,
    example={
        "commitment": bytes.fromhex(
            "0C7B0F5A8F739D91AA1A8FE34866E9EC673A8957B23B60D6D01DFA326D777081"
        ),
        "rank": 13,
        "suit": "D",
        "nonce": bytes(range(16)),
    },
    header=(5, 1, 0),
)
@dataclass(frozen=True, slots=True)
class HoleCardRevealReport(Message):
    """Shoe -> station: the hole card of ``commitment``, with its nonce; ``rank`` 0 and an
    all-zero nonce when the shoe holds no such card (the station faults)."""

    commitment: Annotated[bytes, _COMMITMENT]
    rank: Annotated[int, UInt8(0, RANK_COUNT)]
    suit: Annotated[str, _SUIT]
    nonce: Annotated[bytes, _NONCE]


# --- card reader --------------------------------------------------------------------------


class PeekTargetCode(IntEnum):
    """What the reader looks for, given the up card class."""

    LOOKING_FOR_TEN = 1  # up card is an ace: a J/Q/K in the hole is blackjack
    LOOKING_FOR_ACE = 2  # up card is J/Q/K: an ace in the hole is blackjack


class PeekAnswerCode(IntEnum):
    """The only answers a card reader gives; none tells the hole card's rank."""

    BLACKJACK = 1
    NO_BLACKJACK = 2
    NO_CARD = 3
    READ_ERROR = 4


@message(
    0x30,
    sender=Role.STATION,
    device=DeviceKind.CARD_READER,
    example={"request": 513, "target": PeekTargetCode.LOOKING_FOR_ACE},
    header=(0, 1, 0),
)
@dataclass(frozen=True, slots=True)
class PeekRequest(Message):
    """Station -> reader: does the hole card give blackjack? ``request`` is echoed back."""

    request: Annotated[int, U16]
    target: Annotated[PeekTargetCode, Code(PeekTargetCode)]


@message(
    0x31,
    sender=Role.DEVICE,
    device=DeviceKind.CARD_READER,
    example={"request": 513, "answer": PeekAnswerCode.NO_BLACKJACK},
    header=(0, 1, 1),
)
@dataclass(frozen=True, slots=True)
class PeekReply(Message):
    """Reader -> station: the answer to request ``request``; never the rank."""

    request: Annotated[int, U16]
    answer: Annotated[PeekAnswerCode, Code(PeekAnswerCode)]


# --- dealer panel -------------------------------------------------------------------------


class WagerSpotCode(IntEnum):
    """Betting areas a seat sensor watches."""

    MAIN = 1
    MATCH = 2
    INSURANCE = 3


#: Lamps a panel frame can carry: one bit each in a 32-bit mask.
PANEL_LAMP_BITS = 32


@message(
    0x43,
    sender=Role.STATION,
    device=DeviceKind.PANEL,
    example={"steady": 0x00020010, "blink": 8192},
    header=(0, 1, 0),
)
@dataclass(frozen=True, slots=True)
class PanelLamps(Message):
    """Station -> panel: the whole lamp state in one frame. Bit ``n`` of ``steady`` lights
    lamp ``n`` (the panel's wiring table), bit ``n`` of ``blink`` blinks it; a lamp in
    neither is off; a lamp in both is a malformed frame the board refuses. One frame per
    panel state instead of one per lamp: a round's 19 panel states sent 49 lamp frames, each
    acknowledged (46% of the station thread's time in bench/hil_throughput.py).
    """

    steady: Annotated[int, U32]
    blink: Annotated[int, U32]


@message(
    0x41,
    sender=Role.DEVICE,
    device=DeviceKind.PANEL,
    example={"button": 3, "pressed": True},
    header=(0, 1, 0),
)
@dataclass(frozen=True, slots=True)
class ButtonReport(Message):
    """Panel -> station: button ``button`` was pressed (True) or released (False).

    A board reports each press of a button and not its release (the station acts on
    presses only); the supervisor key switch is reported in both positions. A station
    ignores a button's release, so a board that still sends them works too.
    """

    button: Annotated[int, U8]
    pressed: Annotated[bool, Flag()]


@message(
    0x42,
    sender=Role.DEVICE,
    device=DeviceKind.PANEL,
    example={"seat": 4, "spot": WagerSpotCode.MATCH, "present": True, "cents": 2500},
    header=(1, 1, 0),
)
@dataclass(frozen=True, slots=True)
class WagerSensorReport(Message):
    """Panel -> station: a seat's wager sensor changed; ``cents`` when it can tell."""

    seat: Annotated[int, UInt8(1, 7)]
    spot: Annotated[WagerSpotCode, Code(WagerSpotCode)]
    present: Annotated[bool, Flag()]
    cents: Annotated[int | None, OptionalU32()]


#: Reports in one WagerSensorScan: 1 + 31 x 7 bytes is the most a sealed frame carries.
WAGER_SCAN_MAX: Final = 31


def _wager_payload(report: WagerSensorReport) -> bytes:
    return encode_message(report)[1]


def _wager_report(payload: bytes) -> Message:
    return decode_message(WagerSensorReport.TYPE_ID, payload)


@message(
    0x44,
    sender=Role.DEVICE,
    device=DeviceKind.PANEL,
    example={
        "reports": (
            WagerSensorReport(seat=1, spot=WagerSpotCode.MAIN, present=True, cents=2500),
            WagerSensorReport(seat=1, spot=WagerSpotCode.MATCH, present=True, cents=500),
            WagerSensorReport(seat=3, spot=WagerSpotCode.MAIN, present=False, cents=None),
        )
    },
    header=(3, 1, 0),
)
@dataclass(frozen=True, slots=True)
class WagerSensorScan(Message):
    """Panel -> station: the wager sensor changes the board read in one scan, in the order
    it read them, each laid out as a ``WagerSensorReport`` payload: one frame, and one
    acknowledgement, for the bets of a whole table. A single change may come as
    either message.
    """

    reports: Annotated[
        tuple[WagerSensorReport, ...],
        Records(
            WagerSensorReport,
            len(_wager_payload(WagerSensorReport(1, WagerSpotCode.MAIN, True, None))),
            WAGER_SCAN_MAX,
            _wager_payload,
            _wager_report,
        ),
    ]


# --- diagnostics --------------------------------------------------------------------------


@message(0x70, sender=None, device=None, example={"data": b"\x00\x01ping"})
@dataclass(frozen=True, slots=True)
class EchoRequest(Message):
    """Either side: please answer with an :class:`EchoReply` carrying ``data`` (link tests)."""

    data: Annotated[bytes, Blob(200)]


@message(0x71, sender=None, device=None, example={"data": b"\x00\x01ping"})
@dataclass(frozen=True, slots=True)
class EchoReply(Message):
    """Either side: the answer to an :class:`EchoRequest`."""

    data: Annotated[bytes, Blob(200)]
