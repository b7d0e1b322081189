"""What the control socket of ``dealer-station doubles`` may ask, and its server.

One JSON object per line in, one per line out: ``{"device": "shoe", "call": "deal"}`` ->
``{"ok": true, "result": "7S"}``. Calls are the doubles' own control methods
(:data:`CALLS`), ``get``/``set`` of a listed attribute (:data:`READABLE`,
:data:`SETTABLE`) and ``wait`` (until an attribute or a lamp has a value, with a deadline,
so a test waits on a condition instead of sleeping). A malformed or unknown request gets
``{"ok": false, "error": "one line"}`` and the connection stays up. The process that
serves it is :mod:`drivers.simulated.serve`.
"""

from __future__ import annotations

import json
import socketserver
import struct
from collections.abc import Callable, Mapping
from enum import Enum
from pathlib import Path
from typing import Any, Final

import firmware_bridge as fb
from controller.rules.cards import Card, parse_card
from drivers.hal import Button, Led, LedMode, WagerSpot
from drivers.simulated.firmware import DeviceFirmware
from drivers.simulated.panel import PanelDouble
from drivers.simulated.serial_device import SerialDeviceDouble

MAX_LINE: Final = 64 * 1024  # a control request longer than this is refused


class RequestError(Exception):
    """A control request that cannot be carried out; the text is one line."""


# --- what the control socket may ask ------------------------------------------------------


def _enum(kind: type[Enum], value: Any) -> Any:
    try:
        return kind(value)
    except ValueError:
        names = ", ".join(str(m.value) for m in kind)
        raise RequestError(f"{value!r} is not a {kind.__name__} ({names})") from None


def _cards(values: Any) -> list[Card]:
    if not isinstance(values, list):
        raise RequestError('cards: expected a list such as ["7S", "KH"]')
    return [parse_card(v) for v in values]


def _rank_counts(values: Any) -> dict[int, int]:
    if not isinstance(values, dict):
        raise RequestError('per_rank: expected an object such as {"1": 24, "10": 1}')
    return {int(rank): int(count) for rank, count in values.items()}


Call = Callable[..., Any]
_COMMON: Final[dict[str, Call]] = {
    "unplug": lambda d: d.unplug(),
    "plug": lambda d: d.plug(),
    "power_cycle": lambda d: d.power_cycle(),
    "drop_acks": lambda d, count: d.drop_acks(int(count)),
    "duplicate_acks": lambda d, count: d.duplicate_acks(int(count)),
    "wait_idle": lambda d, timeout=5.0: d.wait_idle(float(timeout)),
}
CALLS: Final[dict[str, dict[str, Call]]] = {
    "shoe": {
        "load_shuffled": lambda d, decks=6, seed=0, cover_at=None: d.load_shuffled(
            int(decks), int(seed), cover_at
        ),
        "load": lambda d, cards, cover_at=None: d.load(_cards(cards), cover_at),
        "restock": lambda d, cards, cover_at=None: d.restock(_cards(cards), cover_at),
        "deal": lambda d, hole=False: d.deal(hole=bool(hole)),
        "deal_hole_card": lambda d: d.deal_hole_card(),
        "deal_ten": lambda d, suit="S": d.deal_ten(str(suit)),
        "deal_code": lambda d, rank, suit: d.deal_code(int(rank), str(suit)),
        "repeat_last": lambda d: d.repeat_last(),
        "deliver": lambda d, timeout=5.0: d.deliver(float(timeout)),
    },
    "shuffler": {
        "jam": lambda d: d.jam(),
        "clear_jam": lambda d: d.clear_jam(),
        "open_door": lambda d: d.open_door(),
        "close_door": lambda d: d.close_door(),
        "report_error": lambda d, code, text: d.report_error(int(code), str(text)),
        "set_result": lambda d, per_rank: d.set_result(_rank_counts(per_rank)),
    },
    "reader": {
        "set_hole_card": lambda d, card=None: d.set_hole_card(
            None if card is None else parse_card(card)
        ),
        "misread": lambda d, count=1: d.misread(int(count)),
    },
    "panel": {
        "press": lambda d, button: d.press(_enum(Button, button)),
        "press_code": lambda d, code: d.press_code(int(code)),
        "turn_key": lambda d, on: d.turn_key(bool(on)),
        "place_wager": lambda d, seat, spot, present=True, cents=None: d.place_wager(
            int(seat), _enum(WagerSpot, spot), bool(present), None if cents is None else int(cents)
        ),
        "lamp": lambda d, led: d.lamp(_enum(Led, led)),
        "deliver": lambda d, timeout=5.0: d.deliver(float(timeout)),
    },
}
READABLE: Final = {
    "shoe": {"remaining", "draws", "dealt", "hole_log"},
    "shuffler": {"batches", "state", "jammed", "door_open"},
    "panel": {"lamps", "unknown_lamps", "lamp_frames", "refused_lamp_frames"},
    "reader": {"checks"},
}
COMMON_READABLE: Final = {
    "connected", "unconfirmed", "sessions", "serial_number", "refusals", "paired_station",
}  # fmt: skip
SETTABLE: Final = {
    "silent": bool, "reply_delay": float, "hello_serial": str, "wire_version": int,
    "pairing_button": bool,  # the device's pairing button held (consent to pair)
    "key_on": bool,  # a panel board's own key switch (its consent to pairing needs it)
    "firmware": str,
}  # fmt: skip


