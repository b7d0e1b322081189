"""End to end, one scenario per regulation clause the station enforces, for PA, NJ and NY.

The real station (daemon composition, journal, drivers) runs against the rig: on the
doubles the cards really cross a pseudo-terminal, the peek a pyusb bus and the buttons
gpiozero's pins. Each test is named after its clause; where the regulations differ the test
is parametrized by profile and says what each profile must do.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from table_driver import TableDriver, card_due

from controller.rules.options import MatchPayTable
from controller.rules.profiles import PROFILES as DECLARED
from controller.rules.profiles import DealerSecondCard
from controller.service import config as cfg
from controller.table.prompts import State
from drivers.hal import Button, Led, LedMode

PROFILES = list(DECLARED)
# NJ deals the dealer's second card after the players (19.7(g)).
HOLE_CARD_PROFILES = [
    c for c, p in DECLARED.items() if p.dealer_second_card is DealerSecondCard.HOLE
]
MATCH_HOLE_CARD_PROFILES = [c for c in HOLE_CARD_PROFILES if DECLARED[c].match_the_dealer]
# Spare cards after a scenario's script, so the shoe never runs dry by accident.
SPARE = " 2D 3C 4S 5H 6D 2H 3S 4C 5S 6C"


def lamps(t: TableDriver) -> dict[Led, LedMode]:
    return dict(t.view.lamps)


# --- burn -------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
def test_pa_635a_7_c_nj_19_7_c_ny_5324_12_c_3_first_card_after_load_is_burned(
    station: Any, profile: str
) -> None:
    t = station(profile)
    assert lamps(t) == {Led.LOAD: LedMode.BLINK}
    t.load("5D 9H 8C" + SPARE)
    assert t.state is State.BURNING and lamps(t) == {Led.BURN: LedMode.BLINK}
    t.deal("5D")
    assert t.state is State.BETTING
    assert t.data("burn") == [{"card": "5D", "reason": "load"}]
    # NJ 19.7(c), NY 5324.12(c)(3): the burn card is disclosed if a player asks; PA is silent.
    t.press(Button.DISCLOSE_BURN)
    disclosed = t.data("burn_disclosed")
    shown = DECLARED[profile].burn_disclosed_on_request
    assert disclosed == ([{"card": "5D"}] if shown else [])
    t.finish()


@pytest.mark.parametrize("profile", PROFILES)
def test_pa_635a_7_c_nj_19_7_c_ny_5324_12_c_3_each_new_dealer_burns_one_card(
    station: Any, profile: str
) -> None:
    t = station(profile)
    t.ready("2C 7S 9H 8C 6H 4D" + SPARE)
    t.press(Button.DEALER_CHANGE)
    assert t.state is State.BURNING
    t.bet(1)
    t.press()  # no dealing before the new dealer's burn
    assert t.state is State.BURNING
    t.deal("7S")
    assert t.state is State.BETTING
    assert [d["reason"] for d in t.data("burn")] == ["load", "dealer_change"]
    t.press()
    t.deal("9H")  # the first card after the burn goes to seat 1
    assert t.data("card")[0] == {"role": "initial", "seat": 1, "hand": 1, "card": "9H"}
    t.finish()


@pytest.mark.needs_person
def test_the_panel_lamps_a_person_sees_are_the_prompts_the_station_shows(station: Any) -> None:
    t = station("PA")
    person = t.station.rig.hands
    assert lamps(t) == {Led.LOAD: LedMode.BLINK}
    assert person.confirm("Is the LOAD lamp blinking, and every other lamp off?")
    t.load("2C 9H 8C" + SPARE)
    assert person.confirm("Is the BURN lamp blinking, and every other lamp off?")
    t.deal("2C")
    assert person.confirm("Is the BETS lamp lit steady, and every other lamp off?")
    t.finish()


# --- deal order -------------------------------------------------------------------------


@pytest.mark.parametrize("profile", HOLE_CARD_PROFILES)
def test_pa_635a_7_e_ny_5324_12_c_4_iv_deal_order_hole_card_face_down(
    station: Any, profile: str
) -> None:
    t = station(profile)
    t.ready("2C 2H 3H 4H 5H 6H 9C" + SPARE)
    t.bet(5)
    t.bet(2)
    t.press()
    t.deal("2H", "3H", "4H", "5H", "6H", "9C")
    placed = [(d["role"], d["seat"]) for d in t.data("card")]
    # From the dealer's left (seat 1 side): each box, the up card, each box again, the hole.
    assert placed == [("initial", 2), ("initial", 5), ("up", None), ("initial", 2), ("initial", 5)]
    assert len(t.data("hole_card_dealt")) == 1
    assert t.view.hole_face_down and t.view.dealer_cards == ("4H",)
    assert t.state is State.PLAYERS  # a 4 up: no peek
    t.finish()


@pytest.mark.parametrize(
    ("profile", "options"),
    [
        ("NJ", None),
        # NY 5324.12(c)(4): the licensee may give every determinate card first.
        (
            "NY",
            cfg.Options.of(dealer_second_card=DealerSecondCard.AFTER_PLAYERS, peek=False),
        ),
    ],
)
def test_nj_19_7_d_g_ny_5324_12_c_4_dealers_second_card_after_the_players(
    station: Any, profile: str, options: cfg.Options | None
) -> None:
    t = station(profile, options=options)
    t.ready("2C 9H KC 8D AS" + SPARE)
    t.bet(1)
    t.press()
    t.deal("9H", "KC", "8D")
    assert t.state is State.PLAYERS and not t.view.hole_face_down
    assert t.data("hole_card_dealt") == []
    t.press()  # seat 1 stands on 17
    assert t.state is State.DEALER
    t.deal("AS")  # the dealer's card, face up: a blackjack found after the players
    assert t.data("card")[-1] == {"role": "second", "seat": None, "hand": None, "card": "AS"}
    t.settle_all()
    assert [d["outcome"] for d in t.data("settlement")] == ["lose"]
    t.finish()


def test_nj_19_7_i_card_reader_alternative_deals_a_hole_card_and_peeks(station: Any) -> None:
    options = cfg.Options.of(
        dealer_second_card=DealerSecondCard.HOLE,
        peek=True,
        match_the_dealer=True,
        match_tables={6: MatchPayTable.A},
    )
    t = station("NJ", options=options)
    t.ready("2C 9H KC 8D 4S" + SPARE)
    t.bet(1)
    t.press()
    t.deal("9H", "KC", "8D", "4S")
    assert t.state is State.PEEKING and t.view.hole_face_down
    t.peek()
    assert t.state is State.PLAYERS
    t.finish()


# --- Match the Dealer -------------------------------------------------------------------


@pytest.mark.parametrize("profile", MATCH_HOLE_CARD_PROFILES)
def test_pa_635a_7_f_ny_5324_12_d_match_the_dealer_settled_before_the_card_reader(
    station: Any, rig: Any, profile: str
) -> None:
    t = station(profile, rig=rig)
    t.ready("2C KD 3S KH KH 9D 5C" + SPARE)
    t.bet(1, match=True)
    t.bet(4, match=True)
    t.press()
    t.deal("KD", "3S", "KH", "KH", "9D", "5C")  # up KH; seat 1 KD KH; seat 4 3S 9D
    assert t.state is State.MATCH
    match = t.data("match_settled")
    assert [m["seat"] for m in match] == [4, 1]  # from the dealer's right
    assert [m["outcome"] for m in match] == ["lose", "win"]
    # Table A: 4:1 off suit (KD) plus 9:1 suited (KH); the sensors see one stake each.
    assert Decimal(match[1]["net_stakes"]) == 4 + 9
    if rig.name == "sim":
        assert rig.doubles.card_reader.checks == 0  # nothing asked of the reader yet
    assert lamps(t)[Led.seat(4)] is LedMode.STEADY  # seat 4 first, COLLECT
    assert lamps(t)[Led.COLLECT] is LedMode.STEADY
    t.press(times=2)
    assert t.state is State.PEEKING
    t.peek()
    assert t.state is State.PLAYERS
    if rig.name == "sim":
        assert rig.doubles.card_reader.checks == 1
    t.finish()


def test_nj_19_7_match_the_dealer_settled_before_any_further_card(station: Any) -> None:
    t = station("NJ")
    t.ready("2C 7H 7D 5S" + SPARE)
    t.bet(1, match=True)
    t.press()
    t.deal("7H", "7D", "5S")  # seat 1 7H 5S, up 7D: one match, off suit
    assert t.state is State.MATCH
    t.deal("2D")  # a card before the match is settled is refused
    assert t.state is State.FAULT
    assert t.data("card")[-1] == {"role": "rejected", "card": "2D"}
    t.finish()


# --- wagers ---------------------------------------------------------------------------


def test_ny_5324_12_b_4_no_wager_withdrawn_after_the_first_card(station: Any) -> None:
    t = station("NY")
    t.ready("2C 9H 5C 8D 4S" + SPARE)
    t.bet(1)
    t.bet(2)
    t.press()
    t.deal("9H")
    t.take_back(2)  # seat 2 pulls its chips once the cards are out
    assert t.state is State.FAULT and t.fault == "wager_changed"
    assert t.data("card")[-1]["card"] == "9H"
    t.supervisor(Button.SUPERVISOR_VOID)
    assert t.state is State.BETTING and t.data("round_voided")
    t.finish()


def test_ny_5324_12_b_10_a_seat_that_sat_out_waits_for_the_reshuffle(station: Any) -> None:
    t = station("NY", options=cfg.Options.of(no_mid_shoe_entry=True))
    t.ready("2C 9H 5C 8D 4S 7H 6C 3D 2D 9S" + SPARE)
    t.bet(1)
    t.press()  # seat 2 sits this round out
    _play_out_standing(t)
    t.bet(1)
    t.bet(2)
    t.press()
    assert [d["seat"] for d in t.data("wager_refused")] == [2]
    assert [s["seat"] for s in t.data("round_started")[-1]["seats"]] == [1]
    t.finish()


# --- peek -------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", HOLE_CARD_PROFILES)
@pytest.mark.parametrize(
    ("up", "target"),
    [
        ("AS", "looking_for_ten"),
        ("KS", "looking_for_ace"),
        ("QS", "looking_for_ace"),
        ("JS", "looking_for_ace"),
        ("9S", None),
    ],
)
def test_pa_635a_7_g_peek_only_on_ace_king_queen_jack(
    station: Any, profile: str, up: str, target: str | None
) -> None:
    t = station(profile)
    t.ready(f"2C 5H {up} 8D 4C" + SPARE)
    t.bet(1)
    t.press()
    t.deal("5H", up, "8D", "4C")
    if up == "AS":
        assert t.state is State.INSURANCE  # PA 635a.7(g): insurance is offered first
        t.press()
    assert (t.state is State.PEEKING) is (target is not None)
    if target is not None:
        t.peek()
        assert t.data("peek_requested") == [{"target": target}]
        assert t.data("peek") == [{"answer": "no_blackjack"}]
    assert t.state is State.PLAYERS
    t.finish()


def test_pa_635a_7_g_dealer_blackjack_found_by_the_reader_ends_the_round(station: Any) -> None:
    t = station("PA")
    t.ready("2C 9H KS 9C AD" + SPARE)
    t.bet(1)
    t.press()
    t.deal("9H", "KS", "9C", "AD")
    t.peek()
    assert t.data("peek") == [{"answer": "blackjack"}]
    assert t.state is State.DEALER and t.view.reveal_due  # no player acts
    t.press()
    t.settle_all()
    assert [d["outcome"] for d in t.data("settlement")] == ["lose"]
    t.finish()


# --- cover card -------------------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
def test_pa_635a_7_d_nj_19_7_j_cover_card_as_first_card_of_a_round(
    station: Any, profile: str
) -> None:
    t = station(profile)
    t.ready("2C 9H 5C 8D QS 3D 4D 6C" + SPARE, cover_at=1)  # right after the burn
    t.bet(1)
    t.press()
    t.deal("9H")  # the cover card comes out first: set aside, the round is dealt
    assert t.data("cover_card") == [{}]
    assert lamps(t)[Led.RESHUFFLE] is LedMode.STEADY
    _play_out_standing(t)
    assert t.data("round_completed") == [{"reshuffle": True}]
    t.wait_state(State.LOADING)  # collected and reshuffled
    t.finish()


@pytest.mark.parametrize("profile", PROFILES)
def test_pa_635a_7_d_nj_19_7_j_cover_card_mid_round_completes_the_round(
    station: Any, profile: str
) -> None:
    t = station(profile)
    t.ready("2C 9H 5C 8D QS 3D 4D 6C" + SPARE, cover_at=3)  # after 9H 5C
    t.bet(1)
    t.press()
    t.deal("9H", "5C", "8D")
    assert t.data("cover_card") == [{}]
    assert t.state in (State.DEALING, State.PLAYERS)  # the round goes on
    _play_out_standing(t)
    assert t.data("round_completed") == [{"reshuffle": True}]
    assert t.data("round_voided") == []
    t.wait_state(State.LOADING)
    t.finish()


@pytest.mark.parametrize("profile", PROFILES)
def test_pa_635a_7_c_d_cover_card_at_a_new_dealers_burn_is_set_aside(
    station: Any, profile: str
) -> None:
    t = station(profile)
    t.ready("2C 7S 9H 5C 8D QS 3D 4D 6C" + SPARE, cover_at=1)  # the cover card after 2C
    t.press(Button.DEALER_CHANGE)
    t.deal("7S")  # the cover card comes out first, then the new dealer's burn card
    assert t.state is State.BETTING and t.data("cover_card") == [{}]
    assert t.data("burn")[-1] == {"card": "7S", "reason": "dealer_change"}
    assert lamps(t)[Led.RESHUFFLE] is LedMode.STEADY
    t.bet(1)
    t.press()
    _play_out_standing(t)  # the shoe's last round
    assert t.data("round_completed") == [{"reshuffle": True}]
    t.wait_state(State.LOADING)
    t.finish()


def _play_out_standing(t: TableDriver) -> None:
    """Deal, stand every hand, let the dealer draw, settle."""
    while t.state not in (State.BETTING, State.SHUFFLING, State.LOADING):
        if t.state is State.PEEKING:
            t.peek()
        elif card_due(t.view):
            t.deal()
        else:
            t.press()  # stand, reveal, settle


# --- the dealer's hand ------------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
def test_pa_635a_7_m_dealer_does_not_draw_when_nothing_can_change(
    station: Any, profile: str
) -> None:
    t = station(profile)
    no_hole = profile == "NJ"
    t.ready(("2C KH 6C QD 5D 4D 3D" if no_hole else "2C KH 6C QD 7S 5D 4D 3D") + SPARE)
    t.bet(1)
    t.press()
    if no_hole:
        t.deal("KH", "6C", "QD")  # seat 1 KH QD, up 6C; no hole card in NJ
    else:
        t.deal("KH", "6C", "QD", "7S")
    t.deal("5D")  # a hit: 25, bust
    assert t.state is State.DEALER
    if no_hole:
        # NJ 19.7(g): the "Dealer's Card" is dealt after the players, whatever they hold.
        t.deal("4D")
    else:
        t.press()  # the hole card is turned
    # 10 or 13: the dealer would draw, but every hand is busted and nothing can change.
    assert t.state is State.SETTLING
    assert len(t.view.dealer_cards) == 2
    t.settle_all()
    assert [d["outcome"] for d in t.data("settlement")] == ["lose"]
    t.finish()
