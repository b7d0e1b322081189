"""The daemon's start and stop in-process (``controller.service.daemon``): the journal's
check before anything opens it, the build of the station (its start row, the table restored,
the shoe's count handed back), ``serve``'s signals, and ``run``'s one-line refusals.

Real journals in ``tmp_path``, the example configuration, real signal handlers (the signal
sent to this process), drivers that are stand-ins with no port, built per test.
``tests/test_daemon_service.py`` runs the same daemon as systemd does, in a subprocess.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import structlog
from daemon_support import NotifyListener, journal_dir, station_toml
from journal_tamper_support import tamper
from table_support import RecordingPanel, RecordingShuffler

from controller.journal.seal import new_sealing, save_state
from controller.journal.store import Journal, JournalError, JournalReader, head_path
from controller.journal.verify import verify
from controller.service import config as cfg
from controller.service import daemon
from controller.service.daemon import (
    DEFAULT_CONFIG,
    StartError,
    build_station,
    log_view,
    open_journal,
    real_drivers,
    serve,
    serve_table,
)
from controller.service.sdnotify import Notifier
from controller.service.station import WAKE
from controller.table.machine import State, TableDevices
from controller.table.view import table_view, view_record
from drivers.hal import Button, ButtonPressed, DeviceConnected, DeviceEvent, DeviceKind, Led

NEXT = ButtonPressed(Button.NEXT)
CONNECTED = DeviceConnected(DeviceKind.SHOE, "SHO-0000042", "sho-2.4.0")


@pytest.fixture
def journals(tmp_path: Path) -> Iterator[Path]:
    with journal_dir(tmp_path) as path:
        yield path


@pytest.fixture(autouse=True)
def _fresh_log_context() -> Iterator[None]:
    structlog.contextvars.clear_contextvars()
    yield
    structlog.contextvars.clear_contextvars()


def config_for(tmp_path: Path, journal: Path, *, extra: str = "") -> cfg.StationConfig:
    """The example configuration, its journal at ``journal`` and its sealing state (none
    made) beside it."""
    path = station_toml(tmp_path, journal, extra=extra)
    text = path.read_text().replace(
        '"/var/lib/dealer-station/sealing-key"', f'"{journal.parent / "sealing-key"}"'
    )
    path.write_text(text.replace('"/var/lib/dealer-station/pairing"', f'"{tmp_path / "pair"}"'))
    return cfg.load_config(path)


class StandInShoe:
    """A shoe driver with no port: notes the count it is handed and its start and close."""

    def __init__(self, reports: Sequence[DeviceEvent] = ()) -> None:
        self.reports = reports
        self.counts: list[tuple[int | None, int | None, bool]] = []
        self.calls: list[str] = []
        self.sink: Any = None

    def resume_count(self, load: int | None, draw: int | None, *, empty: bool) -> None:
        self.calls.append("resume_count")
        self.counts.append((load, draw, empty))

    def start(self) -> None:
        self.calls.append("start")
        for report in self.reports:
            self.sink(report)

    def close(self) -> None:
        self.calls.append("close")


class StoppingShuffler(RecordingShuffler):
    """Calls ``then`` at its first shuffle (the station is up: the first command it sends)."""

    then: Any = None

    def shuffle(self, decks: int) -> None:
        super().shuffle(decks)
        if self.then is not None:
            self.then()


class Drivers:
    """A ``drivers_for``: the stand-in shoe, a shuffler and a panel that record."""

    def __init__(self, reports: Sequence[DeviceEvent] = (CONNECTED,)) -> None:
        self.shoe = StandInShoe(reports)
        self.shuffler = StoppingShuffler()
        self.panel = RecordingPanel()

    def __call__(self, sink: Any) -> tuple[list[Any], TableDevices]:
        self.shoe.sink = sink
        return [self.shoe], TableDevices(self.shuffler, self.panel)


def kinds(path: Path) -> list[str]:
    with JournalReader.open(path) as reader:
        return [r.kind for r in reader.rows()]


# --- open_journal ---------------------------------------------------------------------------


@pytest.mark.parametrize("what", ["a symlink", "a directory", "not a regular file"])
def test_a_journal_path_that_is_not_a_file_is_refused_in_one_line(
    tmp_path: Path, what: str
) -> None:
    """A symlink (even to a good journal), a directory or a FIFO: the operator is told to
    name the journal's file itself, and nothing is made."""
    path = tmp_path / "journal.sqlite3"
    if what == "a symlink":
        Journal.open(tmp_path / "real.sqlite3").close()
        path.symlink_to(tmp_path / "real.sqlite3")
    elif what == "a directory":
        path.mkdir()
    else:
        os.mkfifo(path)
    with pytest.raises(StartError) as raised:
        open_journal(path)
    assert str(raised.value) == f"journal {path} is {what}: name the journal's file itself"
    assert not head_path(path).exists()


def test_a_journal_that_fails_verification_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        journal.append("note", {"text": "kept"})
    tamper(path, """UPDATE journal SET data = '{"text":"changed"}' WHERE kind = 'note'""")
    with pytest.raises(StartError) as raised:
        open_journal(path)
    assert str(raised.value).startswith(f"journal {path} failed verification: ")
    assert "\n" not in str(raised.value)


def test_a_journal_another_process_writes_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path), pytest.raises(StartError) as raised:
        open_journal(path)
    assert str(raised.value).startswith(f"journal {path}: ")
    assert "another process" in str(raised.value)