def plain(value: Any) -> Any:
    """``value`` as JSON: cards and enums as their text, mappings and sequences inside."""
    if isinstance(value, Card):
        return value.text
    if isinstance(value, Enum):
        return value.value if isinstance(value.value, str | int) else value.name
    if isinstance(value, Mapping):
        return {str(plain(k)): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


class Doubles:
    """The doubles one process serves, by kind."""

    def __init__(self, doubles: Mapping[str, DeviceFirmware]) -> None:
        self.doubles = dict(doubles)

    def close(self) -> None:
        """Unplug every double for good."""
        for double in self.doubles.values():
            if isinstance(double, SerialDeviceDouble):
                double.close()

    def handle(self, request: Any) -> Any:
        """Carry out one decoded request; returns the plain result.

        Raises:
            RequestError: for anything the request gets wrong.
        """
        if not isinstance(request, dict):
            raise RequestError("a request is a JSON object")
        kind = request.get("device")
        double = self.doubles.get(kind) if isinstance(kind, str) else None
        if double is None:
            raise RequestError(f"no device {kind!r} here (have {', '.join(self.doubles)})")
        assert isinstance(kind, str)
        call = request.get("call")
        args = request.get("args", [])
        kwargs = request.get("kwargs", {})
        if not isinstance(args, list) or not isinstance(kwargs, dict):
            raise RequestError("args is a list and kwargs an object")
        if call == "get":
            return plain(getattr(double, self._readable(kind, args)))
        if call == "set":
            return self._set(double, args)
        if call == "wait":
            return self._wait(kind, double, args, kwargs)
        table = {**_COMMON, **CALLS[kind]}
        function = table.get(call) if isinstance(call, str) else None
        if function is None:
            raise RequestError(f"{kind} has no call {call!r} ({', '.join(sorted(table))})")
        try:
            return plain(function(double, *args, **kwargs))
        except RequestError:
            raise
        except (
            TypeError,
            ValueError,
            KeyError,
            AttributeError,
            ArithmeticError,
            struct.error,
        ) as err:
            raise RequestError(f"{kind}.{call}: {err}") from err

    @staticmethod
    def _readable(kind: str, args: list[Any]) -> str:
        name = args[0] if len(args) == 1 else None
        if not isinstance(name, str) or name not in READABLE[kind] | COMMON_READABLE:
            raise RequestError(f"get: {kind} has no readable attribute {name!r}")
        return str(name)

    @staticmethod
    def _set(double: DeviceFirmware, args: list[Any]) -> None:
        if len(args) != 2 or not isinstance(args[0], str) or args[0] not in SETTABLE:
            raise RequestError(f"set: expected [name, value], name one of {', '.join(SETTABLE)}")
        name, value = args
        try:
            converted = SETTABLE[name](value)
            if name == "wire_version" and not 0 <= converted <= 0xFF:
                raise ValueError(f"{converted} is not a protocol version byte")
            if name == "reply_delay" and not 0 <= converted <= 60:
                raise ValueError(f"{converted} is not a delay of 0..60 s")
            setattr(double, name, converted)
        except (TypeError, ValueError, OverflowError) as err:
            raise RequestError(f"set {name}: {err}") from err

    def _wait(self, kind: str, double: DeviceFirmware, args: list[Any], kw: dict[str, Any]) -> bool:
        """``wait [name, value]`` (or ``[lamp, LED, MODE]`` on the panel), ``timeout`` in kw."""
        try:
            timeout = min(float(kw.get("timeout", 5.0)), 600.0)
        except (TypeError, ValueError):
            raise RequestError("wait: timeout is a number of seconds") from None
        if kind == "panel" and len(args) == 3 and args[0] == "lamp":
            led, mode = _enum(Led, args[1]), _enum(LedMode, args[2])
            assert isinstance(double, PanelDouble)
            panel = double
            return double.wait_for(lambda: panel.lamp(led) is mode, timeout)
        if len(args) != 2:
            raise RequestError('wait: expected [name, value] or ["lamp", LED, MODE]')
        name = self._readable(kind, args[:1])
        wanted = args[1]
        return double.wait_for(lambda: plain(getattr(double, name)) == wanted, timeout)


def answer(doubles: Doubles, line: bytes) -> dict[str, Any]:
    """The answer to one request line (never raises for bad input)."""
    try:
        request = json.loads(line)
    except (ValueError, UnicodeDecodeError) as err:
        return {"ok": False, "error": f"not a JSON line: {err}"}
    try:
        return {"ok": True, "result": doubles.handle(request)}
    except RequestError as err:
        return {"ok": False, "error": str(err)}
    except fb.ProtocolError as err:
        return {"ok": False, "error": f"protocol: {err}"}
    except Exception as err:  # a hostile call reached a double's own checks
        if type(err).__module__.startswith(("controller.rules", "drivers")):
            return {"ok": False, "error": f"{type(err).__name__}: {err}"}
        raise


class ControlServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    """The control socket: one thread per client, one JSON line per request."""

    daemon_threads = True

    def __init__(self, path: Path, doubles: Doubles) -> None:
        self.doubles = doubles
        path.unlink(missing_ok=True)
        super().__init__(str(path), _ControlHandler)


class _ControlHandler(socketserver.StreamRequestHandler):
    server: ControlServer

    def handle(self) -> None:
        while True:
            line = self.rfile.readline(MAX_LINE + 1)
            if not line:
                return
            if len(line) > MAX_LINE:
                reply: dict[str, Any] = {"ok": False, "error": f"request over {MAX_LINE} bytes"}
                self.wfile.write(json.dumps(reply).encode() + b"\n")
                return
            reply = answer(self.server.doubles, line)
            self.wfile.write(json.dumps(reply).encode() + b"\n")
