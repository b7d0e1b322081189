"""A round as surveillance reviews it, built from the floor's copy of the journal rows.

Each line of the recall is one journal row: its row id, its time on the casino's clock to
the millisecond (to find the moment on the video) and what it says in words. The round's
rows are read in order (docs/journal.md, "Record vocabulary"):

- before the round: the between-round rows since the previous round (shuffle, the
  shuffler's count, shoe loaded, burn, dealer change, devices, faults, a start);
- the layout: the dealer's cards (the hole card as its commitment until the reveal row),
  each seat's wagers and hands with their cards as dealt, each decision, and each payment
  as its own line under what it pays for: a hand's settlement under the hand; Match the
  Dealer, insurance and a super bonus share (NY 5324.12(b)(7)) under the seat;
- the card reader's answers, burns in the round, a void (what stands, what went back),
  faults with their resolution; and the whole round as a timeline.

A split follows the journal's numbering: the pair's second card moves to a new hand right
of the split one, hands further right move up a number (docs/journal.md). Values that a
station sent are kept as text and never interpreted beyond their documented fields;
anything unexpected is shown as it came, escaped by the template.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from controller.journal.recall import BETWEEN_ROUNDS
from controller.rules.cards import parse_card
from controller.rules.errors import ForeignCardError
from controller.rules.hands import hand_total
from floor.casino import Casino
from floor.queries import cash
from floor.wording import JournalLine, Line, cents, describe, payment, word

SUITS: Final = {
    "S": ("\u2660", False),
    "H": ("\u2665", True),
    "D": ("\u2666", True),
    "C": ("\u2663", False),
}
SEATS: Final = range(
    7, 0, -1
)  # as the layout lies seen from the players' side: seat 1 on the right


@dataclass
class CardFace:
    """A card as the page draws it."""

    row: int
    at: str
    text: str
    rank: str = ""
    suit: str = ""
    red: bool = False
    known: bool = True
    role: str = ""


@dataclass
class HandView:
    """One hand of a seat: its cards, decisions and the payment that settled it."""

    number: int
    cards: list[CardFace] = field(default_factory=list)
    decisions: list[Line] = field(default_factory=list)
    payments: list[Line] = field(default_factory=list)

    @property
    def total(self) -> str:
        """The hand's total (``soft 17``), or empty when a card is not a Spanish card."""
        return _total([c.text for c in self.cards])


@dataclass
class SeatView:
    """A seat in the round: its wagers, hands and the payments beside the hands."""

    seat: int
    wager: str = ""
    match: str = ""
    hands: list[HandView] = field(default_factory=list)
    side: list[Line] = field(default_factory=list)  # Match, insurance, super bonus share
    result: str = ""


@dataclass
class RoundView:
    """Everything the recall shows of one round."""

    table: str
    round: int
    status: str = "in progress"
    started: str = ""
    ended: str = ""
    before: list[Line] = field(default_factory=list)
    burns: list[CardFace] = field(default_factory=list)
    dealer: list[CardFace] = field(default_factory=list)
    hole: list[Line] = field(default_factory=list)
    reader: list[Line] = field(default_factory=list)
    seats: list[SeatView] = field(default_factory=list)
    void: list[Line] = field(default_factory=list)
    faults: list[Line] = field(default_factory=list)
    timeline: list[Line] = field(default_factory=list)
    first_row: int = 0
    end_row: int = 0
    end_hash: str = ""

    @property
    def dealer_total(self) -> str:
        """The dealer's total once every card is known."""
        if any(not c.known for c in self.dealer):
            return ""
        return _total([c.text for c in self.dealer])

    def seat(self, number: int) -> SeatView | None:
        """Seat ``number`` if it played."""
        return next((s for s in self.seats if s.seat == number), None)


def card_face(row: int, at: str, text: Any, role: str = "") -> CardFace:
    """A card's face: rank and suit symbol, red or black; unknown text shown as it came."""
    shown = text if isinstance(text, str) else json.dumps(text)
    try:
        card = parse_card(shown)
    except ForeignCardError:
        return CardFace(row, at, shown[:16], known=False, role=role)
    symbol, red = SUITS[card.suit.value]
    return CardFace(row, at, card.text, card.rank.symbol, symbol, red, True, role)


