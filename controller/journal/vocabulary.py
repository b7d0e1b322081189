"""docs/journal.md's vocabulary table, made from the declaration of the record kinds
(``controller.journal.kinds``): ``python -m controller.journal.vocabulary [--write]
[docs/journal.md]`` shows how the page differs, or writes it; ``tests/test_journal_kinds.py``
fails when the page is not what :func:`render` makes of it."""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from pathlib import Path
from typing import Final

from controller.journal.kinds import KINDS

DOC: Final = Path(__file__).resolve().parents[2] / "docs" / "journal.md"
_TABLE: Final = re.compile(r"(<!-- kinds: begin -->\n)(.*?)(\n<!-- kinds: end -->)", re.S)


def markdown_table() -> str:
    """The vocabulary as the table of docs/journal.md."""
    lines = ["| kind | fields | written when |", "|---|---|---|"]
    for kind in KINDS:
        fields = f" `{kind.fields}` |" if kind.fields else " |"
        lines.append(f"| `{kind.name}` |{fields} {kind.written_when} |")
    return "\n".join(lines)


def render(text: str) -> str:
    """``text`` (docs/journal.md) with its vocabulary table made from :data:`KINDS`.

    Raises:
        ValueError: the page has no ``<!-- kinds: begin -->`` ... ``end`` block.
    """
    if _TABLE.search(text) is None:
        raise ValueError("no <!-- kinds: begin --> ... <!-- kinds: end --> block")
    return _TABLE.sub(lambda m: m.group(1) + markdown_table() + m.group(3), text, count=1)


def main(argv: list[str] | None = None) -> int:
    """Show how docs/journal.md's vocabulary differs from :data:`KINDS`, or write it."""
    parser = argparse.ArgumentParser(prog="python -m controller.journal.vocabulary")
    parser.add_argument("doc", nargs="?", type=Path, default=DOC)
    parser.add_argument("--write", action="store_true", help="write the table into the file")
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
