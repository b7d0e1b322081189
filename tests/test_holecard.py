"""Hole-card commitments: a reveal matches only the card and nonce committed to."""

from __future__ import annotations

from controller.rules.cards import ALL_CARDS, parse_card
from controller.table.holecard import check_commitment, commit_hole_card


def test_commitment_checks_against_its_card_and_nonce() -> None:
    card = parse_card("KH")
    commitment, nonce = commit_hole_card(card)
    assert len(commitment) == 64 and len(nonce) == 32
    assert check_commitment(commitment, "KH", nonce)
    assert check_commitment(commitment.upper(), "KH", nonce)


def test_commitment_refuses_any_other_card_or_nonce() -> None:
    commitment, nonce = commit_hole_card(parse_card("KH"))
    others = [c.text for c in ALL_CARDS if c.text != "KH"]
    assert not any(check_commitment(commitment, text, nonce) for text in others)
    assert not check_commitment(commitment, "KH", "0" * 32)
    assert not check_commitment("é" * 64, "KH", nonce)
    assert not check_commitment(commitment, None, nonce)  # type: ignore[arg-type]


def test_commitment_does_not_give_the_card_away() -> None:
    # The nonce makes two commitments to the same card differ.
    first, _ = commit_hole_card(parse_card("AS"))
    second, _ = commit_hole_card(parse_card("AS"))
    assert first != second
