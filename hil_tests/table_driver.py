"""The station under test, run in a thread, and a script-friendly way to act at its table.

:class:`RunningStation` builds the real station with ``controller.service.daemon.build_station``
(journal verified and recovered, the rig's drivers) and runs ``Station.run`` in a thread,
as the daemon does. :meth:`RunningStation.cut_power` ends it between two events without
the clean shutdown, as a power cut would (every committed row stays; nothing else is
written).

:class:`TableDriver` is what a scenario uses: load the shoe with an exact card sequence,
bet, press, deal, peek, call the supervisor. Every action says which events it will cause
and then waits, on the station's observer hook (``controller.simulation.pacer.Pacer``),
until the station has handled them and is idle. No sleeps anywhere.
"""

from __future__ import annotations

import queue
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rig_layer import Hands, Rig

from controller.journal.seal import VerificationKey
from controller.journal.store import Row, verify
from controller.journal.verify import VerifyCase
from controller.rules.cards import Card, parse_card
from controller.service import config as cfg
from controller.service.daemon import Built, build_station
from controller.simulation.pacer import Pacer
from controller.table.prompts import State
from controller.table.view import TableView
from drivers.hal import (
    Button,
    ButtonPressed,
    CardDrawn,
    CoverCardSeen,
    DeviceConnected,
    DeviceFault,
    DeviceLost,
    HoleCardDealt,
    HoleCardRevealed,
    PeekResult,
    SeatWagerChanged,
    ShoeEmpty,
    ShoeLoaded,
    SupervisorKey,
    WagerSpot,
)
from drivers.simulated.shoe import COVER

#: Long enough for any round trip through the doubles on a loaded 2-core machine.
SIM_WAIT = 10.0
#: A person at a real rig gets this long per step.
PERSON_WAIT = 600.0
_CARD = re.compile(r"[2-9AJQK][SHDC]")


class RigError(RuntimeError):
    """The rig cannot run a scenario (a device missing or refused at start)."""


class _PowerCut:
    """Put on the station's queue: the loop dies on it between two events."""


@dataclass
class RunningStation:
    """The real station in a thread (see the module docstring)."""

    config: cfg.StationConfig
    rig: Rig
    pacer: Pacer = field(default_factory=Pacer)
    built: Built | None = None
    crashed: bool = False
    _thread: threading.Thread | None = None
    _errors: queue.Queue[BaseException] = field(default_factory=queue.Queue)

    @property
    def journal_path(self) -> Any:
        """Where the journal is."""
        return self.config.journal.path

    def start(self) -> None:
        """Build the station (journal recovered) and start its loop; wait until every
        device has reported in and the station is idle."""
        self.built = build_station(
            self.config, self.rig.drivers_for(self.config), observer=self.pacer.observe
        )
        built = self.built
        # The loop notices stop() within one poll; the suite stops hundreds of stations.
        built.station.poll_seconds = 0.02
        seq = self.pacer.seq
        count = len(built.station.drivers)
        self.pacer.events = seen = []

        def settled(_view: TableView) -> bool:
            connected = sum(isinstance(e, DeviceConnected) for e in seen)
            return connected >= count or any(isinstance(e, DeviceLost | DeviceFault) for e in seen)

        self._thread = threading.Thread(target=self._serve, name="station", daemon=True)
        self._thread.start()
        try:
            self.pacer.until(settled, seq, self.wait_seconds)
        finally:
            self.pacer.events = None
        missing = [e for e in seen if isinstance(e, DeviceLost | DeviceFault)]
        if missing:
            self.stop()
            raise RigError(f"the rig's devices did not all come up: {missing}")

    @property
    def wait_seconds(self) -> float:
        """How long an action may take."""
        return SIM_WAIT if self.rig.name == "sim" else PERSON_WAIT

    def _serve(self) -> None:
        assert self.built is not None
        try:
            self.built.station.run()
        except TypeError as err:
            if "_PowerCut" not in str(err):
                self._errors.put(err)
        except BaseException as err:  # handed to the test's thread
            self._errors.put(err)
        finally:
            self.built.journal.close()
            self.built.table.close()

    def stop(self) -> None:
        """Clean shutdown (the station journals it), then re-raise anything the loop hit."""
        if self.built is None or self._thread is None:
            return
        self.built.station.stop()
        self._join()

    def cut_power(self) -> None:
        """End the loop between two events, without the clean shutdown."""
        assert self.built is not None
        self.pacer.forget()
        self.crashed = True
        self.built.station.events.put(_PowerCut())  # type: ignore[arg-type]
        self._join()

    def _join(self) -> None:
        assert self._thread is not None
        self._thread.join(self.wait_seconds)
        if self._thread.is_alive():
            raise AssertionError("the station's loop did not end")
        self._thread = None
        if not self._errors.empty():
            raise self._errors.get()

    @property
    def running(self) -> bool:
        """Whether the loop runs."""
        return self._thread is not None


