"""Logging: JSON lines with table, round and state; no frame locals in tracebacks."""

from __future__ import annotations

import io
import json
import logging
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
