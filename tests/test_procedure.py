"""Scenario tests of the table procedure, driven with events (no hardware, no sleeps).

Each test names the clause it checks. The recording devices and the in-memory journal are
in ``conftest.py``.
"""

from __future__ import annotations

from typing import Any

import pytest
from table_support import HOLE_CARD_PROFILES, MATCH_HOLE_CARD_PROFILES, Rig, make_rig

from controller.rules.cards import Rank, parse_card
from controller.table.faults import FaultCode
from controller.table.holecard import check_commitment
from controller.table.prompts import State
from controller.table.view import table_view
from drivers.hal import (
    Button,
    ButtonPressed,
    CardDrawn,
    CoverCardSeen,
    DeviceConnected,
    DeviceKind,
    DeviceLost,
    ForeignCardDrawn,
    Led,
    LedMode,
    PeekAnswer,
    PeekResult,
    PeekTarget,
    SeatWagerChanged,
    ShoeLoaded,
    ShuffleDone,
    SupervisorKey,
    WagerSpot,
)


def full_batch(decks: int = 6) -> ShuffleDone:
    return ShuffleDone(48 * decks, tuple((int(r), 4 * decks) for r in Rank))


def ready(rig: Rig, burn: str = "2C") -> None:
    """Shuffle, load and burn: the table is open for bets."""
    rig.table.begin()
    rig.table.handle(full_batch(rig.table.t.settings.decks))
    rig.table.handle(ShoeLoaded())
    rig.table.handle(CardDrawn(parse_card(burn)))
    assert rig.table.state is State.BETTING


def bet(rig: Rig, seat: int, cents: int = 1000, match: int = 0) -> None:
    rig.table.handle(SeatWagerChanged(seat, WagerSpot.MAIN, True, cents))
    if match:
        rig.table.handle(SeatWagerChanged(seat, WagerSpot.MATCH, True, match))


def press(rig: Rig, button: Button = Button.NEXT) -> None:
    rig.table.handle(ButtonPressed(button))


def deal(rig: Rig, *cards: str) -> None:
    for text in cards:
        rig.table.handle(CardDrawn(parse_card(text)))


def supervisor(rig: Rig, button: Button) -> None:
    rig.table.handle(SupervisorKey(True))
    press(rig, button)
    rig.table.handle(SupervisorKey(False))


def rows(rig: Rig, kind: str) -> list[dict[str, Any]]:
    return [dict(r.data) for r in rig.journal.of(kind)]


def settle_all(rig: Rig) -> None:
    while rig.table.state is State.SETTLING:
        press(rig)


def play_seat_one_round(rig: Rig) -> None:
    """No more bets; seat 1 (9 8) stands; the dealer (5, hole Q) turns 15, draws a 3; settle."""
    press(rig)
    deal(rig, "9H", "5C", "8D", "QS")
    press(rig)
    press(rig)
    deal(rig, "3D")
    settle_all(rig)


@pytest.fixture(params=HOLE_CARD_PROFILES)
def hole_rig(request: pytest.FixtureRequest) -> Rig:
    return make_rig(request.param)


# --- shuffle, load, burn ---------------------------------------------------------------------


def test_ny_5324_12_a_batch_of_wrong_composition_faults_and_cannot_be_resumed() -> None:
    rig = make_rig("NY", decks=8)
    rig.table.begin()
    assert rig.shuffler.commands == [8]
    per_rank = dict(full_batch(8).per_rank)
    per_rank[10] = 1  # a foreign 10 in the batch
    per_rank[7] -= 1
    rig.table.handle(ShuffleDone(384, tuple(per_rank.items())))
    assert rig.table.state is State.FAULT
    assert rig.table.fault is not None and rig.table.fault.code is FaultCode.BAD_BATCH
    assert "foreign 10" in rig.table.fault.message
    supervisor(rig, Button.SUPERVISOR_RESUME)
    assert rig.table.state is State.FAULT  # a bad batch is never played
    supervisor(rig, Button.SUPERVISOR_RESHUFFLE)
    assert rig.table.state is State.SHUFFLING
    assert rig.shuffler.commands == [8, 8]


def test_pa_635a_7_c_first_card_after_load_is_burned() -> None:
    rig = make_rig("PA")
    ready(rig, burn="KD")
    assert rows(rig, "burn") == [{"card": "KD", "reason": "load"}]


def test_pa_635a_7_c_each_new_dealer_burns_one_card() -> None:
    rig = make_rig("PA")
    ready(rig)
    press(rig, Button.DEALER_CHANGE)
    assert rig.table.state is State.BURNING
    deal(rig, "5H")
    assert rig.table.state is State.BETTING
    assert rows(rig, "burn")[-1] == {"card": "5H", "reason": "dealer_change"}


@pytest.mark.parametrize(("profile", "disclosed"), [("NJ", True), ("NY", True), ("PA", False)])
def test_nj_19_7_c_ny_5324_12_c_3_burn_card_disclosed_on_request(
    profile: str, disclosed: bool
) -> None:
    rig = make_rig(profile)
    ready(rig, burn="9S")
    press(rig, Button.DISCLOSE_BURN)
    assert rows(rig, "burn_disclosed") == ([{"card": "9S"}] if disclosed else [])
    if not disclosed:  # PA 635a.7(c) is silent: the journal says why nothing was shown
        assert rows(rig, "button_ignored") == [
            {
                "button": "disclose_burn",
                "state": "betting",
                "reason": "this table does not disclose the burn card",
            }
        ]


