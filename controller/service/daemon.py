"""``dealer-station run``: the composition root of the station daemon.

It is the only place that builds concrete drivers. In order: read and check the
configuration; set up logging; verify the journal (a broken chain refuses to start);
restore the table from the journal; only then start the devices and serve events until
SIGTERM. ``--simulated-devices`` runs the same daemon against the device doubles (the
HIL suite and CI use it).
"""

from __future__ import annotations

import argparse
import faulthandler
import queue
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog

from controller.journal.checkpoint import CHECKPOINT_KIND, checkpoint_fields
from controller.journal.creation import is_half_made
from controller.journal.seal import SEAL_KIND
from controller.journal.startcheck import start_trust
from controller.journal.store import Journal, JournalError, JournalReader, head_path
from controller.journal.verify import verify
from controller.rules.legality import SEATS
from controller.rules.profiles import Profile
from controller.service import config as cfg
from controller.service.clock import watching_clock
from controller.service.config_schema import ConfigError
from controller.service.logs import bind_round, bind_state, bind_table, configure_logging
from controller.service.outbox import ack_beyond
from controller.service.sdnotify import Notifier
from controller.service.station import CommandBuffer, Observer, Station, Wake, deferred
from controller.table.holecard import fresh_nonce
from controller.table.machine import TableDevices, TableSettings
from controller.table.procedure import Table
from controller.table.recovery import read_journal
from controller.table.view import TableView, view_record
from drivers.hal import CountedShoe, Device, DeviceEvent, DeviceKind, WagerSpot

DEFAULT_CONFIG = Path("/etc/dealer-station/station.toml")
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
#: A maintainer's look inside a station that seems stuck (docs/operations.md, "Running"):
#: every thread's stack on stderr, which journald keeps; the station goes on.
STACKS_SIGNAL = signal.SIGUSR1
#: A stop still under way this many seconds after the signal writes every thread's stack to
#: stderr (the log), before systemd's TimeoutStopSec= (10 s) kills it with nothing said.
STOP_STACKS_AFTER = 7.0
#: Every wager spot a sensor can report (seat, spot), for the restore's last reports.
WAGER_SPOTS = tuple((seat, spot.value) for seat in SEATS for spot in WagerSpot)
VERSION = "0.1.0"

_log = structlog.get_logger("dealer_station.daemon")


class StartError(Exception):
    """The station cannot start; the message is one line for the operator."""


def station_profile(config: cfg.StationConfig) -> Profile:
    """The rules profile of a configured table: the jurisdiction plus its options (a NY
    table without a card reader does not peek: ``config_rules.table_profile``)."""
    return config.rules()


@dataclass
class Built:
    """The station's parts, before it runs."""

    station: Station
    journal: Journal
    table: Table


def open_journal(path: Path, sealing: Path | None = None) -> Journal:
    """Check the journal, then open it for appending, sealing with the state at ``sealing``
    when that file exists; then write the start's checkpoint (``Journal.checkpoint``,
    sealed with the station's checkpoint key; the start's seal follows).

    The check hashes only the rows after the last checkpoint, once the station's key has
    proved that checkpoint its own (``verify(..., since_checkpoint=True, trust=...)``,
    ``controller.journal.startcheck``), so a start costs the same on a year-long journal;
    the full check with the verification key runs off the station (docs/journal.md).

    Raises:
        StartError: when the chain is broken, the sealing state does not fit the journal
            or is missing for a journal that was sealed, or the file cannot be opened.
    """
    if path.is_symlink() or (path.exists() and not path.is_file()):
        what = (
            "a symlink"
            if path.is_symlink()
            else "a directory"
            if path.is_dir()
            else "not a regular file"
        )
        raise StartError(f"journal {path} is {what}: name the journal's file itself")
    trust = start_trust(sealing) if sealing is not None else None
    if path.exists() and not is_half_made(path, head_path(path)):
        report = verify(path, since_checkpoint=True, trust=trust)
        if not report.ok:
            raise StartError(f"journal {path} failed verification: {report.message}")
        rolled_back = ack_beyond(path)
        if rolled_back:
            raise StartError(f"journal {path}: {rolled_back}")
    missing_key = sealing is not None and not sealing.exists()
    try:
        journal = Journal.open(path, sealing=None if missing_key else sealing)
    except JournalError as err:
        raise StartError(f"journal {path}: {err}") from err
    if missing_key:
        if _was_sealed(journal):
            # The key of a sealed journal gone (removed, moved, a restored card without
            # it): running on unsealed would leave every new row open to rewriting. The
            # files are evidence; a new journal needs the supervisor (docs/operations.md).
            journal.close()
            raise StartError(
                f"journal {path} is sealed but its sealing state {sealing} is missing:"
                " the station does not go on unsealed; keep the files and call the supervisor"
            )
        _log.warning("journal not sealed: no sealing state (dealer-station journal setup-keys)")
    if journal.replaced_half_made:
        _log.warning("journal: a half-made empty journal was made again")
    try:
        journal.checkpoint()
    except BaseException:
        journal.close()
        raise
    return journal


