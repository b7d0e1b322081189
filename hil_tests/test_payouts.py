"""Every payout, end to end: each worked example in ``examples/`` played through the station.

One example per payout (blackjack 3:2, wins and pushes, five-, six- and seven-card 21s,
6-7-8 and 7-7-7 bonuses, the super bonus and its $50 shares, Match the Dealer tables A and
B, insurance, double down, rescue, surrender, splits and split aces, the cover card,
hit-soft-17): the wagers are placed with their value (the sensor board reads it), the
decisions are pressed on the panel, the cards come out of the shoe double, and the journal's
settlement rows must equal, in order and in cents, the rules engine's replay of the script
(``dealer-station replay``).
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from table_driver import TableDriver, card_due

from controller.cli.replay import parse_script, play, settlement
from controller.service import config as cfg
from controller.table.prompts import State
from drivers.hal import Button

EXAMPLES = sorted((Path(__file__).parents[1] / "examples").glob("*.json"))
SPARE = " 2D 3C 4S 5H 6D 2H 3S 4C 5S 6C"  # so the shoe never runs dry by accident


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_payout_matches_the_rules_engine(station: Any, example: Path) -> None:
    """Each worked example of ``examples/`` (one per payout: blackjack, 5-6-7 card 21s,
    6-7-8 and 7-7-7, super bonus, Match the Dealer tables A and B, insurance, double,
    rescue, surrender, splits, pushes) played through the station: the journal's
    settlement rows agree with the rules engine's replay of the same script."""
    document = json.loads(example.read_text(), parse_float=Decimal)
    expected = settlement(parse_script(document), play(parse_script(document)))
    options = _station_options(document)
    t = station(document["profile"], document["decks"], options=options)
    shoe = ["2C"] + document["shoe"]  # the burn card first
    cover = shoe.index("CUT") if "CUT" in shoe else None
    cards = " ".join(c for c in shoe if c != "CUT") + SPARE
    t.ready(cards, cover_at=cover)
    _play_script(t, document)
    journal = t.data("settlement", "match_settled", "insurance")
    assert [_payment_key(d) for d in journal] == [_payment_key(p) for p in expected["payments"]]
    t.finish()


def _station_options(document: dict[str, Any]) -> cfg.Options:
    decks = document["decks"]
    table = cfg.PayTable.A if decks == 6 else cfg.PayTable.B
    extra = document.get("options") or {}
    return cfg.Options(
        match_the_dealer=True, match_pay_table=table, hit_soft_17=bool(extra.get("hit_soft_17"))
    )


def _cents(amount: Any) -> int:
    return int(Decimal(str(amount)) * 100)


def _payment_key(p: dict[str, Any]) -> tuple[Any, ...]:
    """A journal row or a replay payment, in cents, the same shape either way."""
    net = p["net_cents"] if "net_cents" in p else _cents(p["net"])
    bonus = p.get("super_bonus")
    super_bonus = (
        p.get("super_bonus_cents") if bonus is True else (_cents(bonus) if bonus else None)
    )
    return (
        p["seat"],
        p.get("hand"),
        p["wager"],
        p["outcome"],
        p.get("odds"),
        p.get("bonus"),
        net,
        super_bonus,
    )


def _play_script(t: TableDriver, document: dict[str, Any]) -> None:
    """Bet and play the example's decisions through the panel and the shoe."""
    seats = {s["seat"]: s for s in document["seats"]}
    decisions = {seat: list(s.get("decisions", [])) for seat, s in seats.items()}
    for seat, s in sorted(seats.items()):
        match = _cents(s["match"]) if s.get("match") else False
        t.bet(seat, _cents(s["wager"]), match=match)
    t.press()
    buttons = {
        "stand": Button.NEXT,
        "double": Button.DOUBLE,
        "split": Button.SPLIT,
        "surrender": Button.SURRENDER,
        "rescue": Button.RESCUE,
    }
    while t.state not in (State.BETTING, State.SHUFFLING, State.LOADING):
        view = t.view
        state = t.state
        if state is State.INSURANCE:
            for seat, s in seats.items():
                if s.get("insurance"):
                    t.insure(seat, _cents(s["insurance"]))
            t.press()
        elif state is State.PEEKING:
            t.peek()
        elif card_due(view):
            t.deal()
        elif state is State.PLAYERS:
            assert view.acting_seat is not None
            queue = decisions[view.acting_seat]
            if set(view.legal) == {"stand", "rescue"} and (not queue or queue[0] != "rescue"):
                t.press()  # a doubled hand ends after its card unless rescued
                continue
            decision = queue.pop(0)
            t.deal() if decision == "hit" else t.press(buttons[decision])
        elif state is State.FAULT:
            raise AssertionError(f"the example faulted: {view.fault}")
        else:
            t.press()
    assert all(not q for q in decisions.values()), decisions
