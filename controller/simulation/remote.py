"""The simulated dealer at a station that runs elsewhere: the real daemon in its own
process (``bench/kill_loop.py``) or inside a virtual machine (``vm_tests/remote_table.py``).

Both ends are remote to the dealer, so

* :class:`ControlSide` is the dealer's table side
  (``controller.simulation.table_side.TableSide``) on device doubles served by another
  process (``dealer-station doubles``), through its control socket;
* :func:`observe_log_line` feeds the dealer's :class:`~controller.simulation.pacer.Pacer`
  from the daemon's debug log: each event handled, by kind, and the public table view
  when the station's queue is idle (``log_view`` in ``controller/service/daemon.py``). The
  log names an event's kind only: no event's fields, so no card, leave the station.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import Any, Literal

from controller.rules.cards import Card, parse_card
from controller.simulation.pacer import Pacer
from controller.simulation.table_side import Pluggable
from drivers import hal
from drivers.hal import Button, WagerSpot
from drivers.simulated.serve_client import DoublesClient


class ControlSide:
    """A table side on doubles in another process (their control socket); the cover card
    goes ``cover_at`` cards into each batch the dealer loads. The card reader is not among
    them: a table with one says how to reach it (:meth:`insert_hole_card`); no fault is
    injected through this side."""

    def __init__(self, doubles: DoublesClient, cover_at: int) -> None:
        self.doubles = doubles
        self.cover_at = cover_at

    def draw(self, hole: bool) -> Card | str | None:
        """See ``TableSide.draw``."""
        item = self.doubles.call("shoe", "deal", hole=hole)
        return parse_card(item) if item not in (None, "cover") else item

    def draw_foreign(self, suit: str) -> None:
        """See ``TableSide.draw_foreign``."""
        self.doubles.call("shoe", "deal_ten", suit)

    def press(self, button: Button) -> None:
        """See ``TableSide.press``."""
        self.doubles.call("panel", "press", button.value)

    def turn_key(self, on: bool) -> None:
        """See ``TableSide.turn_key``."""
        self.doubles.call("panel", "turn_key", on)

    def place_wager(self, seat: int, spot: WagerSpot, present: bool, cents: int | None) -> None:
        """See ``TableSide.place_wager``."""
        self.doubles.call("panel", "place_wager", seat, spot.value, present, cents)

    def load_shoe(self, decks: int, seed: int, cover_at: int) -> None:
        """See ``TableSide.load_shoe`` (the cover card at this side's ``cover_at``)."""
        self.doubles.call("shoe", "load_shuffled", decks=decks, seed=seed, cover_at=self.cover_at)

    def insert_hole_card(self, card: Card | None) -> None:
        """See ``TableSide.insert_hole_card``."""
        raise NotImplementedError("no card reader among the served doubles")

    def wait_idle(self, device: Pluggable, timeout: float) -> bool:
        """No injected faults through this side."""
        raise NotImplementedError("no injected faults through the control socket")

    def unplug(self, device: Pluggable) -> None:
        """No injected faults through this side."""
        raise NotImplementedError("no injected faults through the control socket")

    def plug(self, device: Pluggable) -> None:
        """No injected faults through this side."""
        raise NotImplementedError("no injected faults through the control socket")

    def misread(self) -> None:
        """No injected faults through this side."""
        raise NotImplementedError("no injected faults through the control socket")

    def deliver(self, device: Literal["shoe", "panel"], timeout: float) -> bool:
        """See ``TableSide.deliver``."""
        return bool(self.doubles.call(device, "deliver", timeout))

    def holding(self) -> AbstractContextManager[None]:
        """See ``TableSide.holding``: each control-socket call is answered once the double
        has acted, and it sends each report as it is made: nothing to hold."""
        return nullcontext()


def event_of(kind: str) -> Any:
    """An instance of the ``drivers.hal`` event class named ``kind``, for the pacer's
    isinstance checks (the log names the kind; the event's fields stay in the station).

    Raises:
        AttributeError: no such event class.
    """
    cls = getattr(hal, kind)
    return cls.__new__(cls)


def observe_log_line(pacer: Pacer, line: Any) -> bool:
    """Feed ``pacer`` one parsed line of the daemon's debug log; True when it was an
    ``event handled`` line (the others are not the pacer's)."""
    if not isinstance(line, dict) or line.get("event") != "event handled":
        return False
    record = line.get("view")
    pacer.observe_record((type(event_of(str(line["kind"]))),), record or None, record is not None)
    return True
