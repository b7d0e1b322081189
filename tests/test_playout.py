"""The players' turn played out in one look (``controller.simulation.playout``): what the
dealer foresees is what the station's own round asks for, and the journal is the one a
dealer who looks up after every card and signal leaves."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_simulate import journal_content, scratch, seeded_part

from controller.rules.cards import ALL_CARDS, Card, parse_card
from controller.rules.profiles import PROFILES, get_profile
from controller.rules.round import Round
from controller.rules.steps import CardRole, Decision, NeedCard, NeedDecision, SeatWager
from controller.simulation import dealing as dealing_module
from controller.simulation.dealer import SimulatedDealer
from controller.simulation.playout import TurnOnLayout, players_follow
from controller.simulation.runner import SimulatedTable, SimulationSettings
from controller.simulation.table_side import RigSide
from controller.table.prompts import State
from controller.table.view import HandView, TableView

__all__ = ["scratch"]  # the fixture: a journal directory on tmpfs

HIT, STAND, DOUBLE, SPLIT = Decision.HIT, Decision.STAND, Decision.DOUBLE, Decision.SPLIT
SURRENDER, RESCUE = Decision.SURRENDER, Decision.RESCUE
PA = get_profile("PA")


def players(
    hands: list[HandView], acting: tuple[int, int], legal: set[Decision], up: str = "5H"
) -> TableView:
    """A view of the players' turn: ``acting`` (seat, hand) decides among ``legal`` (a card
    is due when ``legal`` is empty)."""
    return TableView(
        state=State.PLAYERS,
        prompt="",
        round_no=1,
        lamps=(),
        seats=tuple(sorted({h.seat for h in hands})),
        hands=tuple(hands),
        dealer_cards=(up,),
        hole_face_down=True,
        acting_seat=acting[0],
        acting_hand=acting[1],
        legal=tuple(sorted(d.value for d in legal)),
        card_due=not legal,
        reveal_due=False,
        reshuffle_pending=False,
        fault=None,
        settling_seat=None,
    )


def hand(seat: int, number: int, *cards: str, status: str = "playing") -> HandView:
    return HandView(seat, number, cards, 0, status, status == "doubled")


def decision(layout: TurnOnLayout) -> tuple[int, int, frozenset[Decision]]:
    step = layout.step
    assert isinstance(step, NeedDecision)
    return step.seat, step.hand + 1, step.legal


def test_hits_then_a_stand_then_the_next_seat() -> None:
    """PA 635a.7(h)-(j): after a hit under 21 the same player decides again (no surrender
    after the first two cards, 635a.9 ASSUMPTION; double on any number, 635a.10
    ASSUMPTION); a stand hands the turn to the next seat on the dealer's left."""
    view = players(
        [hand(1, 1, "6C", "8C"), hand(2, 1, "9D", "7S")], (1, 1), {HIT, STAND, DOUBLE, SURRENDER}
    )
    layout = TurnOnLayout(PA, view)
    assert layout.agrees_with(view)
    layout.decide(HIT)
    assert layout.card(parse_card("5S"))  # 19
    assert decision(layout) == (1, 1, {HIT, STAND, DOUBLE})
    assert layout.hand_view().cards == ("6C", "8C", "5S") and layout.hand_view().total == 19
    assert layout.stand()
    assert decision(layout) == (2, 1, {HIT, STAND, DOUBLE, SURRENDER})
    assert not layout.players_done()
    assert not layout.stand()  # the last seat: the dealer's turn
    assert layout.players_done()  # PA 635a.7(k): the hole card is turned over next


def test_the_players_are_done_only_with_the_last_hand_played() -> None:
    """A blackjack on the last seat is passed over: the station may settle it first
    (PA 635a.7(h)(1)(i)), so the dealer does not turn the hole card over in that look."""
    view = players(
        [hand(1, 1, "6C", "8C"), hand(2, 1, "AS", "KD", status="blackjack")],
        (1, 1),
        {HIT, STAND, DOUBLE, SURRENDER},
    )
    layout = TurnOnLayout(PA, view)
    assert not layout.stand()
    assert layout.step is None and not layout.players_done()