def _total(cards: list[str]) -> str:
    try:
        parsed = [parse_card(c) for c in cards]
    except ForeignCardError:
        return ""
    if not parsed:
        return ""
    total, soft = hand_total(parsed)
    return f"soft {total}" if soft else str(total)


class _Builder:
    def __init__(self, view: RoundView, casino: Casino) -> None:
        self.view, self.casino = view, casino
        self.hands: dict[int, list[HandView]] = {}

    def moment(self, ts: str) -> datetime | None:
        try:
            moment = datetime.fromisoformat(ts.replace("Z", "+00:00"))
        except ValueError:
            return None
        return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)

    def at(self, ts: str) -> str:
        """A row's time to the millisecond (the date and zone are in the round's header)."""
        moment = self.moment(ts)
        return self.casino.time_ms(moment) if moment else ts[:40]

    def stamp(self, ts: str) -> str:
        """A row's date, time to the millisecond and zone."""
        moment = self.moment(ts)
        return self.casino.format(moment, ms=True) if moment else ts[:40]

    def seat(self, number: Any) -> SeatView:
        seat_no = number if type(number) is int else 0
        found = self.view.seat(seat_no)
        if found is None:
            found = SeatView(seat_no)
            self.view.seats.append(found)
            self.view.seats.sort(key=lambda s: SEATS.index(s.seat) if s.seat in SEATS else 99)
            self.hands[seat_no] = found.hands
        return found

    def hand(self, seat: SeatView, number: Any) -> HandView:
        index = number if type(number) is int and 1 <= number <= 16 else 1
        while len(seat.hands) < index:
            seat.hands.append(HandView(len(seat.hands) + 1))
        return seat.hands[index - 1]

    def split(self, seat: SeatView, hand: HandView) -> None:
        if len(hand.cards) < 2:
            return
        moved = hand.cards.pop()
        seat.hands.insert(seat.hands.index(hand) + 1, HandView(0, [moved]))
        for number, each in enumerate(seat.hands, start=1):
            each.number = number

    def apply(self, line: JournalLine) -> None:
        view, d, kind = self.view, line.data, line.kind
        at = self.at(line.ts)
        said: str | None = None
        if kind == "round_started":
            view.started, view.first_row = self.stamp(line.ts), line.row
            said = "no more bets"
            for entry in d.get("seats") or []:
                if isinstance(entry, dict):
                    seat = self.seat(entry.get("seat"))
                    seat.wager = cash(cents(entry.get("wager_cents")))
                    match = entry.get("match_cents")
                    seat.match = cash(cents(match)) if match else ""
                    self.hand(seat, 1)
        elif kind == "card":
            role = word(d.get("role"))
            face = card_face(line.row, at, d.get("card"), role)
            if d.get("role") == "burn":
                view.burns.append(face)
            elif d.get("role") == "rejected":
                view.faults.append(
                    Line(line.row, at, f"card rejected (foreign or out of order): {face.text}")
                )
            elif d.get("seat") is None:
                view.dealer.append(face)
            else:
                self.hand(self.seat(d.get("seat")), d.get("hand")).cards.append(face)
            said = f"card {face.text} ({role})" + (
                f" to seat {d.get('seat')} hand {d.get('hand')}"
                if d.get("seat") is not None
                else " to the dealer"
            )
        elif kind == "hole_card_dealt":
            view.dealer.append(CardFace(line.row, at, "hole", known=False, role="hole"))
            said = describe(line)
            view.hole.append(Line(line.row, at, said))
        elif kind == "hole_card_revealed":
            face = card_face(line.row, at, d.get("card"), "hole")
            hidden = next(
                (c for c in view.dealer if c.role == "hole" and not c.known and c.text == "hole"),
                None,
            )
            if hidden is None:
                view.dealer.append(face)
            else:
                view.dealer[view.dealer.index(hidden)] = face
            said = describe(line)
            view.hole.append(Line(line.row, at, said))
        elif kind in ("peek_requested", "peek"):
            said = describe(line)
            view.reader.append(Line(line.row, at, said))
        elif kind == "decision":
            seat = self.seat(d.get("seat"))
            hand = self.hand(seat, d.get("hand"))
            said = f"seat {seat.seat} hand {hand.number}: {word(d.get('decision'))}"
            hand.decisions.append(Line(line.row, at, word(d.get("decision"))))
            if d.get("decision") == "split":
                self.split(seat, hand)
        elif kind == "settlement":
            seat = self.seat(d.get("seat"))
            paid = payment(line, at)
            if d.get("wager") == "main":
                self.hand(seat, d.get("hand")).payments.append(paid)
            else:
                seat.side.append(paid)
            said = f"seat {seat.seat}: {paid.text}"
        elif kind in ("match_settled", "insurance"):
            seat = self.seat(d.get("seat"))
            paid = payment(line, at)
            seat.side.append(paid)
            said = f"seat {seat.seat}: {paid.text}"
        elif kind == "insurance_taken":
            seat = self.seat(d.get("seat"))
            said = f"insurance taken: {cash(cents(d.get('cents')))}"
            seat.side.append(Line(line.row, at, said))
            said = f"seat {seat.seat}: {said}"
        elif kind == "seat_result":
            seat = self.seat(d.get("seat"))
            seat.result = cash(cents(d.get("net_cents")), signed=True)
            if cents(d.get("net_cents")) is None and d.get("net_stakes") is not None:
                seat.result = f"{word(d.get('net_stakes'))} wager(s)"
            said = f"seat {seat.seat} result {seat.result}"
        elif kind == "wager_refused":
            said = f"seat {word(d.get('seat'))} wager refused: {word(d.get('reason'))}"
        elif kind in ("wager_collected", "wager_paid", "wager_taken", "wager_added"):
            said = (
                f"seat {word(d.get('seat'))} {word(d.get('spot'))}: {kind.replace('_', ' ')},"
                f" sensor reads {cash(cents(d.get('cents')))}"
            )
        elif kind == "burn":
            view.burns.append(card_face(line.row, at, d.get("card"), word(d.get("reason"))))
            said = describe(line)
        elif kind == "cover_card" or kind in ("fault", "fault_resolved"):
            said = describe(line)
            view.faults.append(Line(line.row, at, said))
        elif kind == "round_completed":
            view.status, view.ended = "completed", self.stamp(line.ts)
            said = "round completed" + (", reshuffle follows" if d.get("reshuffle") is True else "")
            view.end_row, view.end_hash = line.row, line.hash
        elif kind == "round_voided":
            view.status, view.ended = "voided", self.stamp(line.ts)
            view.end_row, view.end_hash = line.row, line.hash
            said = f"round voided: {word(d.get('reason'))}"
            view.void.extend(self._void(line, at))
        if said is not None:
            view.timeline.append(Line(line.row, at, said))

    def _void(self, line: JournalLine, at: str) -> list[Line]:
        out = [Line(line.row, at, f"voided by the supervisor: {word(line.data.get('reason'))}")]
        # What stands (its net) and what went back (its amount), as round_voided lists them.
        amounts: tuple[tuple[str, Callable[[dict[str, Any]], str]], ...] = (
            ("stand", lambda e: f"net {cash(cents(e.get('net_cents')), signed=True)}"),
            ("returned", lambda e: cash(cents(e.get("cents")))),
        )
        for key, amount in amounts:
            for entry in line.data.get(key) or []:
                if isinstance(entry, dict):
                    hand = f" hand {entry.get('hand')}" if entry.get("hand") else ""
                    said = "stands" if key == "stand" else "returned"
                    text = f"{said}: seat {word(entry.get('seat'))} {word(entry.get('wager'))}"
                    out.append(Line(line.row, at, f"{text}{hand}, {amount(entry)}"))
        if line.data.get("hole_card"):
            out.append(Line(line.row, at, f"hole card: {word(line.data.get('hole_card'))}"))
        return out


