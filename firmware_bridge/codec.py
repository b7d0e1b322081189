"""One declaration per message: a frozen dataclass whose fields carry their wire layout.

A message class is declared once, e.g.::

    @message(0x20, sender=Role.DEVICE, device=DeviceKind.SHOE)
    @dataclass(frozen=True, slots=True)
    class CardDrawnReport(Message):
        rank: Annotated[int, UInt8(1, 13)]
        suit: Annotated[str, Letter("SHDC")]
        draw: Annotated[int, UInt(2, 1, 0xFFFF)]

and :func:`encode_message` / :func:`decode_message` derive the byte layout from the
annotations (the wire types are in ``firmware_bridge.wire_types``). Fixed-size fields go
through one precompiled ``struct.Struct``.
"""

from __future__ import annotations

import operator
import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields
from enum import Enum
from typing import Any, ClassVar, TypeVar, get_args, get_origin, get_type_hints

from firmware_bridge.errors import PayloadError, UnknownMessageError
from firmware_bridge.wire_types import WireType


class Role(Enum):
    """Which end of a link an endpoint is: the station initiates, the device answers."""

    STATION = "station"
    DEVICE = "device"


class DeviceKind(Enum):
    """The table's devices, one name for the whole station: ``value`` is the text the
    journal, the configuration, the logs and the HAL events use (``drivers.hal`` exports
    this class), ``code`` the byte HELLO and pairing carry (docs/protocol.md section 4).
    What the station knows of each kind is declared in ``drivers/registry.py``."""

    _value_: str
    #: The kind's byte in HELLO, HELLO_REPLY, PAIR_REQUEST and PAIR_REPLY, and in the
    #: session and pairing key derivations.
    code: int

    SHUFFLER = ("shuffler", 1)
    SHOE = ("shoe", 2)
    CARD_READER = ("card_reader", 3)
    PANEL = ("panel", 4)

    def __new__(cls, text: str, code: int) -> DeviceKind:
        member = object.__new__(cls)
        member._value_ = text
        member.code = code
        return member

    @property
    def name_text(self) -> str:
        """The kind as text: ``shuffler``, ``shoe``, ``card_reader``, ``panel``."""
        return self._value_


class Message:
    """Base of every message in the catalogue; subclasses are frozen dataclasses."""

    __slots__ = ()
    TYPE_ID: ClassVar[int]
    #: Which role sends this message; None: either side.
    SENDER: ClassVar[Role | None]
    #: Which device's link carries it; None: any link.
    DEVICE: ClassVar[DeviceKind | None]
    #: Link-layer messages (HELLO, ACK, ...) are handled by the endpoint, never delivered.
    CONTROL: ClassVar[bool]
    #: The worked example of docs/protocol.md section 7 (``firmware_bridge.examples``), and
    #: its header's sequence number, flags and ack.
    EXAMPLE: ClassVar[Message | None]
    EXAMPLE_HEADER: ClassVar[tuple[int, int, int]]


def may_send(cls: type[Message], role: Role, kind: DeviceKind) -> bool:
    """Whether the ``role`` side of a ``kind`` link sends ``cls`` (link-layer messages are
    the endpoint's own, never the caller's)."""
    return not cls.CONTROL and cls.SENDER in (None, role) and cls.DEVICE in (None, kind)


class _Layout:
    """The compiled layout of one message class."""

    __slots__ = (
        "checkers",
        "cls",
        "converters",
        "fixed",
        "fixed_types",
        "flat",
        "flat_get",
        "names",
        "variable",
    )

    def __init__(self, cls: type[Message], names: list[str], types: list[WireType]) -> None:
        self.cls = cls
        self.names = names
        split = next((i for i, t in enumerate(types) if t.fmt is None), len(types))
        if any(t.fmt is None for t in types[:split]) or any(t.fmt for t in types[split:]):
            raise TypeError(f"{cls.__name__}: variable-size fields must come last")
        self.fixed_types = types[:split]
        self.fixed = struct.Struct(">" + "".join(t.fmt or "" for t in self.fixed_types))
        self.variable = types[split:]
        # The hot path: every field one struct item, nothing variable (e.g. a card drawn).
        self.flat = not self.variable and all(t.items == 1 for t in types)
        self.converters = [t.from_wire for t in types]
        # Flat messages of two or more fields encode in one C-level pass: attrgetter reads
        # every field, map checks each with its wire type (a frame a button).
        self.flat_get = operator.attrgetter(*names) if self.flat and len(names) > 1 else None
        self.checkers = [t.to_wire for t in types]

    def encode(self, msg: Message) -> bytes:
        if self.flat_get is not None:
            return self.fixed.pack(*map(operator.call, self.checkers, self.flat_get(msg)))
        values = [getattr(msg, n) for n in self.names]
        packed: list[Any] = []
        for wt, v in zip(self.fixed_types, values, strict=False):
            if wt.items == 1:
                packed.append(wt.to_wire(v))
            else:
                packed.extend(wt.to_wire(v))
        out = self.fixed.pack(*packed)
        for wt, v in zip(self.variable, values[len(self.fixed_types) :], strict=True):
            out += wt.pack_var(v)
        return out

    def decode(self, payload: bytes) -> Message:
        size = self.fixed.size
        if self.flat and len(payload) == size:
            return self.cls(*map(operator.call, self.converters, self.fixed.unpack(payload)))
        if len(payload) < size or (not self.variable and len(payload) != size):
            raise PayloadError(
                f"{self.cls.__name__} payload of {len(payload)} bytes, expected "
                f"{size if not self.variable else f'at least {size}'}"
            )
        raw = self.fixed.unpack_from(payload)
        values: list[Any] = []
        i = 0
        for wt in self.fixed_types:
            if wt.items == 1:
                values.append(wt.from_wire(raw[i]))
            else:
                values.append(wt.from_wire(raw[i : i + wt.items]))
            i += wt.items
        pos = size
        for wt in self.variable:
            value, pos = wt.unpack_var(payload, pos)
            values.append(value)
        if pos != len(payload):
            raise PayloadError(f"{len(payload) - pos} stray bytes after {self.cls.__name__}")
        return self.cls(*values)