class _Expectation:
    def __init__(self, table: TableDriver, kinds: Sequence[type]) -> None:
        self.table, self.kinds = table, kinds

    def __enter__(self) -> None:
        self.seq = self.table.pacer.seq
        self.table.pacer.expect(*self.kinds)

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        if kind is None:
            self.table.pacer.wait(self.seq, self.table.station.wait_seconds)


def rows_of(rows: Iterable[Row], *kinds: str) -> list[Row]:
    """The rows of these kinds (all rows when none is named)."""
    return [r for r in rows if not kinds or r.kind in kinds]


class TableDriver:
    """Acts at the table of a :class:`RunningStation` and waits for the station."""

    def __init__(self, station: RunningStation, hands: Hands) -> None:
        self.station = station
        self.hands = hands
        self.pacer = station.pacer
        self.shoe: list[Card | str] = []  # what the script loaded, still in the shoe
        self.dealt: list[Card] = []  # every card the script dealt, across loads
        self.hole: Card | None = None
        # What lies on each wager spot, in cents, as the sensors read it (docs/panel.md).
        self.chips: dict[tuple[int, WagerSpot], int] = {}

    # --- what the table shows ------------------------------------------------------------

    @property
    def view(self) -> TableView:
        """The table as the last event left it."""
        view = self.pacer.view
        assert view is not None, "the station has handled no event yet"
        return view

    @property
    def doubles(self) -> Any:
        """The rig's device doubles (``SimulatedRig``); only on the simulated rig."""
        return self.station.rig.doubles  # type: ignore[attr-defined]

    @property
    def fault(self) -> str:
        """The fault code shown, or ""."""
        return (self.view.fault or "").split(":")[0]

    def expect(self, *kinds: type) -> _Expectation:
        """``with t.expect(DeviceLost): unplug()``: act, then wait for those events."""
        return _Expectation(self, kinds)

    @property
    def state(self) -> State:
        """The procedure's state."""
        return self.view.state

    def rows(self, *kinds: str) -> list[Row]:
        """Committed journal rows (of these kinds)."""
        built = self.station.built
        assert built is not None
        return rows_of(built.journal.rows(), *kinds)

    def data(self, *kinds: str) -> list[dict[str, Any]]:
        """The data of the committed journal rows of these kinds."""
        return [dict(r.data) for r in self.rows(*kinds)]

    def wait_state(self, *states: State) -> TableView:
        """Wait until the table is idle in one of ``states``."""
        view, _ = self.pacer.until(lambda v: v.state in states, 0, self.station.wait_seconds)
        return view

    # --- acting ---------------------------------------------------------------------------

    def _act(self, kinds: Sequence[type], action: Any, *args: Any) -> Any:
        seq = self.pacer.seq
        self.pacer.expect(*kinds)
        result = action(*args)
        self.pacer.wait(seq, self.station.wait_seconds)
        return result

    def load(self, cards: str | Sequence[Card], cover_at: int | None = None) -> None:
        """Load exactly ``cards`` (texts separated by spaces, or cards), the cover card after
        ``cover_at`` of them."""
        if isinstance(cards, str):
            cards = [parse_card(t) for t in cards.split()]
        self.shoe = list(cards)
        if cover_at is not None:
            self.shoe.insert(cover_at, COVER)
        self._act([ShoeLoaded], self.hands.load, list(cards), cover_at)

    def ready(self, cards: str, cover_at: int | None = None) -> None:
        """From the load prompt: load ``cards`` and burn the first: betting opens."""
        self.wait_state(State.LOADING)
        self.load(cards, cover_at)
        self.deal()
        assert self.state is State.BETTING, self.view

    def deal(self, *texts: str, count: int = 0) -> None:
        """Deal cards from the shoe; each text must be what comes out (a check on the
        script). ``count``: deal that many without naming them."""
        for expected in list(texts) or [None] * max(count, 1):
            self._deal_one(expected)

    def _deal_one(self, text: str | None) -> None:
        covers = 0
        while self.shoe and self.shoe[0] == COVER:
            self.shoe.pop(0)
            covers += 1
        if not self.shoe:
            raise AssertionError("the script deals from an empty shoe")
        nxt = self.shoe.pop(0)
        assert isinstance(nxt, Card)
        if text is not None:
            assert nxt.text == text, f"the shoe's next card is {nxt.text}, the script says {text}"
        hole = self.view.hole_card_due
        kinds: list[type] = [CoverCardSeen] * covers + [HoleCardDealt if hole else CardDrawn]
        if not self.shoe:
            kinds.append(ShoeEmpty)
        state = self.state
        seq = self.pacer.seq
        self.pacer.expect(*kinds)
        for _ in range(covers):
            out = self.hands.deal(COVER)
            assert out == COVER, f"the shoe dealt {out}, the script expected the cover card"
        out = self.hands.deal(nxt, hole=hole)
        self.pacer.wait(seq, self.station.wait_seconds)
        assert out == nxt, f"the shoe dealt {out}, the script expected {nxt}"
        self.dealt.append(nxt)
        if state is State.DEALING:
            self.hole = nxt  # the last card of the initial deal is the hole card

    def press(self, button: Button = Button.NEXT, times: int = 1) -> None:
        """Press a button ``times`` times, waiting for the station after each."""
        for _ in range(times):
            peeking = self.state is State.PEEKING and button is Button.NEXT
            kinds: list[type] = [ButtonPressed, PeekResult] if peeking else [ButtonPressed]
            view = self.view
            if (
                self.state is State.DEALER
                and button is Button.NEXT
                and view.reveal_due
                and view.hole_in_shoe
            ):
                kinds.append(HoleCardRevealed)  # the station asks the shoe for it
            voiding = button in (Button.SUPERVISOR_VOID, Button.SUPERVISOR_RESHUFFLE)
            if self.state is State.FAULT and voiding and view.hole_in_shoe and self._key_on():
                kinds.append(HoleCardRevealed)  # asked for at the void, to be journaled
            self._act(kinds, self.hands.press, button)

    def bet(self, seat: int, cents: int | None = None, *, match: bool | int = False) -> None:
        """Chips on the seat's main spot (worth ``cents`` where the sensor reads values)
        and, with ``match``, on its Match the Dealer spot (``match`` cents, or any)."""
        self._wager(seat, WagerSpot.MAIN, cents)
        if match is not False:
            self._wager(seat, WagerSpot.MATCH, None if match is True else int(match))

    def _wager(self, seat: int, spot: WagerSpot, cents: int | None) -> None:
        if cents is not None:
            self.chips[seat, spot] = cents
        self._act([SeatWagerChanged], self.hands.place_wager, seat, spot, True, cents)

    def take_back(self, seat: int, spot: WagerSpot = WagerSpot.MAIN) -> None:
        """Chips off a spot."""
        self.chips.pop((seat, spot), None)
        self._act([SeatWagerChanged], self.hands.place_wager, seat, spot, False, None)

    def add_wager(self, seat: int, cents: int) -> None:
        """One more wager on the main spot (a double or a split, NY 5324.12(b)(9))."""
        self._wager(seat, WagerSpot.MAIN, self.chips.get((seat, WagerSpot.MAIN), 0) + cents)

    def settle(self) -> None:
        """Move the chips of the settlement the panel prompts, as a dealer does (collect:
        the spot empties; pay: wager plus win on the spot; docs/panel.md), then NEXT."""
        settling = self.view.settling
        if settling is not None and settling.net_cents:
            seat, spot = settling.seat, WagerSpot(settling.spot)
            left = self.chips.get((seat, spot), 0) + settling.net_cents
            if left > 0:
                self._wager(seat, spot, left)
            else:
                self.take_back(seat, spot)
        self.press()

    def insure(self, seat: int, cents: int | None = None) -> None:
        """Chips on the seat's insurance spot."""
        self._wager(seat, WagerSpot.INSURANCE, cents)

    def peek(self, card: Card | None = None) -> None:
        """Slide the hole card (or ``card``) into the reader and press NEXT."""
        self.hands.insert_hole_card(card or self.hole)
        self.press()

    def _key_on(self) -> bool:
        return bool(self.station.built.table.t.supervisor_key)

    def supervisor(self, resolution: Button) -> None:
        """Key on, a resolution button, key off."""
        self._act([SupervisorKey], self.hands.turn_key, True)
        self.press(resolution)
        self._act([SupervisorKey], self.hands.turn_key, False)

    def settle_all(self) -> None:
        """Settle every prompted seat (Match the Dealer, at once, or final), chips and NEXT."""
        while self.state in (State.SETTLING, State.MATCH, State.SETTLE_NOW):
            self.settle()

    def finish(self) -> None:
        """Stop the station cleanly and check the journal's chain."""
        self.station.stop()
        report = verify(self.station.journal_path)
        assert report.ok, report.message


