"""Logging: structlog to stdout, JSON lines under systemd, readable text on a terminal.

Every line carries ``table_id``, ``round`` and ``state`` (``None`` until known), bound with
context variables by :func:`bind_table`, :func:`bind_round` and :func:`bind_state`.
Standard-library loggers (pyusb, transitions) go through the same processors.
Tracebacks never show frame locals: a local holding the hole card must not reach a log.
"""

from __future__ import annotations

import importlib.util
import logging
import sys
from typing import Any, Final, TextIO

import structlog
from structlog.typing import EventDict, Processor, WrappedLogger

LEVELS: Final = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}
FORMATS: Final = ("auto", "json", "console")
CONTEXT_KEYS: Final = ("table_id", "round", "state")


#: The last bound table, round and state, for every thread: a new thread starts with an
#: empty context (driver threads do not inherit the main thread's context variables), and
#: the station runs one table per process.
_PROCESS_CONTEXT: dict[str, Any] = {}


def _context_defaults(_logger: WrappedLogger, _name: str, event_dict: EventDict) -> EventDict:
    # Lines logged before the table, round or state is known still carry the keys.
    for key in CONTEXT_KEYS:
        event_dict.setdefault(key, _PROCESS_CONTEXT.get(key))
    return event_dict


def _wants_json(form: str, stream: TextIO) -> bool:
    if form not in FORMATS:
        raise ValueError(f"log format {form!r} is not one of {', '.join(FORMATS)}")
    if form == "auto":
        isatty = getattr(stream, "isatty", None)
        return not (callable(isatty) and isatty())
    return form == "json"


def configure_logging(
    *, level: str = "info", form: str = "auto", stream: TextIO | None = None
) -> None:
    """Route structlog and stdlib logging to ``stream`` (default stdout).

    ``form``: ``json``, ``console`` or ``auto`` (JSON unless the stream is a terminal).

    Raises:
        ValueError: for an unknown level or format.
    """
    if level not in LEVELS:
        raise ValueError(f"log level {level!r} is not one of {', '.join(LEVELS)}")
    out = sys.stdout if stream is None else stream
    _PROCESS_CONTEXT.clear()
    as_json = _wants_json(form, out)
    shared: list[Processor] = [
        structlog.contextvars.merge_contextvars,
        _context_defaults,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    renderer: Processor
    if as_json:
        renderer = structlog.processors.JSONRenderer()
        final: list[Processor] = [
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.ExceptionRenderer(
                structlog.tracebacks.ExceptionDictTransformer(show_locals=False)
            ),
            renderer,
        ]
    else:
        renderer = structlog.dev.ConsoleRenderer(
            colors=bool(getattr(out, "isatty", lambda: False)()),
            exception_formatter=(
                structlog.dev.RichTracebackFormatter(show_locals=False)
                if importlib.util.find_spec("rich") is not None
                # The daemon's process keeps rich out (controller/cli/main.py, USES_RICH).
                else structlog.dev.plain_traceback
            ),
        )
        final = [structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer]
    handler = logging.StreamHandler(out)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(foreign_pre_chain=shared, processors=final)
    )
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(LEVELS[level])
    # pyusb silences its "usb" logger (level 60) unless PYUSB_DEBUG is set, and transitions
    # narrates every callback at INFO: let both through at WARNING.
    for name in ("usb", "transitions"):
        logging.getLogger(name).setLevel(max(LEVELS[level], logging.WARNING))
    structlog.configure(
        processors=[
            structlog.stdlib.filter_by_level,
            *shared,
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )


def get_logger(name: str) -> Any:
    """A structlog logger for ``name`` (a module's ``__name__``)."""
    return structlog.stdlib.get_logger(name)


def bind_table(table_id: str) -> None:
    """Put ``table_id`` on every following line."""
    _PROCESS_CONTEXT["table_id"] = table_id
    structlog.contextvars.bind_contextvars(table_id=table_id)


def bind_round(round_no: int | None) -> None:
    """Put the current round number (``None`` between rounds) on every following line."""
    _PROCESS_CONTEXT["round"] = round_no
    structlog.contextvars.bind_contextvars(round=round_no)


def bind_state(state: str | None) -> None:
    """Put the procedure's current state on every following line."""
    _PROCESS_CONTEXT["state"] = state
    structlog.contextvars.bind_contextvars(state=state)
