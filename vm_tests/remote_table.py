"""The project's simulated dealer playing the station inside the guest.

``dealer-station simulate`` runs :class:`controller.simulation.runner.SimulatedTable`: a
simulated dealer acts on the device doubles and a :class:`Pacer` keeps it in step with the
station's main loop through the station's ``observer`` hook. Here the station is the
installed daemon inside the VM, so both ends are remote:

* the pacer is fed from the daemon's debug log (``log_view`` in
  ``controller/service/daemon.py``: each event handled, by kind, and the public table view
  when the queue is idle), read from the guest's journald through the agent;
* :class:`RemoteSide` is the dealer's table side
  (``controller.simulation.table_side.TableSide``): it acts on the host's device doubles (the
  doubles process's control socket) and on the reader gadget in the guest.

The dealing loop is the runner's own (``controller.simulation.dealing.Dealing``), not a
copy.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from vm import GuestError, Vm

from controller.rules.cards import Card, parse_card
from controller.rules.profiles import get_profile
from controller.simulation.dealing import Dealing
from controller.simulation.pacer import STUCK_SECONDS, Pacer
from controller.simulation.runner import SimulationSettings, dealing_plan
from controller.simulation.table_side import Pluggable
from controller.table.prompts import State
from controller.table.view import TableView, view_from_record
from drivers import hal
from drivers.hal import Button, WagerSpot
from drivers.simulated.serve_client import DoublesClient


class RemoteSide:
    """The dealer's table side (``controller.simulation.table_side.TableSide``) on the host's
    doubles (their control socket) and the reader gadget in the guest; the cover card
    ``cover_at`` cards into the shoe (where the dealer cuts decides how many rounds a shoe
    lasts)."""

    def __init__(self, doubles: DoublesClient, vm: Vm, cover_at: int) -> None:
        self.doubles = doubles
        self.vm = vm
        self.cover_at = cover_at

    def draw(self, hole: bool) -> Card | str | None:
        item = self.doubles.call("shoe", "deal", hole=hole)
        return parse_card(item) if item not in (None, "cover") else item

    def draw_foreign(self, suit: str) -> None:
        self.doubles.call("shoe", "deal_ten", suit)

    def press(self, button: Button) -> None:
        self.doubles.call("panel", "press", button.value)

    def turn_key(self, on: bool) -> None:
        self.doubles.call("panel", "turn_key", on)

    def place_wager(self, seat: int, spot: WagerSpot, present: bool, cents: int | None) -> None:
        self.doubles.call("panel", "place_wager", seat, spot.value, present, cents)

    def load_shoe(self, decks: int, seed: int, cover_at: int) -> None:
        self.doubles.call("shoe", "load_shuffled", decks=decks, seed=seed, cover_at=self.cover_at)

    def insert_hole_card(self, card: Card | None) -> None:
        self.vm.reader("set_hole_card", None if card is None else card.text)

    def wait_idle(self, device: Pluggable, timeout: float) -> bool:
        raise NotImplementedError("no injected faults in the guest run")

    def unplug(self, device: Pluggable) -> None:
        raise NotImplementedError("no injected faults in the guest run")

    def plug(self, device: Pluggable) -> None:
        raise NotImplementedError("no injected faults in the guest run")

    def misread(self) -> None:
        raise NotImplementedError("no injected faults in the guest run")

    def deliver(self, device: str, timeout: float) -> bool:
        return bool(self.doubles.call(device, "deliver", timeout))

    def holding(self) -> AbstractContextManager[None]:
        # Each control-socket call is answered once the double has acted: nothing to hold
        # (the doubles process sends each report as it is made).
        return nullcontext()


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


class RemoteTable:
    """The runner's dealing loop against the station in the guest (module docstring)."""

    def __init__(
        self,
        vm: Vm,
        doubles: DoublesClient,
        settings: SimulationSettings,
        cover_at: int,
        stuck_seconds: float = STUCK_SECONDS,
    ) -> None:
        self.settings = settings
        self.pacer = Pacer(stuck_seconds)
        self.table_profile = get_profile(settings.profile)
        # One dealer for the whole test: it remembers the chips.
        self.dealing = Dealing(
            dealing_plan(settings),
            self.table_profile,
            RemoteSide(doubles, vm, cover_at),
            self.pacer,
            on_view=self._watch,
        )
        self.views: list[TableView] = []
        self.cover_seen = False
        self._until: Callable[[TableView], bool] = self.shoe_dealt

    def shoe_dealt(self, view: TableView) -> bool:
        """The cover card came out and its round ended: the table shuffles again."""
        return self.cover_seen and view.state in (State.SHUFFLING, State.LOADING)

    def _watch(self, view: TableView) -> None:
        self.views.append(view)
        if view.reshuffle_pending:
            self.cover_seen = True
        if self._until(view):
            raise Reached

    def play_until(self, until: Callable[[TableView], bool] | None = None) -> TableView:
        """Deal from wherever the table stands until ``until(view)`` holds (default: the
        shoe is dealt out); returns that view."""
        self._until = until or self.shoe_dealt
        try:
            self.dealing.deal()
        except Reached:
            return self.views[-1]
        raise AssertionError("the dealing loop ended without reaching the view")