def _was_sealed(journal: Journal) -> bool:
    """Whether ``journal`` holds a seal, or its last checkpoint is sealed: a start with the
    sealing state wrote it, and that start's first seal follows only its ``station_started``
    row (after the restore), so a station stopped before that left no seal row."""
    if next(journal.rows(kinds=(SEAL_KIND,), limit=1), None) is not None:
        return True
    last = next(journal.rows(kinds=(CHECKPOINT_KIND,), newest_first=True, limit=1), None)
    return (
        last is not None
        and isinstance(fields := checkpoint_fields(last), dict)
        and ("mac" in fields)
    )


def build_station(
    config: cfg.StationConfig,
    drivers_for: Any,
    *,
    notifier: Notifier | None = None,
    observer: Observer | None = None,
    nonces: Callable[[], str] = fresh_nonce,
) -> Built:
    """Journal, recovered table and drivers. ``drivers_for(sink) -> (devices, TableDevices)``
    builds the drivers (real ones from configuration, or the simulated rig's)."""
    # A new station has no round and no state yet (a station built earlier in the same
    # process, as in the HIL suite, must not lend its own to these lines).
    bind_round(None)
    bind_state(None)
    journal = open_journal(config.journal.path, config.journal.sealing_key)
    try:
        events: queue.SimpleQueue[DeviceEvent | Wake] = queue.SimpleQueue()
        devices, table_devices = drivers_for(events.put)
        profile = station_profile(config)
        commands = CommandBuffer()
        table = Table(
            TableSettings(profile, config.decks, limits=config.limits),
            deferred(table_devices, commands),
            journal,
            nonces=nonces,
        )
        # Streamed from a read-only connection: a long journal is not held in memory.
        with JournalReader.open(journal.path) as reader:
            recovered = read_journal(reader.rows_for_restore(WAGER_SPOTS))
        journal.append(
            "station_started",
            {
                "version": VERSION,
                "table_id": config.table_id,
                "profile": profile.code,
                "decks": config.decks,
                "sealed": journal.epoch is not None,
                # NY 5324.12(d)(2): the limits posted at the table, as configured.
                "limits": config.limits.posted(),
            },
        )
        table.restore(recovered)
        for device in devices:
            if isinstance(device, CountedShoe):
                # Before it starts: a report the shoe sends again is one the journal holds.
                count = recovered.shoe_count
                device.resume_count(count.load, count.last, empty=count.empty)
    except BaseException:
        journal.close()
        raise
    station = Station(
        table, journal, devices, events, notifier, observer=observer, commands=commands
    )
    return Built(station, journal, table)


