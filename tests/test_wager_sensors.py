"""Mid-round settlements on a table with wager sensors (docs/panel.md).

The dealer collects and pays some wagers during the round: Match the Dealer right after the
deal (PA 635a.7(f), NY 5324.12(d)(3)), insurance at the peek (PA 635a.7(g)), a blackjack
against a 2-9 (PA 635a.7(h)(1)(i)), a surrender or a rescue at the decision. Each is
prompted (seat lamp + PAY / COLLECT) when the regulation orders it; the sensor changes it
explains are journalled; any other change on a spot still in play faults (NY 5324.12(b)(8)).
Amounts are worked by hand in the comments.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from table_support import ListJournal, Rig, make_rig
from test_procedure import bet, deal, press, ready, rows

from controller.rules.legality import MAX_WAGER_CENTS
from controller.rules.profiles import PROFILES, get_profile
from controller.simulation.dealer import random_chooser
from controller.simulation.direct import DirectRig
from controller.table.faults import FaultCode
from controller.table.prompts import State, prompt_for
from controller.table.view import table_view
from drivers.hal import Button, Led, LedMode, PeekAnswer, PeekResult, SeatWagerChanged, WagerSpot


def sensor(rig: Rig, seat: int, spot: WagerSpot, cents: int | None) -> None:
    """The seat's sensor now reads ``cents`` (None: the spot is empty)."""
    rig.table.handle(SeatWagerChanged(seat, spot, cents is not None, cents))


def lit(rig: Rig, seat: int, word: Led) -> bool:
    lamps = rig.panel.lamps
    return lamps.get(Led.seat(seat)) is LedMode.STEADY and lamps.get(word) is LedMode.STEADY


def faults(rig: Rig) -> list[dict[str, object]]:
    return rows(rig, "fault")