def test_ny_5324_12_c_3_a_burn_card_asked_for_before_any_burn_is_refused_with_its_reason() -> None:
    """NY 5324.12(c)(3): the burn card is disclosed if a player asks. A table restored into
    betting from a journal that names no burn card has none to show: the journal says so,
    not that the table never discloses it."""
    from controller.table.recovery import Recovered

    rig = make_rig("NY")
    rig.table.restore(Recovered(state=State.BETTING))
    rig.table.resume_output()
    assert rig.table.state is State.BETTING
    press(rig, Button.DISCLOSE_BURN)
    assert rows(rig, "burn_disclosed") == []
    assert rows(rig, "button_ignored") == [
        {"button": "disclose_burn", "state": "betting", "reason": "no card burned yet"}
    ]


def test_no_more_bets_with_no_wager_on_the_table_is_journalled_as_ignored_and_deals_nothing() -> (
    None
):
    """NEXT (no more bets) with no wager down starts no round: the journal says the button
    was ignored and why (docs/journal.md: every ignored button's row names its reason)."""
    rig = make_rig("PA")
    ready(rig)
    press(rig)
    assert rig.table.state is State.BETTING
    assert rows(rig, "round_started") == []
    assert rows(rig, "button_ignored") == [
        {"button": "next", "state": "betting", "reason": "no wagers"}
    ]


def test_each_button_pressed_is_journalled_with_the_state_it_came_in() -> None:
    """docs/journal.md: a live button's row names it and the state; a button not live
    there is `button_ignored`, naming both and why. DOUBLE while betting is not live; NEXT
    with a wager down closes the bets."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    press(rig, Button.DOUBLE)
    assert rows(rig, "button_ignored") == [
        {"button": "double", "state": "betting", "reason": "not live in this state"}
    ]
    press(rig)
    assert rows(rig, "button") == [{"button": "next", "state": "betting"}]


def test_the_state_callback_is_given_the_table_at_each_state_entered() -> None:
    """The station follows the table through ``on_state`` (controller/service/station.py):
    it is called with the table itself each time a state is entered, after the panel shows
    it: the shuffle, the load, the burn, then betting."""
    from table_support import ListJournal, RecordingPanel, RecordingReader, RecordingShuffler

    from controller.rules.profiles import get_profile
    from controller.table.procedure import Table, TableDevices, TableSettings

    seen: list[tuple[Table, State]] = []
    journal, shuffler = ListJournal(), RecordingShuffler()
    reader, panel = RecordingReader(), RecordingPanel()
    table = Table(
        TableSettings(get_profile("PA"), 6),
        TableDevices(shuffler, panel, reader),
        journal,
        on_state=lambda t: seen.append((t, t.state)),
    )
    try:
        ready(Rig(table, journal, shuffler, reader, panel))
    finally:
        table.close()
    assert seen == [
        (table, State.SHUFFLING),
        (table, State.LOADING),
        (table, State.BURNING),
        (table, State.BETTING),
    ]


def test_an_event_of_no_known_kind_is_a_programming_error_naming_its_type() -> None:
    rig = make_rig("PA")
    with pytest.raises(TypeError, match=r"^no handler for str$"):
        rig.table.handle("next")  # type: ignore[arg-type]


def test_each_round_takes_the_next_number() -> None:
    """Rounds are numbered one after the other (docs/journal.md, `round_started`): the
    second round of the shoe is round 2, its rows under that number."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    play_seat_one_round(rig)
    bet(rig, 1)
    press(rig)
    assert [r.data["round"] for r in rig.journal.of("round_started")] == [1, 2]
    assert [r.round_no for r in rig.journal.of("round_started")] == [1, 2]


def test_card_drawn_while_betting_is_a_fault_cleared_only_by_the_supervisor() -> None:
    rig = make_rig("PA")
    ready(rig)
    deal(rig, "4C")
    assert rig.table.state is State.FAULT
    assert rig.panel.lamps[Led.FAULT] is LedMode.BLINK
    press(rig, Button.NEXT)  # the dealer's buttons do nothing
    press(rig, Button.SUPERVISOR_RESUME)  # nor the supervisor's without the key
    assert rig.table.state is State.FAULT
    assert [r["reason"] for r in rows(rig, "button_ignored")] == [
        "not live in this state",
        "no supervisor key",
    ]
    supervisor(rig, Button.SUPERVISOR_RESUME)
    assert rig.table.state is State.BETTING and rig.table.fault is None
    assert rows(rig, "fault_resolved") == [{"resolution": "resume", "code": "unexpected_card"}]
    # The journal keeps when the supervisor's key was turned on and off.
    assert rows(rig, "supervisor_key") == [{"on": True}, {"on": False}]


