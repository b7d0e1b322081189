"""``dealer-station replay``: play one round from a script and print its settlement as JSON.

The dispute tool of PA 635a.7(q): the cards "in a manner that permits the reconstruction
of each hand". The script format is documented in ``docs/replay.md``. The replay drives the
same :class:`~controller.rules.round.Round` the table procedure drives, and plays the card
reader itself: it answers the peek from the hole card in the script.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from controller.rules.cards import Card, parse_card
from controller.rules.errors import ProfileError, RulesError
from controller.rules.hands import PlayerHand, hand_total, hole_card_gives_blackjack
from controller.rules.profiles import Profile, get_profile, profile_codes
from controller.rules.round import Round
from controller.rules.settlement import Payment, WagerKind
from controller.rules.steps import (
    Decision,
    NeedCard,
    NeedDecision,
    NeedInsurance,
    NeedPeek,
    NeedReveal,
    SeatWager,
)

COVER_CARD = "CUT"
_TOP_KEYS = frozenset({"profile", "decks", "seats", "shoe", "options", "description"})
_SEAT_KEYS = frozenset({"seat", "wager", "match", "insurance", "decisions"})
_STAND_OR_RESCUE = frozenset({Decision.STAND, Decision.RESCUE})
#: No table takes a wager of a billion; the cap also keeps absurd numbers (1e999999999)
#: from exhausting the decimal context or memory.
MAX_AMOUNT_CENTS = 100_000_000_000


class ReplayError(Exception):
    """A script that cannot be replayed; the message is one line for the user."""


@dataclass(frozen=True, slots=True)
class SeatScript:
    """One seat of a replay script."""

    wager: SeatWager
    insurance: int
    decisions: tuple[Decision, ...]


@dataclass(frozen=True, slots=True)
class RoundScript:
    """A parsed and checked replay script."""

    profile: Profile
    decks: int
    seats: tuple[SeatScript, ...]
    shoe: tuple[Card | None, ...]  # None is the cover card


def to_cents(value: object, what: str) -> int:
    """Convert an amount in currency units (``12.5``) to cents.

    Raises:
        ReplayError: for anything but a non-negative number with at most two decimals.
    """
    if isinstance(value, bool) or not isinstance(value, int | Decimal):
        raise ReplayError(f"{what}: amount must be a number, not {_shown(value)}")
    try:
        cents = Decimal(value) * 100
        too_large = cents > MAX_AMOUNT_CENTS
    except ArithmeticError as err:  # decimal Overflow / InvalidOperation on absurd numbers
        raise ReplayError(f"{what}: not an amount: {value}") from err
    if too_large:
        raise ReplayError(f"{what}: {value} is too large an amount")
    if cents < 0 or cents != cents.to_integral_value():
        raise ReplayError(f"{what}: {value} is not a non-negative amount in whole cents")
    return int(cents)


def money(cents: int) -> int | float:
    """Cents as a JSON number of currency units (the only place money leaves integers)."""
    return cents // 100 if cents % 100 == 0 else cents / 100


def _shown(value: object) -> str:
    """A script value as JSON text for an error message (numbers arrive as Decimal)."""
    return json.dumps(value, default=float)


def parse_script(document: object) -> RoundScript:
    """Check a decoded script and turn it into a :class:`RoundScript`.

    Raises:
        ReplayError: naming the first thing wrong.
    """
    if not isinstance(document, dict):
        raise ReplayError("the script must be a JSON object")
    unknown = sorted(set(document) - _TOP_KEYS)
    if unknown:
        raise ReplayError(f"unknown key {unknown[0]!r} (expected {', '.join(sorted(_TOP_KEYS))})")
    for key in ("profile", "decks", "seats", "shoe"):
        if key not in document:
            raise ReplayError(f"missing key {key!r}")
    if not isinstance(document["profile"], str):
        raise ReplayError(f"profile must be a string: {profile_codes(', ', ' or ')}")
    try:
        profile = get_profile(document["profile"])
        options = document.get("options", {})
        if not isinstance(options, dict):
            raise ReplayError("options must be an object of profile options")
        parsed: dict[str, object] = {}
        for key, value in options.items():
            try:
                parsed[key] = profile.parse(key, value)
            except ProfileError as err:
                raise ReplayError(f"options: {err}") from err
        profile = profile.with_options(**parsed)
        decks = document["decks"]
        if not isinstance(decks, int) or isinstance(decks, bool):
            raise ReplayError("decks must be 6 or 8")
        profile.check_decks(decks)
    except ProfileError as err:
        raise ReplayError(str(err)) from err
    seats = document["seats"]
    if not isinstance(seats, list) or not seats:
        raise ReplayError("seats must be a non-empty list")
    shoe = document["shoe"]
    if not isinstance(shoe, list):
        raise ReplayError('shoe must be a list of cards such as "7S" ("CUT": cover card)')
    return RoundScript(
        profile, decks, tuple(_parse_seat(s, i) for i, s in enumerate(seats)), _parse_shoe(shoe)
    )


def _parse_seat(entry: object, position: int) -> SeatScript:
    where = f"seats[{position}]"
    if not isinstance(entry, dict):
        raise ReplayError(f"{where}: each seat must be an object")
    unknown = sorted(set(entry) - _SEAT_KEYS)
    if unknown:
        raise ReplayError(f"{where}: unknown key {unknown[0]!r}")
    seat = entry.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 1 <= seat <= 7:
        raise ReplayError(f"{where}: seat must be a number from 1 to 7")
    where = f"seat {seat}"
    if "wager" not in entry:
        raise ReplayError(f"{where}: missing wager")
    wager = to_cents(entry["wager"], f"{where} wager")
    match = to_cents(entry.get("match", 0), f"{where} match")
    insurance = to_cents(entry.get("insurance", 0), f"{where} insurance")
    raw = entry.get("decisions", [])
    if not isinstance(raw, list):
        raise ReplayError(f"{where}: decisions must be a list")
    decisions = []
    for item in raw:
        try:
            decisions.append(Decision(item))
        except ValueError:
            names = ", ".join(d.value for d in Decision)
            raise ReplayError(f"{where}: unknown decision {item!r} (one of {names})") from None
    return SeatScript(SeatWager(seat, wager, match), insurance, tuple(decisions))


def _parse_shoe(shoe: Sequence[object]) -> tuple[Card | None, ...]:
    cards: list[Card | None] = []
    for position, text in enumerate(shoe, start=1):
        if text == COVER_CARD:
            cards.append(None)
            continue
        try:
            cards.append(parse_card(text if isinstance(text, str) else repr(text)))
        except RulesError as err:
            raise ReplayError(f"shoe card {position}: {err}") from err
    return tuple(cards)


def play(script: RoundScript) -> Round:
    """Play the scripted round to the end.

    Raises:
        ReplayError: for too few cards, missing or extra decisions, an illegal decision,
            a bad wager, or insurance on a round that offers none.
    """
    try:
        round_ = Round(script.profile, script.decks, (s.wager for s in script.seats))
    except RulesError as err:
        raise ReplayError(str(err)) from err
    decisions = {s.wager.seat: list(s.decisions) for s in script.seats}
    shoe = list(script.shoe)
    shoe.reverse()
    insured = False
    while not round_.over:
        step = round_.step
        try:
            if isinstance(step, NeedCard):
                round_.deal(_next_card(round_, shoe, len(script.shoe)))
            elif isinstance(step, NeedInsurance):
                insured = True
                round_.take_insurance({s.wager.seat: s.insurance for s in script.seats})
            elif isinstance(step, NeedPeek):
                up, hole = round_.up_card, round_.hole
                assert up is not None and hole is not None  # the deal plan dealt both
                round_.peek(hole_card_gives_blackjack(up, hole.reveal()))
            elif isinstance(step, NeedDecision):
                _decide(round_, step, decisions[step.seat])
            elif isinstance(step, NeedReveal):
                round_.reveal_hole()
        except RulesError as err:
            raise ReplayError(str(err)) from err
    for seat_script in script.seats:
        seat = seat_script.wager.seat
        if seat_script.insurance and not insured:
            up = round_.up_card
            raise ReplayError(
                f"seat {seat}: insurance {money(seat_script.insurance)} but the dealer's up "
                f"card {up} is not an ace"
            )
        left = decisions[seat]
        if left:
            listed = ", ".join(d.value for d in left)
            raise ReplayError(f"seat {seat}: {len(left)} decision(s) left over: {listed}")
    return round_


def _next_card(round_: Round, shoe: list[Card | None], size: int) -> Card:
    while shoe:
        card = shoe.pop()
        if card is not None:
            return card
        round_.cover_card()
    raise ReplayError(
        f"the shoe ran out after {size} cards: the round still needs {_describe(round_)}"
    )


def _describe(round_: Round) -> str:
    from controller.rules.steps import describe

    return describe(round_.step)


def _decide(round_: Round, step: NeedDecision, queue: list[Decision]) -> None:
    if step.legal == _STAND_OR_RESCUE and (not queue or queue[0] is not Decision.RESCUE):
        # A doubled hand ends after its one card unless the next decision is a rescue.
        round_.decide(step.seat, Decision.STAND)
        return
    if not queue:
        raise ReplayError(
            f"seat {step.seat}: no decision left for hand {step.hand + 1} "
            f"({', '.join(sorted(d.value for d in step.legal))} allowed)"
        )
    round_.decide(step.seat, queue.pop(0))


def settlement(script: RoundScript, round_: Round) -> dict[str, Any]:
    """The settled round as a JSON-ready mapping."""
    dealer_total, _ = hand_total(round_.dealer_cards)
    return {
        "profile": script.profile.code,
        "decks": script.decks,
        "dealer": {
            "cards": [c.text for c in round_.dealer_cards],
            "total": dealer_total,
            "blackjack": round_.dealer_blackjack,
            "bust": dealer_total > 21,
        },
        "reshuffle": round_.reshuffle_due,
        "seats": [_seat_json(round_, seat) for seat in round_.seats],
        "payments": [_payment_json(p) for p in round_.payments],
    }


def _seat_json(round_: Round, seat: int) -> dict[str, Any]:
    mine = [p for p in round_.payments if p.seat == seat]
    main = {p.hand: p for p in mine if p.wager is WagerKind.MAIN}
    side = {
        p.wager: _payment_json(p) for p in mine if p.wager in (WagerKind.MATCH, WagerKind.INSURANCE)
    }
    net = round_.seat_net(seat)
    return {
        "seat": seat,
        "net": money(net),
        "net_cents": net,
        "hands": [_hand_json(h, main[h.index]) for h in round_.hands[seat]],
        "match": side.get(WagerKind.MATCH),
        "insurance": side.get(WagerKind.INSURANCE),
        # One $50 share per super bonus at another seat (NY 5324.12(b)(7)): a list, since
        # two seats can hit one in the same round.
        "super_bonus_shares": [
            _payment_json(p) for p in mine if p.wager is WagerKind.SUPER_BONUS_SHARE
        ],
    }


def _hand_json(hand: PlayerHand, payment: Payment) -> dict[str, Any]:
    return {
        "cards": [c.text for c in hand.cards],
        "total": hand.total,
        "split": hand.from_split,
        "doubled": hand.doubled,
        **_payment_json(payment),
    }


def _payment_json(payment: Payment) -> dict[str, Any]:
    data: dict[str, Any] = {
        "seat": payment.seat,
        "wager": payment.wager.value,
        "outcome": payment.outcome.value,
        "odds": str(payment.odds) if payment.odds else None,
        "net": money(payment.net),
    }
    if payment.hand is not None:
        data["hand"] = payment.hand + 1
    if payment.bonus:
        data["bonus"] = payment.bonus.value
    if payment.super_bonus:
        data["super_bonus"] = money(payment.super_bonus)
    if payment.note:
        data["note"] = payment.note
    return data


#: The largest script ``replay`` reads (a round's script is a few kilobytes).
MAX_SCRIPT_BYTES = 1 << 20


def replay_file(path: Path) -> dict[str, Any]:
    """Load, play and settle one script file.

    Raises:
        ReplayError: for an unreadable file, malformed JSON or any script error.
    """
    try:
        with path.open("rb") as file:
            # A round's script is a few kB: a larger "file" (/dev/zero) is refused unread.
            raw = file.read(MAX_SCRIPT_BYTES + 1)
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ReplayError(f"cannot read the script: {getattr(err, 'strerror', err)}") from err
    except ValueError as err:  # a NUL byte in the path
        raise ReplayError(f"cannot read the script: {err}") from err
    if len(raw) > MAX_SCRIPT_BYTES:
        raise ReplayError(f"the script is larger than {MAX_SCRIPT_BYTES} bytes")
    try:
        document = json.loads(text, parse_float=Decimal)
    except json.JSONDecodeError as err:
        raise ReplayError(
            f"malformed JSON at line {err.lineno} column {err.colno}: {err.msg}"
        ) from None
    except RecursionError:
        raise ReplayError("malformed JSON: nested too deeply") from None
    except ValueError:  # an integer literal over Python's digit limit (4300)
        raise ReplayError("malformed JSON: a number with too many digits") from None
    script = parse_script(document)
    return settlement(script, play(script))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``dealer-station replay``."""
    parser.add_argument("scripts", nargs="+", type=Path, metavar="ROUND.json")


def run(args: argparse.Namespace) -> int:
    """Replay each script; one settlement (or a list of them) as JSON on stdout."""
    results = []
    for path in args.scripts:
        try:
            results.append(replay_file(path))
        except ReplayError as err:
            print(f"dealer-station replay: {path}: {err}", file=sys.stderr)
            return 2
    if len(results) > 1:
        for path, result in zip(args.scripts, results, strict=True):
            result["script"] = str(path)
    json.dump(results[0] if len(results) == 1 else results, sys.stdout, indent=2)
    print()
    return 0
