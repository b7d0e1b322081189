"""A station to kill: the simulated table (real daemon code, real drivers, device doubles)
playing rounds into a journal, run as its own process by ``test_crash_recovery.py``.

    python tests/crash_table.py JOURNAL SEED ROUNDS

On start the station restores from the journal as the daemon does; the shoe double is
restocked with what a real shoe would still hold (the batch less the journalled cards, its
load and draw numbers where the journal left them).
Prints one line per view the simulated dealer acts on (``ROUND STATE``), so the test can
kill it at a random point of play. A state's name written to its standard input (``betting``,
``fault``) makes the dealer stop at the next view in that state, before acting on it, and
print ``held ROUND STATE`` (asked for ``fault``, the dealer injects one at the next look that
can have one): the station is idle there with every event handled, so the test
kills it in that state without racing the dealer's next action. Exits 0 once round ROUNDS is
done.
"""

from __future__ import annotations

import faulthandler
import random
import signal
import sys
import threading
from pathlib import Path

from recovery_support import shoe_after

from controller.journal.store import JournalReader
from controller.service.logs import configure_logging
from controller.simulation.runner import COVER_FROM_END, SimulatedTable, SimulationSettings
from controller.table.recovery import read_journal
from controller.table.view import TableView

DECKS = 6


def main(journal: Path, seed: int, rounds: int) -> int:
    """Play until round ``rounds`` is done (or until killed)."""
    configure_logging(level="warning", stream=sys.stderr)
    # A station that falls silent is asked for its threads' stacks (test_crash_recovery.py).
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    rows = []
    if journal.exists():
        with JournalReader.open(journal) as reader:
            rows = list(reader.rows())
    recovered = read_journal(rows)
    cards, cover = shoe_after(rows, recovered, DECKS, random.Random(seed))
    settings = SimulationSettings(
        profile="PA", decks=DECKS, seats=3, rounds=rounds, seed=seed, journal=journal, faults=0.03
    )
    restocked = False
    wanted: list[str] = []
    never = threading.Event()

    def listen() -> None:
        for line in sys.stdin:
            wanted.append(line.strip())

    threading.Thread(target=listen, name="hold-requests", daemon=True).start()

    def on_view(view: TableView) -> None:
        nonlocal restocked
        if not restocked:  # the devices are up, the dealer has not touched the shoe yet
            restocked = True
            cover_at = len(cards) - COVER_FROM_END if cover else None
            # The shoe's own count survives the station (docs/protocol.md, "Draw numbers").
            table.rig.shoe.restock(
                cards,
                cover_at if cover_at and cover_at > 0 else None,
                load=recovered.shoe_count.load,
                draws=recovered.shoe_count.last or 0,
            )
        print(view.round_no, view.state.value, flush=True)
        if wanted and wanted[-1] == "fault":
            # A fault is injected at the next look where one can be (a random fault rate
            # alone can leave a slow machine's run dealing for minutes before one comes).
            table.dealing.plan.faults = 1.0
        elif wanted:
            # Asked to hold between rounds: no more faults meanwhile, so the round ends
            # without another device's recovery (slow on a loaded machine: a CI run's hold
            # waited past its 60 s for one).
            table.dealing.plan.faults = 0.0
        if wanted and view.state.value == wanted[-1]:
            print("held", view.round_no, view.state.value, flush=True)
            never.wait()  # held here until the test kills the station

    table = SimulatedTable(settings, on_view=on_view)
    table.run()
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])))
