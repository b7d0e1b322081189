"""What one table knows, in one place: :class:`TableState`, the model of the shared
procedure machine (``controller.table.machine``).

Every part of the procedure is handed this object and nothing else of the others: the
flow of the round (``controller.table.procedure.Table``), the hole card and the peek
(``controller.table.hole_steps.HoleCardSteps``) and the supervision
(``controller.table.supervision.Supervision``). Its fields are set here and nowhere else
is one added; the machine's triggers are its typed methods (``machine.Triggers``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from controller.rules.cards import Card
from controller.rules.profiles import DealerSecondCard, Profile
from controller.rules.settlement import Payment
from controller.table.betting import BettingBook
from controller.table.faults import Fault
from controller.table.machine import Recorder, TableDevices, TableSettings, Triggers
from controller.table.play import RoundPlay
from controller.table.prompts import Prompt, State, prompt_for
from controller.table.recovery import JournalledRow
from controller.table.shoe_count import ShoeCount
from controller.table.view import HandViews
from drivers.hal import DeviceKind, Led, LedMode

if TYPE_CHECKING:
    from controller.table.supervision import Supervision


class TableState(Triggers):
    """One table's state (see the module docstring). ``entered`` is called after each
    change of :attr:`state` (the machine's ``after_state_change``)."""

    state: State

    def __init__(
        self,
        settings: TableSettings,
        devices: TableDevices,
        journal: Recorder,
        nonces: Callable[[], str],
    ) -> None:
        self.settings = settings
        self.devices = devices
        self.journal = journal
        self.nonces = nonces  # hole-card commitment nonces (controller.table.holecard)
        profile = settings.profile
        self.book = BettingBook(
            no_mid_shoe_entry=profile.no_mid_shoe_entry,
            limits=settings.limits,
            match_offered=profile.match_the_dealer,
        )
        self.play: RoundPlay | None = None
        # A round found open at a restart that cannot be rebuilt (its hole card was sealed):
        # it can only be voided, and its rows keep its number until then.
        self.unbuilt_round: int | None = None
        self.unbuilt_rows: list[JournalledRow] = []
        self.round_no = 0
        self.fault: Fault | None = None
        self.resume_to: State | None = None
        self.supervisor_key = False
        self.reshuffle_pending = False
        self.burn_reason = "load"
        self.last_burn: Card | None = None
        self.drawn: Counter[Card] = Counter()
        self.lost: set[DeviceKind] = set()
        self.peek_tries = 0
        self.settle_queue: list[Payment] = []
        self.lamps: dict[Led, LedMode] = {}
        #: The snapshots' view of each hand (``controller.table.view.table_view``).
        self.hand_views = HandViews()
        #: Hole cards of voided rounds still in the shoe: commitment -> round number. The
        #: shoe is asked for them at the void so that the journal accounts for every card.
        self.voided_holes: dict[str, int] = {}
        self.entered: Callable[[], None] = lambda: None
        #: The shoe's count as journaled (``controller.table.shoe_count``).
        self.shoe_count = ShoeCount()

    @property
    def profile(self) -> Profile:
        """The table's jurisdiction profile."""
        return self.settings.profile

    @property
    def prompt(self) -> Prompt:
        """What the panel prompts now, for this table's procedure (NJ 19.7(g): no hole card)."""
        return prompt_for(self.state, self.profile.dealer_second_card is DealerSecondCard.HOLE)

    def record(self, kind: str, **data: Any) -> None:
        """Journal a row: of the round in play (or the unbuilt one), else of no round."""
        in_round = self.play is not None or self.unbuilt_round is not None
        self._append(kind, data, self.round_no if in_round else None)

    def record_round(self, kind: str, data: Any) -> None:
        """Journal a row of the round numbered now (the round in play's rows)."""
        self._append(kind, data, self.round_no)

    def _append(self, kind: str, data: Any, round_no: int | None) -> None:
        self.journal.append(kind, data, round_no)
        self.shoe_count.read(kind, data)  # as recovery will read the row back

    def _entered(self, *_: object, **__: object) -> None:
        # The machine's after_state_change (a resume's ``to`` comes along: not needed).
        self.entered()


class TablePart:
    """A part of the procedure that a round's event hands on (the shoe's steps, the hole
    card's): handed the table's state, its supervision, and the flow's ``follow_round``,
    which moves the table to the state the round's next step belongs to."""

    def __init__(
        self, t: TableState, supervision: Supervision, follow_round: Callable[[], None]
    ) -> None:
        self.t = t
        self.supervision = supervision
        self.follow_round = follow_round
