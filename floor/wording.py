"""Journal rows in words, for the recall (:mod:`floor.recall`): what each row of the record
vocabulary (docs/journal.md) says, with its amounts in dollars (:func:`floor.queries.cash`).

A station's values are kept as text: a field that is a plain identifier (``super_bonus``)
reads as words (``super bonus``); anything else is shown as it came, and the templates
escape it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Final

from floor.queries import cash

RANK_NAMES: Final = {"1": "A", "11": "J", "12": "Q", "13": "K"}
IDENTIFIER: Final = re.compile(r"[a-z0-9_]{1,40}")


@dataclass(frozen=True, slots=True)
class JournalLine:
    """One journal row of a round as the recall reads it."""

    row: int
    ts: str
    kind: str
    round_no: int | None
    data: dict[str, Any]
    hash: str

    @classmethod
    def of(cls, *columns: Any) -> JournalLine:
        """From the stored columns ``(row_id, ts, kind, round, data, hash)``; ``data`` that
        is not a JSON object reads as empty."""
        row, ts, kind, round_no, text, digest = columns
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        return cls(row, ts, kind, round_no, data if isinstance(data, dict) else {}, digest)


@dataclass
class Line:
    """A line of the recall: the row it shows, when, and what it says."""

    row: int
    at: str
    text: str
    cents: int | None = None  # a payment's net to the player


def cents(value: Any) -> int | None:
    return value if type(value) is int else None


def word(value: Any) -> str:
    """A field as words: ``super_bonus`` -> ``super bonus``; anything else as it came."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value)
    return text.replace("_", " ") if IDENTIFIER.fullmatch(text) else text


def rank_counts(per_rank: Any) -> str:
    if not isinstance(per_rank, dict):
        return ""
    # The ranks by number, then anything else a station sent, as it came.
    ranks = sorted((k for k in per_rank if str(k).isdigit()), key=int)
    order = ranks + [k for k in per_rank if not str(k).isdigit()]
    return ", ".join(f"{RANK_NAMES.get(str(k), str(k))} x{per_rank[k]}" for k in order)


def describe(line: JournalLine) -> str:
    """A row in words (the between-round rows and the round's own)."""
    d, kind = line.data, line.kind
    if kind == "station_started":
        return (
            f"station started: table {word(d.get('table_id'))}, version {word(d.get('version'))},"
            f" profile {word(d.get('profile'))}, {word(d.get('decks'))} decks,"
            f" {'sealed' if d.get('sealed') is True else 'not sealed'}"
        )
    if kind == "device":
        details = [
            f"{name} {word(d.get(name))}"
            for name in ("serial", "firmware", "reason")
            if d.get(name)
        ]
        extra = f" ({', '.join(details)})" if details else ""
        return f"{word(d.get('device'))} {word(d.get('status'))}{extra}"
    if kind == "shuffle_commanded":
        return f"shuffle of {word(d.get('decks'))} decks commanded"
    if kind == "hand_shuffle_done":
        return f"hand shuffle of {word(d.get('decks'))} decks confirmed"
    if kind == "shuffle_done":
        counted = rank_counts(d.get("per_rank"))
        return f"shuffler counted {word(d.get('card_count'))} cards: {counted}"
    if kind == "shoe_count":
        # The shoe's own count (docs/journal.md): its load number and its last draw's.
        return f"shoe count: load {word(d.get('load'))}, {word(d.get('last'))} cards drawn"
    if kind == "burn":
        return f"burn {word(d.get('card'))} ({word(d.get('reason'))})"
    if kind == "burn_disclosed":
        return f"burn card {word(d.get('card'))} disclosed on request"
    if kind == "fault":
        return f"FAULT {word(d.get('code'))} in {word(d.get('state'))}: {word(d.get('message'))}"
    if kind == "fault_resolved":
        return f"fault resolved by the supervisor: {word(d.get('resolution'))}"
    if kind == "clean_shutdown":
        return "station stopped"
    if kind == "peek_requested":
        return f"card reader asked: {word(d.get('target'))}"
    if kind == "peek":
        return f"card reader answered: {word(d.get('answer'))}"
    if kind == "hole_card_dealt":
        return f"hole card dealt face down, commitment {word(d.get('commitment'))}"
    if kind == "hole_card_revealed":
        return f"hole card turned: {word(d.get('card'))}"
    if kind == "cover_card":
        return "cover card came out: reshuffle after this round"
    return word(kind)  # shoe_loaded, dealer_change: their own words


def payment(line: JournalLine, at: str) -> Line:
    d = line.data
    net = cents(d.get("net_cents"))
    amount = cash(net, signed=True) if net is not None else f"{word(d.get('net_stakes'))} wager(s)"
    wager = d.get("wager")
    parts = []
    if wager == "super_bonus_share":
        parts.append("super bonus share")
    elif wager == "match":
        matches = d.get("matches")
        parts.append(
            f"Match the Dealer: {matches} match(es)" if matches else "Match the Dealer: no match"
        )
    elif wager == "insurance":
        parts.append("insurance")
    if d.get("total") is not None:
        parts.append(word(d.get("total")))
    parts.append(word(d.get("outcome")))
    if d.get("odds"):
        parts.append(f"at {word(d.get('odds'))}")
    if d.get("bonus"):
        parts.append(f"bonus {word(d.get('bonus'))}")
    if d.get("super_bonus") is True:
        parts.append(f"super bonus {cash(cents(d.get('super_bonus_cents')))}")
    if d.get("note"):
        parts.append(f"({word(d.get('note'))})")
    return Line(line.row, at, f"{' '.join(p for p in parts if p)}: {amount}", net)