def match_round() -> Rig:
    """PA, six decks (Match pay table A). Seat 1 $10 + Match $5, seat 2 $10 + Match $5.
    Seat 1 9D 5S, seat 2 4H 6S, up 9C, hole 7H."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, 1000, match=500)
    bet(rig, 2, 1000, match=500)
    press(rig)
    deal(rig, "9D", "4H", "9C", "5S", "6S", "7H")
    return rig


def test_pa_635a_7_f_match_collected_and_paid_with_sensors_is_journalled() -> None:
    rig = match_round()
    assert rig.table.state is State.MATCH
    # From the dealer's right: seat 2 first. 4H 6S match nothing: collect its $5.00.
    assert lit(rig, 2, Led.COLLECT)
    sensor(rig, 2, WagerSpot.MATCH, None)
    assert rows(rig, "wager_collected") == [{"seat": 2, "spot": "match", "cents": 0}]
    press(rig)
    # Seat 1: 9D matches the 9C's rank, another suit: table A 4:1, $5.00 x 4 = $20.00.
    # The payment set on the wager: the spot reads $5.00 + $20.00 = $25.00.
    assert lit(rig, 1, Led.PAY)
    sensor(rig, 1, WagerSpot.MATCH, 2500)
    assert rows(rig, "wager_paid") == [{"seat": 1, "spot": "match", "cents": 2500}]
    sensor(rig, 1, WagerSpot.MATCH, None)  # the player takes wager and win
    assert rows(rig, "wager_taken") == [{"seat": 1, "spot": "match", "cents": 0}]
    press(rig)
    assert rig.table.state is State.PLAYERS
    assert faults(rig) == []


def test_ny_5324_12_b_8_short_paid_match_faults_naming_the_expected_reading() -> None:
    rig = match_round()
    press(rig)  # seat 2 (collected by hand later; nothing moved yet)
    # Seat 1 should read $25.00 (or $0.00 once taken); $20.00 is a short pay.
    sensor(rig, 1, WagerSpot.MATCH, 2000)
    assert rig.table.state is State.FAULT
    assert rig.table.fault is not None and rig.table.fault.code is FaultCode.WAGER_CHANGED
    assert rig.table.fault.message == "seat 1 match reads 20.00, expected 0.00 or 25.00"


def test_ny_5324_12_b_8_match_spot_in_play_before_its_settlement_faults() -> None:
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, 1000, match=500)
    press(rig)
    deal(rig, "9D", "9C")  # the deal is not finished: the Match wager is still in play
    sensor(rig, 1, WagerSpot.MATCH, None)
    assert rig.table.fault is not None and rig.table.fault.code is FaultCode.WAGER_CHANGED
    assert rig.table.fault.message == "seat 1 match wager removed while still in play"


def test_ny_5324_12_b_8_main_spot_in_play_still_faults() -> None:
    rig = match_round()
    press(rig)
    press(rig)
    assert rig.table.state is State.PLAYERS
    sensor(rig, 1, WagerSpot.MAIN, 1500)  # $5.00 added to a hand in play
    assert rig.table.fault is not None and rig.table.fault.code is FaultCode.WAGER_CHANGED
    assert rig.table.fault.message == "seat 1 main reads 15.00, expected 10.00"


@pytest.mark.parametrize("spot", [WagerSpot.MAIN, WagerSpot.MATCH])
def test_ny_5324_12_b_4_a_wager_on_an_empty_seat_after_the_first_card_faults(
    spot: WagerSpot,
) -> None:
    # NY 5324.12(b)(4): no wager is made after the first card is dealt. Seat 5 sat this
    # round out; $5 appears on its spot while seat 1 plays.
    rig = match_round()
    press(rig)
    press(rig)
    assert rig.table.state is State.PLAYERS
    sensor(rig, 5, spot, 0)  # the sensor settles on an empty spot: nothing was placed
    assert rig.table.fault is None
    sensor(rig, 5, spot, 500)
    assert rig.table.fault is not None and rig.table.fault.code is FaultCode.WAGER_CHANGED
    assert rig.table.fault.message == f"seat 5 {spot.value} wager placed during the round"


def blackjack_round(profile: str) -> Rig:
    """Seats 1-3 at $10. Seat 1 9D 8D = 17, seat 2 AS KD blackjack, seat 3 8H 7H = 15;
    up 9C, hole 5C (no peek on a 9)."""
    rig = make_rig(profile)
    ready(rig)
    for seat in (1, 2, 3):
        bet(rig, seat, 1000)
    press(rig)
    deal(rig, "9D", "AS", "8H", "9C", "8D", "KD", "7H", "5C")
    return rig


def test_pa_635a_7_h_1_i_blackjack_against_2_to_9_prompted_when_play_reaches_its_seat() -> None:
    rig = blackjack_round("PA")
    # (h): from the dealer's left; seat 1 acts first, seat 2's blackjack waits for it.
    assert rig.table.state is State.PLAYERS
    assert rig.panel.lamps.get(Led.SEAT_1) is LedMode.BLINK
    assert not rig.panel.lamps.get(Led.PAY)
    press(rig)  # seat 1 stands on 17
    assert rig.table.state is State.SETTLE_NOW
    assert lit(rig, 2, Led.PAY)
    # $10.00 at 3:2 = $15.00; the spot reads $10.00 + $15.00 = $25.00, then the player takes it
    # and the dealer removes the cards ((h)(1)(i)).
    sensor(rig, 2, WagerSpot.MAIN, 2500)
    sensor(rig, 2, WagerSpot.MAIN, None)
    assert rows(rig, "wager_paid") == [{"seat": 2, "spot": "main", "cents": 2500}]
    assert rows(rig, "wager_taken") == [{"seat": 2, "spot": "main", "cents": 0}]
    press(rig)
    assert rig.table.state is State.PLAYERS
    assert rig.panel.lamps.get(Led.SEAT_3) is LedMode.BLINK
    assert faults(rig) == []


def test_ny_5324_12_b_5_blackjack_not_paid_until_the_round_is_complete() -> None:
    rig = blackjack_round("NY")
    press(rig)  # seat 1 stands
    assert rig.table.state is State.PLAYERS  # no settlement: seat 3 acts
    assert rows(rig, "settlement") == []
    press(rig)  # seat 3 stands on 15
    press(rig)  # reveal 5C: 14, draws
    deal(rig, "4S")  # 18
    assert rig.table.state is State.SETTLING
    # Collect first (PA (p)(1) reading): seat 3 15 < 18 and seat 1 17 < 18 lose $10.00 each,
    # then seat 2's blackjack $10.00 x 3/2 = $15.00.
    nets = [(r["seat"], r["net_cents"]) for r in rows(rig, "settlement")]
    assert nets == [(3, -1000), (1, -1000), (2, 1500)]


def test_ny_5324_12_b_8_blackjack_chips_touched_before_the_round_is_complete_fault() -> None:
    rig = blackjack_round("NY")
    sensor(rig, 2, WagerSpot.MAIN, None)  # NY: the blackjack is still to be paid
    assert rig.table.fault is not None and rig.table.fault.code is FaultCode.WAGER_CHANGED


def test_pa_635a_9_surrender_collected_at_once_odd_cent_to_the_player() -> None:
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, 1005)
    press(rig)
    deal(rig, "KS", "9C", "6H", "5C")  # seat 1 16 against a 9
    press(rig, Button.SURRENDER)
    assert rig.table.state is State.SETTLE_NOW
    assert lit(rig, 1, Led.COLLECT)
    # $10.05 / 2 = $5.025: the house collects $5.02, the spot keeps $5.03 for the player.
    sensor(rig, 1, WagerSpot.MAIN, 503)
    assert rows(rig, "wager_collected") == [{"seat": 1, "spot": "main", "cents": 503}]
    assert faults(rig) == []


def test_pa_635a_9_surrender_over_collected_faults() -> None:
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, 1005)
    press(rig)
    deal(rig, "KS", "9C", "6H", "5C")
    press(rig, Button.SURRENDER)
    sensor(rig, 1, WagerSpot.MAIN, 502)  # the house kept $5.03: a cent too many
    assert rig.table.fault is not None
    assert rig.table.fault.message == "seat 1 main reads 5.02, expected 0.00 or 5.03"


def test_pa_635a_7_g_lost_insurance_prompted_and_collected_at_the_peek() -> None:
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, 1000)
    bet(rig, 2, 1000)
    press(rig)
    deal(rig, "9H", "9S", "AH", "8D", "8C", "5D")  # up AH, hole 5D: no blackjack
    sensor(rig, 2, WagerSpot.INSURANCE, 500)
    press(rig)  # insurance closed
    press(rig)  # slide the hole card into the reader
    rig.table.handle(PeekResult(PeekAnswer.NO_BLACKJACK))
    assert rig.table.state is State.SETTLE_NOW
    assert lit(rig, 2, Led.COLLECT)  # $5.00 lost
    sensor(rig, 2, WagerSpot.INSURANCE, None)
    assert rows(rig, "wager_collected") == [{"seat": 2, "spot": "insurance", "cents": 0}]
    press(rig)
    assert rig.table.state is State.PLAYERS
    assert faults(rig) == []


@pytest.mark.parametrize("before_the_button", [False, True])
def test_ny_5324_12_b_9_double_down_chips_are_an_expected_change(before_the_button: bool) -> None:
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, 1000)
    press(rig)
    deal(rig, "9D", "6C", "2S", "5C")  # seat 1 11 against a 6
    if before_the_button:
        sensor(rig, 1, WagerSpot.MAIN, 2000)  # the player's chips go down first
    press(rig, Button.DOUBLE)
    if not before_the_button:
        sensor(rig, 1, WagerSpot.MAIN, 2000)
    assert rows(rig, "wager_added") == [{"seat": 1, "spot": "main", "cents": 2000}]
    assert faults(rig) == []


def test_nj_19_7_g_prompt_says_dealers_card_not_hole_card() -> None:
    assert "Dealer's Card" in prompt_for(State.DEALER, hole_card=False).text
    assert "hole card" not in prompt_for(State.DEALER, hole_card=False).text
    assert "hole card" in prompt_for(State.DEALER, hole_card=True).text
    rig = make_rig("NJ")
    ready(rig)
    bet(rig, 1, 1000)
    press(rig)
    deal(rig, "9D", "6C", "8S")  # NJ 19.7(d): no hole card
    press(rig)  # seat 1 stands on 17
    assert rig.table.state is State.DEALER
    assert "Dealer's Card" in table_view(rig.table).prompt
    press(rig)  # NEXT turns no hole card in NJ: not live
    assert rig.journal.of("button_ignored")[-1].data["state"] == "dealer"
    assert rig.table.state is State.DEALER


@pytest.mark.parametrize("profile", list(PROFILES))
def test_simulated_dealer_with_sensors_plays_rounds_without_a_fault(profile: str) -> None:
    """The simulated dealer collects and pays at every prompt as a dealer with wager
    sensors would (``dealer-station simulate`` does 500 rounds the same way)."""
    rng = random.Random(f"sensors-{profile}")
    journal = ListJournal()
    rig = DirectRig(get_profile(profile), 6, journal, random_chooser(rng), rng)
    try:
        rig.play(120)
    finally:
        rig.close()
    assert journal.of("fault") == []
    seen = Counter(r.kind for r in journal.rows if r.kind.startswith("wager_"))
    assert {"wager_collected", "wager_paid", "wager_taken", "wager_added"} <= set(seen)
    states = {r.data["state"] for r in journal.of("state")}
    assert "settle_now" in states


@pytest.mark.parametrize(
    ("cents", "refused"),
    [
        (0, "must be positive"),
        (MAX_WAGER_CENTS + 1, "over the"),
        (1, ""),
        (MAX_WAGER_CENTS, ""),
    ],
)
def test_a_sensor_reading_out_of_range_is_refused_at_no_more_bets(cents: int, refused: str) -> None:
    """Both sides of the range: a reading the rules take no wager of (a faulty or forged
    sensor) is refused for that seat with the reason; the other seats play."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, cents)
    bet(rig, 2, 1000)
    press(rig)
    assert rig.table.state is State.DEALING
    reasons = [r["reason"] for r in rows(rig, "wager_refused")]
    if refused:
        assert len(reasons) == 1 and reasons[0].startswith("seat 1: the Spanish 21 wager")
        assert refused in reasons[0]
        assert [s["seat"] for s in rows(rig, "round_started")[0]["seats"]] == [2]
    else:
        assert reasons == []


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(1, 7),
            st.sampled_from(list(WagerSpot)),
            st.booleans(),
            st.one_of(st.none(), st.integers(0, 2**32 - 2)),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_any_sensor_report_mid_round_is_journalled_or_faults_never_raises(
    reports: list[tuple[int, WagerSpot, bool, int | None]],
) -> None:
    """Hostile or random sensor reports during a round (NY 5324.12(b)(8)): each is
    accepted as a settlement's change or faults the table; nothing raises."""
    rig = match_round()
    try:
        for seat, spot, present, cents in reports:
            rig.table.handle(SeatWagerChanged(seat, spot, present, cents))
            assert rig.table.state in (State.MATCH, State.FAULT)
        fault = rig.table.fault
        assert fault is None or fault.code is FaultCode.WAGER_CHANGED
    finally:
        rig.table.close()


