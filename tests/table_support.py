"""Recording stand-ins for the hal interfaces and an in-memory journal.

The procedure's unit tests drive a :class:`~controller.table.procedure.Table` with events directly
(no hardware, no threads, no sleeps); the HIL suite runs the real drivers and doubles.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.journal.kinds import KINDS
from controller.rules.profiles import PROFILES, DealerSecondCard, get_profile
from controller.table.procedure import Table, TableDevices, TableSettings
from drivers.hal import Led, LedMode, PeekTarget

#: The declared profiles that deal a hole card (PA 635a.7(e)(4), NY 5324.12(c)(4)(iv)).
HOLE_CARD_PROFILES = [
    code for code, p in PROFILES.items() if p.dealer_second_card is DealerSecondCard.HOLE
]
#: Those of them that offer Match the Dealer (PA 635a.7(f), NY 5324.12(d)).
MATCH_HOLE_CARD_PROFILES = [code for code in HOLE_CARD_PROFILES if PROFILES[code].match_the_dealer]


def _vocabulary() -> dict[str, tuple[frozenset[str], frozenset[str], bool]]:
    """kind -> (required fields, optional fields, further fields allowed), from the
    journal's declared kinds (the vocabulary of docs/journal.md)."""
    found = {}
    for kind in KINDS:
        names = [n.strip() for n in kind.fields.split(",") if n.strip()]
        required = frozenset(n for n in names if not n.endswith("?") and n != "...")
        optional = frozenset(n[:-1] for n in names if n.endswith("?"))
        found[kind.name] = (required, optional, "..." in names)
    return found


VOCABULARY = _vocabulary()


def check_row(kind: str, data: Mapping[str, Any]) -> None:
    """A row the station could not write to its journal fails the test that writes it: a
    kind docs/journal.md does not declare, a field it requires left out, a field it does
    not know."""
    assert kind in VOCABULARY, f"journal kind {kind!r} is not in docs/journal.md"
    required, optional, further = VOCABULARY[kind]
    missing = required - set(data)
    assert not missing, f"{kind} row without {sorted(missing)}: {dict(data)}"
    unknown = set(data) - required - optional
    assert further or not unknown, f"{kind} row with undocumented {sorted(unknown)}"


@dataclass
class JournalRow:
    kind: str
    data: Mapping[str, Any]
    round_no: int | None


@dataclass
class ListJournal:
    """Keeps journal rows in memory, in order."""

    rows: list[JournalRow] = field(default_factory=list)

    def append(self, kind: str, data: Mapping[str, Any], round_no: int | None = None) -> int:
        check_row(kind, data)
        self.rows.append(JournalRow(kind, dict(data), round_no))
        return len(self.rows)

    def kinds(self) -> list[str]:
        return [r.kind for r in self.rows]

    def of(self, kind: str) -> list[JournalRow]:
        return [r for r in self.rows if r.kind == kind]


@dataclass
class RecordingShuffler:
    commands: list[int] = field(default_factory=list)

    def start(self) -> None: ...

    def close(self) -> None: ...

    def shuffle(self, decks: int) -> None:
        self.commands.append(decks)


@dataclass
class RecordingReader:
    checks: list[PeekTarget] = field(default_factory=list)

    def start(self) -> None: ...

    def close(self) -> None: ...

    def check(self, target: PeekTarget) -> None:
        self.checks.append(target)


@dataclass
class RecordingPanel:
    shown: list[dict[Led, LedMode]] = field(default_factory=list)

    def start(self) -> None: ...

    def close(self) -> None: ...

    def show(self, lamps: Mapping[Led, LedMode]) -> None:
        self.shown.append(dict(lamps))

    @property
    def lamps(self) -> dict[Led, LedMode]:
        return self.shown[-1] if self.shown else {}


@dataclass
class RecordingShoe:
    """A shoe the station tells to withhold the hole card; what it was told, in order."""

    told: list[str] = field(default_factory=list)

    def start(self) -> None: ...

    def close(self) -> None: ...

    def expect_hole_card(self) -> None:
        self.told.append("expect_hole_card")

    def reveal_hole_card(self, commitment: str) -> None:
        self.told.append(f"reveal {commitment}")

    def cancel_hole_card(self) -> None:
        self.told.append("cancel_hole_card")


@dataclass
class Rig:
    table: Table
    journal: ListJournal
    shuffler: RecordingShuffler
    reader: RecordingReader
    panel: RecordingPanel
    shoe: RecordingShoe | None = None


def make_rig(
    profile: str = "PA", decks: int = 6, *, withholding: bool = False, **options: Any
) -> Rig:
    """A table with recording devices; ``withholding``: a shoe the station tells to
    withhold the hole card (else the shoe reports it like any card and the table seals it)."""
    prof = get_profile(profile)
    if options:
        prof = prof.with_options(**options)
    journal = ListJournal()
    shuffler, reader, panel = RecordingShuffler(), RecordingReader(), RecordingPanel()
    shoe = RecordingShoe() if withholding else None
    devices = TableDevices(shuffler, panel, reader, shoe)
    table = Table(TableSettings(prof, decks), devices, journal)
    return Rig(table, journal, shuffler, reader, panel, shoe)
