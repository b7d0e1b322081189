"""Crash and power-loss recovery: the table's state, read back from the journal alone.

The journal is the truth. On start the daemon reads it and restores the table before any
device is commanded:

* between rounds, the table continues where it stood (betting, or the shuffle/load/burn
  step it had reached; a shuffle that was commanded is commanded again);
* inside a round, it comes back in the fault state (``recovered_mid_round``) with the
  round rebuilt from its journalled cards and decisions; the supervisor resumes or voids.
  A hole card that was sealed and not yet revealed is not in the journal by design, so
  such a round can only be voided;
* a fault that was active at power-off is still active, with the same resume point;
* a voided round's hole card that the shoe still holds (asked for at the void, not yet
  journaled) is asked for again, and journaled under its own round when it comes.

A round is rebuilt from its own rows only (:func:`round_rows`): a row of another round
journaled meanwhile (a voided round's hole card the shoe gave back late) never plays in it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from controller.rules.cards import parse_card
from controller.rules.errors import RulesError
from controller.rules.profiles import Profile
from controller.rules.steps import Decision, NeedInsurance, NeedReveal, SeatWager
from controller.table.accounts import stake_units
from controller.table.betting import UNKNOWN_AMOUNT_STAKE, ClosedBets
from controller.table.faults import NOT_RESUMABLE, Fault, FaultCode
from controller.table.holecard import WithheldCard
from controller.table.play import RoundPlay
from controller.table.prompts import State
from controller.table.shoe_count import ShoeCount
from drivers.hal import SeatWagerChanged, WagerSpot


class JournalledRow(Protocol):
    """What recovery reads from a journal row."""

    @property
    def kind(self) -> str: ...

    @property
    def round_no(self) -> int | None: ...

    @property
    def data(self) -> Mapping[str, Any]: ...


_END_OF_ROUND = frozenset({"round_completed", "round_voided"})
_SHOE_CARDS = frozenset({"burn", "card", "hole_card_revealed"})


@dataclass
class Recovered:
    """The table's state as the journal tells it."""

    state: State | None = None  # None: an empty journal, start from scratch
    round_no: int = 0
    last_burn: str | None = None
    #: Why the next burn card is burned (PA 635a.7(c)): after a load, or for a new dealer.
    burn_reason: str = "load"
    drawn: Counter[str] = field(default_factory=Counter)
    reshuffle_pending: bool = False
    fault: Fault | None = None
    resume_to: State | None = None
    open_round: list[JournalledRow] = field(default_factory=list)
    #: Hole cards of voided rounds the shoe was asked for and still holds (commitment ->
    #: round): asked for again once the devices are up.
    voided_holes: dict[str, int] = field(default_factory=dict)
    # The last report of each wager spot: all the betting book needs, however long the journal.
    wagers: dict[tuple[int, WagerSpot], SeatWagerChanged] = field(default_factory=dict)
    #: The shoe's count as journaled (``controller.table.shoe_count``): the shoe driver
    #: resumes from it, so that a report the shoe sends again after a restart is not
    #: handled twice.
    shoe_count: ShoeCount = field(default_factory=ShoeCount)