@pytest.mark.parametrize(
    ("cards", "card", "seat"),
    [
        (("9C", "2D"), "9H", 1),  # 20: the same player decides again
        (("9C", "2D"), "QH", 2),  # 21: PA 635a.7(j)(1), no draw
        (("6C", "8C"), "7D", 2),  # 6-7-8: a 21 whose bonus is paid at the settlement
        (("6C", "8C"), "KD", 2),  # 24: bust
        (("KC", "AD", "QH"), "AS", 2),  # 22: bust by one
    ],
)
def test_a_bust_or_a_21_hands_the_turn_to_the_next_seat(
    cards: tuple[str, ...], card: str, seat: int
) -> None:
    """Under 21 the same player decides again; 21 (no draw) and a bust end the hand, and
    the next seat on the layout decides: no prompt between, the dealer goes on."""
    view = players([hand(1, 1, *cards), hand(2, 1, "9D", "7S")], (1, 1), {HIT, STAND, DOUBLE})
    layout = TurnOnLayout(PA, view)
    layout.decide(HIT)
    assert layout.card(parse_card(card))
    assert decision(layout)[0] == seat


def test_a_seat_passed_over_makes_the_dealer_look_up() -> None:
    """A blackjack between two seats: PA 635a.7(h)(1)(i) pays it when play reaches it (a
    settlement the panel prompts), so the turn's next step is not certain enough."""
    view = players(
        [
            hand(1, 1, "6C", "8C"),
            hand(2, 1, "AS", "KD", status="blackjack"),
            hand(3, 1, "9D", "7S"),
        ],
        (1, 1),
        {HIT, STAND, DOUBLE, SURRENDER},
    )
    layout = TurnOnLayout(PA, view)
    assert not layout.stand()


def test_split_hands_take_their_second_card_and_split_rules() -> None:
    """A split hand stands: the seat's next hand takes its second card (635a.11
    ASSUMPTION), then decides with no surrender after a split; split aces take one card
    each and stand (``hit_split_aces`` off), and play goes on to the next seat."""
    view = players(
        [hand(1, 1, "8H", "2C"), hand(1, 2, "8D"), hand(2, 1, "9D", "7S")],
        (1, 1),
        {HIT, STAND, DOUBLE},
    )
    layout = TurnOnLayout(PA, view)
    assert layout.stand()
    step = layout.step
    assert isinstance(step, NeedCard) and step.role is CardRole.SPLIT
    assert (step.seat, step.hand) == (1, 1)
    assert layout.card(parse_card("3S"))
    assert decision(layout) == (1, 2, {HIT, STAND, DOUBLE})
    aces = players(
        [hand(1, 1, "AS", status="awaiting_card"), hand(1, 2, "AD"), hand(2, 1, "9D", "7S")],
        (1, 1),
        set(),
    )
    layout = TurnOnLayout(PA, aces)
    assert layout.agrees_with(aces)
    assert layout.card(parse_card("5C"))  # stands at once: the second ace's card is due
    assert isinstance(layout.step, NeedCard) and layout.step.hand == 1
    assert layout.card(parse_card("9C"))
    assert decision(layout)[0] == 2
    no_das = dataclasses.replace(PA, double_after_split=False)
    layout = TurnOnLayout(
        no_das, players([hand(1, 1, "8H", "2C"), hand(1, 2, "8D")], (1, 1), {HIT, STAND})
    )
    layout.decide(HIT)
    assert layout.card(parse_card("2S"))
    assert decision(layout) == (1, 1, {HIT, STAND})


def test_a_doubles_card_leaves_stand_or_rescue() -> None:
    """PA 635a.7(j)(2): one card after a double; rescue may follow (635a.10 ASSUMPTION)."""
    view = players([hand(4, 1, "5C", "6D", status="awaiting_card")], (4, 1), set())
    view = dataclasses.replace(
        view, hands=(HandView(4, 1, ("5C", "6D"), 11, "awaiting_card", True),)
    )
    layout = TurnOnLayout(PA, view)
    assert layout.agrees_with(view)
    assert layout.card(parse_card("2H"))
    assert decision(layout) == (4, 1, {STAND, RESCUE})


def test_a_view_the_turn_disagrees_with_is_not_played_out() -> None:
    """The dealer acts on the turn's word only where it says what the station shows."""
    view = players([hand(1, 1, "6C", "8C")], (1, 1), {HIT, STAND})  # no double? not PA
    assert not TurnOnLayout(PA, view).agrees_with(view)
    with pytest.raises(ValueError, match="players' turn"):
        TurnOnLayout(PA, dataclasses.replace(view, state=State.DEALER))


