"""What the control socket of ``dealer-station doubles`` may ask, and its server.

One JSON object per line in, one per line out: ``{"device": "shoe", "call": "deal"}`` -> ``{"ok":
true, "result": "7S"}``. Calls are the doubles' own control methods (each double's ``CONTROL``, and
``drivers.simulated.control_calls.COMMON_CALLS``), ``get``/``set`` of a listed attribute (each
double's ``READABLE``, and :data:`SETTABLE`) and ``wait`` (until an attribute or a lamp has a value,
with a deadline, so a test waits on a condition instead of sleeping). A malformed or unknown request
gets ``{"ok": false, "error": "one line"}`` and the connection stays up. The process that serves it
is :mod:`drivers.simulated.serve`.
"""

from __future__ import annotations

import json
import socketserver
import struct
from collections.abc import Mapping
from enum import Enum
from pathlib import Path
from typing import Any, Final

import firmware_bridge as fb
from controller.rules.cards import Card
from drivers.hal import Led, LedMode
from drivers.simulated.c_device import FirmwareDevice
from drivers.simulated.control_calls import (
    COMMON_CALLS,
    COMMON_READABLE,
    RequestError,
    enum_arg,
)
from drivers.simulated.firmware import DeviceFirmware
from drivers.simulated.serial_device import SerialDeviceDouble

__all__ = ["ControlServer", "Doubles", "RequestError", "answer", "plain"]

MAX_LINE: Final = 64 * 1024  # a control request longer than this is refused


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


#: A double the control socket drives: a Python double, or the C firmware standing for one.
Controlled = DeviceFirmware | FirmwareDevice


class Doubles:
    """The doubles one process serves, by their names on the control socket."""

    def __init__(self, doubles: Mapping[str, Controlled]) -> None:
        self.doubles = dict(doubles)

    def close(self) -> None:
        """Unplug every double for good."""
        for double in self.doubles.values():
            if isinstance(double, SerialDeviceDouble | FirmwareDevice):
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
        table = {**COMMON_CALLS, **type(double).CONTROL}
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

    def _readable(self, kind: str, args: list[Any]) -> str:
        name = args[0] if len(args) == 1 else None
        readable = type(self.doubles[kind]).READABLE | COMMON_READABLE
        if not isinstance(name, str) or name not in readable:
            raise RequestError(f"get: {kind} has no readable attribute {name!r}")
        return str(name)

    @staticmethod
    def _set(double: Controlled, args: list[Any]) -> None:
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

    def _wait(self, kind: str, double: Controlled, args: list[Any], kw: dict[str, Any]) -> bool:
        """``wait [name, value]`` (or ``[lamp, LED, MODE]`` on the panel), ``timeout`` in kw."""
        try:
            timeout = min(float(kw.get("timeout", 5.0)), 600.0)
        except (TypeError, ValueError):
            raise RequestError("wait: timeout is a number of seconds") from None
        lamp = getattr(double, "lamp", None)  # a panel's
        if lamp is not None and len(args) == 3 and args[0] == "lamp":
            led, mode = enum_arg(Led, args[1]), enum_arg(LedMode, args[2])
            return double.wait_for(lambda: lamp(led) is mode, timeout)
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
