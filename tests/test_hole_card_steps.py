"""The table's steps for a hole card the shoe withholds (docs/protocol.md, "The hole card";
PA 635a.7(e)(4), (g), (k)): the card is known by its commitment only until the dealer turns
it, the shoe's answer must open that commitment, and an answer the round in play did not ask
for acts on nothing.

PA, one seat: seat 1 holds 9H 8D against the up card 5C (no peek under a 5); the shoe
withholds the hole card QS with the nonce below. Its commitment is SHA-256("QS|NONCE")
(``controller.rules.commitment``, the one definition the shoe and the station share).
"""

from __future__ import annotations

from table_support import Rig, make_rig
from test_procedure import bet, deal, press, ready, rows, supervisor

from controller.rules.cards import parse_card
from controller.rules.commitment import hole_card_commitment
from controller.table.faults import FaultCode
from controller.table.prompts import State
from drivers.hal import (
    Button,
    HoleCardDealt,
    HoleCardRevealed,
    Led,
    LedMode,
    PeekAnswer,
    PeekResult,
)

NONCE = "ab" * 16
HOLE = "QS"
COMMITMENT = hole_card_commitment(HOLE, NONCE)


def dealt_and_withheld(burn: str = "2C") -> Rig:
    """No more bets, the three open cards, and the hole card withheld by the shoe."""
    rig = make_rig("PA", withholding=True)
    ready(rig, burn)
    bet(rig, 1, 1000)
    press(rig)
    deal(rig, "9H", "5C", "8D")
    assert rig.shoe is not None and rig.shoe.told == ["expect_hole_card"]
    rig.table.handle(HoleCardDealt(COMMITMENT))
    return rig


def at_the_reveal(burn: str = "2C") -> Rig:
    """Seat 1 stands and the dealer presses NEXT to turn the hole card: the shoe is asked."""
    rig = dealt_and_withheld(burn)
    press(rig)  # seat 1 stands on 17
    assert rig.table.state is State.DEALER
    press(rig)  # turn the hole card
    return rig


def journal_text(rig: Rig) -> str:
    return repr([(r.kind, r.data) for r in rig.journal.rows])


def test_the_hole_card_is_journaled_as_its_commitment_and_named_nowhere_before_the_reveal() -> None:
    rig = at_the_reveal()
    (dealt,) = rows(rig, "hole_card_dealt")
    assert dealt == {"commitment": COMMITMENT, "sealed_by": "shoe"}
    assert HOLE not in journal_text(rig) and NONCE not in journal_text(rig)
    assert rig.shoe is not None and rig.shoe.told[-1] == f"reveal {COMMITMENT}"
    assert rows(rig, "hole_card_reveal_requested") == [{"commitment": COMMITMENT}]
    assert rig.table.state is State.DEALER


def test_the_shoes_answer_that_opens_the_commitment_turns_the_card_and_the_round_goes_on() -> None:
    rig = at_the_reveal()
    rig.table.handle(HoleCardRevealed(COMMITMENT, parse_card(HOLE), NONCE))
    assert rows(rig, "hole_card_reveal_answer") == [
        {"commitment": COMMITMENT, "answered": True, "problem": None}
    ]
    assert rows(rig, "hole_card_revealed") == [{"card": HOLE, "nonce": NONCE}]
    # 5 + Q = 15: the dealer draws (PA 635a.7(l)); a 3 makes 18, which beats seat 1's 17.
    assert rig.table.state is State.DEALER
    deal(rig, "3D")
    assert rig.table.state is State.SETTLING
    (settled,) = rows(rig, "settlement")
    assert (settled["seat"], settled["outcome"], settled["net_cents"]) == (1, "lose", -1000)


