"""Exceptions of the rules engine: one root, leaves that also inherit the matching builtin."""

from __future__ import annotations


class RulesError(Exception):
    """Root of every error the rules engine raises."""


class ForeignCardError(RulesError, ValueError):
    """A card that is not in a Spanish deck: a 10, or text that is not a card at all."""


class IllegalDecisionError(RulesError, ValueError):
    """A player decision the rules do not allow; the message names seat, hand and decision."""


class OutOfTurnError(RulesError, ValueError):
    """Input that does not fit the round's current step (card, decision or answer)."""


class WagerError(RulesError, ValueError):
    """A wager the rules do not allow (e.g. insurance over half the wager)."""


class HoleCardMismatchError(RulesError):
    """The revealed hole card disagrees with the card reader's earlier blackjack answer."""


class ProfileError(RulesError, ValueError):
    """An unknown jurisdiction profile or a contradictory profile option."""
