"""The players' turn played out by the simulated dealer in one look, on the rules engine.

A dealer does not look up at the panel between a player's signal and the card it asks for,
nor after the card before reading that player's next signal, nor between one player's last
signal and the next player's first (NJ 19.7(e)-(f), NY 5324.12(c)(5)-(6), PA 635a.7(h)-(j)):
she sees the cards she drew and the players' hands on the layout.
:class:`TurnOnLayout` is the players' turn as the layout shows it, kept by the rules engine's
own :class:`~controller.rules.turn.Turn` (no second copy of the rules): after each card or
stand it says what the station's round asks for next, or that the dealer must look up.

:func:`play_out_players` deals from a view of the players' turn: hits, split and double
cards, and stands, seat after seat, while each next step is certain. It stops (the next
look reads the table again) where the station may prompt something the engine's turn does
not say: a double, a split, a surrender or a rescue (chips move, a settlement may be due),
a hand the turn passes over (a blackjack, which a PA table pays when play reaches it), the
cover card, the dealer's turn (whose first step, turning the hole card over, she takes when
the turn ended on the layout's last hand: PA 635a.7(k)). Between a card and a button, and a
button and a card, the first device's reports are delivered first (``TableSide.deliver``:
on the station's queue before the other link's), so nothing overtakes; the station handles
them while she goes on. :func:`players_follow` says when the turn starts in the look that
settles Match the Dealer. The HOLE card is never used: only cards face up and those she
drew.
"""

from __future__ import annotations

from typing import Any, Literal

from controller.rules.cards import Card, parse_card
from controller.rules.hands import HandStatus, PlayerHand
from controller.rules.profiles import Profile
from controller.rules.steps import CardRole, Decision, NeedCard, NeedDecision
from controller.rules.turn import Turn
from controller.table.prompts import State
from controller.table.view import HandView, TableView

Device = Literal["shoe", "panel"]

#: How long the dealer waits for the station to take one device's reports before acting on
#: another (``TableSide.deliver``; ~0.3 ms is usual): well under the panel's retransmit
#: budget in the simulated rigs (8 tries of 50 ms); on a timeout she looks up instead.
DELIVER_SECONDS = 0.2

_STATUS_OF = {status.value: status for status in HandStatus}


class TurnOnLayout:
    """The players' turn from ``view`` on: every seat's hands as the layout shows them, the
    cursor on the acting hand (see the module docstring).

    Raises:
        ValueError: ``view`` is not at a player's decision or card.
    """

    def __init__(self, profile: Profile, view: TableView) -> None:
        seat, number = view.acting_seat, view.acting_hand
        if view.state is not State.PLAYERS or seat is None or number is None:
            raise ValueError("not the players' turn")
        by_seat: dict[int, list[PlayerHand]] = {s: [] for s in view.seats}
        counts = {s: 0 for s in view.seats}
        for h in view.hands:
            counts[h.seat] += 1
        for h in view.hands:
            played = PlayerHand(h.seat, h.hand - 1, 0, from_split=counts[h.seat] > 1)
            for text in h.cards:
                played.add(parse_card(text))
            played.status = _STATUS_OF[h.status]
            played.double_cents = 1 if h.doubled else 0
            by_seat[h.seat].append(played)
        self.up = view.dealer_cards[0]
        self.turn = turn = Turn(profile, view.seats, by_seat)
        turn.seat_index, turn.hand_index = view.seats.index(seat), number - 1
        acting = turn.current()
        if acting.status is HandStatus.AWAITING_CARD:
            turn.pending_role = (
                CardRole.SPLIT
                if len(acting.cards) == 1
                else CardRole.DOUBLE
                if acting.double_cents
                else CardRole.HIT
            )
        self.step = turn.next_step()
        self._at = self._place()

    def agrees_with(self, view: TableView) -> bool:
        """Whether the step the turn says the acting hand waits for is the one ``view``
        shows (a check before acting on the turn's word)."""
        step = self.step
        if isinstance(step, NeedDecision):
            legal = tuple(sorted(d.value for d in step.legal))
            return not view.card_due and legal == view.legal and self._is_acting(view)
        return isinstance(step, NeedCard) and view.card_due and self._is_acting(view)

    def _is_acting(self, view: TableView) -> bool:
        step = self.step
        assert isinstance(step, NeedDecision | NeedCard)
        return (step.seat, (step.hand or 0) + 1) == (view.acting_seat, view.acting_hand)

    def hand_view(self) -> HandView:
        """The acting hand as the layout shows it now (for the player's choice)."""
        return HandView.of(self.turn.current())

    def decide(self, decision: Decision) -> None:
        """The acting hand's player signals ``decision`` (a hit, whose card comes next, or
        a stand)."""
        self.turn.apply(self.turn.current(), decision)
        if decision is Decision.HIT:
            self.step = self.turn.next_step()  # the hit's card

    def card(self, card: Card) -> bool:
        """``card`` goes to the acting hand; whether the next step is certain (then
        :attr:`step`) or the dealer looks up first."""
        self.turn.card(card)
        return self._advance()

    def stand(self) -> bool:
        """The acting hand stands; whether the next step is certain (:attr:`step`)."""
        self.decide(Decision.STAND)
        return self._advance()

    def players_done(self) -> bool:
        """Whether the players' turn is over with the layout's last hand, none passed over
        after the last one played (the station turns to the dealer's hand next)."""
        hands = sum(len(self.turn.hands[seat]) for seat in self.turn.seats)
        return self.step is None and self._at == hands - 1

    def _place(self) -> int:
        """The acting hand's place in the layout order (seat by seat, hand by hand)."""
        turn = self.turn
        place = 0
        for seat in turn.seats[: turn.seat_index]:
            place += len(turn.hands[seat])
        return place + turn.hand_index

    def _advance(self) -> bool:
        before = self._at
        step = self.turn.next_step()
        self.step = step
        if step is None:
            return False  # the dealer's turn: the station reveals, draws or settles
        self._at = self._place()
        # The same hand or the next one on the layout: a hand the turn passed over (a
        # blackjack, which a PA table pays when play reaches it) may bring a prompt.
        return self._at - before <= 1