def build(
    table: str,
    round_no: int,
    before: Iterable[JournalLine],
    rows: Iterable[JournalLine],
    casino: Casino,
) -> RoundView:
    """The recall of round ``round_no`` from its rows (in row order) and the between-round
    rows that led up to it."""
    view = RoundView(table, round_no)
    builder = _Builder(view, casino)
    for line in before:
        if line.kind in BETWEEN_ROUNDS:
            view.before.append(Line(line.row, builder.stamp(line.ts), describe(line)))
    for line in rows:
        builder.apply(line)
    return view


def render_text(view: RoundView) -> str:
    """The recall as plain text (the page's text view): every line with its row and time."""
    out = [f"Table {view.table} round {view.round}: {view.status}, {view.started} to {view.ended}"]
    if view.before:
        out.append("Before the round:")
        out += [f"  row {x.row}  {x.at}  {x.text}" for x in view.before]
    for burn in view.burns:
        out.append(f"Burn: {burn.text} ({burn.role})  row {burn.row}  {burn.at}")
    dealer = " ".join(c.text if c.known or c.text != "hole" else "[hole]" for c in view.dealer)
    out.append(
        f"Dealer: {dealer or '-'}" + (f"  ({view.dealer_total})" if view.dealer_total else "")
    )
    out += [f"  row {x.row}  {x.at}  {x.text}" for x in view.hole + view.reader]
    for seat in sorted(view.seats, key=lambda s: s.seat):
        wagers = f"wager {seat.wager}" + (f", match {seat.match}" if seat.match else "")
        out.append(
            f"Seat {seat.seat}: {wagers}" + (f", result {seat.result}" if seat.result else "")
        )
        for hand in seat.hands:
            cards = " ".join(c.text for c in hand.cards) or "-"
            out.append(
                f"  hand {hand.number}: {cards}" + (f"  ({hand.total})" if hand.total else "")
            )
            out += [f"    decision: {x.text}  row {x.row}  {x.at}" for x in hand.decisions]
            out += [f"    paid: {x.text}  row {x.row}  {x.at}" for x in hand.payments]
        out += [f"  {x.text}  row {x.row}  {x.at}" for x in seat.side]
    out += [f"Void: {x.text}  row {x.row}" for x in view.void]
    out += [f"{x.text}  row {x.row}  {x.at}" for x in view.faults]
    out.append(f"Journal rows {view.first_row}-{view.end_row}, end row hash {view.end_hash}")
    return "\n".join(out)