def test_a_ten_is_a_foreign_card_and_faults() -> None:
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    press(rig)
    rig.table.handle(ForeignCardDrawn("foreign card 10H: a Spanish deck has no 10s"))
    assert rig.table.fault is not None and rig.table.fault.code is FaultCode.FOREIGN_CARD
    assert rig.table.fault.message == "foreign card 10H: a Spanish deck has no 10s"
    assert rows(rig, "card")[-1]["role"] == "rejected"


def test_a_card_beyond_the_batch_composition_faults() -> None:
    rig = make_rig("PA")
    ready(rig, burn="7S")
    bet(rig, 1)
    bet(rig, 2)
    bet(rig, 3)
    press(rig)
    deal(rig, "7S", "7S", "7S", "7S", "7S")  # the burn and these five: six decks' worth
    assert rig.table.state is State.DEALING
    deal(rig, "7S")
    assert rig.table.fault is not None and rig.table.fault.code is FaultCode.DUPLICATE_CARD


# --- betting ----------------------------------------------------------------------------------


def test_no_more_bets_with_no_wager_does_not_start_a_round() -> None:
    rig = make_rig("PA")
    ready(rig)
    press(rig)
    assert rig.table.state is State.BETTING and rig.table.round_no == 0


def test_ny_5324_12_d_2_match_without_main_wager_is_refused() -> None:
    rig = make_rig("NY")
    ready(rig)
    bet(rig, 1)
    rig.table.handle(SeatWagerChanged(2, WagerSpot.MATCH, True, 500))
    press(rig)
    assert [r["seat"] for r in rows(rig, "wager_refused")] == [2]
    assert [s["seat"] for s in rows(rig, "round_started")[0]["seats"]] == [1]


def test_ny_5324_12_b_10_seat_that_sat_out_may_not_wager_until_reshuffle() -> None:
    rig = make_rig("NY", no_mid_shoe_entry=True)
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "9H", "5C", "8D", "QS")  # seat 1: 9 8; up 5; hole Q
    press(rig)  # seat 1 stands
    press(rig)  # reveal: dealer 15 draws
    deal(rig, "KD")
    settle_all(rig)
    bet(rig, 3)  # seat 3 sat out round 1
    press(rig)
    assert rows(rig, "wager_refused")[-1]["seat"] == 3
    assert [s["seat"] for s in rows(rig, "round_started")[-1]["seats"]] == [1]


def test_ny_5324_12_b_4_wager_changed_after_first_card_faults() -> None:
    rig = make_rig("NY")
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "9H")
    rig.table.handle(SeatWagerChanged(1, WagerSpot.MAIN, False))
    assert rig.table.fault is not None and rig.table.fault.code is FaultCode.WAGER_CHANGED
    # The supervisor is told which wager moved: the fault and its journal row name it.
    assert "seat 1 main" in rig.table.fault.message
    assert "seat 1 main" in rows(rig, "fault")[-1]["message"]


# --- deal order, Match the Dealer, peek -----------------------------------------------------


def test_pa_635a_7_e_deal_order_with_hole_card_face_down(hole_rig: Rig) -> None:
    rig = hole_rig
    ready(rig)
    bet(rig, 5)
    bet(rig, 2)
    press(rig)
    deal(rig, "2H", "3H", "4H", "5H", "6H", "9C")
    placed = [(r["role"], r["seat"]) for r in rows(rig, "card")]
    assert placed == [("initial", 2), ("initial", 5), ("up", None), ("initial", 2), ("initial", 5)]
    assert len(rows(rig, "hole_card_dealt")) == 1
    assert rig.table.state is State.PLAYERS


def test_nj_19_7_d_g_dealers_card_comes_after_the_players() -> None:
    rig = make_rig("NJ")
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "9H", "KC", "8D")  # seat 1: 9 8; up K; no hole card
    assert rig.table.state is State.PLAYERS
    assert rig.reader.checks == []  # no peek in NJ's default procedure
    press(rig)  # stand
    assert rig.table.state is State.DEALER
    deal(rig, "AS")  # "Dealer's Card": a blackjack found after the players
    assert rows(rig, "card")[-1] == {"role": "second", "seat": None, "hand": None, "card": "AS"}
    settlement = rows(rig, "settlement")
    assert settlement[0]["outcome"] == "lose"


def test_nj_19_7_i_card_reader_alternative_peeks() -> None:
    rig = make_rig("NJ", dealer_second_card=__import__(
        "controller.rules.profiles", fromlist=["DealerSecondCard"]).DealerSecondCard.HOLE,
        peek=True)  # fmt: skip
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "9H", "KC", "8D", "4S")
    assert rig.table.state is State.PEEKING


