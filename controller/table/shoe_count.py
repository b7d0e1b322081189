"""The shoe's count in the journal: the last draw number the journal holds.

The shoe numbers each draw since its last load, and each load (docs/protocol.md, "Draw
numbers"). A report whose acknowledgement died with the station is sent again in the next
session (the station acknowledges a report once its event is committed: docs/protocol.md
section 5); so that a restarted station neither deals it twice nor misses one acknowledged
and never journaled (a commit slower than the ack's hold), its shoe driver resumes from
the count the journal holds (``drivers.hal.CountedShoe``).

The draws' own rows keep their data (docs/journal.md): each row of a draw
(:data:`DRAW_KINDS`) counts one more, and a ``shoe_count`` row (``load``, ``last``: the
number of the last draw before the next row) sets the count where the rows alone would not
give it: after each numbered load (``last`` 0), before a draw whose number is not the next
one (a gap, reports lost; a draw the shoe reported again as something else, which keeps the
count at its highest; the first draw a station with no count hears) and before an empty shoe
whose last number is not the count. A shoe that numbers nothing writes no ``shoe_count``
and has no count. The table keeps its count with :meth:`ShoeCount.read` from every row it
journals, and recovery from every row it reads back, so the two cannot disagree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

#: The rows a draw out of the shoe writes, one for each draw the table is handed: a card
#: dealt, burned or rejected (a foreign card's too), the hole card withheld (or refused, or
#: reported again under a number of its own), the cover card.
DRAW_KINDS: Final = frozenset(
    {"card", "burn", "cover_card", "hole_card_dealt", "hole_card_rejected", "hole_card_repeated"}
)
#: The row that sets the count.
COUNT_KIND: Final = "shoe_count"


@dataclass
class ShoeCount:
    """The shoe's load number and the number of the last draw the journal holds (None: not
    known), and whether the shoe was journaled empty since the load."""

    load: int | None = None
    last: int | None = None
    empty: bool = False

    def read(self, kind: str, data: Mapping[str, Any]) -> None:
        """Follow one journal row."""
        if kind in DRAW_KINDS:
            if self.last is not None:
                self.last += 1
        elif kind == COUNT_KIND:
            load = data.get("load")
            self.load = None if load is None else int(load)
            self.last = int(data["last"])
        elif kind == "shoe_loaded":
            # A new batch: its count comes in the shoe_count row after it, if numbered.
            self.load = self.last = None
            self.empty = False
        elif kind == "shoe_empty":
            self.empty = True

    def after_load(self, load: int | None) -> dict[str, Any] | None:
        """The ``shoe_count`` row to journal after the ``shoe_loaded`` row of load number
        ``load`` (None: a shoe that numbers nothing, no row)."""
        return None if load is None else {"load": load, "last": 0}

    def before_draw(self, draw: int) -> dict[str, Any] | None:
        """The ``shoe_count`` row to journal before the row of draw number ``draw``; None
        when the count gives that number already."""
        if self.last is None or draw > self.last + 1:
            return self._row(draw - 1)
        if draw <= self.last:
            # Reported again as something else: the row that follows counts one, and the
            # count must stay at the highest number the shoe gave.
            return self._row(self.last - 1)
        return None

    def before_empty(self, draws: int | None) -> dict[str, Any] | None:
        """The ``shoe_count`` row to journal before ``shoe_empty`` after draw ``draws``."""
        if draws is None or draws == self.last:
            return None
        return self._row(draws)

    def _row(self, last: int) -> dict[str, Any]:
        return {"load": self.load, "last": last}