def test_an_answer_before_the_dealers_turn_waits_for_it() -> None:
    """The shoe answers (asked by a station before a restart, say) while seat 1 still plays:
    the card is kept, and turned when the dealer's turn comes, without asking again."""
    rig = dealt_and_withheld()
    rig.table.handle(HoleCardRevealed(COMMITMENT, parse_card(HOLE), NONCE))
    assert rig.table.state is State.PLAYERS
    assert rows(rig, "hole_card_revealed") == []
    press(rig)  # seat 1 stands
    press(rig)
    assert rig.shoe is not None and not any(t.startswith("reveal") for t in rig.shoe.told)
    assert rows(rig, "hole_card_revealed") == [{"card": HOLE, "nonce": NONCE}]


def test_a_card_and_nonce_that_do_not_open_the_commitment_fault_the_shoe() -> None:
    for card, nonce in (("KS", NONCE), (HOLE, "cd" * 16)):
        rig = at_the_reveal()
        rig.table.handle(HoleCardRevealed(COMMITMENT, parse_card(card), nonce))
        fault = rig.table.fault
        assert fault is not None and fault.code is FaultCode.HOLE_CARD_COMMITMENT
        assert fault.device == "shoe"
        assert fault.message == (
            f"the shoe revealed {card} with a nonce that does not open its commitment"
        )
        assert rows(rig, "hole_card_revealed") == []
        assert rows(rig, "settlement") == []


def test_a_shoe_that_no_longer_holds_the_card_faults_saying_why() -> None:
    for problem, message in (("not held", "not held"), (None, "no card")):
        rig = at_the_reveal()
        rig.table.handle(HoleCardRevealed(COMMITMENT, None, None, problem))
        assert rows(rig, "hole_card_reveal_answer") == [
            {"commitment": COMMITMENT, "answered": False, "problem": problem}
        ]
        fault = rig.table.fault
        assert fault is not None and fault.code is FaultCode.HOLE_CARD_COMMITMENT
        assert (fault.device, fault.message) == ("shoe", message)
    # A card without its nonce is no answer either.
    rig = at_the_reveal()
    rig.table.handle(HoleCardRevealed(COMMITMENT, parse_card(HOLE), None))
    assert rig.table.fault is not None and rig.table.fault.message == "no card"


def test_an_answer_nobody_asked_for_or_for_another_card_acts_on_nothing() -> None:
    """Journaled (the shoe said it), and the round in play goes on as before: no card
    turned, no fault."""
    other = hole_card_commitment("KD", NONCE)
    for event in (
        HoleCardRevealed(COMMITMENT, parse_card(HOLE), NONCE, asked=False),
        HoleCardRevealed(other, parse_card("KD"), NONCE),
    ):
        rig = at_the_reveal()
        rig.table.handle(event)
        assert rows(rig, "hole_card_reveal_answer") == [
            {"commitment": event.commitment, "answered": True, "problem": None}
        ]
        assert rows(rig, "hole_card_revealed") == []
        assert rig.table.fault is None and rig.table.state is State.DEALER


def test_an_answer_repeated_after_the_card_was_turned_is_ignored() -> None:
    rig = at_the_reveal()
    answer = HoleCardRevealed(COMMITMENT, parse_card(HOLE), NONCE)
    rig.table.handle(answer)
    rig.table.handle(answer)
    assert len(rows(rig, "hole_card_reveal_answer")) == 2
    assert rows(rig, "hole_card_revealed") == [{"card": HOLE, "nonce": NONCE}]
    assert rig.table.fault is None and rig.table.state is State.DEALER


def test_a_hole_card_the_round_does_not_expect_is_rejected_with_a_fault() -> None:
    """A commitment while the table takes bets (no round dealt), and a second one in the
    same round: journaled as rejected, play stopped."""
    rig = make_rig("PA", withholding=True)
    ready(rig)
    rig.table.handle(HoleCardDealt(COMMITMENT))
    assert rows(rig, "hole_card_rejected") == [{"commitment": COMMITMENT}]
    fault = rig.table.fault
    assert fault is not None and fault.code is FaultCode.UNEXPECTED_CARD
    assert fault.message.startswith("a hole card was dealt while ")

    rig = dealt_and_withheld()
    again = hole_card_commitment("KD", NONCE)
    rig.table.handle(HoleCardDealt(again))
    assert rows(rig, "hole_card_rejected") == [{"commitment": again}]
    assert rig.table.fault is not None and rig.table.fault.code is FaultCode.UNEXPECTED_CARD