ROUND_SQL: Final = (
    "SELECT row_id, ts, kind, round, data, hash FROM journal_row"
    " WHERE table_id = %s AND round = %s ORDER BY row_id"
)
PREVIOUS_END_SQL: Final = (
    "SELECT end_row FROM round_stat WHERE table_id = %s AND round < %s ORDER BY round DESC LIMIT 1"
)
BEFORE_SQL: Final = (
    "SELECT row_id, ts, kind, round, data, hash FROM journal_row"
    " WHERE table_id = %s AND row_id > %s AND row_id < %s AND kind = ANY(%s)"
    " ORDER BY row_id LIMIT 500"
)
#: How far back to look for the rows before a round when the previous round is not known.
LOOK_BACK: Final = 5000


async def load(conn: Any, casino: Casino, table: str, round_no: int) -> RoundView | None:
    """Round ``round_no`` of ``table`` from the floor database; None when it holds none."""
    found = await (await conn.execute(ROUND_SQL, (table, round_no))).fetchall()
    if not found:
        return None
    rows = [JournalLine.of(*r) for r in found]
    previous = await (await conn.execute(PREVIOUS_END_SQL, (table, round_no))).fetchone()
    since = previous[0] if previous else max(rows[0].row - LOOK_BACK, 0)
    before = await (
        await conn.execute(BEFORE_SQL, (table, since, rows[0].row, sorted(BETWEEN_ROUNDS)))
    ).fetchall()
    return build(table, round_no, (JournalLine.of(*r) for r in before), rows, casino)