def real_drivers(config: cfg.StationConfig) -> Any:
    """A ``drivers_for`` that builds the drivers for the real devices in ``config``, one per
    device the configuration names, in the registry's order (``drivers.registry``)."""
    from controller.service.config_devices import link_settings
    from controller.service.config_panel import PanelConfig
    from drivers.device_link import ExpectedDevice
    from drivers.errors import DriverError
    from drivers.pairing import PairingStore
    from drivers.panel import GpioPanel, PanelPins
    from drivers.registry import DEVICES, DriverParts

    store = PairingStore(config.pairing.directory)

    def expected(kind: str, serial_number: str, firmware: frozenset[str]) -> ExpectedDevice:
        # An unpaired device gets no secret: its handshake is refused with a fault that
        # says to pair it (docs/operations.md), and the rest of the table still starts.
        try:
            paired = store.load(kind)
        except DriverError as err:
            raise StartError(str(err)) from err
        secret = paired.secret if paired is not None else None
        return ExpectedDevice(serial_number, firmware=firmware, secret=secret)

    def build(sink: Any) -> tuple[Sequence[Device], TableDevices]:
        built: dict[DeviceKind, Device] = {}
        for spec in DEVICES:
            settings = config.devices.get(spec.kind)
            if settings is None:
                continue
            if isinstance(settings, PanelConfig):
                pins = PanelPins(
                    dict(settings.leds),
                    dict(settings.buttons),
                    settings.supervisor_key,
                    dict(settings.wagers),
                )
                built[spec.kind] = GpioPanel(pins, sink)
                continue
            wanted = expected(spec.name, settings.serial_number, settings.firmware)
            parts = DriverParts(link_settings(settings), sink, wanted, config.decks)
            built[spec.kind] = spec.make_driver(parts)
        return list(built.values()), TableDevices.of(built)

    return build


def rig_drivers(rig: Any) -> Any:
    """A ``drivers_for`` that builds the real drivers against ``rig`` (a
    ``drivers.simulated.rig.SimulatedRig``); the HIL suite hands it a rig it controls."""

    def build(sink: Any) -> tuple[Sequence[Device], TableDevices]:
        drivers = rig.build_drivers(sink)
        return list(drivers.by_kind.values()), TableDevices.of(drivers.by_kind)

    build.rig = rig  # type: ignore[attr-defined]
    return build


@contextmanager
def simulated_drivers(
    config: cfg.StationConfig, seed: int = 0, firmware: str | None = None
) -> Iterator[Any]:
    """A ``drivers_for`` that builds the real drivers against the device doubles (the shoe
    and the panel board as the C reference firmware with ``firmware`` "host" or "qemu")."""
    from drivers.simulated.rig import SimulatedRig

    # The panel board double carries every lamp and wager sensor (with amounts).
    with SimulatedRig(decks=config.decks, seed=seed, panel_board=True, firmware=firmware) as rig:
        yield rig_drivers(rig)


def log_view(event: DeviceEvent, view: TableView | None, idle: bool) -> None:
    """The debug log's observer: each event handled, by kind, and the public table view
    once the station has caught up with its queue (never a card's identity from the
    event itself: the view is what anyone at the table may see)."""
    _log.debug("event handled", kind=type(event).__name__, view=view_record(view) if view else None)


@contextmanager
def _stacks_on_signal(wake: Callable[[], None]) -> Iterator[bool]:
    """While the block runs, have :data:`STACKS_SIGNAL` write every thread's stack to
    stderr (files, lines and functions: faulthandler prints no values, so no card leaves)
    and then call ``wake``; yields False, with a warning, where stderr is no file (an
    embedding that replaced it).

    faulthandler writes in the signal handler itself, on whichever thread the signal came
    to; a slow stderr (journald under load) that held the station's loop there longer than
    its wait had left could keep that wait going until the next event
    (``controller.service.station``, "Waking the loop"): the Python handler chained after
    the dump wakes the loop (``wake``, :meth:`Station.wake`).
    """
    previous = signal.signal(STACKS_SIGNAL, lambda _signum, _frame: wake())
    try:
        faulthandler.register(STACKS_SIGNAL, all_threads=True, chain=True)
    except (AttributeError, ValueError, OSError) as err:
        signal.signal(STACKS_SIGNAL, previous)
        _log.warning("no thread stacks on SIGUSR1: stderr is not a file", error=str(err))
        yield False
        return
    try:
        yield True
    finally:
        faulthandler.unregister(STACKS_SIGNAL)
        signal.signal(STACKS_SIGNAL, previous)