@pytest.mark.parametrize(
    ("up", "second", "follows"),
    [
        ("2H", "9D", True),  # PA 635a.7(h): the first player decides next
        ("9H", "9D", True),
        ("AH", "9D", False),  # insurance is offered first (PA 635a.8)
        ("KH", "9D", False),  # the card reader peeks first (PA 635a.7(g))
        ("5H", "KD", False),  # seat 2's blackjack: PA pays it when play reaches it
    ],
)
def test_the_players_follow_the_match_settlements_only_with_nothing_between(
    up: str, second: str, follows: bool
) -> None:
    """After the last Match the Dealer settlement (PA 635a.7(f)) the dealer turns to the
    first player in the same look only when the station has nothing else to prompt."""
    view = players(
        [
            hand(1, 1, "6C", "8C"),
            hand(2, 1, "AS", second, status="blackjack" if second == "KD" else "playing"),
        ],
        (1, 1),
        {HIT, STAND, DOUBLE, SURRENDER},
        up=up,
    )
    assert not players_follow(view)  # the players' turn itself: not a Match settlement
    assert players_follow(dataclasses.replace(view, state=State.MATCH)) is follows


def view_of(game: Round, up: Card) -> TableView:
    """The players' turn of ``game`` as the station's view shows it."""
    step = game.step
    assert isinstance(step, NeedDecision | NeedCard) and step.seat is not None
    hands = [
        HandView(
            h.seat, h.index + 1, tuple(c.text for c in h.cards), h.total, h.status.value, h.doubled
        )
        for seat in game.seats
        for h in game.hands[seat]
    ]
    legal = step.legal if isinstance(step, NeedDecision) else set()
    return players(hands, (step.seat, (step.hand or 0) + 1), set(legal), up.text)


def same_step(layout: TurnOnLayout, game: Round) -> bool:
    mine, theirs = layout.step, game.step
    if isinstance(theirs, NeedDecision):
        return isinstance(mine, NeedDecision) and (mine.seat, mine.hand, mine.legal) == (
            theirs.seat,
            theirs.hand,
            theirs.legal,
        )
    return isinstance(mine, NeedCard) and (mine.role, mine.seat, mine.hand) == (
        theirs.role,
        theirs.seat,
        theirs.hand,
    )


@settings(max_examples=300, deadline=None)
@given(
    cards=st.lists(st.sampled_from(ALL_CARDS), min_size=60, max_size=60),
    wishes=st.lists(st.sampled_from([HIT, STAND, SPLIT, DOUBLE]), min_size=60, max_size=60),
    seats=st.integers(1, 7),
    up=st.sampled_from("23456789"),
    profile=st.sampled_from(list(PROFILES)),
)
def test_the_turn_on_the_layout_foresees_what_the_stations_round_asks(
    cards: list[Card], wishes: list[Decision], seats: int, up: str, profile: str
) -> None:
    """Whatever the cards and the players' wishes: while :class:`TurnOnLayout` says the
    next step is certain, it is the step the station's own round
    (``controller.rules.round.Round``) asks for next, and a player's (never the dealer's
    turn). A split or a double ends the dealer's look, as in the dealing loop."""
    rules = get_profile(profile)
    game = Round(rules, 6, tuple(SeatWager(s, 1000) for s in range(1, seats + 1)))
    up_card = parse_card(up + "S")
    initial = [*cards[:seats], up_card, *cards[seats : 2 * seats]]
    if game.initial_cards_due > len(initial):
        initial.append(cards[2 * seats])  # the hole card
    game.deal_initial(initial)
    if not isinstance(game.step, NeedDecision | NeedCard) or game.step.seat is None:
        return  # no player decides (every seat has blackjack, or a settlement first)
    layout = TurnOnLayout(rules, view_of(game, up_card))
    assert same_step(layout, game)
    deck, wanted = iter(cards[2 * seats + 1 :]), iter(wishes)
    while True:
        step = game.step
        if isinstance(step, NeedDecision):
            wish = next(wanted)
            if wish not in step.legal or wish in (SPLIT, DOUBLE):
                if wish in step.legal:
                    return  # the dealer stops at a split or a double
                wish = STAND if STAND in step.legal else HIT
            game.decide(step.seat, wish)
            if wish is STAND:
                certain = layout.stand()
            else:
                layout.decide(HIT)
                card = next(deck)
                game.deal(card)
                certain = layout.card(card)
        else:
            card = next(deck)
            game.deal(card)
            certain = layout.card(card)
        if not certain:
            return
        assert isinstance(game.step, NeedDecision | NeedCard) and game.step.seat is not None
        assert same_step(layout, game)