@pytest.mark.parametrize("profile", MATCH_HOLE_CARD_PROFILES)
def test_pa_635a_7_f_match_the_dealer_settled_before_the_card_reader(profile: str) -> None:
    rig = make_rig(profile)
    ready(rig)
    bet(rig, 1, match=500)
    bet(rig, 4, match=500)
    press(rig)
    deal(rig, "KD", "3S", "KH", "KH", "9D", "5C")  # up KH: seat 1 KD KH; seat 4 3 9
    assert rig.table.state is State.MATCH
    assert rig.reader.checks == []
    match = rows(rig, "match_settled")
    assert [m["seat"] for m in match] == [4, 1]  # from the dealer's right
    assert match[1]["net_cents"] == 500 * 4 + 500 * 9  # off-suit 4:1, suited 9:1 (table A)
    # Prompted in the same order, from the dealer's right: seat 4 first, then seat 1.
    assert table_view(rig.table).settling_seat == 4
    press(rig)
    assert table_view(rig.table).settling_seat == 1
    press(rig)
    assert rig.table.state is State.PEEKING
    press(rig)  # hole card in the reader
    assert rig.reader.checks == [PeekTarget.LOOKING_FOR_ACE]


@pytest.mark.parametrize(
    ("up", "peeks"), [("AS", True), ("KS", True), ("QS", True), ("JS", True), ("9S", False)]
)
def test_pa_635a_7_g_peek_only_on_ace_king_queen_jack(up: str, peeks: bool) -> None:
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "5H", up, "8D", "4C")
    if up == "AS":
        assert rig.table.state is State.INSURANCE  # PA 635a.7(g): insurance first
        press(rig)
    assert (rig.table.state is State.PEEKING) is peeks


def test_reader_no_card_reprompts_then_faults_after_the_allowed_tries() -> None:
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "5H", "KS", "8D", "4C")
    for answer in (PeekAnswer.NO_CARD, PeekAnswer.READ_ERROR):
        press(rig)
        rig.table.handle(PeekResult(answer))
        assert rig.table.state is State.PEEKING
    press(rig)
    rig.table.handle(PeekResult(PeekAnswer.NO_CARD))
    assert rig.table.fault is not None and rig.table.fault.code is FaultCode.READER_FAILED
    assert rig.panel.lamps[Led.READER_FAULT] is LedMode.BLINK


def test_pa_635a_7_g_dealer_blackjack_ends_the_round_and_insurance_pays() -> None:
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, 1000)
    bet(rig, 2, 1000)
    press(rig)
    deal(rig, "AH", "9C", "AS", "KD", "9D", "QC")  # seat 1 A K; seat 2 9 9; up A; hole Q
    rig.table.handle(SeatWagerChanged(2, WagerSpot.INSURANCE, True, 500))
    press(rig)
    press(rig)
    rig.table.handle(PeekResult(PeekAnswer.BLACKJACK))
    # PA 635a.7(g): insurance settled at the peek: seat 2's lamp with PAY.
    assert rig.table.state is State.SETTLE_NOW
    assert rig.panel.lamps[Led.SEAT_2] is LedMode.STEADY
    assert rig.panel.lamps[Led.PAY] is LedMode.STEADY
    press(rig)
    assert rig.table.state is State.DEALER
    press(rig)  # reveal
    assert rig.table.state is State.SETTLING
    assert rows(rig, "insurance")[0]["net_cents"] == 1000  # 2:1
    outcomes = {r["seat"]: r["outcome"] for r in rows(rig, "settlement")}
    assert outcomes == {1: "blackjack", 2: "lose"}  # PA 635a.7(n)(3)


def insurance_offered(rig: Rig) -> None:
    """Seat 1 wagers $10.00: 9H 8D against the up AS (hole QC): insurance is offered."""
    ready(rig)
    bet(rig, 1, 1000)
    press(rig)
    deal(rig, "9H", "AS", "8D", "QC")
    assert rig.table.state is State.INSURANCE


def test_pa_635a_7_g_an_insurance_wager_under_half_is_settled_as_weighed() -> None:
    """PA 635a.7(g), 635a.8: $2.00 of insurance on a $10.00 wager (less than the half it may
    reach) is the wager settled, not the posted half: at the dealer's blackjack it wins
    2:1, $4.00."""
    rig = make_rig("PA")
    insurance_offered(rig)
    rig.table.handle(SeatWagerChanged(1, WagerSpot.INSURANCE, True, 200))
    press(rig)
    assert rows(rig, "insurance_taken") == [{"seat": 1, "cents": 200}]
    press(rig)
    rig.table.handle(PeekResult(PeekAnswer.BLACKJACK))
    assert [(r["seat"], r["net_cents"]) for r in rows(rig, "insurance")] == [(1, 400)]


def test_pa_635a_7_g_insurance_seen_but_not_weighed_is_the_posted_half_of_the_wager() -> None:
    """PA 635a.7(g): the insurance wager seen on its spot is settled; a sensor that reports
    presence only gives no amount, so the wager is the posted one, half the $10.00 wager
    ($5.00, in whole cents), journaled as posted; the dealer's blackjack pays it 2:1."""
    rig = make_rig("PA")
    insurance_offered(rig)
    rig.table.handle(SeatWagerChanged(1, WagerSpot.INSURANCE, True, None))
    press(rig)
    assert rig.table.state is State.PEEKING
    (taken,) = rows(rig, "insurance_taken")
    assert taken == {"seat": 1, "cents": 500, "posted": "half the wager"}
    assert isinstance(taken["cents"], int)
    press(rig)
    assert rig.reader.checks == [PeekTarget.LOOKING_FOR_TEN]  # up ace: a ten makes blackjack
    rig.table.handle(PeekResult(PeekAnswer.BLACKJACK))
    assert [(r["seat"], r["net_cents"]) for r in rows(rig, "insurance")] == [(1, 1000)]


