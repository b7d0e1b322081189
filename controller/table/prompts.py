"""The dealer panel's prompts: one table from procedure state to lamps and live buttons.

``docs/panel.md`` is generated from :data:`PROMPTS` (``dealer-station diagram --panel``),
so the code and the document cannot drift apart. A button that is not live in a state does
nothing but log. Per-seat prompts add the seat's lamp to the state's pattern: blinking for
the seat to act, steady with PAY / COLLECT / PUSH / BONUS while it is settled.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Final

from controller.rules.settlement import Payment
from drivers.hal import Button, Led, LedMode

OFF, STEADY, BLINK = LedMode.OFF, LedMode.STEADY, LedMode.BLINK


class State(Enum):
    """The procedure's states."""

    STARTING = "starting"
    SHUFFLING = "shuffling"
    LOADING = "loading"
    BURNING = "burning"
    BETTING = "betting"
    DEALING = "dealing"
    MATCH = "match"
    INSURANCE = "insurance"
    PEEKING = "peeking"
    PLAYERS = "players"
    SETTLE_NOW = "settle_now"
    DEALER = "dealer"
    SETTLING = "settling"
    FAULT = "fault"


SUPERVISOR_BUTTONS: Final = frozenset(
    {Button.SUPERVISOR_RESUME, Button.SUPERVISOR_VOID, Button.SUPERVISOR_RESHUFFLE}
)
DECISION_BUTTONS: Final = frozenset(
    {Button.NEXT, Button.DOUBLE, Button.SPLIT, Button.SURRENDER, Button.RESCUE}
)


@dataclass(frozen=True, slots=True)
class Prompt:
    """What the panel shows in a state and which buttons act there."""

    text: str
    lamps: Mapping[Led, LedMode]
    buttons: frozenset[Button] = field(default_factory=frozenset)


PROMPTS: Final[Mapping[State, Prompt]] = {
    State.STARTING: Prompt("station starting: checking journal and devices", {Led.FAULT: BLINK}),
    State.SHUFFLING: Prompt(
        "shuffle in progress (by hand, where no shuffler is fitted: NEXT when done)",
        {Led.SHUFFLE: BLINK},
        frozenset({Button.NEXT}),
    ),
    State.LOADING: Prompt("load the shuffled batch into the shoe", {Led.LOAD: BLINK}),
    State.BURNING: Prompt("burn one card to the discard rack", {Led.BURN: BLINK}),
    State.BETTING: Prompt(
        "betting open: press NEXT for no more bets",
        {Led.BETS: STEADY},
        frozenset({Button.NEXT, Button.DEALER_CHANGE, Button.DISCLOSE_BURN}),
    ),
    State.DEALING: Prompt("deal the initial cards", {Led.DEAL: STEADY}),
    State.MATCH: Prompt(
        "settle Match the Dealer from the right: NEXT after each seat",
        {Led.DEAL: STEADY, Led.BONUS: BLINK},
        frozenset({Button.NEXT}),
    ),
    State.INSURANCE: Prompt(
        "insurance open: press NEXT to close", {Led.INSURANCE: BLINK}, frozenset({Button.NEXT})
    ),
    State.PEEKING: Prompt(
        "slide the hole card face down into the reader, then NEXT",
        {Led.PEEK: BLINK},
        frozenset({Button.NEXT}),
    ),
    State.PLAYERS: Prompt(
        "player to act: draw a card to hit, or NEXT to stand", {Led.DEAL: STEADY}, DECISION_BUTTONS
    ),
    State.SETTLE_NOW: Prompt(
        "settle the lit seat now (insurance, blackjack, surrender, rescue): NEXT after each",
        {Led.DEAL: STEADY},
        frozenset({Button.NEXT}),
    ),
    State.DEALER: Prompt(
        "dealer's turn: turn the hole card (NEXT) and draw",
        {Led.DEALER: BLINK},
        frozenset({Button.NEXT}),
    ),
    State.SETTLING: Prompt(
        "settle each seat from the right: NEXT after each",
        {Led.DEALER: STEADY},
        frozenset({Button.NEXT}),
    ),
    State.FAULT: Prompt(
        "FAULT: call the supervisor; key on, then resume / void / reshuffle",
        {Led.FAULT: BLINK},
        SUPERVISOR_BUTTONS,
    ),
}

#: The prompts that differ where the dealer's second card is dealt face up after the
#: players (NJ 19.7(g): no hole card; the dealer announces "Dealer's Card" first).
NO_HOLE_CARD_PROMPTS: Final[Mapping[State, Prompt]] = {
    State.DEALER: Prompt(
        "dealer's turn: deal the dealer's second card face up (NJ 19.7(g): say"
        ' "Dealer\'s Card" first), then draw',
        {Led.DEALER: BLINK},
        frozenset(),
    ),
}


def prompt_for(state: State, hole_card: bool) -> Prompt:
    """The prompt of ``state`` at a table that deals a hole card (``hole_card``) or not."""
    if not hole_card:
        variant = NO_HOLE_CARD_PROMPTS.get(state)
        if variant is not None:
            return variant
    return PROMPTS[state]


#: The states that prompt one settlement at a time (seat lamp + PAY / COLLECT / PUSH / BONUS).
SETTLE_STATES: Final = frozenset({State.MATCH, State.SETTLE_NOW, State.SETTLING})

#: Lamp lit with the seat lamp while a seat is settled, by the settle prompt's word.
SETTLE_LAMPS: Final = {"pay": Led.PAY, "collect": Led.COLLECT, "push": Led.PUSH, "bonus": Led.BONUS}


def settle_word(payment: Payment) -> str:
    """The settle prompt's word for ``payment`` (a key of :data:`SETTLE_LAMPS`): ``bonus``
    for a bonus or super bonus, else the outcome's own word."""
    return "bonus" if payment.bonus or payment.super_bonus else payment.outcome.prompt


def panel_table_markdown() -> str:
    """The prompt table as Markdown, for ``docs/panel.md``."""
    lines = [
        "| state | prompt | lamps | live buttons |",
        "|---|---|---|---|",
    ]
    rows = [(state.value, prompt) for state, prompt in PROMPTS.items()]
    rows += [
        (f"{state.value} (no hole card: NJ 19.7(g))", prompt)
        for state, prompt in NO_HOLE_CARD_PROMPTS.items()
    ]
    for name, prompt in rows:
        lamps = ", ".join(f"{led.value} {mode.value}" for led, mode in prompt.lamps.items())
        buttons = ", ".join(sorted(b.value for b in prompt.buttons)) or "none"
        lines.append(f"| {name} | {prompt.text} | {lamps} | {buttons} |")
    return "\n".join(lines) + "\n"