def test_an_unsealed_journal_without_its_sealing_state_starts_with_a_warning(
    tmp_path: Path,
) -> None:
    """No sealing state (``journal setup-keys`` never run): the journal opens unsealed, is
    checkpointed, and the log says so; a journal never sealed gets the same."""
    path = tmp_path / "journal.sqlite3"
    with structlog.testing.capture_logs() as logs:
        journal = open_journal(path, tmp_path / "sealing-key")
    try:
        assert journal.epoch is None
        assert journal.path == path
    finally:
        journal.close()
    assert kinds(path) == ["verified"]
    warnings = [line["event"] for line in logs if line["log_level"] == "warning"]
    assert warnings == ["journal not sealed: no sealing state (dealer-station journal setup-keys)"]


def test_no_sealing_state_asked_for_is_no_warning(tmp_path: Path) -> None:
    with structlog.testing.capture_logs() as logs:
        open_journal(tmp_path / "journal.sqlite3").close()
    assert [line for line in logs if line["log_level"] == "warning"] == []


@pytest.mark.parametrize("first_seal", [True, False])
def test_a_sealed_journal_whose_sealing_state_is_gone_is_refused_and_left_closed(
    tmp_path: Path, first_seal: bool
) -> None:
    """A journal sealed with the station's key does not go on unsealed once the key file
    is gone (docs/operations.md): whether it holds seal rows, or only the sealed checkpoint
    of a start stopped before its first seal (which follows ``station_started``, after the
    restore: a power cut in between)."""
    path, key_file = tmp_path / "journal.sqlite3", tmp_path / "sealing-key"
    state, _ = new_sealing("T1")
    save_state(key_file, state)
    journal = open_journal(path, key_file)
    assert journal.epoch is not None
    if first_seal:
        journal.append("station_started", {})  # and its seal
    journal.close()
    key_file.unlink()
    before = kinds(path)
    assert ("seal" in before) is first_seal
    with pytest.raises(StartError) as raised:
        open_journal(path, key_file)
    assert str(raised.value) == (
        f"journal {path} is sealed but its sealing state {key_file} is missing:"
        " the station does not go on unsealed; keep the files and call the supervisor"
    )
    assert kinds(path) == before  # no checkpoint written
    Journal.open(path).close()  # and not left open: no writer holds it


def test_a_journal_given_its_keys_late_is_sealed_from_its_first_sealed_start(
    tmp_path: Path,
) -> None:
    """A journal that ran unsealed, then given its sealing state (``journal setup-keys``):
    its first sealed start, cut off before its first seal, leaves an unsealed checkpoint
    before the sealed one and rows after it (a tool that appended without the key); the
    last checkpoint is the one that counts, and the key file gone refuses the start."""
    path, key_file = tmp_path / "journal.sqlite3", tmp_path / "sealing-key"
    open_journal(path).close()  # unsealed: its checkpoint holds no MAC
    state, _ = new_sealing("T1")
    save_state(key_file, state)
    open_journal(path, key_file).close()  # sealed checkpoint, no seal row yet
    with Journal.open(path) as writer:  # rows after it, written without the key
        writer.append("note", {"text": "after"})
    key_file.unlink()
    assert kinds(path) == ["verified", "verified", "note"]
    with pytest.raises(StartError, match="is sealed but its sealing state"):
        open_journal(path, key_file)


def test_a_journal_whose_last_checkpoint_is_unsealed_and_holds_no_seal_starts_unsealed(
    tmp_path: Path,
) -> None:
    """Never sealed: its checkpoints hold no MAC; a missing key file is only a warning."""
    path = tmp_path / "journal.sqlite3"
    open_journal(path).close()
    open_journal(path, tmp_path / "sealing-key").close()
    assert kinds(path) == ["verified", "verified"]


def test_a_half_made_journal_is_made_again_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    head_path(path).write_bytes(b"")
    path.write_bytes(b"")
    with structlog.testing.capture_logs() as logs:
        open_journal(path).close()
    warnings = [line["event"] for line in logs if line["log_level"] == "warning"]
    assert warnings == ["journal: a half-made empty journal was made again"]
    assert kinds(path) == ["verified"]


# --- build_station ---------------------------------------------------------------------------


def test_the_start_journals_the_station_and_hands_the_shoe_its_count(
    tmp_path: Path, journals: Path
) -> None:
    """The journal's count (load 3, draw 7, empty since) reaches the shoe before it
    starts; the start row names the version, table, profile, decks, sealing and the limits
    posted (NY 5324.12(d)(2)); the drivers' sink is the station's queue."""
    path = journals / "journal.sqlite3"
    with Journal.open(path) as journal:
        journal.append("shoe_count", {"load": 3, "last": 7})
        journal.append("shoe_empty", {"draws": 7})
    drivers = Drivers()
    built = build_station(config_for(tmp_path, path), drivers)
    try:
        assert drivers.shoe.counts == [(3, 7, True)]
        assert drivers.shoe.calls == ["resume_count"]  # not started yet
        drivers.shoe.sink(NEXT)
        assert built.station.events.get_nowait() is NEXT
        assert built.station.journal is built.journal
        # NY 5324.12(d)(2): the table checks wagers against the limits posted, as configured.
        assert built.table.t.settings.limits.posted() == {
            "main_min_cents": 1000,
            "main_max_cents": 500000,
            "match_min_cents": 500,
            "match_max_cents": 10000,
        }
    finally:
        built.journal.close()
    with JournalReader.open(path) as reader:
        rows = list(reader.rows())
    assert [r.kind for r in rows] == [
        "shoe_count",
        "shoe_empty",
        "verified",
        "station_started",
        "recovered",
    ]
    assert dict(rows[3].data) == {
        "version": "0.1.0",
        "table_id": "PA-S21-07",
        "profile": "PA",
        "decks": 6,
        "sealed": False,
        "limits": {
            "main_min_cents": 1000,
            "main_max_cents": 500000,
            "match_min_cents": 500,
            "match_max_cents": 10000,
        },
    }