def test_ny_5324_12_b_4_a_wager_withdrawn_while_insurance_is_offered_faults() -> None:
    """NY 5324.12(b)(4): no wager withdrawn after the first card, insurance offered or not:
    seat 1's $10.00 lifted off its spot while insurance is open stops play."""
    rig = make_rig("NY")
    ready(rig)
    bet(rig, 1, 1000)
    press(rig)
    deal(rig, "9H", "AS", "8D")
    if rig.table.state is not State.INSURANCE:  # a hole-card table: the hole card first
        deal(rig, "QC")
    assert rig.table.state is State.INSURANCE
    rig.table.handle(SeatWagerChanged(1, WagerSpot.MAIN, False))
    assert rig.table.fault is not None and rig.table.fault.code is FaultCode.WAGER_CHANGED


def test_pa_635a_8_insurance_over_half_the_wager_is_refused_and_stays_offered() -> None:
    """$6.00 of insurance on a $10.00 wager is more than half: the close is refused with its
    reason, insurance stays offered; with $5.00 on the spot it closes."""
    rig = make_rig("PA")
    insurance_offered(rig)
    rig.table.handle(SeatWagerChanged(1, WagerSpot.INSURANCE, True, 600))
    press(rig)
    assert rig.table.state is State.INSURANCE
    (refused,) = rows(rig, "decision_refused")
    assert "more than half" in refused["reason"]
    assert rows(rig, "insurance_taken") == []
    rig.table.handle(SeatWagerChanged(1, WagerSpot.INSURANCE, True, 500))
    press(rig)
    assert rig.table.state is State.PEEKING
    assert rows(rig, "insurance_taken") == [{"seat": 1, "cents": 500}]


def test_pa_635a_7_h_1_blackjack_paid_at_once_against_two_to_nine() -> None:
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    bet(rig, 2)
    press(rig)
    deal(rig, "AH", "9C", "5S", "KD", "9D", "QC")
    # seat 1's blackjack is settled before any player decision
    kinds = [r.kind for r in rig.journal.rows if r.kind in ("settlement", "decision")]
    assert kinds[0] == "settlement"


def test_pa_635a_7_h_1_i_a_blackjack_is_paid_when_play_reaches_its_seat() -> None:
    """Seat 1 (9S 8H, 17) acts first, from the dealer's left; seat 2's blackjack (AH KD)
    against the up card 6C is settled once seat 1 has stood, before seat 3 (2D 5C) acts."""
    rig = make_rig("PA")
    ready(rig)
    for seat in (1, 2, 3):
        bet(rig, seat)
    press(rig)
    deal(rig, "9S", "AH", "2D", "6C", "8H", "KD", "5C", "QS")
    assert rig.table.state is State.PLAYERS  # seat 1 to act, nothing to pay yet
    assert table_view(rig.table).acting_seat == 1
    press(rig)  # seat 1 stands
    assert rig.table.state is State.SETTLE_NOW  # pay seat 2's blackjack, 3:2
    assert table_view(rig.table).settling_seat == 2
    press(rig)
    assert rig.table.state is State.PLAYERS
    assert table_view(rig.table).acting_seat == 3
    assert [(r["seat"], r["outcome"], r["net_cents"]) for r in rows(rig, "settlement")] == [
        (2, "blackjack", 1500)
    ]


def test_pa_635a_7_h_1_ii_blackjack_against_a_face_paid_after_the_reveal() -> None:
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    bet(rig, 2)
    press(rig)
    deal(rig, "AH", "9C", "KS", "KD", "9D", "5C")
    press(rig)
    rig.table.handle(PeekResult(PeekAnswer.NO_BLACKJACK))
    assert rows(rig, "settlement") == []
    press(rig)  # seat 2 stands on 18
    press(rig)  # reveal
    kinds = [r.kind for r in rig.journal.rows if r.kind in ("settlement", "hole_card_revealed")]
    assert kinds[0] == "hole_card_revealed"


# --- players and dealer -----------------------------------------------------------------------


def test_illegal_decision_is_refused_and_not_applied(hole_rig: Rig) -> None:
    rig = hole_rig
    ready(rig)
    bet(rig, 3)
    press(rig)
    deal(rig, "9H", "5C", "8D", "QS")
    press(rig, Button.SPLIT)
    refused = rows(rig, "decision_refused")
    assert refused and "seat 3 hand 1: split not allowed" in refused[0]["reason"]
    assert rig.table.state is State.PLAYERS
    assert rows(rig, "decision") == []


