"""``dealer-station diagram``: the procedure machine as Mermaid, and the panel table.

``docs/procedure.md`` and ``docs/panel.md`` embed this output between markers, and
``docs/journal.md`` the record vocabulary (``controller.journal.kinds``); a test checks
they match the code, and ``dealer-station diagram --update-docs`` rewrites them.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

from controller.journal.kinds import markdown_table as vocabulary_table
from controller.table.machine import TRANSITIONS
from controller.table.prompts import State, panel_table_markdown

BEGIN = "<!-- generated: begin -->"
END = "<!-- generated: end -->"
DOCS = {
    "procedure": Path("docs/procedure.md"),
    "panel": Path("docs/panel.md"),
    "journal": Path("docs/journal.md"),
}


def mermaid() -> str:
    """The state machine as a Mermaid ``stateDiagram-v2``; parallel arrows are merged."""
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for transition in TRANSITIONS:
        sources = transition["source"]
        for source in sources if isinstance(sources, list) else [sources]:
            dest: State = transition["dest"]
            edges[source.value, dest.value].append(transition["trigger"])
    lines = ["stateDiagram-v2", f"    [*] --> {State.STARTING.value}"]
    for (source_name, dest_name), triggers in edges.items():
        lines.append(f"    {source_name} --> {dest_name}: {', '.join(sorted(set(triggers)))}")
    return "\n".join(lines) + "\n"


def generated(which: str) -> str:
    """The generated block of ``docs/<which>.md``."""
    if which == "procedure":
        return f"```mermaid\n{mermaid()}```\n"
    if which == "journal":
        return vocabulary_table()
    return panel_table_markdown()


def embed(document: str, block: str) -> str:
    """Replace the text between the markers of ``document`` with ``block``.

    Raises:
        ValueError: when the markers are missing.
    """
    start, end = document.index(BEGIN) + len(BEGIN), document.index(END)
    return document[:start] + "\n" + block + document[end:]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``dealer-station diagram``."""
    parser.add_argument("--panel", action="store_true", help="print the panel prompt table")
    parser.add_argument(
        "--update-docs",
        action="store_true",
        help="rewrite docs/procedure.md, docs/panel.md and docs/journal.md's vocabulary",
    )


def run(args: argparse.Namespace) -> int:
    """Print the diagram (or the panel table), or update the docs in place."""
    if args.update_docs:
        for which, path in DOCS.items():
            try:
                path.write_text(embed(path.read_text(encoding="utf-8"), generated(which)))
            except (OSError, ValueError) as err:
                print(f"dealer-station diagram: {path}: {err}", file=sys.stderr)
                return 2
        return 0
    sys.stdout.write(generated("panel" if args.panel else "procedure"))
    return 0