def serve(built: Built, stopping: threading.Event | None = None) -> None:
    """Run the station until SIGTERM or SIGINT (or at once when ``stopping`` is set: a
    signal came during the start); always close the journal."""
    station = built.station
    with _stacks_on_signal(station.wake) as stacks:

        def stop() -> None:
            if stacks:  # a stop that hangs says where (STOP_STACKS_AFTER)
                faulthandler.dump_traceback_later(STOP_STACKS_AFTER, exit=False)
            station.stop()  # wakes the loop: the log line before may have been slow

        def on_signal(signum: int, _frame: object) -> None:
            _log.info("signal", signal=signal.Signals(signum).name)
            stop()

        previous = {s: signal.signal(s, on_signal) for s in _STOP_SIGNALS}
        if stopping is not None and stopping.is_set():
            _log.info("signal", signal="received during the start")
            stop()
        try:
            # The Pi has no real-time clock: its state and every step are journalled
            # (clock.py).
            with watching_clock(built.journal):
                station.run()
        finally:
            try:
                for s, handler in previous.items():
                    signal.signal(s, handler)
                built.journal.close()
            finally:
                if stacks:  # the stop is over: the journal's close was part of it
                    faulthandler.cancel_dump_traceback_later()


def serve_table(
    config: cfg.StationConfig, built: Built, stopping: threading.Event | None = None
) -> None:
    """:func:`serve`, with the journal shipped to the floor meanwhile when ``[floor]`` is
    configured. The shipper is a thread of its own with its own read-only connection: the
    station thread never waits for it (``controller.service.shipper``). Once the station
    has stopped, the shipper is given 2 s to stop.

    Raises:
        StartError: the floor password file cannot be read.
    """
    if config.floor is None:
        serve(built, stopping)
        return
    from controller.service.shipper import Shipper

    shipper = Shipper(config.journal.path, config.table_id, config.floor)
    try:
        shipper.start()
    except OSError as err:
        built.journal.close()
        raise StartError(f"floor.password_file: {err}") from err
    try:
        serve(built, stopping)
    finally:
        # Not waited for long: a shipper still reaching for a lost broker holds nothing
        # (what it had not delivered goes after the next start).
        shipper.stop(timeout=2.0)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``dealer-station run``."""
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG, metavar="FILE")
    parser.add_argument(
        "--simulated-devices",
        action="store_true",
        help="use the device doubles instead of the configured devices",
    )
    parser.add_argument("--journal", type=Path, help="override the configured journal path")


def run(args: argparse.Namespace) -> int:
    """Start the daemon; 2 with one line on stderr when it cannot start."""
    # A SIGTERM during the start (journal check, restore, devices) is kept, not fatal: the
    # station then stops as soon as it exists, with a clean shutdown in the journal.
    stopping = threading.Event()
    early = {s: signal.signal(s, lambda *_: stopping.set()) for s in _STOP_SIGNALS}
    notifier = Notifier()
    try:
        config = cfg.load_config(args.config)
        if args.journal is not None:
            config = _with_journal(config, args.journal)
        configure_logging(level=config.logging.level, form=config.logging.format)
        bind_table(config.table_id)
        observer = log_view if config.logging.level == "debug" else None
        if args.simulated_devices:
            with simulated_drivers(config) as drivers_for:
                built = build_station(config, drivers_for, notifier=notifier, observer=observer)
                serve_table(config, built, stopping)
        else:
            drivers_for = real_drivers(config)
            built = build_station(config, drivers_for, notifier=notifier, observer=observer)
            serve_table(config, built, stopping)
    except (ConfigError, StartError) as err:
        print(f"dealer-station run: {err}", file=sys.stderr)
        return 2
    except JournalError as err:
        # The station must not act on what it cannot record: stop, and let systemd
        # restart it (Restart=on-failure); recovery reads the journal back.
        _log.critical("journal write failed: stopping", error=str(err))
        print(f"dealer-station run: journal write failed, station stopped: {err}", file=sys.stderr)
        return 1
    finally:
        notifier.close()
        for s, handler in early.items():
            signal.signal(s, handler)
    return 0


def _with_journal(config: cfg.StationConfig, path: Path) -> cfg.StationConfig:
    from dataclasses import replace

    return replace(config, journal=replace(config.journal, path=path))