def test_a_sealed_start_says_so(tmp_path: Path, journals: Path) -> None:
    path = journals / "journal.sqlite3"
    state, _ = new_sealing("PA-S21-07")
    save_state(journals / "sealing-key", state)
    built = build_station(config_for(tmp_path, path), Drivers())
    built.journal.close()
    with JournalReader.open(path) as reader:
        (started,) = [r for r in reader.rows() if r.kind == "station_started"]
    assert started.data["sealed"] is True


def test_a_new_station_does_not_lend_an_earlier_ones_state_to_its_log(
    tmp_path: Path, journals: Path
) -> None:
    from controller.service.logs import bind_round, bind_state

    bind_state("fault")
    bind_round(12)
    built = build_station(config_for(tmp_path, journals / "journal.sqlite3"), Drivers())
    built.journal.close()
    context = structlog.contextvars.get_contextvars()
    assert context["state"] is None and context["round"] is None


def test_a_start_whose_drivers_cannot_be_built_leaves_the_journal_free(
    tmp_path: Path, journals: Path
) -> None:
    path = journals / "journal.sqlite3"

    def no_drivers(sink: Any) -> Any:
        raise StartError("shuffler: pairing file unreadable")

    with pytest.raises(StartError, match="pairing file unreadable"):
        build_station(config_for(tmp_path, path), no_drivers)
    Journal.open(path).close()  # no writer holds it


def test_a_built_station_commands_the_table_and_a_restart_goes_on_where_it_stood(
    tmp_path: Path, journals: Path
) -> None:
    """The station built runs the table's commands (the first shuffle), tells systemd and
    the observer; after its stop, the next start restores the table in the state it left
    (shuffling) and says so in its ``recovered`` row."""
    path = journals / "journal.sqlite3"
    config = config_for(tmp_path, path)
    listener = NotifyListener()
    notifier = Notifier({"NOTIFY_SOCKET": listener.address})
    seen: list[str] = []
    drivers = Drivers()
    try:
        built = build_station(
            config,
            drivers,
            notifier=notifier,
            observer=lambda event, view, idle: seen.append(type(event).__name__),
        )
        drivers.shuffler.then = built.station.stop
        try:
            built.station.run()
        finally:
            built.journal.close()
        assert listener.wait_for(lambda m: m.startswith("READY=1"), 5.0)
    finally:
        notifier.close()
        listener.close()
    assert drivers.shuffler.commands == [6]
    assert seen == ["DeviceConnected"]
    assert drivers.shoe.calls == ["resume_count", "start", "close"]
    again = build_station(config, Drivers())
    try:
        assert again.table.state is State.SHUFFLING
    finally:
        again.journal.close()
    with JournalReader.open(path) as reader:
        recovered = [dict(r.data) for r in reader.rows() if r.kind == "recovered"]
    assert recovered[-1] == {"round": 0, "state": "shuffling"}


def test_the_nonces_given_seal_the_tables_hole_cards(tmp_path: Path, journals: Path) -> None:
    """The table's hole-card commitments take their nonces from the start's source."""
    built = build_station(
        config_for(tmp_path, journals / "journal.sqlite3"), Drivers(), nonces=lambda: "n" * 32
    )
    try:
        assert built.table.t.nonces() == "n" * 32  # what the commitments are made with
    finally:
        built.journal.close()


# --- serve and serve_table -------------------------------------------------------------------


def test_a_signal_kept_from_the_start_stops_the_station_at_once(
    tmp_path: Path, journals: Path
) -> None:
    """SIGTERM during the start (``stopping`` set): the station stops as soon as it runs,
    nothing is commanded, the journal ends with a clean shutdown and is closed, and the
    signal handlers are those from before."""
    path = journals / "journal.sqlite3"
    drivers = Drivers()
    built = build_station(config_for(tmp_path, path), drivers)
    before = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    stopping = daemon.threading.Event()
    stopping.set()
    with structlog.testing.capture_logs() as logs:
        serve(built, stopping)
    assert {s: signal.getsignal(s) for s in before} == before
    with pytest.raises(JournalError):
        built.journal.append("note", {})  # closed
    assert drivers.shuffler.commands == [] and drivers.shoe.calls == ["resume_count", "close"]
    assert kinds(path)[-1] == "clean_shutdown"
    assert {"event": "signal", "signal": "received during the start", "log_level": "info"} in [
        {k: line[k] for k in ("event", "signal", "log_level") if k in line} for line in logs
    ]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_sigterm_or_sigint_while_serving_stops_the_station_cleanly(
    tmp_path: Path, journals: Path, signum: signal.Signals
) -> None:
    path = journals / "journal.sqlite3"
    drivers = Drivers()
    built = build_station(config_for(tmp_path, path), drivers)
    drivers.shuffler.then = lambda: os.kill(os.getpid(), signum)  # handled in this thread
    before = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    with structlog.testing.capture_logs() as logs:
        serve(built)
    assert {s: signal.getsignal(s) for s in before} == before
    assert drivers.shuffler.commands == [6]
    assert kinds(path)[-1] == "clean_shutdown"
    assert [line["signal"] for line in logs if line["event"] == "signal"] == [signum.name]
    with pytest.raises(JournalError):
        built.journal.append("note", {})


