"""What anyone at the table may see: a snapshot of the table with the hole card face down.

The terminal view of ``dealer-station simulate``, the simulated dealer and any API read
:class:`TableView`, never the procedure's internals, so nothing downstream can show the
hole card before the reveal: the view has no field that could carry it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from controller.rules.cards import Card
from controller.rules.hands import HandStatus, PlayerHand
from controller.rules.steps import LEGAL_SETS, NeedCard, NeedDecision, NeedReveal
from controller.table.prompts import SETTLE_STATES, State, settle_word
from controller.table.sensors import spot_of
from drivers.hal import Led, LedMode

if TYPE_CHECKING:
    from controller.table.procedure import Table


@dataclass(frozen=True, slots=True)
class HandView:
    """One player hand as it lies on the layout."""

    seat: int
    hand: int  # 1-based
    cards: tuple[str, ...]
    total: int
    status: str
    doubled: bool

    @classmethod
    def of(cls, h: PlayerHand) -> HandView:
        """The view of ``h`` as it is now."""
        return cls(
            h.seat,
            h.index + 1,
            tuple([c.text for c in h.cards]),
            h.total,
            h.status.value,
            h.doubled,
        )


@dataclass(frozen=True, slots=True)
class _SeenHand:
    """A hand as its view was made: the hand, its card count, its last card, status and
    double. A hand only gains cards, or at a split drops to its first card and gains a new
    second one: its count and last card tell every change (a split hand keeps its count
    with a new second card; the same card again shows alike)."""

    hand: PlayerHand
    count: int
    last: Card | None
    status: HandStatus
    double_cents: int
    view: HandView


class HandViews:
    """The view of each hand on the layout, kept from one snapshot to the next: a hand's
    view changes only with its cards, status or double, and a table takes a snapshot at
    each idle point (~28 a round). The table owns one; only :func:`table_view` uses it."""

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: dict[tuple[int, int], _SeenHand] = {}

    def view(self, h: PlayerHand) -> HandView:
        """The view of ``h`` (made again only when it changed)."""
        key = (h.seat, h.index)
        cards = h.cards
        last = cards[-1] if cards else None
        seen = self._seen.get(key)
        if (
            seen is not None
            and seen.hand is h
            and seen.count == len(cards)
            and seen.last is last
            and seen.status is h.status
            and seen.double_cents == h.double_cents
        ):
            return seen.view
        view = HandView.of(h)
        self._seen[key] = _SeenHand(h, len(cards), last, h.status, h.double_cents, view)
        return view


@dataclass(frozen=True, slots=True)
class TableView:
    """The public state of the table."""

    state: State
    prompt: str
    round_no: int
    lamps: tuple[tuple[Led, LedMode], ...]
    seats: tuple[int, ...]
    hands: tuple[HandView, ...]
    dealer_cards: tuple[str, ...]  # face-up cards only
    hole_face_down: bool
    acting_seat: int | None
    acting_hand: int | None  # 1-based
    legal: tuple[str, ...]
    card_due: bool
    reveal_due: bool
    reshuffle_pending: bool
    fault: str | None
    settling_seat: int | None
    settling: SettlementView | None = None
    #: The next card out of the shoe is the dealer's hole card (the deal order is public).
    hole_card_due: bool = False
    #: The face-down hole card is held by the shoe (it gives it when the station asks, at
    #: the reveal or a void); False when the station sealed it itself or there is none.
    hole_in_shoe: bool = False
    #: Every settlement still to make in this settlement state, in the order the panel
    #: prompts them (``settling`` first): a dealer settles from the layout, seat after seat,
    #: without looking up at the panel between them.
    settlements: tuple[SettlementView, ...] = ()


@dataclass(frozen=True, slots=True)
class SettlementView:
    """The settlement the panel prompts now: the seat, the spot whose chips it moves, the
    lamp's word (pay / collect / push / bonus) and the payment in cents (positive: the
    player wins; None where the sensors saw chips but not their value)."""

    seat: int
    spot: str
    word: str
    net_cents: int | None
    index: int  # the payment's place in the round: one settlement, however often shown


def view_record(view: TableView) -> dict[str, Any]:
    """``view`` as plain JSON data (the daemon's debug log carries it; a remote dealer such
    as the boot test's reads it back with :func:`view_from_record`). Public by
    construction: a view has no field that could carry the hole card."""
    # Written out field by field, not a comprehension over __slots__: ~20 snapshots a round
    # go to the simulated dealer; the round-trip test (tests/test_view_record.py)
    # fails if a field is left out.
    settling = view.settling
    return {
        "state": view.state.value,
        "prompt": view.prompt,
        "round_no": view.round_no,
        "lamps": [[_LED_TEXT[led], _MODE_TEXT[mode]] for led, mode in view.lamps],
        "seats": view.seats,
        "hands": [
            {
                "seat": h.seat,
                "hand": h.hand,
                "cards": h.cards,
                "total": h.total,
                "status": h.status,
                "doubled": h.doubled,
            }
            for h in view.hands
        ],
        "dealer_cards": view.dealer_cards,
        "hole_face_down": view.hole_face_down,
        "acting_seat": view.acting_seat,
        "acting_hand": view.acting_hand,
        "legal": view.legal,
        "card_due": view.card_due,
        "reveal_due": view.reveal_due,
        "reshuffle_pending": view.reshuffle_pending,
        "fault": view.fault,
        "settling_seat": view.settling_seat,
        "settling": None if settling is None else _settlement_record(settling),
        "hole_card_due": view.hole_card_due,
        "hole_in_shoe": view.hole_in_shoe,
        "settlements": [_settlement_record(s) for s in view.settlements],
    }


#: Each lamp's and mode's text, looked up instead of read through ``Enum.value`` (a
#: Python-level property) for each lamp of each snapshot.
_LED_TEXT: Final = {led: led.value for led in Led}
_MODE_TEXT: Final = {mode: mode.value for mode in LedMode}


def _settlement_record(settlement: SettlementView) -> dict[str, Any]:
    return {
        "seat": settlement.seat,
        "spot": settlement.spot,
        "word": settlement.word,
        "net_cents": settlement.net_cents,
        "index": settlement.index,
    }


def view_from_record(record: dict[str, Any]) -> TableView:
    """The :class:`TableView` that :func:`view_record` wrote.

    Raises:
        KeyError, TypeError, ValueError: for a record that is not one.
    """
    fields = dict(record)
    fields["state"] = _STATE_OF.get(record["state"]) or State(record["state"])
    fields["lamps"] = tuple(
        (_LED_OF.get(led) or Led(led), _MODE_OF.get(mode) or LedMode(mode))
        for led, mode in record["lamps"]
    )
    fields["hands"] = tuple(map(_hand_from_record, record["hands"]))
    for name in ("seats", "dealer_cards", "legal"):
        fields[name] = tuple(record[name])
    queue = record.get("settlements", ())
    settlements = fields["settlements"] = tuple(SettlementView(**s) for s in queue)
    settling = record.get("settling")
    if settling is not None:
        # The panel prompts the first settlement of the queue: decoded once.
        same = bool(queue) and settling == queue[0]
        fields["settling"] = settlements[0] if same else SettlementView(**settling)
    return TableView(**fields)


# The simulated dealer in its own process decodes a view at each look (~17 a round), most
# of whose hands it decoded before: by value lookups and kept hands, a decode costs 4 us
# instead of 16 (Enum calls and a frozen dataclass per hand).
_STATE_OF: Final = {state.value: state for state in State}
_LED_OF: Final = {led.value: led for led in Led}
_MODE_OF: Final = {mode.value: mode for mode in LedMode}
_HAND_VIEWS: Final[dict[tuple[Any, ...], HandView]] = {}
_HAND_VIEWS_KEPT = 4096  # a bound: a long run meets ever new hands


def _hand_from_record(h: dict[str, Any]) -> HandView:
    cards = tuple(h["cards"])
    key = (h["seat"], h["hand"], cards, h["total"], h["status"], h["doubled"])
    view = _HAND_VIEWS.get(key)
    if view is None:
        view = HandView(*key)
        if len(_HAND_VIEWS) >= _HAND_VIEWS_KEPT:
            _HAND_VIEWS.clear()
        _HAND_VIEWS[key] = view
    return view


#: The legal decisions of each legal-moves mask as sorted texts (indexed like LEGAL_SETS).
_LEGAL_TEXTS: Final = tuple(tuple(sorted(d.value for d in legal)) for legal in LEGAL_SETS)


def table_view(table: Table) -> TableView:
    """Snapshot ``table`` for display; the hole card appears only once revealed."""
    t = table.t
    play = t.play
    hands: list[HandView] = []
    seats: tuple[int, ...] = ()
    dealer: tuple[str, ...] = ()
    hole_down = False
    acting_seat = acting_hand = None
    legal: tuple[str, ...] = ()
    card_due = reveal_due = hole_due = False
    if play is not None:
        round_ = play.round
        seats = round_.seats
        views = t.hand_views
        for seat in seats:
            hands.extend(views.view(h) for h in round_.hands[seat])
        dealer = tuple(c.text for c in round_.dealer_cards)
        hole_down = round_.hole is not None
        step = round_.step
        card_due = isinstance(step, NeedCard)
        reveal_due = isinstance(step, NeedReveal)
        hole_due = play.hole_card_due()
        if isinstance(step, NeedDecision):
            acting_seat, acting_hand = step.seat, step.hand + 1
            legal = _LEGAL_TEXTS[step.mask]
        elif isinstance(step, NeedCard) and step.seat is not None:
            acting_seat, acting_hand = step.seat, (step.hand or 0) + 1
    queue = t.settle_queue if t.state in SETTLE_STATES else []
    settlements: tuple[SettlementView, ...] = ()
    if queue and play is not None:
        known = play.bets.amounts_known
        place = {id(p): i for i, p in enumerate(play.round.payments)}
        settlements = tuple(
            SettlementView(
                payment.seat,
                spot_of(payment).value,
                settle_word(payment),
                payment.net if payment.seat in known else None,
                place[id(payment)],
            )
            for payment in queue
        )
    fault = t.fault
    return TableView(
        state=t.state,
        prompt=t.prompt.text,
        round_no=t.round_no,
        lamps=tuple(t.lamps.items()),
        seats=seats,
        hands=tuple(hands),
        dealer_cards=dealer,
        hole_face_down=hole_down,
        acting_seat=acting_seat,
        acting_hand=acting_hand,
        legal=legal,
        card_due=card_due,
        reveal_due=reveal_due,
        reshuffle_pending=table.reshuffle_pending
        or (play is not None and play.round.reshuffle_due),
        fault=f"{fault.code.value}: {fault.message}" if fault else None,
        settling_seat=queue[0].seat if queue else None,
        settling=settlements[0] if settlements else None,
        hole_card_due=hole_due,
        settlements=settlements,
        hole_in_shoe=play is not None and play.hole_in_shoe() is not None,
    )