def test_the_rounds_own_hole_card_reported_again_is_journaled_and_changes_nothing() -> None:
    """A shoe whose report of the hole card was not acknowledged before the station
    restarted sends it again in its next session (docs/protocol.md, section 6a): the same
    commitment is the same withheld card, so it is journaled as repeated, with no fault,
    at the peek's place (players), at the dealer's turn with the shoe already asked, and
    after the reveal; play then goes on as before."""
    rig = dealt_and_withheld()
    assert rig.table.state is State.PLAYERS  # no peek under a 5
    rig.table.handle(HoleCardDealt(COMMITMENT))
    press(rig)  # seat 1 stands on 17
    press(rig)  # turn the hole card: the shoe is asked
    assert rows(rig, "hole_card_reveal_requested") == [{"commitment": COMMITMENT}]
    rig.table.handle(HoleCardDealt(COMMITMENT))
    assert rig.table.fault is None and rig.table.state is State.DEALER
    rig.table.handle(HoleCardRevealed(COMMITMENT, parse_card(HOLE), NONCE))
    assert rows(rig, "hole_card_revealed") == [{"card": HOLE, "nonce": NONCE}]
    rig.table.handle(HoleCardDealt(COMMITMENT))
    assert rows(rig, "hole_card_repeated") == [{"commitment": COMMITMENT}] * 3
    assert not rows(rig, "hole_card_rejected")
    assert rig.table.fault is None
    assert [r.round_no for r in rig.journal.of("hole_card_repeated")] == [1, 1, 1]
    # 5C QS = 15: the dealer draws; 3D makes 18 against seat 1's 17.
    assert rig.table.state is State.DEALER
    deal(rig, "3D")
    assert [s["outcome"] for s in rows(rig, "settlement")] == ["lose"]


def test_a_voided_rounds_card_given_back_later_is_journaled_under_that_round() -> None:
    """A round voided with its hole card in the shoe asks for the card; the answer that
    comes after the void opens the commitment and is journaled under the voided round (the
    journal accounts for every card); one that does not open it is journaled as a problem
    and turns nothing."""
    for card, opens in ((HOLE, True), ("KS", False)):
        rig = dealt_and_withheld()
        rig.table.handle(HoleCardDealt(hole_card_commitment("KD", NONCE)))  # a fault
        supervisor(rig, Button.SUPERVISOR_VOID)
        assert rig.table.state is not State.FAULT
        voided_round = rig.journal.of("round_voided")[0].round_no
        rig.table.handle(HoleCardRevealed(COMMITMENT, parse_card(card), NONCE))
        answer = rows(rig, "hole_card_reveal_answer")[-1]
        revealed = rig.journal.of("hole_card_revealed")
        if opens:
            assert answer["problem"] is None
            assert [(r.data, r.round_no) for r in revealed] == [
                ({"card": HOLE, "nonce": NONCE}, voided_round)
            ]
        else:
            assert answer["problem"] == "the card and nonce do not open the commitment"
            assert revealed == []
        assert rig.table.fault is None


# --- the withheld card and the station's own commitment ------------------------------------


def test_a_withheld_card_names_no_card_before_or_after_the_shoe_fills_it() -> None:
    from controller.table.holecard import WithheldCard

    withheld = WithheldCard(COMMITMENT)
    assert not withheld.filled and withheld.commitment == COMMITMENT
    try:
        withheld.reveal()
    except LookupError as err:
        assert str(err) == "the shoe has not revealed the hole card yet"
    else:
        raise AssertionError("a withheld card revealed before the shoe gave it")
    card = parse_card(HOLE)
    withheld.fill(card)
    assert withheld.filled and withheld.reveal() is card
    for shown in (repr(withheld), str(withheld), f"{withheld}", f"{withheld:>30}"):
        assert shown.strip() == "WithheldCard(<in the shoe>)"