def test_the_clock_is_watched_while_serving(tmp_path: Path, journals: Path) -> None:
    """The Pi has no real-time clock: its state is journaled from the start of serving."""
    path = journals / "journal.sqlite3"
    built = build_station(config_for(tmp_path, path), Drivers())
    stopping = daemon.threading.Event()
    stopping.set()
    serve(built, stopping)
    assert "clock" in kinds(path)


def test_a_floor_password_that_cannot_be_read_is_one_line_and_the_journal_closed(
    tmp_path: Path, journals: Path
) -> None:
    path = journals / "journal.sqlite3"
    floor = (
        '[floor]\nbroker = "127.0.0.1"\nport = 1\ntls = false\nusername = "t"\n'
        'password_file = "missing-password"\n'
    )
    config = config_for(tmp_path, path)
    config_text = (tmp_path / "station.toml").read_text() + floor
    (tmp_path / "station.toml").write_text(config_text)
    config = cfg.load_config(tmp_path / "station.toml")
    built = build_station(config, Drivers())
    with pytest.raises(StartError) as raised:
        serve_table(config, built)
    assert str(raised.value).startswith("floor.password_file: ")
    assert str(tmp_path / "missing-password") in str(raised.value)
    with pytest.raises(JournalError):
        built.journal.append("note", {})


def test_with_a_floor_the_journal_is_shipped_while_the_station_serves(
    tmp_path: Path, journals: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``[floor]`` configured: a shipper for this journal and table runs beside the
    station (here its broker is unreachable: it retries) and is stopped after it; a stop
    kept from the start still ends the station at once, journal closed."""
    from controller.service import shipper as shipper_module

    made: list[tuple[Any, ...]] = []

    class NotedShipper(shipper_module.Shipper):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            made.append(args)
            super().__init__(*args, **kwargs)

        def stop(self, timeout: float = 10.0) -> None:
            made.append(("stop", timeout))
            super().stop(timeout)

    monkeypatch.setattr(shipper_module, "Shipper", NotedShipper)
    path = journals / "journal.sqlite3"
    config_for(tmp_path, path)
    (tmp_path / "password").write_text("secret\n")
    floor = (
        '[floor]\nbroker = "127.0.0.1"\nport = 1\ntls = false\nusername = "t"\n'
        'password_file = "password"\n'
    )
    (tmp_path / "station.toml").write_text((tmp_path / "station.toml").read_text() + floor)
    config = cfg.load_config(tmp_path / "station.toml")
    drivers = Drivers()
    built = build_station(config, drivers)
    drivers.shuffler.then = built.station.stop  # should the stop kept be lost: no hang
    stopping = daemon.threading.Event()
    stopping.set()
    serve_table(config, built, stopping)
    assert made[0] == (path, "PA-S21-07", config.floor) and made[-1] == ("stop", 2.0)
    assert drivers.shuffler.commands == []
    assert kinds(path)[-1] == "clean_shutdown"
    with pytest.raises(JournalError):
        built.journal.append("note", {})


def test_the_simulated_devices_come_up_and_report_to_the_station(
    tmp_path: Path, journals: Path
) -> None:
    """``--simulated-devices``: the real drivers against the doubles of a rig of the
    table's decks, the panel a board with its wager sensors (``drivers.simulated.rig``);
    every device connects, its report journaled, and READY follows."""
    import threading

    path = journals / "journal.sqlite3"
    config = config_for(tmp_path, path)
    listener = NotifyListener()
    notifier = Notifier({"NOTIFY_SOCKET": listener.address})
    try:
        with daemon.simulated_drivers(config) as drivers_for:
            rig = drivers_for.rig
            assert rig.decks == 6 and rig.panel_board is not None
            built = build_station(config, drivers_for, notifier=notifier)
            loop = threading.Thread(target=built.station.run, name="station-loop")
            loop.start()
            try:
                listener.wait_for(lambda m: m.startswith("READY=1"), 30)
            finally:
                built.station.stop()
                loop.join(timeout=30)
                built.journal.close()
            assert not loop.is_alive()
    finally:
        notifier.close()
        listener.close()
    with JournalReader.open(path) as reader:
        connected = [
            r.data["device"]
            for r in reader.rows()
            if r.kind == "device" and r.data["status"] == "connected"
        ]
    assert sorted(connected) == ["card_reader", "panel", "shoe", "shuffler"]


# --- real_drivers ----------------------------------------------------------------------------


def test_the_real_drivers_are_one_per_configured_device_in_the_registrys_order(
    tmp_path: Path, journals: Path
) -> None:
    """Built, not started (no port is opened): a paired device's driver expects its pairing
    secret, an unpaired one none (its handshake is refused later, naming pairing), each
    with its configured serial number and firmware; the panel gets its pins."""
    from drivers.pairing import PairedDevice, PairingStore

    config = config_for(tmp_path, journals / "journal.sqlite3")
    PairingStore(tmp_path / "pair").save("shoe", PairedDevice("SHO-0000042", b"s" * 32))
    sink: list[DeviceEvent] = []
    devices, table_devices = real_drivers(config)(sink.append)
    try:
        assert [type(d).__name__ for d in devices] == [
            "ShufflerDriver",
            "ShoeDriver",
            "CardReaderDriver",
            "GpioPanel",
        ]
        shuffler, shoe, reader, panel = devices
        assert table_devices == TableDevices(shuffler, panel, reader, shoe)
        assert shoe.expected.secret == b"s" * 32  # type: ignore[attr-defined]
        assert shuffler.expected.secret is None  # type: ignore[attr-defined]
        assert shoe.expected.serial_number == "SHO-0000042"  # type: ignore[attr-defined]
        assert shoe.expected.firmware == frozenset({"sho-2.3.1", "sho-2.4.0"})  # type: ignore[attr-defined]
        assert panel.pins.supervisor_key == 26  # type: ignore[attr-defined]
        assert panel.pins.leds[Led.SHUFFLE] == 2  # type: ignore[attr-defined]
        assert panel.pins.buttons[Button.NEXT] == 17  # type: ignore[attr-defined]
    finally:
        for device in devices:
            device.close()


def test_the_real_panel_reports_to_the_station_and_senses_the_wired_wagers(
    tmp_path: Path, journals: Path
) -> None:
    """The panel's driver gets the wager sensors the configuration wires (seat 3's main
    spot on GPIO 7 here) and reports to the sink it is given: started on gpiozero's mock
    pins, its first report (connected) reaches the station's queue."""
    from gpiozero import Device as GpioDevice
    from gpiozero.pins.mock import MockFactory

    from drivers.hal import WagerSpot

    path = station_toml(tmp_path, journals / "journal.sqlite3")
    text = path.read_text().replace("push = 7\n", "")
    path.write_text(text + '[devices.panel.wagers]\n"3.main" = 7\n')
    config = cfg.load_config(path)
    sink: list[DeviceEvent] = []
    devices, _ = real_drivers(config)(sink.append)
    panel = devices[-1]
    assert panel.pins.wagers == {(3, WagerSpot.MAIN): 7}  # type: ignore[attr-defined]
    previous, factory = GpioDevice.pin_factory, MockFactory()
    GpioDevice.pin_factory = factory
    try:
        panel.start()
        assert isinstance(sink[0], DeviceConnected) and sink[0].device is DeviceKind.PANEL
    finally:
        for device in devices:
            device.close()
        factory.reset()
        GpioDevice.pin_factory = previous