_BY_TYPE: dict[int, _Layout] = {}
_BY_CLASS: dict[type[Message], _Layout] = {}

M = TypeVar("M", bound=Message)


def message(
    type_id: int,
    *,
    sender: Role | None,
    device: DeviceKind | None,
    control: bool = False,
    example: Mapping[str, Any] | None = None,
    header: tuple[int, int, int] = (0, 0, 0),
) -> Callable[[type[M]], type[M]]:
    """Register a message dataclass under ``type_id`` (1..255, unique); ``example``: its
    fields' values in the worked example of docs/protocol.md, ``header`` that example's
    sequence number, flags and ack (``firmware_bridge.examples``)."""

    def register(cls: type[M]) -> type[M]:
        if not 0 < type_id <= 0xFF or type_id in _BY_TYPE:
            raise TypeError(f"{cls.__name__}: type number 0x{type_id:02X} is taken or invalid")
        hints = get_type_hints(cls, include_extras=True)
        names: list[str] = []
        types: list[WireType] = []
        for f in fields(cls):  # type: ignore[arg-type]
            hint = hints[f.name]
            wire = [a for a in get_args(hint)[1:] if isinstance(a, WireType)]
            if get_origin(hint) is None or len(wire) != 1:
                raise TypeError(f"{cls.__name__}.{f.name}: annotate as Annotated[T, WireType]")
            names.append(f.name)
            types.append(wire[0])
        cls.TYPE_ID = type_id
        cls.SENDER = sender
        cls.DEVICE = device
        cls.CONTROL = control
        layout = _Layout(cls, names, types)
        _BY_TYPE[type_id] = layout
        _BY_CLASS[cls] = layout
        cls.EXAMPLE = None if example is None else cls(**example)
        cls.EXAMPLE_HEADER = header
        return cls

    return register


def encode_message(msg: Message) -> tuple[int, bytes]:
    """Return ``(type number, payload)`` for ``msg``.

    Raises:
        PayloadError: a field value out of range for its wire type.
        UnknownMessageError: ``msg`` is not a registered message.
    """
    layout = _BY_CLASS.get(type(msg))
    if layout is None:
        raise UnknownMessageError(f"{type(msg).__name__} is not in the message catalogue")
    try:
        return layout.cls.TYPE_ID, layout.encode(msg)
    except struct.error as err:
        raise PayloadError(f"cannot pack {msg!r}: {err}") from err


def decode_message(type_id: int, payload: bytes) -> Message:
    """Decode a payload of message type ``type_id``.

    Raises:
        UnknownMessageError: ``type_id`` is not in the catalogue.
        PayloadError: the payload does not match the layout or a value is out of range.
    """
    layout = _BY_TYPE.get(type_id)
    if layout is None:
        raise UnknownMessageError(f"unknown message type 0x{type_id:02X}")
    return layout.decode(payload)


def wire_fields(cls: type[Message]) -> list[tuple[str, WireType]]:
    """The fields of message class ``cls`` in wire order, with their wire types.

    Raises:
        UnknownMessageError: ``cls`` is not a registered message.
    """
    layout = _BY_CLASS.get(cls)
    if layout is None:
        raise UnknownMessageError(f"{cls.__name__} is not in the message catalogue")
    return list(zip(layout.names, [*layout.fixed_types, *layout.variable], strict=True))


def catalogue() -> Sequence[type[Message]]:
    """Every registered message class, by type number."""
    return [_BY_TYPE[t].cls for t in sorted(_BY_TYPE)]
