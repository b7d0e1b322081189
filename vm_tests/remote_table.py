"""The project's simulated dealer playing the station inside the guest.

``dealer-station simulate`` runs :class:`controller.simulation.runner.SimulatedTable`: a
simulated dealer acts on the device doubles and a :class:`Pacer` keeps it in step with the
station's main loop through the station's ``observer`` hook. Here the station is the
installed daemon inside the VM, so both ends are remote:

* the pacer is fed from the daemon's debug log (``log_view`` in
  ``controller/service/daemon.py``: each event handled, by kind, and the public table view
  when the queue is idle), read from the guest's journald through the agent
  (``controller.simulation.remote.observe_log_line``);
* :class:`RemoteSide` is the dealer's table side
  (``controller.simulation.remote.ControlSide``): it acts on the host's device doubles (the
  doubles process's control socket) and on the reader gadget in the guest.

The dealing loop is the runner's own (``controller.simulation.dealing.Dealing``), not a
copy.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from vm import GuestError, Vm

from controller.rules.cards import Card
from controller.rules.profiles import get_profile
from controller.simulation.dealing import Dealing
from controller.simulation.pacer import STUCK_SECONDS, Pacer, SimulationStuckError
from controller.simulation.remote import ControlSide, observe_log_line
from controller.simulation.runner import SimulationSettings, dealing_plan
from controller.table.prompts import State
from controller.table.view import TableView
from drivers.simulated.serve_client import DoublesClient


class RemoteSide(ControlSide):
    """The dealer's table side (``controller.simulation.remote.ControlSide``) on the host's
    doubles (their control socket), with the card reader gadget in the guest; the cover
    card ``cover_at`` cards into the shoe (where the dealer cuts decides how many rounds a
    shoe lasts)."""

    def __init__(self, doubles: DoublesClient, vm: Vm, cover_at: int) -> None:
        super().__init__(doubles, cover_at)
        self.vm = vm

    def insert_hole_card(self, card: Card | None) -> None:
        self.vm.reader("set_hole_card", None if card is None else card.text)


class LogFeed:
    """Feeds a pacer from the daemon's debug log in the guest, in a thread."""

    def __init__(self, vm: Vm, since: int, pacer: Pacer):
        self.vm = vm
        self.next = since
        self.pacer = pacer
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
                    observe_log_line(self.pacer, entry.get("station"))
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
        self.vm = vm
        self.doubles = doubles
        self.feed: LogFeed | None = None  # set by the rig: its state goes in a stall's report
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
        except SimulationStuckError as err:
            raise SimulationStuckError(f"{err}\n{self.stall_report()}") from err
        raise AssertionError("the dealing loop ended without reaching the view")

    def stall_report(self) -> str:
        """What each end knew when the dealer gave up waiting: the doubles' sessions and
        unacknowledged reports (0: the station acknowledged what they reported), how far
        the log feed got against the guest's journal, the station's log lines of the last
        90 s other than the events it handled, and its threads' stacks (SIGUSR1)."""
        lines = []
        for device in ("shuffler", "shoe", "panel"):
            try:
                state = {
                    name: self.doubles.get(device, name)
                    for name in ("connected", "unconfirmed", "sessions")
                }
            except Exception as err:  # a report only: what could not be read says so
                state = {"error": repr(err)}
            lines.append(f"{device} double: {state}")
        feed = self.feed
        if feed is not None:
            lines.append(f"log feed: next {feed.next}, error {feed.error!r}")
        try:
            lines.append(f"guest journal entries: {self.vm.log_mark()}")
            lines.append(
                self.vm.sh(
                    "journalctl --no-pager -o short-monotonic --since=-90s -u dealer-station"
                    " -u reader-gadget | grep -v '\"event handled\"' | tail -n 80"
                    " | cut -c1-300",
                    check=False,
                    timeout=30,
                )
            )
            # Where each of the station's threads stands (docs/operations.md, "Running").
            mark = self.vm.log_mark()
            self.vm.sh("systemctl kill -s SIGUSR1 --kill-whom=main dealer-station", check=False)
            self.vm.log_wait(mark, 30, contains="most recent call first")
            lines.append(
                self.vm.sh(
                    "journalctl --no-pager -o cat -n 300 -u dealer-station"
                    " | grep -v '\"event handled\"' | sed -n '/most recent call first/,$p'",
                    check=False,
                    timeout=30,
                )
            )
        except Exception as err:  # the guest may be what stalled
            lines.append(f"no guest journal: {err!r}")
        return "\n".join(lines)