def test_the_real_linked_drivers_report_to_the_station_and_count_the_tables_decks(
    tmp_path: Path, journals: Path
) -> None:
    """Each serial driver reports to the sink it is given (started on a port that is not
    there: lost, naming the port); the shoe counts each card's copies against the table's
    six decks (``drivers.shoe``: a seventh copy is a duplicate)."""
    import queue

    from drivers.hal import DeviceLost

    config = config_for(tmp_path, journals / "journal.sqlite3")
    events: queue.Queue[DeviceEvent] = queue.Queue()
    devices, table_devices = real_drivers(config)(events.put)
    try:
        assert table_devices.shoe is not None and table_devices.shoe.decks == 6  # type: ignore[attr-defined]
        table_devices.shoe.start()
        lost = events.get(timeout=10)
        assert lost == DeviceLost(DeviceKind.SHOE, "/dev/dealer-shoe: no such serial port")
    finally:
        for device in devices:
            device.close()


def test_a_pairing_file_that_does_not_read_refuses_the_start_in_one_line(
    tmp_path: Path, journals: Path
) -> None:
    config = config_for(tmp_path, journals / "journal.sqlite3")
    (tmp_path / "pair").mkdir()
    (tmp_path / "pair" / "shuffler.key").write_text("not a pairing\n")
    with pytest.raises(StartError) as raised:
        real_drivers(config)(lambda event: None)
    assert str(raised.value) == (
        f"{tmp_path / 'pair' / 'shuffler.key'}: not a pairing file (SERIAL HEX-SECRET)"
    )


# --- log_view and run ------------------------------------------------------------------------


def test_the_debug_observer_logs_the_event_kind_and_the_public_view(
    tmp_path: Path, journals: Path
) -> None:
    built = build_station(config_for(tmp_path, journals / "journal.sqlite3"), Drivers())
    try:
        view = table_view(built.table)
        with structlog.testing.capture_logs() as logs:
            log_view(NEXT, None, False)
            log_view(NEXT, view, True)
    finally:
        built.journal.close()
    assert logs == [
        {"event": "event handled", "kind": "ButtonPressed", "view": None, "log_level": "debug"},
        {
            "event": "event handled",
            "kind": "ButtonPressed",
            "view": view_record(view),
            "log_level": "debug",
        },
    ]


def test_run_takes_its_configuration_and_journal_from_the_command_line() -> None:
    parser = argparse.ArgumentParser()
    daemon.add_arguments(parser)
    assert vars(parser.parse_args([])) == {
        "config": DEFAULT_CONFIG,
        "simulated_devices": False,
        "journal": None,
    }
    given = parser.parse_args(["--config", "a.toml", "--simulated-devices", "--journal", "j"])
    assert (given.config, given.simulated_devices, given.journal) == (
        Path("a.toml"),
        True,
        Path("j"),
    )


def test_runs_help_names_each_argument_and_what_it_does() -> None:
    """What ``dealer-station run --help`` shows the operator."""
    parser = argparse.ArgumentParser(prog="dealer-station run")
    daemon.add_arguments(parser)
    text = " ".join(parser.format_help().split())
    assert "[--config FILE]" in text and "--config FILE " in text
    assert "--simulated-devices use the device doubles instead of the configured devices" in text
    assert "--journal JOURNAL override the configured journal path" in text