def play_out_players(dealing: Any, view: TableView, after: Device | None = None) -> bool:
    """Deal the players' turn from ``view`` on while each next step is certain (see the
    module docstring); False, with nothing done, when ``view`` is not a player's decision
    or card that :class:`TurnOnLayout` agrees with. ``dealing``: the
    :class:`~controller.simulation.dealing.Dealing` whose side, pacer and dealer act;
    ``after``: the device this look acted on last (delivered before the other acts)."""
    dealer = dealing.dealer
    if dealer.profile is None or view.state is not State.PLAYERS:
        return False
    try:
        layout = TurnOnLayout(dealer.profile, view)
    except ValueError:
        return False
    if not layout.agrees_with(view):
        return False
    last = after

    def switch_to(device: Device) -> bool:
        # The other device's reports are on the station's queue before this one acts.
        nonlocal last
        if last is not None and last != device and not dealing.deliver(last):
            return False
        last = device
        return True

    while True:
        step = layout.step
        if isinstance(step, NeedDecision):
            hand = layout.hand_view()
            decision = dealer.choose(hand, layout.up, step.legal)
            if decision is Decision.HIT:
                if not switch_to("shoe"):
                    return True
                layout.decide(decision)
            else:
                if not switch_to("panel"):
                    return True
                for action in dealer.signal_actions(hand, decision):
                    dealing.perform(action, view)
                if decision is not Decision.STAND:
                    return True  # a double, split, surrender, rescue: the station prompts
                if not layout.stand():
                    break
                continue
        elif not switch_to("shoe"):
            return True
        card = dealing.draw_card(view)
        if card is None:
            return True
        if not layout.card(card):
            break
    # PA 635a.7(k), NY 5324.12(c)(7): the players' decisions implemented, the dealer turns
    # her hole card over (the station asks the shoe for it); only when the turn ended on
    # the layout's last hand: a hand passed over may still be settled first.
    if layout.players_done() and view.hole_face_down and switch_to("panel"):
        dealing.reveal(view)
    return True


def players_follow(view: TableView) -> bool:
    """Whether the players' turn follows the Match the Dealer settlements of ``view`` with
    nothing between: an up card of 2 to 9 (no insurance, PA 635a.8; no peek, 635a.7(g)) and
    no blackjack on the layout (PA 635a.7(h)(1)(i) pays one when play reaches it). The
    round already waits for the first player's signal (``view.acting_seat``, ``legal``)."""
    if view.state is not State.MATCH or view.acting_seat is None or not view.dealer_cards:
        return False
    if not 2 <= parse_card(view.dealer_cards[0]).points <= 9:
        return False
    return all(h.status != "blackjack" for h in view.hands)