def read_journal(rows: Iterable[JournalledRow]) -> Recovered:
    """Walk the journal once and return what the table must restore. Keeps only what the
    restore needs (the open round's rows, the shoe's count since the shuffle, the last
    report of each wager spot), so a stream of a year's rows costs no more memory."""
    rec = Recovered()
    fault_row: Mapping[str, Any] | None = None
    held: FaultCode | None = None
    for row in rows:
        kind, data = row.kind, row.data
        # Every row of an open round goes to its rebuild, state rows included (they tell
        # the rebuild that Match the Dealer was settled and insurance closed).
        if kind == "round_started":
            rec.round_no = int(data["round"])
            rec.open_round = [row]
        elif kind in _END_OF_ROUND:
            rec.open_round = []
        elif rec.open_round:
            rec.open_round.append(row)
        if kind == "state":
            rec.state = State(data["state"])
            if rec.state is not State.FAULT:
                fault_row, held = None, None
        elif kind == "fault":
            # A fault during a fault keeps the first one's resume point, and an earlier
            # fault's refusal of a resume (controller.table.faults.NOT_RESUMABLE).
            fault_row = data if fault_row is None else {**data, "state": fault_row["state"]}
            if held is None and FaultCode(data["code"]) in NOT_RESUMABLE:
                held = FaultCode(data["code"])
        elif kind == "shuffle_commanded":
            rec.drawn.clear()
            rec.reshuffle_pending = False
            rec.burn_reason = "load"  # the next burn is the new batch's, after its load
        elif kind == "shoe_loaded":
            rec.voided_holes.clear()  # a new batch: the shoe holds no old hole card
        elif kind == "dealer_change":
            rec.burn_reason = "dealer_change"
        elif kind == "hole_card_reveal_requested" and data.get("reason") == "void":
            if row.round_no is not None:
                rec.voided_holes[str(data["commitment"])] = row.round_no
        elif kind == "hole_card_revealed" and row.round_no in rec.voided_holes.values():
            rec.voided_holes = {c: r for c, r in rec.voided_holes.items() if r != row.round_no}
        elif kind in ("cover_card", "shoe_empty"):
            rec.reshuffle_pending = True
        rec.shoe_count.read(kind, data)
        if kind in _SHOE_CARDS and _is_card(data.get("card")):
            rec.drawn[str(data["card"])] += 1
        if kind == "burn":
            rec.last_burn = str(data["card"])
        elif kind == "event" and data.get("type") == "seat_wager":
            wager = SeatWagerChanged(
                int(data["seat"]), WagerSpot(data["spot"]), bool(data["present"]), data.get("cents")
            )
            rec.wagers[wager.seat, wager.spot] = wager
    if rec.state is State.FAULT and fault_row is not None:
        rec.fault = Fault(FaultCode(fault_row["code"]), str(fault_row["message"]), held=held)
        rec.resume_to = State(fault_row["state"])
    return rec


def round_rows(rows: list[JournalledRow]) -> list[JournalledRow]:
    """The rows of the round that ``rows`` opens (its ``round_started`` first) that belong
    to it: rows of no round (seals, checkpoints, starts) and rows of another round
    journaled meanwhile (a voided round's hole card, given back late) left out."""
    number = rows[0].round_no
    return [row for row in rows if row.round_no == number]


def _is_card(text: Any) -> bool:
    """True for a card of the batch; a foreign card's row holds the shoe's description of it
    (``"foreign card 10C: ..."``, ``"unreadable card code: ..."``), which the table never
    counted either."""
    try:
        parse_card(str(text))
    except RulesError:
        return False
    return True


_PAYMENT_KINDS = frozenset({"settlement", "match_settled", "insurance"})
#: States a round may be in, after its initial cards, while insurance is still open.
_BEFORE_INSURANCE_CLOSES = frozenset({"dealing", "match", "insurance", "fault"})


def void_accounts_from_rows(rows: list[JournalledRow]) -> dict[str, list[dict[str, Any]]]:
    """What voiding a round that cannot be rebuilt leaves, from its journal rows alone: the
    settlements journaled stand, each other wager of ``round_started`` (and insurance
    taken) is returned. The layout's splits and doubles are unknown here: a seat's main
    wager is returned as one (``hand`` null) when none of its hands was settled."""
    stand: list[dict[str, Any]] = []
    paid: set[tuple[int, str]] = set()
    insurance: dict[int, int | None] = {}
    rows = round_rows(rows)
    for row in rows:
        data = row.data
        if row.kind in _PAYMENT_KINDS:
            seat, wager = int(data["seat"]), str(data["wager"])
            stand.append(
                {
                    "seat": seat,
                    "wager": wager,
                    "hand": data.get("hand"),
                    "net_cents": data.get("net_cents"),
                }
            )
            paid.add((seat, wager))
        elif row.kind == "insurance_taken":
            insurance[int(data["seat"])] = data["cents"]  # None: not weighed, returned as such
    returned: list[dict[str, Any]] = []
    for entry in rows[0].data["seats"]:
        seat = int(entry["seat"])
        for wager, cents in (
            ("main", entry.get("wager_cents")),
            ("match", entry.get("match_cents")),
        ):
            if (seat, wager) not in paid and cents != 0:
                returned.append({"seat": seat, "wager": wager, "hand": None, "cents": cents})
        if seat in insurance and (seat, "insurance") not in paid:
            returned.append(
                {"seat": seat, "wager": "insurance", "hand": None, "cents": insurance[seat]}
            )
    return {"stand": stand, "returned": returned}