def test_simulated_dealer_with_sensors_and_injected_faults_raises_only_those() -> None:
    """With device faults injected, the faults raised are the injected kinds: never a
    wager_changed from the dealer's own chip moves (NY 5324.12(b)(8))."""
    rng = random.Random("sensors-injected")
    journal = ListJournal()
    rig = DirectRig(get_profile("PA"), 6, journal, random_chooser(rng), rng, fault_rate=0.02)
    try:
        rig.play(60)
    finally:
        rig.close()
    assert rig.injected
    codes = {r.data["code"] for r in journal.of("fault")}
    assert codes and FaultCode.WAGER_CHANGED.value not in codes


def test_pa_635a_7_p_final_settlement_moves_are_journalled_and_next_bets_do_not_fault() -> None:
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, 1000)
    bet(rig, 2, 1000)
    press(rig)
    # s1 KS 9H = 19, s2 KD 6C = 16; dealer 9C 8D = 17 stands.
    deal(rig, "KS", "KD", "9C", "9H", "6C", "8D")
    press(rig)  # s1 stands
    press(rig)  # s2 stands
    press(rig)  # reveal: 17
    assert rig.table.state is State.SETTLING
    # (p)(1): collect s2's 10.00 first, then pay s1 10.00 at 1:1: the spot reads 20.00.
    assert lit(rig, 2, Led.COLLECT)
    sensor(rig, 2, WagerSpot.MAIN, None)
    press(rig)
    assert lit(rig, 1, Led.PAY)
    sensor(rig, 1, WagerSpot.MAIN, 2000)
    sensor(rig, 2, WagerSpot.MAIN, 500)  # the next round's bet goes down early
    assert rows(rig, "wager_collected") == [{"seat": 2, "spot": "main", "cents": 0}]
    assert rows(rig, "wager_paid") == [{"seat": 1, "spot": "main", "cents": 2000}]
    assert faults(rig) == []
    press(rig)
    assert rig.table.state is State.BETTING