def run_daemon(args: argparse.Namespace) -> int:
    """``daemon.run``, with the test run's logging put back after it."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        return daemon.run(args)
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
        structlog.reset_defaults()
        structlog.contextvars.clear_contextvars()


def test_run_refuses_a_configuration_it_cannot_read_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "none.toml"
    handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    args = argparse.Namespace(config=missing, simulated_devices=False, journal=None)
    assert run_daemon(args) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("dealer-station run: ") and str(missing) in err[0]
    assert {s: signal.getsignal(s) for s in handlers} == handlers


@pytest.mark.parametrize("simulated", [False, True])
def test_run_opens_the_journal_the_command_line_names(
    tmp_path: Path, journals: Path, capsys: pytest.CaptureFixture[str], simulated: bool
) -> None:
    """``--journal`` in place of the configured path (here a directory: refused, named)."""
    config = station_toml(tmp_path, journals / "journal.sqlite3")
    named = tmp_path / "elsewhere"
    named.mkdir()
    args = argparse.Namespace(config=config, simulated_devices=simulated, journal=named)
    assert run_daemon(args) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line == (
        f"dealer-station run: journal {named} is a directory: name the journal's file itself"
    )
    assert not (journals / "journal.sqlite3").exists()


def test_a_journal_write_that_fails_stops_the_station_with_status_1(
    tmp_path: Path, journals: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The station does not act on what it cannot record: a journal that fails while
    serving (here closed under it) ends ``run`` with status 1 and one line, for systemd
    to restart it."""
    path = journals / "journal.sqlite3"
    real_build = daemon.build_station

    def build_then_lose_the_journal(*args: Any, **kwargs: Any) -> daemon.Built:
        built = real_build(*args, **kwargs)
        built.journal.close()
        return built

    args = argparse.Namespace(
        config=station_toml(tmp_path, path), simulated_devices=False, journal=None
    )
    patch = pytest.MonkeyPatch()
    patch.setattr(daemon, "build_station", build_then_lose_the_journal)
    patch.setattr(daemon, "real_drivers", lambda config: Drivers())
    try:
        assert run_daemon(args) == 1
    finally:
        patch.undo()
    out, err = capsys.readouterr()
    (line,) = err.splitlines()
    assert line.startswith("dealer-station run: journal write failed, station stopped: ")
    error = line.removeprefix("dealer-station run: journal write failed, station stopped: ")
    logged = [json.loads(text) for text in out.splitlines() if text.startswith("{")]
    (critical,) = [entry for entry in logged if entry["level"] == "critical"]
    assert critical["event"] == "journal write failed: stopping"
    assert critical["error"] == error and error


@pytest.mark.parametrize("simulated", [True, False])
def test_sigterm_during_the_start_is_kept_and_ends_in_a_clean_shutdown(
    tmp_path: Path, journals: Path, monkeypatch: pytest.MonkeyPatch, simulated: bool
) -> None:
    """systemd may stop the service while it starts: the signal, arriving while the
    journal is checked and the table restored, is not fatal; the station stops as soon as
    it exists, without READY and with a clean shutdown in the journal."""
    listener = NotifyListener()
    journal = journals / "journal.sqlite3"
    real_build = daemon.build_station

    def build_then_signalled(*args: Any, **kwargs: Any) -> daemon.Built:
        built = real_build(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGTERM)  # delivered here, in the main thread
        return built

    monkeypatch.setattr(daemon, "build_station", build_then_signalled)
    monkeypatch.setenv("NOTIFY_SOCKET", listener.address)
    handler = signal.getsignal(signal.SIGTERM)
    args = argparse.Namespace(
        config=station_toml(tmp_path, journal), simulated_devices=simulated, journal=None
    )
    try:
        assert run_daemon(args) == 0
        assert signal.getsignal(signal.SIGTERM) == handler  # put back
        assert listener.wait_for(lambda m: True, 1.0).startswith("STOPPING=1")
        with pytest.raises(TimeoutError):
            listener.wait_for(lambda m: "READY=1" in m, 0.2)
    finally:
        listener.close()
    assert verify(journal).ok
    kinds_written = kinds(journal)
    assert kinds_written[:2] == ["verified", "station_started"]
    assert kinds_written[-1] == "clean_shutdown"
    assert "shuffle_commanded" not in kinds_written  # the table was never commanded


@pytest.mark.parametrize("simulated", [True, False])
@pytest.mark.parametrize(("level", "observer"), [("debug", log_view), ("info", None)])
def test_run_logs_each_event_only_at_the_debug_level(
    tmp_path: Path, journals: Path, level: str, observer: Any, simulated: bool
) -> None:
    """The debug observer is given to the station at ``level = "debug"`` only; the table's
    id is on every line from the start."""
    journal = journals / "journal.sqlite3"
    config = station_toml(tmp_path, journal)
    config.write_text(config.read_text().replace('level = "info"', f'level = "{level}"'))
    given: list[tuple[Any, Any]] = []

    def seen(kwargs: dict[str, Any]) -> None:
        context = structlog.contextvars.get_contextvars()
        given.append((kwargs["observer"], context.get("table_id")))

    assert run_stopped_once_built(config, simulated, seen) == 0
    assert given == [(observer, "PA-S21-07")]


def run_stopped_once_built(
    config: Path, simulated: bool, seen: Callable[[dict[str, Any]], None] | None = None
) -> int:
    """``run_daemon`` on ``config``, a SIGTERM sent as soon as the station is built
    (``seen`` is shown ``build_station``'s keyword arguments first); its exit status."""
    real_build = daemon.build_station

    def build_then_signalled(*args: Any, **kwargs: Any) -> daemon.Built:
        if seen is not None:
            seen(kwargs)
        built = real_build(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGTERM)
        return built

    patch = pytest.MonkeyPatch()
    patch.setattr(daemon, "build_station", build_then_signalled)
    args = argparse.Namespace(config=config, simulated_devices=simulated, journal=None)
    try:
        return run_daemon(args)
    finally:
        patch.undo()