def _seat_wager(entry: Mapping[str, Any]) -> SeatWager:
    """A seat of ``round_started`` as the rules played it: an amount the sensors could not
    weigh (null) plays as :data:`~controller.table.betting.UNKNOWN_AMOUNT_STAKE`, as at no
    more bets; a Match wager is null when sensed but not weighed and 0 when not made."""
    match = entry.get("match_cents", 0)
    return SeatWager(
        entry["seat"],
        entry.get("wager_cents") or UNKNOWN_AMOUNT_STAKE,
        UNKNOWN_AMOUNT_STAKE if match is None else match,
    )


def rebuild_round(
    profile: Profile,
    decks: int,
    rows: list[JournalledRow],
    record: Any,
    *,
    shoe_withholds: bool = False,
) -> RoundPlay | None:
    """Re-drive a round from its journal rows; None when it cannot be rebuilt (rows the
    rules refuse, or a hole card the table sealed itself and never revealed: its nonce died
    with the station). A hole card the shoe withholds (``shoe_withholds``) is rebuilt from
    its commitment: the shoe keeps card and nonce across the restart and gives them at the
    reveal, so such a round resumes like any other. Only the round's own rows count
    (:func:`round_rows`)."""
    rows = round_rows(rows)
    start = rows[0].data
    seats = start["seats"]
    known = frozenset(s["seat"] for s in seats if s.get("wager_cents") is not None)
    wagers = tuple(_seat_wager(s) for s in seats)
    revealed = [r.data["card"] for r in rows if r.kind == "hole_card_revealed"]
    dealt = [r.data.get("sealed_by") for r in rows if r.kind == "hole_card_dealt"]
    if len(dealt) > len(revealed):
        # Not yet revealed: only a card the shoe holds can be; one the station sealed
        # itself had its nonce in the station's memory (a journal from before sealed_by
        # was written names neither: then the table's shoe decides).
        holder = dealt[-1] or ("shoe" if shoe_withholds else "station")
        if holder != "shoe":
            return None
    play = RoundPlay(profile, decks, ClosedBets(wagers, known, ()), lambda *_: None)
    round_ = play.round
    insurance: dict[int, int] = {}
    try:
        for row in rows[1:]:
            kind, data = row.kind, row.data
            if kind == "insurance_taken":
                insurance[int(data["seat"])] = stake_units(data)
                continue
            # Match the Dealer is settled before insurance is offered, and a fault may
            # return to either: only a state that follows insurance closes it.
            closes_insurance = kind in ("peek", "decision", "card") or (
                kind == "state" and data["state"] not in _BEFORE_INSURANCE_CLOSES
            )
            if closes_insurance and isinstance(round_.step, NeedInsurance):
                round_.take_insurance(insurance)
            if kind == "card" and data["role"] != "rejected":
                round_.deal(parse_card(data["card"]))
            elif kind == "hole_card_dealt" and revealed:
                round_.deal(parse_card(revealed[0]))
            elif kind == "hole_card_dealt":  # still in the shoe, which gives it at the reveal
                play.withheld = WithheldCard(str(data["commitment"]))
                play.hole_announced = True
                round_.deal(play.withheld)
            elif kind == "hole_card_revealed" and isinstance(round_.step, NeedReveal):
                round_.reveal_hole()
            elif kind == "decision":
                round_.decide(int(data["seat"]), Decision(data["decision"]))
            elif kind == "peek" and data["answer"] in ("blackjack", "no_blackjack"):
                round_.peek(data["answer"] == "blackjack")
            elif kind == "state" and data["state"] not in ("dealing", "match"):
                play.match_done = True
    except (RulesError, KeyError, ValueError):
        return None
    play.record = record
    play.adopt_journalled(sum(r.kind in _PAYMENT_KINDS for r in rows))
    return play
