"""The procedure's state machine: states, transitions and the table's collaborators.

Built once (``shared_machine``) and shared by every table's state
(:class:`~controller.table.state.TableState`, the machine's model); ``dealer-station
diagram`` draws it from :data:`TRANSITIONS`. Each trigger is a method :class:`Triggers`
declares (the machine binds only those, ``model_override=True``), so every move of the
procedure is a typed call that grep and mypy follow; ``tests/test_table_machine.py`` holds
the declarations and :data:`TRANSITIONS` to each other.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, cast

from transitions import Machine

from controller.rules.profiles import Profile
from controller.table.limits import NO_LIMITS, TableLimits
from controller.table.prompts import State
from drivers.hal import CardReader, DealerPanel, Device, DeviceKind, ShoeSensor, Shuffler


class Recorder(Protocol):
    """Where the table writes its journal; ``append`` returns once the row is committed."""

    def append(self, kind: str, data: Mapping[str, Any], round_no: int | None = None) -> int:
        """Commit one journal row and return its id."""
        ...


@dataclass(frozen=True, slots=True)
class TableDevices:
    """The devices the procedure commands."""

    shuffler: Shuffler | None  # None: the dealer shuffles by hand and presses NEXT
    panel: DealerPanel
    reader: CardReader | None = None
    #: The shoe, for the withheld hole card; None: a shoe that reports it like any card
    #: (the table then seals it itself, as in unit tests and the direct simulation).
    shoe: ShoeSensor | None = None

    @classmethod
    def of(cls, drivers: Mapping[DeviceKind, Device]) -> TableDevices:
        """The devices the procedure commands among ``drivers`` (by kind); a device that
        only reports (the procedure commands nothing of it) is not among them."""
        return cls(
            shuffler=cast(Shuffler | None, drivers.get(DeviceKind.SHUFFLER)),
            panel=cast(DealerPanel, drivers[DeviceKind.PANEL]),
            reader=cast(CardReader | None, drivers.get(DeviceKind.CARD_READER)),
            shoe=cast(ShoeSensor | None, drivers.get(DeviceKind.SHOE)),
        )


@dataclass(frozen=True, slots=True)
class TableSettings:
    """The table's rules and limits."""

    profile: Profile
    decks: int
    peek_tries: int = 3  # reader answers "no card"/"read error" this often before a fault
    limits: TableLimits = NO_LIMITS  # the posted table limits (NY 5324.12(d)(2))


ROUND_STATES = [
    State.DEALING,
    State.MATCH,
    State.INSURANCE,
    State.PEEKING,
    State.PLAYERS,
    State.SETTLE_NOW,
    State.DEALER,
]
_RESUMABLE = [s for s in State if s not in (State.STARTING, State.FAULT)]


def _resumes_to(state: State) -> Callable[..., bool]:
    """The condition of the resume to ``state``: the trigger's ``to`` names it."""

    def condition(*_: object, to: State) -> bool:
        return to is state

    return condition


TRANSITIONS: list[dict[str, Any]] = [
    {"trigger": "start", "source": State.STARTING, "dest": State.SHUFFLING},
    {"trigger": "shuffled", "source": State.SHUFFLING, "dest": State.LOADING},
    {"trigger": "loaded", "source": State.LOADING, "dest": State.BURNING},
    {"trigger": "burned", "source": State.BURNING, "dest": State.BETTING},
    {"trigger": "new_dealer", "source": State.BETTING, "dest": State.BURNING},
    {"trigger": "bets_closed", "source": State.BETTING, "dest": State.DEALING},
    {"trigger": "match_due", "source": State.DEALING, "dest": State.MATCH},
    {"trigger": "insurance_due", "source": [State.DEALING, State.MATCH], "dest": State.INSURANCE},
    {
        "trigger": "peek_due",
        "source": [State.DEALING, State.MATCH, State.INSURANCE],
        "dest": State.PEEKING,
    },
    # PA 635a.7(g), (h)(1)(i), a surrender or a rescue: settled before play goes on.
    {
        "trigger": "settle_now_due",
        "source": [s for s in ROUND_STATES if s is not State.SETTLE_NOW],
        "dest": State.SETTLE_NOW,
    },
    {"trigger": "players_due", "source": ROUND_STATES[:-1], "dest": State.PLAYERS},
    {"trigger": "dealer_due", "source": ROUND_STATES[:-1], "dest": State.DEALER},
    {"trigger": "settle_due", "source": [State.DEALER, State.SETTLE_NOW], "dest": State.SETTLING},
    {"trigger": "round_done", "source": State.SETTLING, "dest": State.BETTING},
    {"trigger": "reshuffle_due", "source": State.SETTLING, "dest": State.SHUFFLING},
    {"trigger": "fail", "source": [s for s in State if s is not State.FAULT], "dest": State.FAULT},
    {"trigger": "void", "source": State.FAULT, "dest": State.BETTING},
    {"trigger": "reshuffle", "source": State.FAULT, "dest": State.SHUFFLING},
    # A supervisor's resume: back to the state the fault stopped (``resume(to=...)``).
    *(
        {"trigger": "resume", "source": State.FAULT, "dest": s, "conditions": _resumes_to(s)}
        for s in _RESUMABLE
    ),
]


