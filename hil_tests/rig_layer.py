"""The one layer that gives the HIL suite its devices: the doubles, or a real rig.

``--rig sim`` (the default) gives a :class:`SimRig`: a ``SimulatedRig`` (shuffler and shoe
doubles on pseudo-terminals, the card reader on a simulated pyusb bus, gpiozero mock pins)
whose hands at the table are the doubles' control methods. ``--rig PATH`` gives a
:class:`RealRig`: the devices named in a ``station.toml`` (see ``README.md``), the real
drivers built as the daemon builds them, and a person at the table who is told what to do
on stdout and answers on stdin.

Either way the station under test is the real one (``controller.service.daemon.build_station``);
only who acts at the table differs.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol, TextIO

import firmware_bridge as fb
from controller.rules.cards import Card
from controller.rules.profiles import get_profile
from controller.service import config as cfg
from controller.service.daemon import real_drivers, rig_drivers
from controller.simulation.runner import SimulationSettings, simulation_config
from drivers.hal import Button, WagerSpot
from drivers.simulated.rig import SimulatedRig
from drivers.simulated.shoe import COVER

#: The doubles' protocol timers for the suite: fast enough that a test never waits long,
#: slow enough that a CI machine busy with other work does not lose a link to a thread
#: that was not scheduled for a second or more. An unplugged cable
#: is noticed at once either way: the port fails.
HIL_TIMING = fb.Timing(
    retransmit_timeout=0.05,
    max_tries=20,
    heartbeat_interval=0.1,
    silence_timeout=2.0,
    hello_interval=0.03,
    hello_tries=30,
)


class Hands(Protocol):
    """Whoever acts at the table: the doubles' control methods, or a person."""

    def load(self, cards: Sequence[Card], cover_at: int | None) -> None:
        """Put exactly ``cards`` in the shoe, the cover card after ``cover_at`` of them."""

    def deal(self, expected: Card | str | None, *, hole: bool = False) -> Card | str | None:
        """Pull the next card past the shoe's sensor (``hole``: through its hole-card
        slot, withheld); what came out (``COVER`` for the cover card, None for an empty
        shoe)."""

    def press(self, button: Button) -> None:
        """Press and release a panel button."""

    def turn_key(self, on: bool) -> None:
        """Turn the supervisor key."""

    def place_wager(self, seat: int, spot: WagerSpot, present: bool, cents: int | None) -> None:
        """Put chips (worth ``cents``, None: any) on a seat's spot, or take them off."""

    def insert_hole_card(self, card: Card | None) -> None:
        """Slide the hole card face down into the reader (None: take it out)."""


class DoubleHands:
    """The hands of the simulated rig: every action goes through a double."""

    def __init__(self, rig: SimulatedRig) -> None:
        self.rig = rig

    def load(self, cards: Sequence[Card], cover_at: int | None) -> None:
        """Load the shoe double."""
        self.rig.shoe.load(cards, cover_at=cover_at)

    def deal(self, expected: Card | str | None, *, hole: bool = False) -> Card | str | None:
        """The shoe double deals and reports the card (or withholds the hole card)."""
        return self.rig.shoe.deal(hole=hole)

    def press(self, button: Button) -> None:
        """Drive the button's mock pin low and high."""
        self.rig.press(button)

    def turn_key(self, on: bool) -> None:
        """Drive the key's mock pin."""
        self.rig.turn_key(on)

    def place_wager(self, seat: int, spot: WagerSpot, present: bool, cents: int | None) -> None:
        """The wager sensor reports (with the value, from the expander board)."""
        self.rig.place_wager(seat, spot, present, cents)

    def insert_hole_card(self, card: Card | None) -> None:
        """Put the card in the reader double."""
        self.rig.card_reader.set_hole_card(card)