def test_a_refused_decision_names_the_legal_ones() -> None:
    """Hard 17 (9H 8D) against the up 5C, before any card is drawn to it: the dealer is
    told what the hand may do instead of a split (no pair): double (Spanish 21 doubles
    any first two cards), hit, stand, surrender, listed in order."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 3)
    press(rig)
    deal(rig, "9H", "5C", "8D", "QS")
    press(rig, Button.SPLIT)
    assert rows(rig, "decision_refused") == [
        {"reason": "seat 3 hand 1: split not allowed (double, hit, stand, surrender)"}
    ]


def test_a_card_to_a_split_ace_hand_that_may_not_draw_names_the_hand() -> None:
    """Split aces take one card each (PA 635a.11 as the rules assume it,
    controller/rules/legality.py): seat 1 splits AS AH against the up 9S; hand 1 gets 5D,
    hand 2 gets AD and may only stand or resplit. A card drawn to it then is rejected, and the
    supervisor is told which hand may not draw: hand 2, counted from 1."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "AS", "9S", "AH", "8H")
    press(rig, Button.SPLIT)
    deal(rig, "5D", "AD")
    deal(rig, "5C")
    fault = rig.table.fault
    assert fault is not None and fault.code is FaultCode.UNEXPECTED_CARD
    assert fault.message == "5C out of order: seat 1 hand 2 may not draw"


def test_pa_635a_7_j_after_a_double_the_card_goes_to_the_player_and_no_decision_is_taken() -> None:
    """Seat 1 (5H 6D, 11) doubles against the up 6C: the table stays in the players' turn,
    seat 1 acting, waiting for its one card; a NEXT meanwhile is refused, saying what is
    awaited. The cards' rows carry the seat and its hand number (1)."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "5H", "6C", "6D", "QS")
    assert [(r["role"], r["seat"], r["hand"]) for r in rows(rig, "card")] == [
        ("initial", 1, 1),
        ("up", None, None),
        ("initial", 1, 1),
    ]
    press(rig, Button.DOUBLE)
    assert rig.table.state is State.PLAYERS
    assert table_view(rig.table).acting_seat == 1
    press(rig)
    (refused,) = rows(rig, "decision_refused")
    assert refused["reason"].startswith("next: waiting for ")
    assert "seat 1" in refused["reason"]


def test_ny_5324_12_b_8_a_doubles_wager_put_down_after_the_button_is_journaled_as_added() -> None:
    """NY 5324.12(b)(8): a wager changes only as a decision implements it: seat 1 (5H 6D,
    11) doubles its $10.00 against the up 6C, and its spot then weighs $20.00: no fault,
    the journal says $20.00 were added as the double's wager."""
    rig = make_rig("NY")
    ready(rig)
    bet(rig, 1, 1000)
    press(rig)
    deal(rig, "5H", "6C", "6D")
    if rig.table.state is State.DEALING:  # a hole-card table: the hole card first
        deal(rig, "QS")
    press(rig, Button.DOUBLE)
    rig.table.handle(SeatWagerChanged(1, WagerSpot.MAIN, True, 2000))
    assert rig.table.fault is None
    assert rows(rig, "wager_added") == [{"seat": 1, "spot": "main", "cents": 2000}]


