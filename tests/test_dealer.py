"""The simulated dealer (``controller.simulation.dealer``): what it does at the table."""

from __future__ import annotations

import dataclasses
import itertools
import random
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from table_support import ListJournal
from test_simulate import journal_content, scratch, seeded_part

from controller.rules.cards import ALL_CARDS, Card, parse_card
from controller.rules.profiles import get_profile
from controller.rules.round import Round
from controller.rules.steps import Decision, NeedDecision, SeatWager
from controller.simulation.dealer import (
    Action,
    Press,
    SimulatedDealer,
    decision_after_card,
    random_chooser,
)
from controller.simulation.dealing import RigSide, TableSide
from controller.simulation.direct import DirectRig
from controller.simulation.runner import SimulatedTable, SimulationSettings
from controller.simulation.split_doubles import ServedSide
from controller.table.prompts import State
from controller.table.view import HandView, TableView
from drivers.hal import Button, DeviceEvent, SeatWagerChanged, WagerSpot

__all__ = ["scratch"]  # the fixture: a journal directory on tmpfs

UNSEEDED = ("commitment", "nonce")  # the table seals its hole cards with fresh nonces


class LookingUpDealer(SimulatedDealer):
    """The dealer as it was: one settlement, one NEXT, then a look at the panel."""

    def act(self, view: TableView) -> list[Action]:
        if view.state in (State.MATCH, State.SETTLE_NOW, State.SETTLING):
            self.wagers_placed = False
            self._insured = False
            return [*self._settle(view, view.settling), Press(Button.NEXT)]
        return super().act(view)


def played(profile: str, seed: int, dealer: type[SimulatedDealer]) -> tuple[list[Any], int]:
    """A seeded run's journal (without the hole cards' nonces) and how often the dealer
    looked at the table."""
    rng = random.Random(seed)
    journal = ListJournal()
    rig = DirectRig(get_profile(profile), 6, journal, random_chooser(rng), rng)
    rig.dealer = dealer(rig.seats, rig.chooser, rng, dealer_change_every=7)
    looks = 0
    act = rig.dealer.act

    def counted(view: TableView) -> list[Action]:
        nonlocal looks
        looks += 1
        return act(view)

    rig.dealer.act = counted  # type: ignore[method-assign]
    try:
        rig.play(12)
    finally:
        rig.close()
    rows = [
        (r.kind, r.round_no, {k: v for k, v in r.data.items() if k not in UNSEEDED})
        for r in journal.rows
    ]
    return rows, looks


@pytest.mark.parametrize("profile", ["PA", "NJ", "NY"])
def test_settling_a_whole_queue_in_one_look_journals_what_a_look_per_settlement_does(
    profile: str,
) -> None:
    """PA 635a.7(i)-(n) fix the settlement order; the panel prompts it seat after seat. A
    dealer who settles the whole queue from the layout and presses NEXT after each (one
    link: each NEXT reaches the station after the chips before it) leaves the journal a
    dealer who looks up after each settlement leaves, row for row, with fewer looks."""
    batched, batched_looks = played(profile, 5, SimulatedDealer)
    looking, looking_looks = played(profile, 5, LookingUpDealer)
    assert batched == looking
    kinds = [kind for kind, _, _ in batched]
    assert kinds.count("round_completed") == 12
    assert kinds.count("settlement") >= 12  # seats were settled
    assert batched_looks < looking_looks


def test_a_wager_sensor_reports_only_a_change() -> None:
    """A sensor reports chips put down or taken off, not chips left where they were: the
    dealer leaves a spot alone when it already holds what the player bets (a wager let
    ride, an empty Match spot left empty) and reports every real change."""
    rng = random.Random(8)
    rig = DirectRig(get_profile("PA"), 6, ListJournal(), random_chooser(rng), rng)
    on_spot: dict[tuple[int, WagerSpot], int | None] = {}
    changes = repeats = 0
    handle = rig.table.handle

    def watched(event: DeviceEvent) -> None:
        nonlocal changes, repeats
        if isinstance(event, SeatWagerChanged):
            key = (event.seat, event.spot)
            reading = event.cents if event.present else None
            if key in on_spot and on_spot[key] == reading:
                repeats += 1
            changes += 1
            on_spot[key] = reading
        handle(event)

    rig.table.handle = watched  # type: ignore[method-assign]
    try:
        rig.play(30)
    finally:
        rig.close()
    assert repeats == 0
    assert changes >= 30 * 7  # the chips still move: bets, payouts, collections