# --- what a spot's reading means, spot by spot -------------------------------------------------


def players_round() -> Rig:
    """PA. Seat 1 $10 (9D 2S: 11, to act, may double), seat 2 $10 (8H 9H: 17); up 6C, hole
    5C. Neither seat has a Match or an insurance wager."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, 1000)
    bet(rig, 2, 1000)
    press(rig)
    deal(rig, "9D", "8H", "6C", "2S", "9H", "5C")
    assert rig.table.state is State.PLAYERS
    return rig


@pytest.mark.parametrize("spot", [WagerSpot.MATCH, WagerSpot.INSURANCE])
def test_ny_5324_12_b_4_chips_on_a_spot_the_seat_did_not_wager_fault_as_a_new_wager(
    spot: WagerSpot,
) -> None:
    # NY 5324.12(b)(4): no wager made after the first card. Seat 2 wagered no Match and no
    # insurance (none was offered under a 6): $5 on either spot is a new wager.
    rig = players_round()
    sensor(rig, 2, spot, 500)
    assert rig.table.fault is not None and rig.table.fault.code is FaultCode.WAGER_CHANGED
    assert rig.table.fault.message == f"seat 2 {spot.value} wager placed during the round"


@pytest.mark.parametrize(
    ("cents", "message"),
    [
        (1001, "seat 2 main reads 10.01, expected 10.00"),  # a cent added
        (0, "seat 2 main wager removed while still in play"),  # weighed empty
    ],
)
def test_ny_5324_12_b_8_a_waiting_seats_wager_changed_by_a_cent_or_emptied_faults(
    cents: int, message: str
) -> None:
    # Seat 2 waits while seat 1 acts: its $10 is in play and may not change (NY
    # 5324.12(b)(8)); only the acting seat's double or split may add chips (b)(9).
    rig = players_round()
    sensor(rig, 2, WagerSpot.MAIN, cents)
    assert rig.table.fault is not None and rig.table.fault.code is FaultCode.WAGER_CHANGED
    assert rig.table.fault.message == message


def test_a_spot_in_play_reported_again_unchanged_is_no_change() -> None:
    # The sensor reports seat 2's $10 again, then chips without a weight: nothing was
    # added or withdrawn, so nothing is journalled as a move and play goes on.
    rig = players_round()
    sensor(rig, 2, WagerSpot.MAIN, 1000)
    rig.table.handle(SeatWagerChanged(2, WagerSpot.MAIN, True, None))
    assert faults(rig) == []
    moves = ("wager_added", "wager_taken", "wager_paid", "wager_collected")
    assert [r.kind for r in rig.journal.rows if r.kind in moves] == []


def test_a_one_cent_wager_still_in_play_seen_without_a_weight_is_no_change() -> None:
    # The smallest wager the rules take, $0.01 (see the range test above), at seat 2,
    # waiting while seat 1 acts: chips seen on its spot without a weight are still that
    # wager, not a new one.
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, 1000)
    bet(rig, 2, 1)
    press(rig)
    deal(rig, "9D", "8H", "6C", "2S", "9H", "5C")  # seat 1 to act on 11, seat 2 on 17
    rig.table.handle(SeatWagerChanged(2, WagerSpot.MAIN, True, None))
    assert faults(rig) == []


@pytest.mark.parametrize(
    ("cents", "cards", "reading", "kind"),
    [
        # 9D 8S (17) against 9C 8H (17): a push; the spot still reads the $10.
        (1000, ("9D", "9C", "8S", "8H"), 1000, "wager_taken"),
        # $0.01 on 9D 9S (18) against 9C 8H (17): paid 1:1, the spot reads $0.02.
        (1, ("9D", "9C", "9S", "8H"), 2, "wager_paid"),
    ],
)
def test_pa_635a_7_p_a_settled_spot_reading_its_settlement_is_journalled_as_such(
    cents: int, cards: tuple[str, ...], reading: int, kind: str
) -> None:
    """docs/panel.md: a pushed spot reading the wager is ``wager_taken``; a won spot
    reading the wager plus the win is ``wager_paid`` (the smallest win, one cent)."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, cents)
    press(rig)
    deal(rig, *cards)
    press(rig)  # seat 1 stands
    press(rig)  # the hole card: 17, the dealer stands
    assert rig.table.state is State.SETTLING
    sensor(rig, 1, WagerSpot.MAIN, reading)
    moves = ("wager_added", "wager_taken", "wager_paid", "wager_collected")
    assert [(r.kind, dict(r.data)) for r in rig.journal.rows if r.kind in moves] == [
        (kind, {"seat": 1, "spot": "main", "cents": reading})
    ]


