"""Logging: JSON lines with table, round and state; no frame locals in tracebacks."""

from __future__ import annotations

import io
import json
import logging
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog

from controller.rules.cards import SealedCard, parse_card
from controller.service.logs import (
    bind_round,
    bind_state,
    bind_table,
    configure_logging,
    get_logger,
)

ROOT = Path(__file__).resolve().parent.parent


class TtyStream(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    # What an earlier test in this worker bound (a daemon run in-process binds its table)
    # is not this test's context.
    structlog.contextvars.clear_contextvars()
    yield
    structlog.contextvars.clear_contextvars()
    structlog.reset_defaults()
    for handler in root.handlers[:]:
        root.removeHandler(handler)
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)


def json_lines(stream: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_json_lines_carry_table_round_and_state() -> None:
    out = io.StringIO()
    configure_logging(stream=out)  # auto: a StringIO is no terminal
    log = get_logger("controller.test")
    log.info("station starting")
    bind_table("PA-S21-07")
    bind_round(12)
    bind_state("deal")
    log.info("card drawn", seat=3)
    bind_round(None)
    log.warning("between rounds")
    first, second, third = json_lines(out)
    assert first["event"] == "station starting"
    assert (first["table_id"], first["round"], first["state"]) == (None, None, None)
    assert second["table_id"] == "PA-S21-07" and second["round"] == 12
    assert second["state"] == "deal" and second["seat"] == 3 and second["level"] == "info"
    assert str(second["timestamp"]).endswith("Z")
    assert third["round"] is None and third["level"] == "warning"


def test_stdlib_loggers_go_through_the_same_processors() -> None:
    out = io.StringIO()
    configure_logging(stream=out, form="json")
    bind_table("T9")
    logging.getLogger("usb.core").warning("endpoint %s stalled", "0x81")
    (line,) = json_lines(out)
    assert line["event"] == "endpoint 0x81 stalled"
    assert line["logger"] == "usb.core" and line["table_id"] == "T9" and "state" in line


def test_the_level_filters() -> None:
    out = io.StringIO()
    configure_logging(stream=out, level="warning")
    get_logger("x").info("quiet")
    logging.getLogger("y").info("quiet")
    get_logger("x").error("loud")
    assert [line["event"] for line in json_lines(out)] == ["loud"]


def fail_with_a_secret_local(rank: str, suit: str) -> None:
    hole_card = parse_card(rank + suit)  # noqa: F841 - the local that must not reach the log
    sealed = SealedCard(parse_card("Q" + suit))  # noqa: F841
    raise RuntimeError("reader jammed")


@pytest.mark.parametrize("form", ["json", "console"])
def test_tracebacks_show_no_locals(form: str) -> None:
    out = io.StringIO()
    configure_logging(stream=out, form=form)
    try:
        fail_with_a_secret_local("K", "S")
    except RuntimeError:
        get_logger("x").exception("peek failed")
    text = out.getvalue()
    assert "reader jammed" in text and "fail_with_a_secret_local" in text
    assert "KS" not in text and "QS" not in text


def test_a_sealed_card_in_an_event_stays_face_down() -> None:
    out = io.StringIO()
    configure_logging(stream=out)
    get_logger("x").info("hole card dealt", card=SealedCard(parse_card("AH")))
    (line,) = json_lines(out)
    assert line["card"] == "SealedCard(<face down>)"


def test_console_output_on_a_terminal() -> None:
    out = TtyStream()
    configure_logging(stream=out)  # auto picks the console renderer
    bind_table("T1")
    get_logger("x").info("ready")
    text = out.getvalue()
    assert "ready" in text and "table_id" in text
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)


def test_bad_settings() -> None:
    with pytest.raises(ValueError, match="log level"):
        configure_logging(level="loud")
    with pytest.raises(ValueError, match="log format"):
        configure_logging(form="xml")


def test_lines_from_driver_threads_carry_the_table_too() -> None:
    """Threads start with an empty context: the table, round and state still show."""
    import threading

    out = io.StringIO()
    configure_logging(stream=out, form="json")
    bind_table("NJ-S21-02")
    bind_round(4)
    bind_state("players")
    reader = threading.Thread(target=lambda: get_logger("drivers.transport").info("link up"))
    reader.start()
    reader.join(timeout=5)
    (line,) = json_lines(out)
    assert (line["table_id"], line["round"], line["state"]) == ("NJ-S21-02", 4, "players")


def _python(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=120, check=False,
        cwd=ROOT,
    )  # fmt: skip


