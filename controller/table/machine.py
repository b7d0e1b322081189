"""The procedure's state machine: states, transitions and the table's collaborators.

Built once (``shared_machine``) and shared by every :class:`~controller.table.procedure.Table`;
``dealer-station diagram`` draws it from :data:`TRANSITIONS`.
"""

from __future__ import annotations

from collections.abc import Mapping
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
    *({"trigger": f"resume_{s.value}", "source": State.FAULT, "dest": s} for s in _RESUMABLE),
]

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
        )
    return _MACHINE