class Triggers:
    """The machine's triggers, as methods of its model. ``shared_machine`` replaces each on
    a model it is given; calling one on a model it was not given is a bug."""

    def _unbound(self) -> bool:
        raise RuntimeError("a trigger of a table not added to the shared machine")

    def start(self) -> bool:
        """starting -> shuffling: the first shuffle is commanded."""
        return self._unbound()

    def shuffled(self) -> bool:
        """shuffling -> loading: the batch was shuffled (and counted)."""
        return self._unbound()

    def loaded(self) -> bool:
        """loading -> burning: the shoe is loaded."""
        return self._unbound()

    def burned(self) -> bool:
        """burning -> betting: the burn card is in the discard rack."""
        return self._unbound()

    def new_dealer(self) -> bool:
        """betting -> burning: a new dealer burns a card."""
        return self._unbound()

    def bets_closed(self) -> bool:
        """betting -> dealing: no more bets."""
        return self._unbound()

    def match_due(self) -> bool:
        """-> match: Match the Dealer is settled."""
        return self._unbound()

    def insurance_due(self) -> bool:
        """-> insurance: insurance is offered."""
        return self._unbound()

    def peek_due(self) -> bool:
        """-> peeking: the card reader is to be asked."""
        return self._unbound()

    def settle_now_due(self) -> bool:
        """-> settle_now: wagers settled before play goes on."""
        return self._unbound()

    def players_due(self) -> bool:
        """-> players: the players act."""
        return self._unbound()

    def dealer_due(self) -> bool:
        """-> dealer: the dealer's hand is played."""
        return self._unbound()

    def settle_due(self) -> bool:
        """-> settling: the final settlement."""
        return self._unbound()

    def round_done(self) -> bool:
        """settling -> betting: the next round's bets."""
        return self._unbound()

    def reshuffle_due(self) -> bool:
        """settling -> shuffling: the cover card came out."""
        return self._unbound()

    def fail(self) -> bool:
        """-> fault: play stops."""
        return self._unbound()

    def void(self) -> bool:
        """fault -> betting: the supervisor voided the round."""
        return self._unbound()

    def reshuffle(self) -> bool:
        """fault -> shuffling: the supervisor has the cards reshuffled."""
        return self._unbound()

    def resume(self, to: State) -> bool:
        """fault -> ``to``: the supervisor resumes where the fault stopped play."""
        return self._unbound()


class _DeclinedConveniences(logging.Filter):
    """Under ``model_override`` transitions warns of each convenience it does not bind to a
    model (``is_<state>``: a dozen lines per table). They are declined on purpose, so the
    station's log, which carries stdlib logging, does not repeat them at every start."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "due to model override policy" not in record.getMessage()


logging.getLogger("transitions.core").addFilter(_DeclinedConveniences())

_MACHINE: Machine | None = None


def shared_machine() -> Machine:
    """The one ``Machine`` every table is a model of (building one is the slow part)."""
    global _MACHINE  # noqa: PLW0603 - built once, on first use
    if _MACHINE is None:
        _MACHINE = Machine(
            model=None,
            states=State,
            initial=State.STARTING,
            transitions=TRANSITIONS,
            auto_transitions=False,
            after_state_change="_entered",
            model_override=True,
        )
    return _MACHINE