def test_the_station_commits_with_the_nonce_it_is_given_or_a_fresh_one() -> None:
    """docs/protocol.md, "The hole card": the commitment is SHA-256 of "CARD|NONCE" in hex,
    the nonce 16 random bytes as 32 hex digits; a simulation that must repeat passes its own."""
    import hashlib
    import re

    from controller.table.holecard import check_commitment, commit_hole_card

    card = parse_card("KD")
    given = "0123456789abcdef" * 2
    assert commit_hole_card(card, given) == (
        hashlib.sha256(f"KD|{given}".encode()).hexdigest(),
        given,
    )
    (first, nonce_1), (second, nonce_2) = commit_hole_card(card), commit_hole_card(card)
    assert re.fullmatch("[0-9a-f]{32}", nonce_1) and nonce_1 != nonce_2 and first != second
    assert check_commitment(first, "KD", nonce_1) and not check_commitment(first, "KD", nonce_2)


# --- the moment the shoe is told, the peek, the dealer's NEXT -------------------------------


def test_the_shoe_is_told_of_the_hole_card_only_when_it_is_the_next_card() -> None:
    """PA 635a.7(e): seat 1's first card, the up card, seat 1's second card, then the hole
    card. The shoe is told once, after the third card, never earlier."""
    rig = make_rig("PA", withholding=True)
    ready(rig)
    bet(rig, 1, 1000)
    press(rig)
    assert rig.shoe is not None
    for card, told in (("9H", []), ("5C", []), ("8D", ["expect_hole_card"])):
        deal(rig, card)
        assert rig.shoe.told == told, card


def test_a_hole_card_reported_before_its_turn_is_rejected_naming_the_step_awaited() -> None:
    rig = make_rig("PA", withholding=True)
    ready(rig)
    bet(rig, 1, 1000)
    press(rig)  # dealing: seat 1's first card is due
    rig.table.handle(HoleCardDealt(COMMITMENT))
    assert rows(rig, "hole_card_rejected") == [{"commitment": COMMITMENT}]
    fault = rig.table.fault
    assert fault is not None and fault.code is FaultCode.UNEXPECTED_CARD
    assert fault.message.startswith("a hole card was reported while waiting for "), fault.message
    assert rows(rig, "hole_card_dealt") == []


def test_a_second_hole_card_once_play_has_begun_is_rejected_naming_the_state() -> None:
    rig = dealt_and_withheld()
    rig.table.handle(HoleCardDealt(hole_card_commitment("KD", NONCE)))
    fault = rig.table.fault
    assert fault is not None and fault.message.startswith("a hole card was dealt while "), fault


def test_the_revealed_hole_card_counts_among_the_cards_out_of_the_shoe() -> None:
    """Six decks hold 24 queens of spades: each one out of the shoe is counted, the burn
    card (PA 635a.7(d)) and the hole card alike."""
    for burn, before in (("2C", 0), (HOLE, 1)):
        rig = at_the_reveal(burn)
        assert rig.table.t.drawn[parse_card(HOLE)] == before
        rig.table.handle(HoleCardRevealed(COMMITMENT, parse_card(HOLE), NONCE))
        assert rig.table.t.drawn[parse_card(HOLE)] == before + 1


def test_next_while_the_dealer_must_draw_is_journaled_as_ignored() -> None:
    """5 + Q = 15: PA 635a.7(l) has the dealer draw; NEXT asks for nothing."""
    rig = at_the_reveal()
    rig.table.handle(HoleCardRevealed(COMMITMENT, parse_card(HOLE), NONCE))
    press(rig)
    assert rows(rig, "button_ignored")[-1] == {
        "button": "next",
        "state": "dealer",
        "reason": "draw a card",
    }
    assert rig.table.state is State.DEALER