def restart(station: Any, t: TableDriver, *, power_cut: bool) -> TableDriver:
    """Stop the station (a power cut: no clean shutdown; else SIGTERM's clean stop) and
    start it again on the same journal and the same devices (the shoe keeps its hole card,
    as its flash does); the script's knowledge of the shoe and the chips carries over."""
    if power_cut:
        t.station.cut_power()
    else:
        t.station.stop()
    return start_again(station, t)


def start_again(station: Any, t: TableDriver) -> TableDriver:
    """A new station on the journal and the devices of ``t``'s, which has stopped."""
    again: TableDriver = station("PA", journal=t.station.journal_path, rig=t.station.rig)
    again.shoe, again.dealt, again.hole, again.chips = t.shoe, t.dealt, t.hole, t.chips
    return again


def start_once_more(station: Any, t: TableDriver, key: VerificationKey) -> None:
    """How every recovery test ends: stop cleanly, start again on the journal (a refusal
    fails the test), stop; every seal and checkpoint checks out with the verification key."""
    journal = t.station.journal_path
    t.finish()
    again = restart(station, t, power_cut=False)
    # Accepted: the table as it stood (a round left open comes back to be resumed).
    assert again.fault in ("", "recovered_mid_round"), again.view.fault
    again.finish()
    report = verify(journal, key=key)
    assert report.case is VerifyCase.INTACT, report.message


def card_due(view: TableView) -> bool:
    """Whether the table waits for a card out of the shoe (initial deal, a hit or a doubled
    hand's card, the dealer's draw)."""
    state = view.state
    return bool(
        state is State.DEALING
        or (state is State.DEALER and not view.reveal_due)
        or (state is State.PLAYERS and view.card_due)
    )


def card_texts(rows: Iterable[Row]) -> list[str]:
    """Every card the journal places, burns, rejects or reveals, in order (descriptions of
    foreign or unreadable cards left out)."""
    return [
        str(r.data["card"])
        for r in rows
        if r.kind in ("burn", "card", "hole_card_revealed") and _CARD.fullmatch(r.data["card"])
    ]


__all__ = [
    "RunningStation",
    "TableDriver",
    "card_due",
    "card_texts",
    "restart",
    "rows_of",
    "start_again",
    "start_once_more",
]