def test_run_logs_at_the_configured_level_in_the_configured_form(
    tmp_path: Path, journals: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``[logging]`` level "warning", form "console": the start's warning (no sealing
    state) is written as a console line, and none of its info lines (ready, stopped)."""
    journal = journals / "journal.sqlite3"
    config = station_toml(tmp_path, journal)
    text = config.read_text().replace('level = "info"', 'level = "warning"')
    config.write_text(text.replace('format = "auto"', 'format = "console"'))
    assert run_stopped_once_built(config, True) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert any("[warning" in line and "journal not sealed" in line for line in lines), lines
    assert not any(line.lstrip().startswith("{") for line in lines)  # not JSON
    assert not any("[info" in line for line in lines)


def test_a_device_left_out_of_the_configuration_gets_no_driver(
    tmp_path: Path, journals: Path
) -> None:
    """A table without a shuffler (the dealer shuffles by hand): no shuffler driver, and
    the devices after it in the registry still built."""
    path = station_toml(tmp_path, journals / "journal.sqlite3")
    text = path.read_text()
    start = text.index("[devices.shuffler]")
    path.write_text(text[:start] + text[text.index("[devices.shoe]") :])
    config = cfg.load_config(path)
    devices, table_devices = real_drivers(config)(lambda event: None)
    try:
        assert [type(d).__name__ for d in devices] == [
            "ShoeDriver",
            "CardReaderDriver",
            "GpioPanel",
        ]
        assert table_devices.shuffler is None
    finally:
        for device in devices:
            device.close()


def test_thread_stacks_on_sigusr1_need_stderr_to_be_a_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """docs/operations.md, "Running": SIGUSR1 writes the stacks to stderr, then wakes the
    loop. Where stderr is no file (an embedding replaced it), serving goes on without
    them, with a warning, and SIGUSR1 is left as it was."""
    import io

    woken: list[str] = []
    before = signal.getsignal(signal.SIGUSR1)
    monkeypatch.setattr(daemon.sys, "stderr", io.StringIO())
    with structlog.testing.capture_logs() as logs, daemon._stacks_on_signal(woken.append) as on:
        assert on is False
        assert signal.getsignal(signal.SIGUSR1) is before
    assert [line["event"] for line in logs] == ["no thread stacks on SIGUSR1: stderr is not a file"]
    release = threading.Event()

    def a_link_thread_waiting() -> None:
        release.wait(30.0)

    other = threading.Thread(target=a_link_thread_waiting, daemon=True)
    other.start()
    with (tmp_path / "stderr").open("w") as file:
        monkeypatch.setattr(daemon.sys, "stderr", file)
        try:
            with daemon._stacks_on_signal(lambda: woken.append("woken")) as on:
                assert on is True
                os.kill(os.getpid(), signal.SIGUSR1)  # written at once, in this thread
        finally:
            release.set()
    other.join()
    assert signal.getsignal(signal.SIGUSR1) is before  # given back as it was
    stacks = (tmp_path / "stderr").read_text()
    assert "most recent call first" in stacks and "test_thread_stacks_on_sigusr1" in stacks
    assert "in a_link_thread_waiting" in stacks, stacks  # every thread's, not this one's
    assert woken == ["woken"]  # the loop is woken after the dump


class SlowLog:
    """The daemon's log with one event as slow to write as journald under load makes it."""

    def __init__(self, log: Any, event: str, seconds: float) -> None:
        self._log, self._event, self._seconds = log, event, seconds

    def __getattr__(self, name: str) -> Any:
        return getattr(self._log, name)

    def info(self, event: str, **fields: Any) -> None:
        if event == self._event:
            time.sleep(self._seconds)  # the write's own slowness, not a wait for anything
        self._log.info(event, **fields)


def ready_and_idle(listener: NotifyListener) -> None:
    """Return once the loop is waiting on its queue: READY=1 came, then a watchdog ping
    (sent just before each wait)."""
    listener.wait_for(lambda m: m.startswith("READY=1"), 30.0)
    listener.wait_for(lambda m: m == "WATCHDOG=1", 30.0)