def test_bets_taken_with_the_last_settlement_journal_what_a_betting_look_does(
    scratch: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dealer's loop takes the next round's bets in the final settlement's look when
    no reshuffle is due; the station, betting once it has the last NEXT, journals the
    same rows as when the dealer looked at the betting table first (30 rounds: dealer
    changes every 25 and reshuffles included), with a look fewer a round."""
    plain = SimulatedTable(SimulationSettings(rounds=30, seed=4, journal=scratch / "a.sqlite3"))
    folded = plain.run()
    monkeypatch.setattr(SimulatedDealer, "bets", lambda self: [])
    looking = SimulatedTable(SimulationSettings(rounds=30, seed=4, journal=scratch / "b.sqlite3"))
    looked = looking.run()
    one, two = journal_content(scratch / "a.sqlite3"), journal_content(scratch / "b.sqlite3")
    assert seeded_part(one) == seeded_part(two)
    kinds = [kind for kind, _, _ in one]
    assert kinds.count("round_completed") == 30
    assert "dealer_change" in kinds and kinds.count("shuffle_commanded") >= 2
    assert looked.looks - folded.looks >= 25  # about one a round (not after a reshuffle)


def test_every_table_side_has_every_hand_the_dealing_loop_uses() -> None:
    """The in-process rig's, the split table's and the boot test's table sides all do
    what :class:`TableSide` names (the dealing loop calls each; a missing one fails only
    in the run that needs it, such as the VM boot test)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "vm_tests"))
    try:
        from remote_table import RemoteSide
    finally:
        sys.path.pop(0)
    hands = {n for n, v in vars(TableSide).items() if callable(v) and not n.startswith("_")}
    assert {"draw", "press", "place_wager", "holding"} <= hands
    for side in (RigSide, ServedSide, RemoteSide):
        assert hands <= {n for n in dir(side) if callable(getattr(side, n))}, side.__name__


def hand(seat: int, number: int, *cards: str) -> HandView:
    """A hand waiting for its player's signal, as the layout shows it."""
    return HandView(seat, number, cards, 0, "playing", False)


HIT, STAND, DOUBLE = Decision.HIT, Decision.STAND, Decision.DOUBLE


@pytest.mark.parametrize(
    ("cards", "card", "total", "legal"),
    [
        # PA 635a.7(j): a player may draw while under 21; 635a.9 (ASSUMPTION): surrender on
        # the first two cards only; 635a.10 (ASSUMPTION): double on any number of cards.
        (("6C", "8C"), "5S", 19, {HIT, STAND, DOUBLE}),
        (("9C", "2D"), "9H", 20, {HIT, STAND, DOUBLE}),  # 20: the last total that plays on
        (("2C", "3D"), "AH", 16, {HIT, STAND, DOUBLE}),  # soft 16
        (("AC", "5D"), "9H", 15, {HIT, STAND, DOUBLE}),  # the ace counts 1 again
        (("9C", "2D"), "QH", None, None),  # 21: PA 635a.7(j)(1), no draw (a bonus?)
        (("6C", "8C"), "7D", None, None),  # 6-7-8: a 21 with a bonus the station pays
        (("6C", "8C"), "KD", None, None),  # 24: bust
        (("KC", "AD", "QH"), "AS", None, None),  # 22: bust by one
    ],
)
def test_after_a_hit_the_rules_engine_says_what_the_player_may_do_next(
    cards: tuple[str, ...], card: str, total: int | None, legal: set[Decision] | None
) -> None:
    """The dealer plays a hand on after a hit only while the one rules engine says its
    player decides again (NJ 19.7(f), NY 5324.12(c)(6)); at 21 or over, None: the station
    may prompt (a bust, a 21, a bonus), so the dealer looks up."""
    before = hand(3, 1, *cards)
    after = decision_after_card(get_profile("PA"), (before,), before, parse_card(card))
    if total is None:
        assert after is None
        return
    assert after is not None
    played, decisions = after
    assert played == HandView(3, 1, (*cards, card), total, "playing", False)
    assert decisions == legal