def _loaded_by(*argv: str) -> set[str]:
    """The top-level packages loaded in the process of ``dealer-station ARGV`` (the command
    line's own entry point, as the installed script calls it), printed as it exits."""
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print(' '.join({n.split('.')[0] for n, m in"
        " sys.modules.items() if m is not None}), file=sys.stderr))\n"
        f"sys.argv = ['dealer-station', *{list(argv)!r}]\n"
        "from controller.cli.main import main\n"
        "sys.exit(main())\n"
    )
    run = _python("-c", code)
    assert run.returncode == 0, run.stderr[-500:]
    return set(run.stderr.splitlines()[-1].split())


def test_the_daemons_process_loads_neither_rich_nor_gpiozero() -> None:
    """Start-up time on a Pi: the unit runs check-config, then the daemon, at every start.
    Both log and print lines, so structlog's console helper rich stays out of their
    processes, and a table whose panel is a serial board never loads the GPIO library."""
    loaded = _loaded_by("run", "--help")
    assert {"controller", "structlog", "drivers", "transitions"} <= loaded  # the daemon's
    assert "rich" not in loaded and "gpiozero" not in loaded
    checked = _loaded_by("check-config", str(ROOT / "examples/station.toml"))
    assert "controller" in checked and "rich" not in checked
    # The simulated table's terminal is rich's.
    assert "rich" in _loaded_by("simulate", "--help")


def test_console_tracebacks_without_rich_are_structlogs_plain_ones() -> None:
    """A console run of the daemon (a technician at a terminal) still shows an error's
    traceback, without rich."""
    code = (
        "import sys; sys.modules['rich'] = None\n"
        "from controller.service.logs import configure_logging, get_logger\n"
        "configure_logging(form='console', stream=sys.stdout)\n"
        "try:\n    1 / 0\nexcept ZeroDivisionError:\n    get_logger('t').exception('boom')\n"
        "print('loaded rich:', 'rich' in sys.modules and sys.modules['rich'] is not None)\n"
    )
    run = _python("-c", code)
    assert run.returncode == 0, run.stderr[-800:]
    assert "boom" in run.stdout
    assert "Traceback (most recent call last)" in run.stdout
    assert "ZeroDivisionError: division by zero" in run.stdout
    assert "loaded rich: False" in run.stdout


class NoTtyStream(io.StringIO):
    """A stream whose isatty is not a method: taken for no terminal."""

    isatty = True  # type: ignore[assignment]


class BareStream:
    """A stream with write and flush only (no isatty at all)."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> int:
        self.text += text
        return len(text)

    def flush(self) -> None:
        pass


def test_auto_is_json_on_a_stream_that_is_not_a_terminal_however_it_says_so() -> None:
    for stream in (NoTtyStream(), io.StringIO()):
        configure_logging(stream=stream)
        get_logger("x").info("ready")
        (line,) = json_lines(stream)
        assert line["event"] == "ready"
    bare = BareStream()
    configure_logging(stream=bare)  # type: ignore[arg-type]
    get_logger("x").info("ready")
    assert json.loads(bare.text)["event"] == "ready"


def test_console_lines_are_coloured_on_a_terminal_only() -> None:
    tty = TtyStream()
    configure_logging(stream=tty, form="console")
    get_logger("x").info("ready")
    assert "\x1b[" in tty.getvalue()
    plain = io.StringIO()
    configure_logging(stream=plain, form="console")
    get_logger("x").info("ready")
    assert "ready" in plain.getvalue() and "\x1b[" not in plain.getvalue()
    assert not plain.getvalue().lstrip().startswith("{")


def test_json_on_a_terminal_when_asked() -> None:
    tty = TtyStream()
    configure_logging(stream=tty, form="json")
    get_logger("x").info("ready")
    assert json_lines(tty)[0]["event"] == "ready"


def test_a_json_line_holds_the_documented_keys_and_no_formatter_internals() -> None:
    out = io.StringIO()
    configure_logging(stream=out, form="json")
    get_logger("controller.table").info("round over", seat=2)
    (line,) = json_lines(out)
    assert set(line) == {
        "event", "seat", "level", "logger", "timestamp", "table_id", "round", "state"
    }  # fmt: skip
    assert line["logger"] == "controller.table" and line["level"] == "info"


def test_the_default_stream_is_standard_output(capsys: pytest.CaptureFixture[str]) -> None:
    configure_logging()  # info, auto: captured stdout is no terminal
    get_logger("x").debug("hidden")
    get_logger("x").info("shown")
    captured = capsys.readouterr()
    assert [json.loads(line)["event"] for line in captured.out.splitlines()] == ["shown"]
    assert captured.err == ""


def test_configured_again_the_log_writes_once_to_the_new_stream_only() -> None:
    first, second = io.StringIO(), io.StringIO()
    configure_logging(stream=first, form="json")
    configure_logging(stream=second, form="json")
    get_logger("x").info("once")
    logging.getLogger("y").warning("once too")
    assert first.getvalue() == ""
    assert [line["event"] for line in json_lines(second)] == ["once", "once too"]


@pytest.mark.parametrize(
    ("level", "quiet", "loud"),
    [("debug", [], ["debug"]), ("info", ["debug"], ["info"]), ("error", ["warning"], ["error"])],
)
def test_each_level_lets_through_its_own_and_above(
    level: str, quiet: list[str], loud: list[str]
) -> None:
    out = io.StringIO()
    configure_logging(stream=out, level=level, form="json")
    log = get_logger("x")
    for name in quiet + loud:
        getattr(log, name)(name)
    assert [line["event"] for line in json_lines(out)] == loud
    assert logging.getLogger().level == getattr(logging, level.upper())


@pytest.mark.parametrize(("level", "floor"), [("debug", "WARNING"), ("error", "ERROR")])
def test_pyusb_and_transitions_speak_at_warning_or_the_levels_own_if_higher(
    level: str, floor: str
) -> None:
    out = io.StringIO()
    configure_logging(stream=out, level=level, form="json")
    for name in ("usb", "transitions"):
        assert logging.getLevelName(logging.getLogger(name).level) == floor
    logging.getLogger("transitions.core").info("entered state deal")
    logging.getLogger("usb.core").error("stall")
    assert [line["event"] for line in json_lines(out)] == ["stall"]


def test_a_new_configuration_forgets_the_last_tables_context_for_new_threads() -> None:
    import threading

    out = io.StringIO()
    configure_logging(stream=out, form="json")
    bind_table("OLD-1")
    bind_state("deal")
    structlog.contextvars.clear_contextvars()
    configure_logging(stream=out, form="json")
    thread = threading.Thread(target=lambda: get_logger("t").info("up"))
    thread.start()
    thread.join(timeout=5)
    (line,) = json_lines(out)
    assert (line["table_id"], line["round"], line["state"]) == (None, None, None)


def test_a_value_given_with_the_line_is_kept_over_the_bound_one() -> None:
    out = io.StringIO()
    configure_logging(stream=out, form="json")
    bind_round(3)
    get_logger("x").info("replayed", round=2)
    get_logger("x").info("live")
    assert [line["round"] for line in json_lines(out)] == [2, 3]


def test_bad_settings_name_the_value_and_the_choices() -> None:
    with pytest.raises(ValueError) as caught:
        configure_logging(level="loud")
    assert str(caught.value) == "log level 'loud' is not one of debug, info, warning, error"
    with pytest.raises(ValueError) as caught:
        configure_logging(form="xml")
    assert str(caught.value) == "log format 'xml' is not one of auto, json, console"


def test_a_console_on_a_stream_without_isatty_is_plain_text() -> None:
    bare = BareStream()
    configure_logging(stream=bare, form="console")  # type: ignore[arg-type]
    get_logger("x").info("ready")
    assert "ready" in bare.text and "\x1b[" not in bare.text


def _console_traceback() -> str:
    out = io.StringIO()
    configure_logging(stream=out, form="console")
    try:
        fail_with_a_secret_local("K", "S")
    except RuntimeError:
        get_logger("x").exception("peek failed")
    return re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())  # rich colours even a StringIO


def test_a_console_traceback_is_richs_where_rich_is_installed() -> None:
    """A technician at a terminal with rich (the simulator's environment) gets its framed
    traceback; still no frame locals (the hole card's)."""
    text = _console_traceback()
    assert "Traceback (most recent call last)" in text and "\u256d" in text  # rich's frame
    assert "KS" not in text and "QS" not in text


def test_a_console_traceback_without_rich_is_structlogs_plain_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The daemon's process keeps rich out (controller/cli/main.py): its console traceback
    is the plain one, which shows no locals either."""
    monkeypatch.setitem(sys.modules, "rich", None)  # as the daemon's process: not importable
    text = _console_traceback()
    assert "Traceback (most recent call last):" in text and "\u256d" not in text
    assert "RuntimeError: reader jammed" in text
    assert "KS" not in text and "QS" not in text


def test_the_logger_is_the_standard_librarys_bound_logger() -> None:
    """Drivers may ask whether a level is on before building a costly line: the bound
    logger answers as the standard library's logger of its name does."""
    configure_logging(stream=io.StringIO(), level="info", form="json")
    log = get_logger("drivers.shoe").bind()
    assert isinstance(log, structlog.stdlib.BoundLogger)
    assert log.name == "drivers.shoe"
    assert log.isEnabledFor(logging.INFO) and not log.isEnabledFor(logging.DEBUG)
