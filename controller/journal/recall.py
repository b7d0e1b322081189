"""Game recall: the last rounds rebuilt from the journal alone.

Rows with a round number belong to that round; rows without one that come between two
rounds (shuffles, burns, dealer changes, faults, devices) are shown before the round they
lead up to. The hole card is shown only once a ``hole_card_revealed`` row holds it; before
that the recall shows the commitment. Money is integer cents; ``None`` means the wager
sensor could not tell the amount, and ``net_stakes`` then counts the result in the seat's
wagers (a fixed payout, the super bonus share, stays in cents). Each payment is its own
entry under what it pays for: a hand's settlement under the hand, Match the Dealer and
insurance under the seat, each super bonus share (NY 5324.12(b)(7)) in the seat's
``super_bonus_shares``, never in place of a hand's own result.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from controller.journal.store import JournalReader, Row

Record = dict[str, Any]

#: Between-round kinds worth recalling (prompts and raw events are left to ``export``).
BETWEEN_ROUNDS: Final = frozenset(
    {
        "station_started",
        "clean_shutdown",
        "device",
        "shuffle_commanded",
        "shuffle_done",
        "shoe_loaded",
        "burn",
        "burn_disclosed",
        "dealer_change",
        "fault",
        "fault_resolved",
    }
)


def recall(reader: JournalReader, count: int = 10) -> Record:
    """The last ``count`` rounds as JSON-ready data: ``{"rounds": [...], "after": [...]}``."""
    return rebuild(reader.rows(after_id=reader.last_rounds_start(count)))


def rebuild(rows: Iterable[Row]) -> Record:
    """Group rows into rounds (see the module docstring for the rules)."""
    rounds: dict[int, Record] = {}
    pending: list[Record] = []  # between-round rows not yet attached to a round
    open_faults: list[Record] = []
    for row in rows:
        data = row.data
        if row.round_no is None:
            if row.kind not in BETWEEN_ROUNDS:
                continue
            entry = {"row": row.id, "ts": row.ts, "kind": row.kind, **data}
            _between_rounds(entry, pending, open_faults)
            continue
        current = rounds.get(row.round_no)
        if current is None:
            current = rounds[row.round_no] = _new_round(row, pending)
            pending = []
        _apply(current, row, data, open_faults)
    return {"rounds": list(rounds.values()), "after": pending}


def _between_rounds(entry: Record, pending: list[Record], open_faults: list[Record]) -> None:
    kind = entry["kind"]
    if kind == "fault":
        entry["resolution"] = None
        open_faults.append(entry)
    elif kind == "fault_resolved" and open_faults:
        open_faults.pop()["resolution"] = entry.get("resolution")
        return
    elif kind == "burn_disclosed":
        for earlier in reversed(pending):
            if earlier["kind"] == "burn" and earlier.get("card") == entry.get("card"):
                earlier["disclosed"] = True
                return
    elif kind == "burn":
        entry["disclosed"] = False
    pending.append(entry)


def _new_round(row: Row, before: list[Record]) -> Record:
    return {
        "round": row.round_no,
        "started": row.ts,
        "ended": None,
        "status": "in_progress",
        "reshuffle": False,
        "voided": None,
        "void": None,
        "before": before,
        "burns": [],
        "seats": [],
        "dealer": {"cards": [], "hole": None},
        "peeks": [],
        "cover_card": False,
        "faults": [],
        "rejected": [],
    }


def _seat(current: Record, number: Any) -> Record:
    for seat in current["seats"]:
        if seat["seat"] == number:
            return seat  # type: ignore[no-any-return]
    seat = {
        "seat": number,
        "wager_cents": None,
        "match_cents": None,
        "hands": [],
        "match": None,
        "insurance": None,
        "super_bonus_shares": [],
        "net_cents": None,
    }
    current["seats"].append(seat)
    return seat


def _hand(seat: Record, number: Any) -> Record:
    number = 1 if not isinstance(number, int) or number < 1 else number
    hands: list[Record] = seat["hands"]
    while len(hands) < number:
        hands.append({"hand": len(hands) + 1, "cards": [], "decisions": [], "settlement": None})
    hand: Record = hands[number - 1]
    return hand


def _split(seat: Record, hand: Record) -> None:
    # As at the table (and in the rules engine): the pair's second card becomes a new hand
    # right of the split one; hands further right move up a number (docs/journal.md).
    hands: list[Record] = seat["hands"]
    position = hands.index(hand) + 1
    hands.insert(
        position, {"hand": 0, "cards": [hand["cards"].pop()], "decisions": [], "settlement": None}
    )
    for number, each in enumerate(hands, start=1):
        each["hand"] = number


def _without(data: Record, *keys: str) -> Record:
    return {k: v for k, v in data.items() if k not in keys}


def _apply(current: Record, row: Row, data: Record, open_faults: list[Record]) -> None:
    kind = row.kind
    if kind == "round_started":
        for seat in data.get("seats") or []:
            if isinstance(seat, dict):
                entry = _seat(current, seat.get("seat"))
                entry["wager_cents"] = seat.get("wager_cents")
                entry["match_cents"] = seat.get("match_cents")
    elif kind == "card":
        _card(current, data)
    elif kind == "hole_card_dealt":
        hole = {"card": None, "role": "hole", "commitment": data.get("commitment")}
        current["dealer"]["hole"] = hole
        current["dealer"]["cards"].append(hole)
    elif kind == "hole_card_revealed":
        hole = current["dealer"]["hole"]
        if hole is None:  # verify reports this; recall still shows the card
            hole = current["dealer"]["hole"] = {"card": None, "role": "hole", "commitment": None}
            current["dealer"]["cards"].append(hole)
        hole["card"] = data.get("card")
    elif kind == "burn":
        current["burns"].append({"card": data.get("card"), "reason": data.get("reason")})
    elif kind == "cover_card":
        current["cover_card"] = True
    elif kind == "peek":
        current["peeks"].append(_without(data))
    elif kind == "match_settled":
        _seat(current, data.get("seat"))["match"] = _without(data, "seat")
    elif kind == "insurance_taken":
        _seat(current, data.get("seat"))["insurance"] = _without(data, "seat")
    elif kind == "insurance":  # the settlement keeps the amount insurance_taken gave
        seat = _seat(current, data.get("seat"))
        seat["insurance"] = {**(seat["insurance"] or {}), **_without(data, "seat")}
    elif kind == "decision":
        seat = _seat(current, data.get("seat"))
        hand = _hand(seat, data.get("hand"))
        hand["decisions"].append(data.get("decision"))
        if data.get("decision") == "split" and hand["cards"]:
            _split(seat, hand)
    elif kind == "settlement" and data.get("wager") == "super_bonus_share":
        _seat(current, data.get("seat"))["super_bonus_shares"].append(_without(data, "seat"))
    elif kind == "settlement":
        hand = _hand(_seat(current, data.get("seat")), data.get("hand"))
        hand["settlement"] = _without(data, "seat", "hand")
    elif kind == "seat_result":
        seat = _seat(current, data.get("seat"))
        seat.update(_without(data, "seat"))
    elif kind == "round_completed":
        current["status"], current["ended"] = "completed", row.ts
        current["reshuffle"] = bool(data.get("reshuffle"))
    elif kind == "round_voided":
        current["status"], current["ended"] = "voided", row.ts
        current["voided"] = data.get("reason")
        current["void"] = {"stand": data.get("stand"), "returned": data.get("returned")}
    elif kind == "fault":
        fault = {"row": row.id, **_without(data), "resolution": None}
        current["faults"].append(fault)
        open_faults.append(fault)
    elif kind == "fault_resolved" and open_faults:
        open_faults.pop()["resolution"] = data.get("resolution")


def _card(current: Record, data: Record) -> None:
    role, card, seat = data.get("role"), data.get("card"), data.get("seat")
    if role == "burn":
        current["burns"].append({"card": card, "reason": "round"})
    elif role == "rejected":
        current["rejected"].append(card)
    elif seat is None:
        current["dealer"]["cards"].append({"card": card, "role": role})
    else:
        _hand(_seat(current, seat), data.get("hand"))["cards"].append(card)


# --- text ---------------------------------------------------------------------------------


def money(cents: Any, *, signed: bool = False) -> str:
    """``1250`` -> ``$12.50`` (``+$12.50`` when signed); ``None`` -> ``?`` (not sensed)."""
    if type(cents) is not int:
        return "?"
    sign = "-" if cents < 0 else "+" if signed and cents > 0 else ""
    return f"{sign}${abs(cents) // 100}.{abs(cents) % 100:02d}"


def render_text(recalled: Record) -> str:
    """The recall as text for a terminal, one block per round."""
    blocks = [_round_text(r) for r in recalled["rounds"]]
    if recalled["after"]:
        blocks.append("Since the last round:\n" + _events_text(recalled["after"]))
    return "\n\n".join(blocks) if blocks else "no rounds in the journal"


def _events_text(events: list[Record], indent: str = "  ") -> str:
    lines = []
    for event in events:
        details = _without(event, "row", "ts", "kind")
        text = " ".join(f"{k}={v}" for k, v in details.items() if v is not None)
        lines.append(f"{indent}{event['ts']} {event['kind']} {text}".rstrip())
    return "\n".join(lines)


def _round_text(r: Record) -> str:
    status = r["status"] + (f" ({r['voided']})" if r["voided"] else "")
    status += ", reshuffle follows" if r["reshuffle"] else ""
    lines = [f"Round {r['round']}  {r['started']}  {status}"]
    if r["before"]:
        lines += ["  before the round:", _events_text(r["before"], "    ")]
    for burn in r["burns"]:
        lines.append(f"  burn {burn['card']} ({burn['reason']})")
    dealer = " ".join(
        (c["card"] or "[hole]") + ("(hole)" if c["role"] == "hole" and c["card"] else "")
        for c in r["dealer"]["cards"]
    )
    lines.append(f"  dealer: {dealer or '-'}")
    hole = r["dealer"]["hole"]
    if hole and not hole["card"]:
        lines.append(f"    hole card sealed, commitment {hole['commitment']}")
    for peek in r["peeks"]:
        lines.append(f"  peek {peek.get('target')}: {peek.get('answer')}")
    for seat in r["seats"]:
        lines.extend(_seat_text(seat))
    if r["cover_card"]:
        lines.append("  cover card came out")
    if r.get("void"):
        lines.extend(_void_text(r["void"]))
    if r.get("rejected"):
        lines.append(f"  cards rejected (out of order or foreign): {', '.join(r['rejected'])}")
    for fault in r["faults"]:
        resolution = fault["resolution"] or "unresolved"
        lines.append(
            f"  FAULT {fault.get('code')} in {fault.get('state')}: {fault.get('message')}"
            f" -> {resolution}"
        )
    return "\n".join(lines)


def _void_text(void: Record) -> list[str]:
    """What the void left: settlements that stand, wagers returned."""
    lines = []
    for entry in void.get("stand") or []:
        hand = f" hand {entry['hand']}" if entry.get("hand") else ""
        net = money(entry.get("net_cents"), signed=True)
        lines.append(
            f"  void: seat {entry.get('seat')} {entry.get('wager')}{hand} stands, net {net}"
        )
    for entry in void.get("returned") or []:
        hand = f" hand {entry['hand']}" if entry.get("hand") else ""
        lines.append(
            f"  void: seat {entry.get('seat')} {entry.get('wager')}{hand} returned,"
            f" {money(entry.get('cents'))}"
        )
    return lines


def _net(entry: Record) -> str:
    """A result: in cents, or counted in wagers where the sensors could not weigh them."""
    if entry.get("net_cents") is None and entry.get("net_stakes") is not None:
        text = f"{entry['net_stakes']} wager(s)"
        if entry.get("fixed_cents"):
            text += f" and {money(entry['fixed_cents'], signed=True)}"
        return text
    return money(entry.get("net_cents"), signed=True)


def _seat_text(seat: Record) -> list[str]:
    head = f"  seat {seat['seat']}: wager {money(seat['wager_cents'])}"
    if seat["match_cents"] is not None:
        head += f", match {money(seat['match_cents'])}"
    if seat["net_cents"] is not None or seat.get("net_stakes") is not None:
        head += f", net {_net(seat)}"
    lines = [head]
    if seat["match"]:
        m = seat["match"]
        matches = (
            f"{m.get('matches')} match(es) at {m.get('odds')}" if m.get("matches") else "no match"
        )
        lines.append(f"    match the dealer: {matches}, net {_net(m)}")
    if seat["insurance"]:
        i = seat["insurance"]
        amount = money(i.get("cents"))
        if i.get("cents") is None and i.get("stakes") is not None:
            amount = f"{i['stakes']} wager(s)"
        posted = f" (posted: {i['posted']})" if i.get("posted") else ""
        lines.append(f"    insurance {amount}{posted}: {i.get('outcome')}, net {_net(i)}")
    for hand in seat["hands"]:
        text = f"    hand {hand['hand']}: {' '.join(map(str, hand['cards'])) or '-'}"
        if hand["decisions"]:
            text += f"  decisions: {', '.join(map(str, hand['decisions']))}"
        lines.append(text)
        s = hand["settlement"]
        if s:
            bonus = f", bonus {s['bonus']}" if s.get("bonus") else ""
            if s.get("super_bonus_cents"):
                bonus += f", super bonus {money(s['super_bonus_cents'])}"
            odds = f" at {s['odds']}" if s.get("odds") else ""
            lines.append(f"      {s.get('total')}: {s.get('outcome')}{odds}{bonus}, net {_net(s)}")
    for share in seat.get("super_bonus_shares") or []:
        lines.append(f"    super bonus share ({share.get('note')}): net {_net(share)}")
    return lines