@pytest.mark.parametrize("profile", list(PROFILES))
def test_the_players_turn_in_one_look_journals_what_a_look_per_signal_does(
    scratch: Path, monkeypatch: pytest.MonkeyPatch, profile: str
) -> None:
    """NJ 19.7(e)-(f), NY 5324.12(c)(5)-(6), PA 635a.7(h)-(l): the dealer deals each card a
    signal asks for, seat after seat, and draws to 17. Doing so without looking up while
    the rules engine says what comes next (each device's reports on the station's queue
    before the other device acts) journals, row for row, what a dealer who looks at the
    panel after every card and signal journals; she looks at the players' turn about once
    a round, plus once after each double, split, surrender or rescue and each seat passed
    over."""
    failed = []  # deliveries that timed out: the dealer looked up instead
    deliver = RigSide.deliver

    def counted(self: RigSide, device: Any, timeout: float) -> bool:
        done = deliver(self, device, timeout)
        if not done:
            failed.append(device)
        return done

    monkeypatch.setattr(RigSide, "deliver", counted)

    def run(name: str) -> tuple[list[Any], int, int]:
        settings = SimulationSettings(
            profile=profile, rounds=25, seed=1, journal=scratch / f"{name}.sqlite3"
        )
        looks: list[TableView] = []  # those at the players' turn and the dealer's draws
        # count (the others may vary with the scheduler: a shuffle done before or after)
        SimulatedTable(settings, on_view=looks.append).run()
        playing = sum(1 for view in looks if view.state is State.PLAYERS)
        drawing = sum(1 for view in looks if view.state is State.DEALER and not view.reveal_due)
        revealing = sum(1 for view in looks if view.reveal_due)
        return seeded_part(journal_content(settings.journal)), playing, drawing, revealing

    played_out, playing, drawing, revealing = run("out")
    monkeypatch.setattr(dealing_module, "play_out_players", lambda dealing, view, after=None: False)
    monkeypatch.setattr(SimulatedDealer, "draws_again", lambda self, cards: False)
    looking, playing_before, drawing_before, revealing_before = run("looking")
    assert played_out == looking
    kinds = [kind for kind, _, _ in played_out]
    assert kinds.count("round_completed") == 25 and "fault" not in kinds
    decisions = [d["decision"] for kind, _, d in played_out if kind == "decision"]
    draws = [d for kind, _, d in played_out if kind == "card" and d["role"] == "draw"]
    # A look per signal and per card before; now one at the start of the players' turn
    # and one after each stop (a double, split, surrender or rescue; a blackjack passed
    # over; the cover card; a timed-out delivery), and one per dealer's hand that draws.
    stops = sum(decisions.count(d) for d in ("double", "split", "surrender", "rescue"))
    blackjacks = sum(
        1 for kind, _, d in played_out if kind == "settlement" and d["outcome"] == "blackjack"
    )
    covers = kinds.count("cover_card")  # the cover card out: the station sets it aside
    assert playing_before >= len(decisions)
    assert playing <= 25 + stops + blackjacks + covers + len(failed)
    assert playing * 3 < playing_before
    # A dealer's draw right after her draw was a look of its own; now none.
    rows = [(kind, d) for kind, _, d in played_out if kind not in ("prompt", "button")]
    again = sum(
        1
        for (kind, d), (last_kind, last) in zip(rows[1:], rows, strict=False)
        if kind == last_kind == "card" and d["role"] == last["role"] == "draw"
    )
    assert len(draws) > again >= 3
    assert drawing_before - drawing == again
    # The hole card turned over (PA, NY) right after the last player's signal, unless a
    # stop came first: a look of its own before, in fewer rounds now.
    reveals = kinds.count("hole_card_revealed")
    assert revealing_before >= reveals
    assert revealing <= reveals // 2