def test_an_answer_the_driver_did_not_ask_for_is_journaled_with_its_problem() -> None:
    rig = at_the_reveal()
    problem = "the shoe revealed a hole card this station did not ask for"
    rig.table.handle(HoleCardRevealed(COMMITMENT, None, None, problem, asked=False))
    assert rows(rig, "hole_card_reveal_answer") == [
        {"commitment": COMMITMENT, "answered": False, "problem": problem}
    ]
    assert rig.table.fault is None and rig.table.state is State.DEALER


def test_an_unasked_answer_for_a_voided_rounds_card_leaves_the_asked_one_to_be_journaled() -> None:
    """After a void the station asks for the card; an unasked answer (no card) that comes
    first does not use up the question: the answer asked for is journaled under the voided
    round."""
    rig = dealt_and_withheld()
    rig.table.handle(HoleCardDealt(hole_card_commitment("KD", NONCE)))  # a fault
    supervisor(rig, Button.SUPERVISOR_VOID)
    voided_round = rig.journal.of("round_voided")[0].round_no
    problem = "the shoe revealed a hole card this station did not ask for"
    rig.table.handle(HoleCardRevealed(COMMITMENT, None, None, problem, asked=False))
    assert rig.journal.of("hole_card_revealed") == []
    rig.table.handle(HoleCardRevealed(COMMITMENT, parse_card(HOLE), NONCE))
    assert [(r.data, r.round_no) for r in rig.journal.of("hole_card_revealed")] == [
        ({"card": HOLE, "nonce": NONCE}, voided_round)
    ]
    assert rig.table.t.drawn[parse_card(HOLE)] == 1


def peeking() -> Rig:
    """PA 635a.7(g): seat 1 9H 8D against the up card KS; the hole card withheld; the
    dealer slides it into the card reader and presses NEXT."""
    rig = make_rig("PA", withholding=True)
    ready(rig)
    bet(rig, 1, 1000)
    press(rig)
    deal(rig, "9H", "KS", "8D")
    rig.table.handle(HoleCardDealt(COMMITMENT))
    assert rig.table.state is State.PEEKING
    press(rig)
    return rig


def test_the_peek_asks_for_an_ace_under_a_king_and_journals_the_answer_only() -> None:
    rig = peeking()
    assert rows(rig, "peek_requested") == [{"target": "looking_for_ace"}]
    rig.table.handle(PeekResult(PeekAnswer.NO_BLACKJACK))
    assert rows(rig, "peek") == [{"answer": "no_blackjack"}]
    assert rig.table.state is State.PLAYERS
    assert HOLE not in journal_text(rig)


def test_a_reader_that_cannot_read_faults_after_the_tries_saying_what_it_answered() -> None:
    rig = peeking()
    tries = rig.table.t.settings.peek_tries
    for _ in range(tries - 1):
        rig.table.handle(PeekResult(PeekAnswer.READ_ERROR))
        assert rig.table.fault is None and rig.table.state is State.PEEKING
        press(rig)  # slid in again
    assert len(rows(rig, "peek_requested")) == tries
    rig.table.handle(PeekResult(PeekAnswer.READ_ERROR))
    fault = rig.table.fault
    assert fault is not None and fault.code is FaultCode.READER_FAILED
    assert (fault.device, fault.message) == (
        "card_reader",
        f"the card reader answered read_error {tries} times",
    )


def test_a_peek_answer_nobody_asked_for_changes_nothing() -> None:
    """A reader's answer once play has moved on (late, or unrequested): journaled, and a
    'blackjack' then ends no round and settles nothing."""
    rig = dealt_and_withheld()  # up card 5: no peek
    rig.table.handle(PeekResult(PeekAnswer.BLACKJACK))
    assert rows(rig, "peek") == [{"answer": "blackjack"}]
    assert rig.table.state is State.PLAYERS and rig.table.fault is None
    assert rows(rig, "settlement") == []