def test_after_a_hit_on_a_split_hand_the_split_rules_hold() -> None:
    """A split hand (its seat holds two) may not surrender (635a.9, ASSUMPTION) and doubles
    only where the profile allows a double after a split (635a.10, ASSUMPTION); the other
    hand of the seat is left as it lies."""
    first, second = hand(2, 1, "8H", "2C"), hand(2, 2, "8D")
    profile = get_profile("PA")
    after = decision_after_card(profile, (first, second), first, parse_card("3C"))
    assert after is not None and after[1] == {HIT, STAND, DOUBLE}
    assert after[0].cards == ("8H", "2C", "3C") and after[0].total == 13
    no_das = dataclasses.replace(profile, double_after_split=False)
    after = decision_after_card(no_das, (first, second), first, parse_card("3C"))
    assert after is not None and after[1] == {HIT, STAND}
    # The second hand's own hit: the seat's first hand stays as it was.
    after = decision_after_card(
        profile, (first, hand(2, 2, "8D", "4S")), hand(2, 2, "8D", "4S"), parse_card("2S")
    )
    assert after is not None and after[0].hand == 2 and after[0].total == 14


def test_after_a_hit_on_split_aces_only_what_the_profile_lets_them_do() -> None:
    """Split aces hit only where the profile says so (635a.11, ASSUMPTION), and double only
    with ``double_split_aces``."""
    profile = dataclasses.replace(get_profile("PA"), hit_split_aces=True)
    first, second = hand(5, 1, "AS", "5H"), hand(5, 2, "AD", "9C")
    after = decision_after_card(profile, (first, second), first, parse_card("2C"))
    assert after is not None and after[0].total == 18 and after[1] == {HIT, STAND}
    doubles = dataclasses.replace(profile, double_split_aces=True)
    after = decision_after_card(doubles, (first, second), first, parse_card("2C"))
    assert after is not None and after[1] == {HIT, STAND, DOUBLE}


def test_after_a_split_card_the_rules_engine_says_what_the_player_may_do_next() -> None:
    """A split hand's second card (the hand shows one card) is dealt like a hit: the player
    decides next as the split rules say (no surrender after a split, 635a.9 ASSUMPTION);
    split aces take their one card (635a.11 ASSUMPTION) and the turn moves on: None."""
    profile = get_profile("PA")
    first, second = hand(4, 1, "8H"), hand(4, 2, "8D")
    after = decision_after_card(profile, (first, second), first, parse_card("3C"))
    assert after is not None
    assert after[0] == HandView(4, 1, ("8H", "3C"), 11, "playing", False)
    assert after[1] == {HIT, STAND, DOUBLE}
    aces = hand(4, 1, "AS"), hand(4, 2, "AD")
    assert decision_after_card(profile, aces, aces[0], parse_card("5C")) is None