class PersonHands:
    """A person at a real rig, told each step on ``out`` and confirming on ``answers``."""

    def __init__(self, answers: TextIO = sys.stdin, out: TextIO = sys.stdout) -> None:
        self.answers, self.out = answers, out

    def ask(self, instruction: str) -> str:
        """Show one instruction and wait for the person's answer (Enter when done).

        Raises:
            EOFError: nobody answers (stdin closed: run pytest with ``-s``).
        """
        self.out.write(f"\n>>> {instruction}\n    (Enter when done) ")
        self.out.flush()
        line = self.answers.readline()
        if not line:
            raise EOFError("no person answered on stdin: run the real-rig suite with -s")
        return line.strip()

    def confirm(self, question: str) -> bool:
        """Ask a yes/no question about what the person sees."""
        return self.ask(f"{question} [y/n]").lower().startswith("y")

    def load(self, cards: Sequence[Card], cover_at: int | None) -> None:
        """Ask for the shoe to be loaded in this exact order."""
        order = [c.text for c in cards]
        if cover_at is not None:
            order.insert(cover_at, "COVER")
        self.ask("Load the shoe, first card out first: " + " ".join(order))

    def deal(self, expected: Card | str | None, *, hole: bool = False) -> Card | str | None:
        """Ask for the next card out of the shoe (the script knows which it is)."""
        what = "the cover card" if expected == COVER else str(expected)
        slot = " through the hole-card slot, face down" if hole else ""
        self.ask(f"Pull the next card out of the shoe{slot} (it should be {what})")
        return expected

    def press(self, button: Button) -> None:
        """Ask for a button press."""
        self.ask(f"Press the {button.value.upper()} button once")

    def turn_key(self, on: bool) -> None:
        """Ask for the supervisor key."""
        self.ask(f"Turn the supervisor key {'ON' if on else 'OFF'}")

    def place_wager(self, seat: int, spot: WagerSpot, present: bool, cents: int | None) -> None:
        """Ask for chips on or off a spot."""
        if not present:
            self.ask(f"Take the chips off seat {seat}'s {spot.value} spot")
            return
        chips = "chips" if cents is None else f"${cents / 100:.2f} in chips"
        self.ask(f"Put {chips} on seat {seat}'s {spot.value} spot")

    def insert_hole_card(self, card: Card | None) -> None:
        """Ask for the hole card to go into the reader, face down."""
        if card is None:
            self.ask("Take the card out of the reader")
        else:
            self.ask("Slide the dealer's hole card face down into the card reader")


class Rig(Protocol):
    """The devices one station under test talks to."""

    name: str
    hands: Hands

    def config(
        self, profile: str, decks: int, options: cfg.Options | None, journal: Path
    ) -> cfg.StationConfig:
        """The station configuration for this rig."""

    def drivers_for(self, config: cfg.StationConfig) -> Callable[..., Any]:
        """The ``drivers_for`` that ``build_station`` takes."""

    def close(self) -> None:
        """Release the rig."""


class SimRig:
    """The device doubles (see the module docstring)."""

    name = "sim"

    def __init__(self, *, decks: int = 6, seed: int = 0, **rig_options: Any) -> None:
        rig_options.setdefault("timing", HIL_TIMING)
        self.doubles = SimulatedRig(decks=decks, seed=seed, **rig_options)
        self.hands = DoubleHands(self.doubles)

    def config(
        self, profile: str, decks: int, options: cfg.Options | None, journal: Path
    ) -> cfg.StationConfig:
        """The simulator's configuration with this test's profile, options and journal."""
        base = simulation_config(SimulationSettings(profile=profile, decks=decks, journal=journal))
        return replace(base, table_id="HIL-SIM", options=options or cfg.Options())

    def drivers_for(self, config: cfg.StationConfig) -> Callable[..., Any]:
        """The real drivers pointed at the doubles."""
        if config.decks != self.doubles.decks:
            raise ValueError(f"rig built for {self.doubles.decks} decks, not {config.decks}")
        return rig_drivers(self.doubles)  # type: ignore[no-any-return]

    def close(self) -> None:
        """Stop every double."""
        self.doubles.close()


def load_rig_file(path: Path) -> cfg.StationConfig:
    """Read a real rig's description: a ``station.toml`` whose ``[devices]`` name its
    ports and serial numbers (the rest is overridden per test).

    Raises:
        ConfigError: the file is missing or wrong, with the key to fix.
    """
    return cfg.load_config(path)


class RealRig:
    """A real rig described by a ``station.toml`` (see the module docstring)."""

    name = "real"

    def __init__(self, path: Path, hands: PersonHands | None = None) -> None:
        self.base = load_rig_file(path)
        self.hands = hands or PersonHands()

    def config(
        self, profile: str, decks: int, options: cfg.Options | None, journal: Path
    ) -> cfg.StationConfig:
        """The rig's devices with this test's profile, options and journal."""
        return replace(
            self.base,
            profile=get_profile(profile),
            decks=decks,
            options=options or cfg.Options(),
            journal=cfg.JournalSettings(journal),
        )

    def drivers_for(self, config: cfg.StationConfig) -> Callable[..., Any]:
        """The daemon's own drivers for the configured devices."""
        return real_drivers(config)  # type: ignore[no-any-return]

    def close(self) -> None:
        """Nothing to release: the devices stay on the bench."""
