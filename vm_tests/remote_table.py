"""The project's simulated dealer playing the station inside the guest.

``dealer-station simulate`` runs :class:`controller.simulation.runner.SimulatedTable`: a
simulated dealer acts on the device doubles and a :class:`Pacer` keeps it in step with the
station's main loop through the station's ``observer`` hook. Here the station is the
installed daemon inside the VM, so both ends are remote:

* the pacer is fed from the daemon's debug log (``log_view`` in
  ``controller/service/daemon.py``: each event handled, by kind, and the public table view
  when the queue is idle), read from the guest's journald through the agent;
* :class:`RemoteRig` has the rig's interface and acts on the host's device doubles (the
  doubles process's control socket) and on the reader gadget in the guest.

The dealing loop is the runner's own (``SimulatedTable._deal``), not a copy.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from vm import GuestError, Vm

from controller.rules.cards import Card, parse_card
from controller.rules.profiles import get_profile
from controller.simulation.dealer import Action, LoadShoe, SimulatedDealer
from controller.simulation.runner import SimulatedTable, SimulationSettings, strategy_players
from controller.table.prompts import State
from controller.table.view import TableView, view_from_record
from drivers import hal
from drivers.hal import Button, WagerSpot
from drivers.simulated.serve_client import DoublesClient


class _RemoteShoe:
    def __init__(self, doubles: DoublesClient) -> None:
        self.doubles = doubles

    def deal(self, *, hole: bool = False) -> Card | str | None:
        item = self.doubles.call("shoe", "deal", hole=hole)
        return parse_card(item) if item not in (None, "cover") else item

    def load_shuffled(self, decks: int = 6, seed: int = 0, cover_at: int | None = None) -> None:
        self.doubles.call("shoe", "load_shuffled", decks=decks, seed=seed, cover_at=cover_at)


class _RemoteReader:
    def __init__(self, vm: Vm) -> None:
        self.vm = vm

    def set_hole_card(self, card: Card | None) -> None:
        self.vm.reader("set_hole_card", None if card is None else card.text)


class RemoteRig:
    """The rig interface the runner's dealer uses, on the host's doubles and the guest."""

    def __init__(self, doubles: DoublesClient, vm: Vm) -> None:
        self.doubles = doubles
        self.shoe = _RemoteShoe(doubles)
        self.card_reader = _RemoteReader(vm)

    def press(self, button: Button) -> None:
        self.doubles.call("panel", "press", button.value)

    def turn_key(self, on: bool) -> None:
        self.doubles.call("panel", "turn_key", on)

    def place_wager(
        self, seat: int, spot: WagerSpot, present: bool = True, cents: int | None = None
    ) -> None:
        self.doubles.call("panel", "place_wager", seat, spot.value, present, cents)


def _event_of(kind: str) -> Any:
    """An instance of the event class named ``kind``, for the pacer's isinstance checks
    (the log names the kind; the event's fields stay in the guest)."""
    cls = getattr(hal, kind)
    return cls.__new__(cls)


class LogFeed:
    """Feeds a pacer from the daemon's debug log in the guest, in a thread."""

    def __init__(self, vm: Vm, since: int, observe: Callable[[Any, TableView | None, bool], None]):
        self.vm = vm
        self.next = since
        self.observe = observe
        self.entries: list[dict[str, Any]] = []
        self.error: BaseException | None = None
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="log-feed", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                reply = self.vm.call("log_batch", timeout=5.0, since=self.next)
                for entry in reply["entries"]:
                    self.entries.append(entry)
                    line = entry.get("station")
                    if isinstance(line, dict) and line.get("event") == "event handled":
                        record = line.get("view")
                        view = view_from_record(record) if record else None
                        self.observe(_event_of(line["kind"]), view, view is not None)
                with self._cond:
                    self.next = int(reply["next"])
                    self._cond.notify_all()
        except (GuestError, OSError) as err:
            self.error = err

    def wait_past(self, index: int, timeout: float = 60.0) -> None:
        """Wait until every entry up to ``index`` has reached the pacer.

        Raises:
            TimeoutError: not within ``timeout`` seconds.
        """
        with self._cond:
            if not self._cond.wait_for(lambda: self.next > index, timeout):
                raise TimeoutError(f"log entry {index} not fed within {timeout} s")

    def stop(self) -> None:
        """Stop feeding (the thread ends after its current request)."""
        self._stop.set()
        self._thread.join(30)


class Reached(Exception):  # noqa: N818 (a signal, not an error)
    """The view the caller was waiting for came."""


class RemoteTable(SimulatedTable):
    """The runner's dealing loop against the station in the guest (module docstring)."""

    def __init__(
        self, vm: Vm, doubles: DoublesClient, settings: SimulationSettings, cover_at: int
    ) -> None:
        super().__init__(settings, on_view=self._watch)
        self.cover_at = cover_at
        self.rig = RemoteRig(doubles, vm)  # type: ignore[assignment]
        self.table_profile = get_profile(settings.profile)
        self.views: list[TableView] = []
        self.cover_seen = False
        self._until: Callable[[TableView], bool] = self.shoe_dealt
        self._dealer: SimulatedDealer | None = None

    def shoe_dealt(self, view: TableView) -> bool:
        """The cover card came out and its round ended: the table shuffles again."""
        return self.cover_seen and view.state in (State.SHUFFLING, State.LOADING)

    def _perform(self, action: Action, view: TableView) -> None:
        """As the runner, with the cover card ``cover_at`` cards into the shoe (where the
        dealer cuts decides how many rounds a shoe lasts)."""
        if isinstance(action, LoadShoe):
            self.pacer.expect(hal.ShoeLoaded)
            seed = self.rng.randrange(1 << 30)
            self.rig.shoe.load_shuffled(self.settings.decks, seed=seed, cover_at=self.cover_at)
            return
        super()._perform(action, view)

    def _watch(self, view: TableView) -> None:
        self.views.append(view)
        if view.reshuffle_pending:
            self.cover_seen = True
        if self._until(view):
            raise Reached

    def play_until(self, until: Callable[[TableView], bool] | None = None) -> TableView:
        """Deal from wherever the table stands until ``until(view)`` holds (default: the
        shoe is dealt out); returns that view."""
        if self._dealer is None:  # one dealer for the whole test: it remembers the chips
            self._dealer = SimulatedDealer(
                tuple(range(1, self.settings.seats + 1)),
                strategy_players(self.table_profile),
                self.rng,
                dealer_change_every=25,
            )
        self._until = until or self.shoe_dealt
        try:
            self._deal(self._dealer, None)
        except Reached:
            return self.views[-1]
        raise AssertionError("the dealing loop ended without reaching the view")