@pytest.mark.parametrize("profile", ["PA", "NJ", "NY"])
def test_a_hand_played_out_in_one_look_journals_what_a_look_per_card_does(
    scratch: Path, monkeypatch: pytest.MonkeyPatch, profile: str
) -> None:
    """NJ 19.7(f), NY 5324.12(c)(6): the dealer deals each card a player's hit asks for;
    PA 635a.7(l): she draws to 17. Dealing a hand's hits (after a split card too), the
    stand or double that ends them (once the shoe's cards are on the station's queue) and
    her own draws without looking up between them (the next signal read from the hand with
    the card she drew, the rules engine saying what may follow) journals, row for row, what
    a dealer who looks at the panel after every card journals, with a look fewer for each
    signal that followed a card of the same hand."""
    failed = []  # deliveries that timed out: the dealer looked up instead
    deliver = RigSide.deliver

    def counted(self: RigSide, device: Any, timeout: float) -> bool:
        done = deliver(self, device, timeout)
        if not done:
            failed.append(device)
        return done

    monkeypatch.setattr(RigSide, "deliver", counted)

    def run(name: str) -> tuple[list[Any], int]:
        settings = SimulationSettings(
            profile=profile, rounds=25, seed=11, journal=scratch / f"{name}.sqlite3"
        )
        looks: list[TableView] = []  # those at the cards' hands count (the others may vary
        # with the scheduler: a shuffle done before or after a look)
        SimulatedTable(settings, on_view=looks.append).run()
        dealing = sum(1 for view in looks if view.state in (State.PLAYERS, State.DEALER))
        return seeded_part(journal_content(settings.journal)), dealing

    played_out, fewer = run("out")
    monkeypatch.setattr(SimulatedDealer, "next_signal", lambda self, view, hand, card: None)
    monkeypatch.setattr(SimulatedDealer, "draws_again", lambda self, cards: False)
    looking, more = run("looking")
    assert played_out == looking
    kinds = [kind for kind, _, _ in played_out]
    assert kinds.count("round_completed") == 25 and "fault" not in kinds
    # A signal that follows a card of the same hand: a decision right after a hit or split
    # card (a hit's decision row comes just before its card; the button and the panel's
    # new lamps may be journaled between), a dealer draw right after a draw.
    hits = buttons = dealer_again = 0
    rows = [row for row in played_out if row[0] not in ("prompt", "button")]
    for before, (kind, _, data) in itertools.pairwise(rows):
        last_kind, _, last = before
        if last_kind != "card" or kind not in ("card", "decision"):
            continue
        if kind == "card" and data["role"] == last["role"] == "draw":
            dealer_again += 1
        elif (
            kind == "decision"
            and last["role"] in ("hit", "split")
            and (last["seat"], last["hand"]) == (data["seat"], data["hand"])
        ):
            if data["decision"] == "hit":
                hits += 1
            else:
                buttons += 1
    assert hits >= 10 and buttons >= 20 and dealer_again >= 3
    # Each was a look of its own; now none (none of these hands met the cover card, which
    # would end the look; a delivery that timed out, none on a machine that is not
    # starved, costs its button a look).
    assert more - fewer == hits + buttons - len(failed) + dealer_again


@settings(max_examples=300, deadline=None)
@given(
    cards=st.lists(st.sampled_from(ALL_CARDS), min_size=12, max_size=12),
    profile=st.sampled_from(["PA", "NJ", "NY"]),
    split=st.booleans(),
)
def test_the_dealer_foresees_exactly_what_the_rules_engine_asks_after_a_card(
    cards: list[Card], profile: str, split: bool
) -> None:
    """Whatever the cards: after each hit (or a split hand's second card) the hand and the
    decisions :func:`decision_after_card` foresees are the ones the station's own round
    (``controller.rules.round.Round``) then asks for; where it foresees nothing, the round
    asks for no decision on that hand. So the dealer never acts on a guess."""
    rules = get_profile(profile)
    game = Round(rules, 6, (SeatWager(1, 1000),))
    up = parse_card("5H")  # no peek, no insurance: the players' turn follows the deal
    initial = [cards[0], up, cards[1]]
    if game.initial_cards_due == 4:
        initial.append(cards[2])  # the hole card
    game.deal_initial(initial)
    step = game.step
    if not isinstance(step, NeedDecision):
        return  # a blackjack: no decision
    if split and Decision.SPLIT in step.legal:
        game.decide(1, Decision.SPLIT)
    for card in cards[3:]:
        hands = game.hands[1]
        step = game.step
        if isinstance(step, NeedDecision):
            if Decision.HIT not in step.legal:
                return
            game.decide(1, Decision.HIT)
        index = game.step.hand  # type: ignore[union-attr]
        at_seat = tuple(
            HandView(1, h.index + 1, tuple(c.text for c in h.cards), h.total, "playing", False)
            for h in hands
        )
        foreseen = decision_after_card(rules, at_seat, at_seat[index], card)
        game.deal(card)
        step = game.step
        hand = hands[index]
        if isinstance(step, NeedDecision) and step.hand == index:
            assert foreseen is not None
            assert foreseen[1] == step.legal
            assert foreseen[0].cards == tuple(c.text for c in hand.cards)
            assert foreseen[0].total == hand.total
        else:
            assert foreseen is None
            return
