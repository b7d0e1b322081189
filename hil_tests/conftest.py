"""The HIL suite's one fixture layer: the station's devices, the station, and its table.

``--rig sim`` (default) runs every scenario against the device doubles over the real
transports; ``--rig PATH`` runs them against the real rig a ``station.toml`` describes, with
a person at the table answering on stdin (run pytest with ``-s``). ``--devices firmware``
puts every device that has a C reference firmware (``firmware/``: the shoe and the panel
board) on its host build instead of its Python double, ``--devices qemu`` on its Cortex-M
image on an emulated board: the same scenarios against a second implementation of the
protocol; ``--implementation KIND=IMPL`` chooses one device's (``python``, ``host``,
``qemu``: ``drivers.registry``). Tests marked ``python_double`` use the Python doubles'
internals and are skipped when a device is not its Python double. Tests marked
``needs_person`` are skipped on the doubles; tests marked ``doubles`` use the doubles' fault
switches and are skipped on a real rig.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from rig_layer import RealRig, Rig, SimRig
from table_driver import RunningStation, TableDriver

from controller.journal.seal import VerificationKey, new_sealing, save_state
from controller.service import config as cfg
from controller.simulation.runner import sealing_path
from controller.table.prompts import State
from drivers.hal import DeviceKind
from drivers.registry import DEVICES, Implementation, device_names, spec_named
from drivers.simulated.c_firmware import build

#: Rounds the soak plays in the test command: short (7-15 s on this shared 2-core VM), so
#: that the suite stays fast. The long soak (2,500 rounds and more) is a
#: benchmark: ``bench/soak_bench.py``, figures in docs/performance.md.
DEFAULT_SOAK_ROUNDS = 300
#: Threads that end on their own get this long after a test (not a device wait).
_SETTLE_SECONDS = 3.0


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("hil", "hardware-in-the-loop suite")
    group.addoption(
        "--rig",
        default="sim",
        help="'sim' (device doubles, the default) or the path of a station.toml describing a"
        " real rig's devices",
    )
    group.addoption(
        "--devices",
        default="doubles",
        choices=("doubles", "firmware", "qemu"),
        help="on --rig sim: the shoe and panel board as the Python doubles (default), as"
        " the C reference firmware's host builds (firmware), or as its Cortex-M images on"
        " QEMU's mps2-an385 boards (qemu)",
    )
    group.addoption(
        "--implementation",
        action="append",
        default=[],
        metavar="KIND=IMPL",
        help="on --rig sim: what stands for one device, over --devices: python, host or qemu"
        f" (devices with a C firmware: {', '.join(s.name for s in DEVICES if s.firmware)})",
    )
    group.addoption(
        "--soak-rounds",
        type=int,
        default=DEFAULT_SOAK_ROUNDS,
        help=f"rounds the soak test plays (default {DEFAULT_SOAK_ROUNDS})",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "doubles: uses the device doubles' fault switches; skipped on a real rig"
    )
    config.addinivalue_line(
        "markers",
        "python_double: uses the Python doubles' internals; skipped with --devices firmware",
    )


def _rig_option(config: pytest.Config) -> str:
    return str(config.getoption("--rig", default="sim"))


def _implementations(config: pytest.Config) -> dict[DeviceKind, Implementation]:
    """What stands for each device that is not its Python double (``--devices`` for every
    device with a C firmware, then ``--implementation KIND=IMPL`` one by one).

    Raises:
        pytest.UsageError: an unknown device or implementation, or one the device lacks.
    """
    devices = str(config.getoption("--devices", default="doubles"))
    every = {"firmware": Implementation.HOST, "qemu": Implementation.QEMU}.get(devices)
    chosen = {s.kind: every for s in DEVICES if s.firmware is not None and every is not None}
    for item in config.getoption("--implementation", default=[]) or []:
        name, _, how = str(item).partition("=")
        spec = spec_named(name)
        wanted = next((i for i in Implementation if i.value == how), None)
        if spec is None or wanted is None or wanted not in spec.implementations:
            raise pytest.UsageError(
                f"--implementation {item}: KIND=IMPL, a device of {device_names()} and one"
                " of its implementations (python; host and qemu where it has a C firmware)"
            )
        chosen[spec.kind] = wanted
    return {kind: how for kind, how in chosen.items() if how is not Implementation.PYTHON}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    real = _rig_option(config) != "sim"
    firmware = bool(_implementations(config))
    for item in items:
        if "hil_tests" not in item.path.parts:
            continue
        if not real and item.get_closest_marker("needs_person"):
            item.add_marker(pytest.mark.skip(reason="needs a person at a real rig (--rig PATH)"))
        if real and item.get_closest_marker("doubles"):
            item.add_marker(pytest.mark.skip(reason="uses the device doubles' fault switches"))
        if firmware and item.get_closest_marker("python_double"):
            item.add_marker(pytest.mark.skip(reason="uses the Python doubles' internals"))


@pytest.fixture(autouse=True)
def no_thread_leaks() -> Iterator[None]:
    """Fail a test that leaves driver, double or station threads running."""
    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + _SETTLE_SECONDS
    while True:
        leaked = [t for t in threading.enumerate() if t not in before and t.is_alive()]
        if not leaked:
            return
        if time.monotonic() > deadline:
            pytest.fail("test leaked threads: " + ", ".join(t.name for t in leaked))
        time.sleep(0.01)


@pytest.fixture
def journal_dir() -> Iterator[Path]:
    """A temporary directory for journals: on tmpfs where there is one (an fsync on this
    VM's disk costs ~4 ms per commit, and the suite commits tens of thousands of times)."""
    shm = Path("/dev/shm")
    base = str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None
    with tempfile.TemporaryDirectory(prefix="hil-journal-", dir=base) as name:
        yield Path(name)


@pytest.fixture
def sealed(journal_dir: Path) -> tuple[Path, VerificationKey]:
    """A journal path whose station seals (its key made as ``journal setup-keys`` does),
    and the table's verification key."""
    path = journal_dir / "journal.sqlite3"
    state, key = new_sealing("HIL-SIM")
    save_state(sealing_path(path), state)
    return path, key


RigFactory = Callable[..., Rig]


@pytest.fixture
def rigs(request: pytest.FixtureRequest) -> Iterator[RigFactory]:
    """Makes the station's devices: a fresh set of doubles per call (``decks``, ``seed``
    and ``SimulatedRig`` options), or the one real rig."""
    option = _rig_option(request.config)
    made: list[Rig] = []

    def make(decks: int = 6, seed: int = 0, **options: Any) -> Rig:
        rig: Rig
        if option == "sim":
            chosen = _implementations(request.config)
            for how, target in ((Implementation.HOST, "host"), (Implementation.QEMU, "arm")):
                if how in chosen.values():
                    build(target)
            if chosen:
                options.setdefault("implementations", chosen)
            rig = SimRig(decks=decks, seed=seed, **options)
        else:
            rig = RealRig(Path(option))
        made.append(rig)
        return rig

    yield make
    for rig in reversed(made):
        rig.close()


@pytest.fixture
def rig(rigs: RigFactory) -> Rig:
    """The station's devices for one test."""
    return rigs()


StationFactory = Callable[..., TableDriver]


@pytest.fixture
def station(rigs: RigFactory, journal_dir: Path) -> Iterator[StationFactory]:
    """Starts the real station in a thread and gives its :class:`TableDriver`.

    ``station(profile="PA", decks=6, options=None, rig=None, journal=None,
    wait_for_load=True)``: a fresh rig
    unless one is given, a fresh journal in ``journal_dir`` unless one is named (a restart
    after a power cut names the old one). Stations still running at the end are stopped.
    """
    running: list[RunningStation] = []

    def start(
        profile: str = "PA",
        decks: int = 6,
        *,
        options: cfg.Options | None = None,
        rig: Rig | None = None,
        journal: Path | None = None,
        wait_for_load: bool = True,
    ) -> TableDriver:
        rig = rig or rigs(decks=decks)
        path = journal or journal_dir / f"journal-{len(running)}.sqlite3"
        fresh = not path.exists()
        config = rig.config(profile, decks, options, path)
        run = RunningStation(config, rig)
        running.append(run)
        run.start()
        table = TableDriver(run, rig.hands)
        if fresh and wait_for_load:  # a new table shuffles first: wait for the load prompt
            table.wait_state(State.LOADING)
        return table

    yield start
    for run in reversed(running):
        if run.running:
            run.stop()
