"""The real daemon (``dealer-station run``, configured devices, no ``--simulated-devices``)
against doubles in their own process (``dealer-station doubles``) on ptys: the shuffler,
the shoe and a panel board (``[devices.panel_board]``): every device the doubles' process
serves. NJ without the card reader, so every device of the table is on a serial line.
Each device is paired first with ``dealer-station pair`` (the double's pairing button held
through the control socket), as docs/operations.md installs a table.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

from daemon_support import DEALER_STATION, NotifyListener, assignments, journal_dir

from controller.journal.store import JournalReader
from controller.journal.verify import VerifyCase, verify
from drivers.registry import Pairing
from drivers.simulated.serve import KINDS, SERVED, station_sections
from drivers.simulated.serve_client import ServedDoubles

DEADLINE = 30.0

CONFIG = """\
table_id = "NJ-SERVE-1"
profile = "NJ"
decks = 6

[journal]
path = "{journal}"

[pairing]
directory = "{tmp}/pairing"
"""


def test_daemon_runs_on_doubles_served_by_another_process(tmp_path: Path) -> None:
    # The configuration takes device paths under /dev/ only: the ptys are published in
    # /dev/shm.
    short = Path(f"/dev/shm/dsd-{os.getpid()}")
    short.mkdir(exist_ok=True)
    listener = NotifyListener()
    with journal_dir(tmp_path) as journals:
        journal = journals / "journal.sqlite3"
        config = tmp_path / "station.toml"
        serials = {kind: f"{kind.upper()}-9" for kind in KINDS}
        config.write_text(
            CONFIG.format(tmp=short, journal=journal)
            + station_sections({kind: short / kind for kind in KINDS}, serials)
        )
        endpoints = {k: f"pty:{short}/{k}" for k in KINDS}
        with ServedDoubles(endpoints, short / "control.sock", serials=serials) as served:
            for kind in KINDS:
                # A panel board reads its own key switch for pairing.
                own_key = SERVED[kind].pairing is Pairing.OWN_KEY
                served.client.set(kind, "pairing_button", True)
                if own_key:
                    served.client.call(kind, "turn_key", True)
                paired = subprocess.run(
                    [str(DEALER_STATION), "pair", kind, "--config", str(config),
                     "--timeout", "20", "--without-key-switch"],
                    capture_output=True, text=True, timeout=60, check=False,
                )  # fmt: skip
                served.client.set(kind, "pairing_button", False)
                if own_key:
                    served.client.call(kind, "turn_key", False)
                assert paired.returncode == 0, paired.stderr
                assert served.client.get(kind, "paired_station") == "NJ-SERVE-1"
            env = dict(os.environ, NOTIFY_SOCKET=listener.address, WATCHDOG_USEC="2000000")
            with (tmp_path / "daemon.log").open("ab") as log:
                child = subprocess.Popen(
                    [str(DEALER_STATION), "run", "--config", str(config)], stdout=log, env=env
                )
            try:
                ready = listener.wait_for(lambda m: "READY=1" in m.split("\n"), DEADLINE)
                assert assignments(ready)["STATUS"].startswith(("shuffling", "loading"))
                # The shuffler double in the other process shuffled and counted the batch.
                listener.wait_for(lambda m: m.startswith("STATUS=loading"), DEADLINE)
                assert served.client.get("shuffler", "batches") == 1
                # The station prompts through the panel board: the load lamp blinks.
                assert served.client.wait_lamp("load", "blink", DEADLINE)
                served.client.call("shoe", "load_shuffled", decks=6, seed=5)
                listener.wait_for(lambda m: m.startswith("STATUS=burn"), DEADLINE)
                child.send_signal(signal.SIGTERM)
                assert child.wait(DEADLINE) == 0
            finally:
                if child.poll() is None:
                    child.kill()
                    child.wait()
        assert verify(journal).case is VerifyCase.INTACT
        with JournalReader.open(journal) as reader:
            kinds = [row.kind for row in reader.rows()]
        assert kinds[-1] == "clean_shutdown"
        assert "shoe_loaded" in kinds
    listener.close()
    shutil.rmtree(short)
