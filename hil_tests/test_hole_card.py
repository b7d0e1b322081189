"""The withheld hole card at the table: a shoe that lies at the reveal is caught.

The shoe commits to the hole card at the deal and reveals it only when the dealer turns it
(PA 635a.7(k)); the station checks card and nonce against the commitment it journaled. A
shoe that reveals another card (tampered, or a board swapped between deal and reveal) is the
fault ``hole_card_commitment``, which no resume clears.
"""

from __future__ import annotations

from typing import Any

import pytest

from controller.rules.cards import parse_card
from controller.table.prompts import State
from drivers.hal import Button, ForeignCardDrawn

pytestmark = pytest.mark.doubles

# One seat: seat 1 9H 8D, up KS (a peek), hole 7D.
ONE_SEAT = "2C 9H KS 8D 7D 3D QC 6H 9C 2D 3C 4D 5S 6C 8H 5H"


def test_the_journal_keeps_the_shoes_commitment_and_the_reveal_opens_it(station: Any) -> None:
    t = station("PA")
    t.ready(ONE_SEAT)
    t.bet(1)
    t.press()
    t.deal("9H", "KS", "8D", "7D")
    (dealt,) = t.data("hole_card_dealt")
    shoe = t.doubles.shoe
    assert [c.hex() for c in shoe.withheld] == [dealt["commitment"]]  # the shoe's own
    t.peek()
    t.press()  # seat 1 stands
    assert t.state is State.DEALER and t.view.reveal_due
    t.press()  # the dealer turns the hole card: the station asks the shoe
    assert t.data("hole_card_reveal_requested") == [{"commitment": dealt["commitment"]}]
    assert t.data("hole_card_revealed")[0]["card"] == "7D"
    t.finish()  # journal verify recomputes the commitment from card and nonce


def test_a_shoe_that_reveals_another_card_faults_and_cannot_be_resumed(station: Any) -> None:
    t = station("PA")
    t.ready(ONE_SEAT)
    t.bet(1)
    t.press()
    t.deal("9H", "KS", "8D", "7D")
    t.peek()
    t.press()
    t.doubles.shoe.lie_at_reveal = t.doubles.shoe.dealt[0]  # reveals 9H instead of 7D
    t.press()
    assert t.state is State.FAULT and t.fault == "hole_card_commitment"
    assert "does not open its commitment" in (t.view.fault or "")
    assert t.data("hole_card_revealed") == []  # nothing unproven reaches the journal
    t.supervisor(Button.SUPERVISOR_RESUME)
    assert t.state is State.FAULT
    assert "cannot be resumed" in t.data("resolution_refused")[-1]["reason"]
    t.doubles.shoe.lie_at_reveal = None  # the supervisor swaps the shoe's board back
    t.supervisor(Button.SUPERVISOR_VOID)
    assert t.state is State.BETTING
    # Asked for at the void: the true hole card is journaled under its round.
    assert [r.data["card"] for r in t.rows("hole_card_revealed")] == ["7D"]
    assert t.rows("hole_card_revealed")[0].round_no == 1
    # It left the shoe once: one of the six 7D a six-deck batch holds (NY 5324.12(a)), as
    # each dealt card counts once towards the duplicate-card check.
    drawn = t.station.built.table.t.drawn
    assert (drawn[parse_card("7D")], drawn[parse_card("9H")]) == (1, 1)
    t.finish()


def test_a_round_voided_before_its_hole_card_leaves_the_shoe_dealing_ordinary_cards(
    station: Any,
) -> None:
    """The station named the hole card's draw (``HoleCardNext``), then the round was voided
    before that card came out: the shoe is told to forget it (``HoleCardCancel``), so the
    next round's first card is an ordinary card, not withheld as a hole card (the hole card
    is the last card of the deal: PA 635a.7(e), NJ 19.7(d), NY 5324.12(c)(4))."""
    t = station("PA")
    t.ready(ONE_SEAT)
    t.bet(1)
    t.press()
    t.deal("9H", "KS", "8D")  # the hole card is due now: the shoe was told its draw
    shoe = t.doubles.shoe
    assert shoe.wait_for(lambda: shoe.hole_from is not None, 5.0)
    with t.expect(ForeignCardDrawn):
        shoe.deal_ten("H")  # a 10 in the shoe: the table faults
    assert t.state is State.FAULT and t.fault == "foreign_card"
    t.supervisor(Button.SUPERVISOR_VOID)
    assert t.state is State.BETTING
    assert shoe.wait_for(lambda: shoe.hole_from is None, 5.0)  # the shoe forgot it
    t.bet(1)
    t.press()
    # Seat 1 7D QC, up 3D, hole 6H: the first card is reported like any card (before the
    # fix the shoe withheld 7D and the table faulted), only the last is withheld.
    t.deal("7D", "3D", "QC", "6H")
    assert t.state is not State.FAULT, t.view.fault
    assert [r["card"] for r in t.data("card")[-3:]] == ["7D", "3D", "QC"]
    assert [card.text for card, _nonce in shoe.withheld.values()] == ["6H"]
    assert len(t.data("hole_card_dealt")) == 1