@pytest.mark.parametrize(
    ("cents", "message"),
    [
        (None, "seat 1 insurance wager removed while still in play"),
        (501, "seat 1 insurance reads 5.01, expected 5.00"),
    ],
)
def test_ny_5324_12_b_8_insurance_touched_before_its_settlement_faults(
    cents: int | None, message: str
) -> None:
    # Seat 1 insured $5 against the up AH; insurance closed, the reader not yet asked:
    # the insurance is still in play (NY 5324.12(b)(8)).
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, 1000)
    press(rig)
    deal(rig, "9H", "AH", "8D", "5D")
    sensor(rig, 1, WagerSpot.INSURANCE, 500)
    press(rig)  # insurance closed
    assert rig.table.state is State.PEEKING
    sensor(rig, 1, WagerSpot.INSURANCE, cents)
    assert rig.table.fault is not None and rig.table.fault.code is FaultCode.WAGER_CHANGED
    assert rig.table.fault.message == message


def test_pa_635a_7_p_in_the_final_settlement_moves_no_settlement_explains_journal_nothing() -> None:
    """In the final settlement the spots are free (the next bets may go down early): a
    change that no settlement explains neither faults nor is journalled as a move. Seat 1
    $10 (KS 9H, 19), seat 2 chips seen but not weighed (KD 6C, 16), seat 3 no wager;
    the dealer 9C 8D stands on 17. Seat 2 is collected first (PA 635a.7(p)(1))."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, 1000)
    rig.table.handle(SeatWagerChanged(2, WagerSpot.MAIN, True, None))
    press(rig)
    deal(rig, "KS", "KD", "9C", "9H", "6C", "8D")
    press(rig)  # s1 stands
    press(rig)  # s2 stands
    press(rig)  # reveal: 17
    assert rig.table.state is State.SETTLING and lit(rig, 2, Led.COLLECT)
    sensor(rig, 3, WagerSpot.MAIN, 500)  # seat 3's next bet
    sensor(rig, 2, WagerSpot.MAIN, None)  # seat 2's chips collected
    rig.table.handle(SeatWagerChanged(2, WagerSpot.MAIN, True, None))  # its next bet
    moves = ("wager_added", "wager_taken", "wager_paid", "wager_collected")
    assert [(r.kind, dict(r.data)) for r in rig.journal.rows if r.kind in moves] == [
        ("wager_collected", {"seat": 2, "spot": "main", "cents": 0})
    ]
    assert faults(rig) == []