def test_a_card_the_table_sealed_shows_as_face_down_in_every_form_and_refuses_a_pickle() -> None:
    """The hole card a shoe gave in the open, sealed by the table (docs/journal.md,
    ``sealed_by: station``): every text of it, whatever the format asked, is the same
    face-down text; a pickle (a copy that could be read elsewhere) is refused saying why."""
    import pickle

    from controller.rules.sealed import SealedCard

    sealed = SealedCard(parse_card(HOLE))
    for shown in (repr(sealed), str(sealed), f"{sealed}", f"{sealed:>40}", format(sealed, "x")):
        assert shown == "SealedCard(<face down>)"
    try:
        pickle.dumps(sealed)
    except TypeError as err:
        assert str(err) == "a sealed card cannot be pickled"
    else:
        raise AssertionError("a sealed card was pickled")


def test_a_hole_card_reported_before_it_is_due_names_what_the_round_waits_for() -> None:
    """Bets closed, no card dealt yet: a hole-card commitment now is out of order (PA
    635a.7(e): the hole card is the dealer's second card, dealt last); the fault tells the
    supervisor what the round was waiting for, seat 1's first card."""
    rig = make_rig("PA", withholding=True)
    ready(rig)
    bet(rig, 1)
    press(rig)
    rig.table.handle(HoleCardDealt(COMMITMENT))
    assert rows(rig, "hole_card_rejected") == [{"commitment": COMMITMENT}]
    fault = rig.table.fault
    assert fault is not None and fault.code is FaultCode.UNEXPECTED_CARD
    assert fault.message.startswith("a hole card was reported while waiting for ")
    assert "card for seat 1 hand 1" in fault.message


def test_a_hole_card_the_reader_denied_faults_naming_the_reader_and_blinks_its_lamp() -> None:
    """PA 635a.7(g), (k): the reader said no blackjack under the up KC, and the hole card
    the dealer turns is AS (a blackjack). The card reader is the device the turned card
    contradicts: the fault names it and its lamp blinks beside FAULT (docs/panel.md)."""
    rig = make_rig("PA")
    ready(rig)
    bet(rig, 1)
    press(rig)
    deal(rig, "9H", "KC", "8D", "AS")  # a table-sealed hole card
    press(rig)  # slid into the reader
    rig.table.handle(PeekResult(PeekAnswer.NO_BLACKJACK))
    press(rig)  # seat 1 stands on 17
    assert rig.panel.lamps.get(Led.READER_FAULT) is not LedMode.BLINK
    press(rig)  # the hole card is turned
    fault = rig.table.fault
    assert fault is not None and fault.code is FaultCode.HOLE_CARD_MISMATCH
    assert fault.device == "card_reader"
    assert rig.panel.lamps.get(Led.READER_FAULT) is LedMode.BLINK
    assert rig.panel.lamps.get(Led.FAULT) is LedMode.BLINK


def test_a_voided_rounds_card_given_back_late_adds_to_the_copies_already_out() -> None:
    """Six decks hold six QS. One was burned; the voided round's hole card, QS too, comes
    back from the shoe after the void: two QS are out of the shoe, not one."""
    rig = dealt_and_withheld(burn=HOLE)
    assert rig.table.t.drawn[parse_card(HOLE)] == 1  # the burn card
    rig.table.handle(HoleCardDealt(hole_card_commitment("KD", NONCE)))  # a fault
    supervisor(rig, Button.SUPERVISOR_VOID)
    rig.table.handle(HoleCardRevealed(COMMITMENT, parse_card(HOLE), NONCE))
    assert len(rig.journal.of("hole_card_revealed")) == 1
    assert rig.table.t.drawn[parse_card(HOLE)] == 2