def test_round_started_lists_each_seats_wager_and_match_in_cents_where_weighed() -> None:
    """docs/journal.md: `round_started` lists `{seat, wager_cents, match_cents}` per seat:
    the cents where the sensor weighs, None where it reports presence only, and a Match
    the Dealer wager of 0 where none was made."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1, 1000, match=500)
    bet(rig, 2, 2000)
    rig.table.handle(SeatWagerChanged(3, WagerSpot.MAIN, True, None))
    rig.table.handle(SeatWagerChanged(3, WagerSpot.MATCH, True, None))
    rig.table.handle(SeatWagerChanged(4, WagerSpot.MAIN, True, None))
    press(rig)
    (started,) = rows(rig, "round_started")
    assert started == {
        "round": 1,
        "seats": [
            {"seat": 1, "wager_cents": 1000, "match_cents": 500},
            {"seat": 2, "wager_cents": 2000, "match_cents": 0},
            {"seat": 3, "wager_cents": None, "match_cents": None},
            {"seat": 4, "wager_cents": None, "match_cents": 0},
        ],
    }


def test_a_hole_card_the_table_seals_uses_the_tables_nonces_and_says_station() -> None:
    """docs/journal.md: a hole card the shoe gave in the open is sealed by the station
    (`sealed_by: station`) with a nonce from the table's nonce source; at the reveal the
    card and that nonce open the commitment journaled at the deal."""
    rig = make_rig("PA")
    nonce = "5a" * 16
    rig.table.t.nonces = lambda: nonce
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "9H", "5C", "8D", "QS")
    (dealt,) = rows(rig, "hole_card_dealt")
    assert dealt["sealed_by"] == "station"
    press(rig)  # stand
    press(rig)  # reveal
    (revealed,) = rows(rig, "hole_card_revealed")
    assert revealed == {"card": "QS", "nonce": nonce}
    assert check_commitment(dealt["commitment"], "QS", nonce)


def test_pa_635a_7_j_2_one_card_after_a_double() -> None:
    rig = make_rig("PA", rescue=False)
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "5H", "6C", "4D", "QS")
    press(rig, Button.DOUBLE)
    deal(rig, "2S")
    assert rig.table.state is State.DEALER  # the doubled hand took its one card


def test_pa_635a_7_m_dealer_does_not_draw_when_every_hand_is_busted() -> None:
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "KH", "6C", "QD", "7S")
    deal(rig, "5D")  # a hit: 25, bust
    assert rig.table.state is State.DEALER
    press(rig)  # the hole card is turned: dealer 13, but draws nothing
    assert rig.table.state is State.SETTLING


def test_hole_card_disagreeing_with_the_reader_faults_and_must_be_voided() -> None:
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "9H", "KC", "8D", "AS")  # the hole card makes a blackjack...
    press(rig)
    rig.table.handle(PeekResult(PeekAnswer.NO_BLACKJACK))  # ...but the reader says no
    press(rig)  # stand
    press(rig)  # reveal
    assert rig.table.fault is not None
    assert rig.table.fault.code is FaultCode.HOLE_CARD_MISMATCH
    assert "AS" in rig.table.fault.message  # the supervisor is told the card turned
    supervisor(rig, Button.SUPERVISOR_RESUME)
    assert rig.table.state is State.FAULT
    supervisor(rig, Button.SUPERVISOR_VOID)
    assert rig.table.state is State.BETTING
    assert rows(rig, "round_voided")


def test_hole_card_sealed_until_the_reveal_and_commitment_opens() -> None:
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "9H", "KC", "8D", "7D")
    texts_before = repr([r.data for r in rig.journal.rows]) + repr(rig.panel.shown)
    assert "7D" not in texts_before
    press(rig)
    rig.table.handle(PeekResult(PeekAnswer.NO_BLACKJACK))
    press(rig)
    press(rig)
    revealed = rows(rig, "hole_card_revealed")[0]
    commitment = rows(rig, "hole_card_dealt")[0]["commitment"]
    assert revealed["card"] == "7D"
    assert check_commitment(commitment, "7D", revealed["nonce"])


def test_pa_635a_7_d_cover_card_during_play_completes_round_then_reshuffles() -> None:
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "9H", "5C")
    rig.table.handle(CoverCardSeen())
    deal(rig, "8D", "QS")
    assert rig.panel.lamps[Led.RESHUFFLE] is LedMode.STEADY
    press(rig)
    press(rig)
    deal(rig, "3D")
    settle_all(rig)
    assert rig.table.state is State.SHUFFLING
    assert rows(rig, "round_completed") == [{"reshuffle": True}]


def test_pa_635a_7_d_cover_card_as_first_card_of_round_round_still_played() -> None:
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    rig.table.handle(CoverCardSeen())
    assert rig.table.state is State.BETTING
    play_seat_one_round(rig)
    assert rig.table.state is State.SHUFFLING


def test_pa_635a_7_d_cover_card_at_a_new_dealers_burn_is_an_ordinary_cover_card() -> None:
    rig = make_rig("PA")
    ready(rig)
    press(rig, Button.DEALER_CHANGE)
    rig.table.handle(CoverCardSeen())  # mid-shoe: not "before the first round"
    assert rig.table.state is State.BURNING
    deal(rig, "7S")
    assert rig.table.state is State.BETTING
    assert rig.panel.lamps[Led.RESHUFFLE] is LedMode.STEADY
    bet(rig, 1)
    play_seat_one_round(rig)
    assert rig.table.state is State.SHUFFLING


def test_pa_635a_7_p_1_collect_losing_wagers_then_pay() -> None:
    rig = make_rig("PA")
    ready(rig)
    for seat in (1, 2, 3):
        bet(rig, seat)
    press(rig)
    deal(rig, "KH", "9H", "KS", "7C", "QD", "5C", "9C", "QH")  # 20, 14, 19 vs 17
    press(rig)  # seat 1 stands
    press(rig)  # seat 2 stands on 14
    press(rig)  # seat 3 stands on 19
    press(rig)  # reveal: 17
    order = [(r["seat"], r["outcome"]) for r in rows(rig, "settlement")]
    assert order == [(2, "lose"), (3, "win"), (1, "win")]


def test_pa_635a_7_p_2_settle_from_the_dealers_right() -> None:
    from controller.rules.profiles import SettlementOrder

    rig = make_rig("PA", settlement_order=SettlementOrder.RIGHT_TO_LEFT)
    ready(rig)
    for seat in (1, 2, 3):
        bet(rig, seat)
    press(rig)
    deal(rig, "KH", "9H", "KS", "7C", "QD", "5C", "9C", "QH")
    for _ in range(4):
        press(rig)
    assert [r["seat"] for r in rows(rig, "settlement")] == [3, 2, 1]


def test_device_lost_faults_and_resumes_only_once_it_is_back() -> None:
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "9H")
    rig.table.handle(DeviceLost(DeviceKind.SHOE, "unplugged"))
    assert rig.table.state is State.FAULT
    # The journal says which device went and why, and the fault names it.
    assert rows(rig, "device")[-1] == {"device": "shoe", "status": "lost", "reason": "unplugged"}
    assert rig.table.fault is not None and rig.table.fault.device == "shoe"
    assert rig.table.fault.message == "shoe lost: unplugged"
    assert rig.panel.lamps[Led.SHOE_FAULT] is LedMode.BLINK
    supervisor(rig, Button.SUPERVISOR_RESUME)
    assert rig.table.state is State.FAULT
    assert rows(rig, "resolution_refused") == [
        {"resolution": "resume", "reason": "still lost: shoe"}
    ]
    rig.table.handle(DeviceConnected(DeviceKind.SHOE, "S1", "1.0"))
    # Back: the journal keeps its serial number and firmware (which board is on the table).
    assert rows(rig, "device")[-1] == {
        "device": "shoe",
        "status": "connected",
        "serial": "S1",
        "firmware": "1.0",
    }
    supervisor(rig, Button.SUPERVISOR_RESUME)
    assert rig.table.state is State.DEALING
    deal(rig, "5C", "8D", "QS")
    assert rig.table.state is State.PLAYERS


def test_ny_5324_12_b_7_the_super_bonus_is_journaled_with_its_shares() -> None:
    """NY 5324.12(b)(6)(iv), (7): seat 1's $25 on 7D 7D 7D against the up card 7C is paid
    2:1 ($50) and the fixed $5,000; seat 2, who also wagered, is paid $50 besides its own
    $10 win (9S 9H, 18, against a dealer who busts: 7C 5C KS)."""
    rig = make_rig("NY")
    ready(rig)
    bet(rig, 1, cents=2500)
    bet(rig, 2, cents=1000)
    press(rig)
    deal(rig, "7D", "9S", "7C", "7D", "9H", "5C")  # no peek under a 7
    deal(rig, "7D")  # seat 1 hits: 7-7-7 of diamonds, 21
    press(rig)  # seat 2 stands on 18
    press(rig)  # the hole card: 12
    deal(rig, "KS")  # 22
    settle_all(rig)
    by_seat = {(r["seat"], r["wager"]): r for r in rows(rig, "settlement")}
    assert by_seat[(1, "main")] | {"cards": None} == {
        "seat": 1,
        "wager": "main",
        "outcome": "win",
        "odds": "2:1",
        "net_cents": 505_000,
        "hand": 1,
        "cards": None,
        "total": 21,
        "bonus": "777_suited",
        "super_bonus": True,
        "super_bonus_cents": 500_000,
    }
    assert by_seat[(2, "super_bonus_share")]["net_cents"] == 5_000
    assert by_seat[(2, "main")]["net_cents"] == 1_000
    assert rows(rig, "seat_result") == [
        {"seat": 1, "net_cents": 505_000},
        {"seat": 2, "net_cents": 6_000},
    ]


def test_ny_5324_12_b_6_v_a_bonus_is_settled_under_the_bonus_lamp_not_pay() -> None:
    """NY 5324.12(b)(6)(v): five cards totaling 21 pay 3:2, not the 1:1 of a plain win, so
    the panel lights BONUS with the seat (docs/panel.md), never PAY. Seat 1: 2H 3C, hits
    4D 5S 7C = 21 in five cards, against 9S with 8H under it (17): $10 wins $15. Seat 2's
    9C 9D (18) beats 17 at 1:1: PAY."""
    rig = make_rig("NY")
    ready(rig)
    bet(rig, 1)
    bet(rig, 2)
    press(rig)
    deal(rig, "2H", "9C", "9S", "3C", "9D", "8H")  # no peek under a 9
    deal(rig, "4D", "5S", "7C")  # seat 1's five-card 21 ends its turn
    press(rig)  # seat 2 stands on 18
    press(rig)  # the dealer turns the hole card: 17, stands
    lamps: dict[int, tuple[LedMode | None, LedMode | None]] = {}
    while rig.table.state is State.SETTLING:
        seat = next(s for s in (1, 2) if rig.panel.lamps.get(Led.seat(s)) is LedMode.STEADY)
        lamps[seat] = (rig.panel.lamps.get(Led.BONUS), rig.panel.lamps.get(Led.PAY))
        press(rig)
    steady = LedMode.STEADY
    assert lamps[1][0] is steady and lamps[1][1] is not steady  # BONUS, not PAY
    assert lamps[2][1] is steady and lamps[2][0] is not steady  # PAY, not BONUS
    by_seat = {r["seat"]: r for r in rows(rig, "settlement")}
    assert (by_seat[1]["bonus"], by_seat[1]["odds"], by_seat[1]["net_cents"]) == (
        "five_card_21",
        "3:2",
        1500,
    )


def test_pa_635a_7_f_a_match_wager_where_the_table_offers_none_is_refused_not_played() -> None:
    # A table whose profile offers no Match the Dealer: chips on the Match spot are refused
    # at "no more bets" (the seat plays its Spanish 21 wager), never a rules error.
    rig = make_rig("PA", match_the_dealer=False)
    ready(rig)
    bet(rig, 1, 1000, match=500)
    press(rig)
    assert rows(rig, "wager_refused") == [
        {"seat": 1, "reason": "this table offers no Match the Dealer", "spot": "match"}
    ]
    assert rows(rig, "round_started")[0]["seats"] == [
        {"seat": 1, "wager_cents": 1000, "match_cents": 0}
    ]
    assert rig.table.state is State.DEALING