@contextlib.contextmanager
def watched_station(tmp_path: Path, path: Path) -> Iterator[tuple[NotifyListener, daemon.Built]]:
    """A station built on ``path`` whose sd_notify messages (a watchdog ping every 50 ms
    at most) the listener hears."""
    listener = NotifyListener()
    notifier = Notifier({"NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "100000"})
    try:
        yield listener, build_station(config_for(tmp_path, path), Drivers(), notifier=notifier)
    finally:
        listener.close()
        notifier.close()


def serve_beside(built: daemon.Built, helper: Callable[[threading.Event], None]) -> None:
    """:func:`serve` in this (the main) thread, which signals reach, and ``helper`` in
    another, given an event set once serving has ended."""
    served = threading.Event()
    thread = threading.Thread(target=helper, args=(served,))
    thread.start()
    try:
        serve(built)
    finally:
        served.set()
        thread.join()


def test_a_sigterm_handled_slower_than_the_loops_wait_still_stops_an_idle_table(
    tmp_path: Path, journals: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """controller.service.station, "Waking the loop": CPython 3.11's
    ``SimpleQueue.get(timeout=...)`` waits for ever once a signal handler run inside it
    took longer than the wait had left. Here the handler's log line takes twice the
    loop's whole wait (journald under load; the stop systemd killed after 10 s in the boot
    test): the idle table still stops at once, with its clean shutdown."""
    path = journals / "journal.sqlite3"
    rescued = threading.Event()
    with (tmp_path / "stderr").open("w") as stderr, watched_station(tmp_path, path) as watched:
        stderr_to(monkeypatch, stderr)
        listener, built = watched
        slow = SlowLog(daemon._log, "signal", 2 * built.station.poll_seconds)
        monkeypatch.setattr(daemon, "_log", slow)
        main = threading.get_ident()

        def signal_the_idle_loop(served: threading.Event) -> None:
            ready_and_idle(listener)
            signal.pthread_kill(main, signal.SIGTERM)  # to the loop's thread, in its wait
            if not served.wait(10.0):
                rescued.set()  # the loop waits for an event: give it one, so the test ends
                built.station.events.put(WAKE)

        serve_beside(built, signal_the_idle_loop)
    assert not rescued.is_set(), "the stop waited for the next event"
    assert kinds(path)[-1] == "clean_shutdown"


def test_stacks_written_slowly_leave_an_idle_loop_serving(
    tmp_path: Path, journals: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/operations.md, "Running": SIGUSR1's stacks are written in the signal handler,
    here on the loop's own thread, into a stderr that takes longer than the loop's whole
    wait to take them (a full pipe, as journald's under load): the loop then goes on
    feeding the watchdog, instead of waiting for the next event while systemd counts
    down (controller.service.station, "Waking the loop")."""
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    with contextlib.suppress(BlockingIOError):
        while True:
            os.write(write_end, b"." * 4096)
    os.set_blocking(write_end, True)
    stderr = os.fdopen(write_end, "w")
    stderr_to(monkeypatch, stderr)
    path = journals / "journal.sqlite3"
    main, written = threading.get_ident(), bytearray()
    pinged: list[bool] = []

    def drain() -> None:
        while chunk := os.read(read_end, 1 << 16):  # until the stderr's close
            written.extend(chunk)

    drainer = threading.Thread(target=drain)
    with watched_station(tmp_path, path) as (listener, built):

        def signal_the_idle_loop(_served: threading.Event) -> None:
            try:
                ready_and_idle(listener)
                signal.pthread_kill(main, signal.SIGUSR1)  # the dump blocks on the full pipe
                threading.Event().wait(2 * built.station.poll_seconds)  # the pipe's slowness
                drainer.start()
                listener.drain()
                try:
                    listener.wait_for(lambda m: m == "WATCHDOG=1", 10.0)
                    pinged.append(True)
                except TimeoutError:
                    pinged.append(False)
            finally:
                built.station.stop()

        try:
            serve_beside(built, signal_the_idle_loop)
        finally:
            stderr.close()
            if drainer.is_alive():
                drainer.join()
            os.close(read_end)
    assert "most recent call first" in written.decode(errors="replace")
    assert pinged == [True], "the loop stopped feeding the watchdog after the stacks"
    assert kinds(path)[-1] == "clean_shutdown"


def stderr_to(monkeypatch: pytest.MonkeyPatch, file: Any) -> None:
    """faulthandler writes to what sys.stderr is when it is set up (serve does)."""
    monkeypatch.setattr(daemon.sys, "stderr", file)


def test_a_stop_that_hangs_writes_every_threads_stack_before_systemd_kills_it(
    tmp_path: Path, journals: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/operations.md, "Running": a stop still under way STOP_STACKS_AFTER seconds
    (7 s, systemd kills at 10 s) after its signal leaves the threads' stacks in the log:
    here the shoe's close hangs until they are written, and the stack shows it."""
    monkeypatch.setattr(daemon, "STOP_STACKS_AFTER", 0.2)
    dump = tmp_path / "stderr"
    drivers = Drivers()
    written = threading.Event()

    def hanging_close() -> None:
        deadline = time.monotonic() + 10.0
        while "most recent call first" not in dump.read_text() and time.monotonic() < deadline:
            written.wait(0.05)  # the dump comes from faulthandler's own thread
        drivers.shoe.calls.append("close")

    drivers.shoe.close = hanging_close  # type: ignore[method-assign]
    path = journals / "journal.sqlite3"
    built = build_station(config_for(tmp_path, path), drivers)
    drivers.shuffler.then = lambda: os.kill(os.getpid(), signal.SIGTERM)
    with dump.open("w") as file:
        stderr_to(monkeypatch, file)
        started = time.monotonic()
        serve(built)
    assert time.monotonic() - started < 10.0, "the stacks never came"
    text = dump.read_text()
    assert text.startswith("Timeout (0:00:00.200000)!"), text
    assert "in hanging_close" in text and "in run" in text, text
    assert kinds(path)[-1] == "clean_shutdown"


def test_a_stop_in_time_writes_no_stack(
    tmp_path: Path, journals: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(daemon, "STOP_STACKS_AFTER", 0.2)
    dump = tmp_path / "stderr"
    drivers = Drivers()
    path = journals / "journal.sqlite3"
    built = build_station(config_for(tmp_path, path), drivers)
    drivers.shuffler.then = lambda: os.kill(os.getpid(), signal.SIGTERM)
    with dump.open("w") as file:
        stderr_to(monkeypatch, file)
        serve(built)
        # Three times the delay after the stop ended: a timer left running would have fired.
        threading.Event().wait(0.6)
    assert dump.read_text() == ""
    assert kinds(path)[-1] == "clean_shutdown"
