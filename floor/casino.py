"""The casino's clock and floor plan: its time zone, gaming day, shifts and pits.

``[casino]`` in ``floor.toml`` (``examples/floor.toml``)::

    [casino]
    time_zone = "America/New_York"      # an IANA zone (zoneinfo); default UTC
    gaming_day_starts = "06:00"         # local wall clock; default 06:00
    [casino.shifts]                     # name = local start; default day/swing/grave
    day = "06:00"
    swing = "14:00"
    grave = "22:00"
    [casino.pits]                       # pit name = its tables; a table in one pit at most
    "Pit 1" = ["PA-S21-01", "PA-S21-02"]

A gaming day runs from ``gaming_day_starts`` to the same local time the next day (23 or 25
hours across a change of daylight saving time); a shift from its start to the next shift's
start. Every boundary is a quarter hour of local time: the floor's figures are kept per
quarter hour of UTC (``table_quarter``), and every time zone in use is a whole number of
quarter hours from UTC, so a local quarter hour is always a UTC one.

Pure: no I/O beyond the zone database (``zoneinfo``); :func:`parse_casino` reads the
section and raises the station configuration's one-line ``ConfigError``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from itertools import pairwise
from typing import Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from controller.service.config_schema import Section

QUARTER: Final = timedelta(minutes=15)
CLOCK: Final = re.compile(r"([01][0-9]|2[0-3]):(00|15|30|45)")
PIT_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._-]{0,31}")
TABLE_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}")  # as the wire's
DEFAULT_SHIFTS: Final = (("day", time(6)), ("swing", time(14)), ("grave", time(22)))


@dataclass(frozen=True, slots=True)
class Period:
    """A span of casino time, ``[start, end)`` as aware UTC datetimes, with its name."""

    name: str
    start: datetime
    end: datetime

    @property
    def hours(self) -> float:
        """Its length in hours."""
        return (self.end - self.start).total_seconds() / 3600


@dataclass(frozen=True, slots=True)
class Casino:
    """The floor's time zone, gaming day, shifts (name, local start; sorted) and pits."""

    time_zone: str = "UTC"
    gaming_day_starts: time = time(6)
    shifts: tuple[tuple[str, time], ...] = DEFAULT_SHIFTS
    pits: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # table -> pit, made once: the grid asks for every table at every read.
    _pit_of: dict[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        placed = {table: pit for pit, tables in self.pits.items() for table in tables}
        object.__setattr__(self, "_pit_of", placed)

    @property
    def zone(self) -> ZoneInfo:
        """The zone (``zoneinfo`` caches it)."""
        return ZoneInfo(self.time_zone)

    def pit_of(self, table: str) -> str | None:
        """The pit ``table`` stands in, or None."""
        return self._pit_of.get(table)

    def local(self, moment: datetime) -> datetime:
        """``moment`` on the casino's wall clock."""
        return moment.astimezone(self.zone)

    def _at(self, day: date, clock: time) -> datetime:
        return datetime.combine(day, clock, self.zone).astimezone(UTC)

    def gaming_day(self, now: datetime) -> Period:
        """The gaming day ``now`` falls in, named by the date it starts on."""
        day = self.local(now).date()
        start = self._at(day, self.gaming_day_starts)
        if start > now:
            day -= timedelta(days=1)
            start = self._at(day, self.gaming_day_starts)
        end = self._at(day + timedelta(days=1), self.gaming_day_starts)
        return Period(f"gaming day {day.isoformat()}", start, end)

    def shift(self, now: datetime) -> Period:
        """The shift ``now`` falls in."""
        day = self.local(now).date()
        starts = [
            (self._at(d, clock), name)
            for d in (day - timedelta(days=1), day, day + timedelta(days=1))
            for name, clock in self.shifts
        ]
        starts.sort()
        for (start, name), (end, _next) in pairwise(starts):
            if start <= now < end:
                return Period(f"{name} shift {self.local(start).date().isoformat()}", start, end)
        raise AssertionError("a shift always covers now")  # three days of starts around it

    def period(self, start: datetime, end: datetime) -> Period:
        """A chosen period (aware datetimes), widened to whole quarter hours."""
        first, last = quarter_floor(start), quarter_floor(end)
        if last < end:
            last += QUARTER
        if last <= first:
            last = first + QUARTER
        name = f"{self.format(first, seconds=False)} to {self.format(last, seconds=False)}"
        return Period(name, first, last)

    def format(self, moment: datetime, seconds: bool = True, *, ms: bool = False) -> str:
        """``2026-12-01 16:27:10 EST`` (``.852`` with ``ms``) on the casino's clock."""
        here = self.local(moment)
        text = here.strftime("%Y-%m-%d %H:%M" + (":%S" if seconds or ms else ""))
        if ms:
            text += f".{here.microsecond // 1000:03d}"
        return f"{text} {here.tzname()}"

    def time_ms(self, moment: datetime) -> str:
        """``16:27:10.852`` on the casino's clock (a recall's lines; the date is above)."""
        here = self.local(moment)
        return here.strftime("%H:%M:%S") + f".{here.microsecond // 1000:03d}"

    def clock(self, moment: datetime) -> str:
        """``16:27:10`` on the casino's clock (the grid's short form)."""
        return self.local(moment).strftime("%H:%M:%S")


def quarter_floor(moment: datetime) -> datetime:
    """The start of the UTC quarter hour holding ``moment``."""
    moment = moment.astimezone(UTC)
    return moment.replace(minute=moment.minute - moment.minute % 15, second=0, microsecond=0)


def parse_casino(section: Section | None) -> Casino:
    """The ``[casino]`` section (None: the defaults, UTC).

    Raises:
        ConfigError: an unknown zone, a time that is not a quarter hour ``HH:MM``, no
            shift, two shifts at one time, a bad pit or table name, a table in two pits.
    """
    if section is None:
        return Casino()
    zone = section.get("time_zone", str, "UTC")
    try:
        ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise section.error("time_zone", f"{zone!r} is not a known time zone") from None
    day_starts = _clock(section, "gaming_day_starts", "06:00")
    shifts: tuple[tuple[str, time], ...] = DEFAULT_SHIFTS
    found = section.section("shifts", required=False)
    if found is not None:
        named = [(name, _clock(found, name, None)) for name in found.data]
        found.done()
        if not named:
            raise section.error("shifts", "name at least one shift")
        for name, _start in named:
            if not PIT_NAME.fullmatch(name):
                raise found.error(name, "a shift name is 1-32 letters, digits, ' ._-'")
        starts = [s for _n, s in named]
        if len(set(starts)) != len(starts):
            raise section.error("shifts", "two shifts start at the same time")
        shifts = tuple(sorted(named, key=lambda item: item[1]))
    pits: dict[str, tuple[str, ...]] = {}
    placed: dict[str, str] = {}
    pit_section = section.section("pits", required=False)
    if pit_section is not None:
        for pit in pit_section.data:
            if not PIT_NAME.fullmatch(pit):
                raise pit_section.error(pit, "a pit name is 1-32 letters, digits, ' ._-'")
            tables = pit_section.get(pit, list)
            for table in tables:
                if not isinstance(table, str) or not TABLE_NAME.fullmatch(table):
                    raise pit_section.error(pit, f"{table!r} is not a table name")
                if table in placed:
                    raise pit_section.error(pit, f"table {table} is already in {placed[table]!r}")
                placed[table] = pit
            pits[pit] = tuple(tables)
        pit_section.done()
    section.done()
    return Casino(zone, day_starts, shifts, pits)


def _clock(section: Section, name: str, default: str | None) -> time:
    text = section.get(name, str, default)
    match = CLOCK.fullmatch(text)
    if match is None:
        raise section.error(name, f"{text!r} is not a quarter hour HH:MM (00, 15, 30 or 45)")
    return time(int(match[1]), int(match[2]))
