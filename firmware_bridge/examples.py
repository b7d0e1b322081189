"""The worked example of every message in docs/protocol.md section 7, made by the codec.

Each catalogued message declares an example (``@message(..., example={...})``: its field
values, and the header's sequence number, flags and ack). :func:`example_block` shows it as
the document does: the message as Python would build it, the 5 header bytes, the payload,
the CRC and the bytes on the wire. :func:`render` puts every block in the document;
``python -m firmware_bridge.examples [--write] [docs/protocol.md]`` shows the differences or
writes them, and ``tests/test_bridge_protocol_doc.py`` fails when the document is not what
:func:`render` makes of it.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from dataclasses import fields
from enum import Enum
from pathlib import Path
from typing import Any, Final, get_args, get_type_hints

from firmware_bridge import link_messages as _link_messages  # noqa: F401 - registers them
from firmware_bridge import messages as _messages  # noqa: F401 - registers them
from firmware_bridge.codec import Message, catalogue, encode_message
from firmware_bridge.frame import HEADER, PROTOCOL_VERSION, Frame, crc16, encode_frame
from firmware_bridge.wire_types import U32

DOC: Final = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"
#: A message's section: its heading, then its first ``text`` block is its example.
_SECTION: Final = re.compile(
    r"^### 0x([0-9A-F]{2}) (\w+)\n(?P<body>.*?)(?=^### |^## |\Z)", re.M | re.S
)
_BLOCK: Final = re.compile(r"```text\n(?P<block>.*?)```\n", re.S)


def literal(value: Any) -> str:
    """``value`` as the document writes it: an expression that builds it again."""
    if isinstance(value, Message):
        hints = get_type_hints(type(value), include_extras=True)
        args = ", ".join(
            f"{f.name}={_field_literal(getattr(value, f.name), hints[f.name])}"
            for f in fields(value)  # type: ignore[arg-type]
        )
        return f"{type(value).__name__}({args})"
    if isinstance(value, Enum):
        return f"{type(value).__name__}.{value.name}"
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, bytes):
        return _bytes_literal(value)
    if isinstance(value, tuple):
        inner = ", ".join(literal(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return repr(value)


def _field_literal(value: Any, hint: Any) -> str:
    # A 32-bit field (a session number, a lamp mask) reads best as 8 hex digits.
    if isinstance(value, int) and not isinstance(value, bool) and U32 in get_args(hint):
        return f"0x{value:08X}"
    return literal(value)


def _bytes_literal(data: bytes) -> str:
    if data and data == bytes(len(data)):
        return f"bytes({len(data)})"
    if 1 < len(data) <= 0x100 - data[0] and data == bytes(range(data[0], data[0] + len(data))):
        return (
            f"bytes(range({len(data)}))"
            if data[0] == 0
            else (f"bytes(range({data[0]}, {data[0] + len(data)}))")
        )
    if sum(0x20 <= b <= 0x7E for b in data) * 2 >= len(data):
        return repr(data)  # mostly text
    return f"bytes.fromhex('{data.hex().upper()}')"


def _hex(data: bytes) -> str:
    return " ".join(f"{b:02X}" for b in data) if data else "(none)"


def example_block(cls: type[Message]) -> str:
    """The worked example of ``cls`` (see the module docstring).

    Raises:
        ValueError: ``cls`` declares no example.
    """
    example = cls.EXAMPLE
    if example is None:
        raise ValueError(f"{cls.__name__} declares no example (@message(..., example=...))")
    seq, flags, ack = cls.EXAMPLE_HEADER
    type_id, payload = encode_message(example)
    header = HEADER.pack(PROTOCOL_VERSION, type_id, seq, flags, ack)
    wire = encode_frame(Frame(PROTOCOL_VERSION, type_id, seq, flags, ack, payload))
    return (
        f"message: {literal(example)}\n"
        f"header:  {_hex(header)}\n"
        f"payload: {_hex(payload)}\n"
        f"crc:     {_hex(crc16(header + payload).to_bytes(2, 'big'))}\n"
        f"wire:    {_hex(wire)}\n"
    )


def render(text: str) -> str:
    """``text`` (docs/protocol.md) with the example block of every message's section made
    by the codec; a section with no ``text`` block gets one after its first paragraph.

    Raises:
        ValueError: a catalogued message has no section, or a section names no message.
    """
    by_type = {cls.TYPE_ID: cls for cls in catalogue()}
    seen: set[int] = set()

    def section(match: re.Match[str]) -> str:
        type_id, name = int(match.group(1), 16), match.group(2)
        cls = by_type.get(type_id)
        if cls is None or cls.__name__ != name:
            raise ValueError(f"### 0x{type_id:02X} {name}: no such message in the catalogue")
        seen.add(type_id)
        body = match.group("body")
        block = f"```text\n{example_block(cls)}```\n"
        if _BLOCK.search(body):
            body = _BLOCK.sub(lambda _: block, body, count=1)
        else:
            body = body.rstrip("\n") + f"\n\n{block}\n"
        return f"### 0x{type_id:02X} {name}\n{body}"

    out = _SECTION.sub(section, text)
    missing = sorted(set(by_type) - seen)
    if missing:
        names = ", ".join(f"0x{t:02X} {by_type[t].__name__}" for t in missing)
        raise ValueError(f"no section in the message catalogue for {names}")
    return out


def main(argv: list[str] | None = None) -> int:
    """Show how docs/protocol.md differs from the codec's examples, or write them."""
    parser = argparse.ArgumentParser(prog="python -m firmware_bridge.examples")
    parser.add_argument("doc", nargs="?", type=Path, default=DOC)
    parser.add_argument("--write", action="store_true", help="write the examples into the file")
    args = parser.parse_args(argv)
    text = args.doc.read_text(encoding="utf-8")
    try:
        made = render(text)
    except ValueError as err:
        print(f"{args.doc}: {err}", file=sys.stderr)
        return 2
    if args.write:
        args.doc.write_text(made, encoding="utf-8")
        return 0
    diff = difflib.unified_diff(
        text.splitlines(keepends=True), made.splitlines(keepends=True), str(args.doc), "made"
    )
    sys.stdout.writelines(diff)
    return 1 if made != text else 0


if __name__ == "__main__":
    sys.exit(main())
