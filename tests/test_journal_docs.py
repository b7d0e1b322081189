"""docs/journal.md says what the journal's code does: the archive's format, limits and
report cases, the commands' options, the checkpoint interval and the bytes a round as
docs/performance.md records them. Each test reads the document and the code and fails when
one changes without the other (the record vocabulary's table: tests/test_journal_kinds.py).
"""

from __future__ import annotations

import argparse
import inspect
import json
import re
from pathlib import Path

import pytest

from controller.cli.main import build_parser
from controller.journal.archive import FORMAT, SEGMENT_ROWS, Header, check, segment
from controller.journal.checkpoint import CHECKPOINT_ROWS

DOCS = Path(__file__).resolve().parent.parent / "docs"
JOURNAL = (DOCS / "journal.md").read_text()
SECTIONS = dict(
    (m.group(1), m.group(2))
    for m in re.finditer(r"^## (.+?)\n(.*?)(?=^## |\Z)", JOURNAL, re.MULTILINE | re.DOTALL)
)


def test_the_archive_section_names_the_format_its_header_fields_and_its_limits() -> None:
    text = SECTIONS["Archive"]
    assert f"each of at least {SEGMENT_ROWS:,} rows" in text
    bullet = text[text.index("- a header line") : text.index("- one zlib stream")]
    assert f"`format` (`{FORMAT}`)" in bullet
    header = Header("T1", 1, 1, 1, "0" * 64, "0" * 64, (0, 1), ())
    named = set(re.findall(r"`([a-z]+)`", bullet))
    assert named == set(json.loads(header.to_line())), named
    assert f"longer than {segment.LINE_MAX >> 20} MiB is refused" in " ".join(text.split())
    assert segment._READ == 1 << 20 and "inflated a MiB at a time" in " ".join(text.split())


def _report_cases() -> set[str]:
    """The first words ``verify_archive``'s lines can start with, read from its code."""
    source = inspect.getsource(check)
    cases = set(re.findall(r'ArchiveReport\(\s*False,\s*f?"([a-z]+):', source))
    cases |= set(re.findall(r'\bcase(?:, result\.problem)?(?:: str)? = "([a-z]+)"', source))
    cases |= set(re.findall(r'f"([a-z]+): \{len\(results\)\} segments', source))
    return cases


def test_the_verify_archive_cases_are_those_the_code_reports() -> None:
    text = SECTIONS["Archive"]
    table = text[text.index("| case | what |") :].split("\n\n", 1)[0]
    documented = set(re.findall(r"^\| `([a-z]+)` \|", table, re.MULTILINE))
    assert documented == _report_cases() == {
        "intact", "missing", "removed", "altered", "corrupt", "seal",
    }  # fmt: skip


def _options(argv: list[str]) -> set[str]:
    """The long options of ``dealer-station journal SUB`` as its parser has them."""
    parser = build_parser(argv)
    journal = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[
        "journal"
    ]
    sub = next(a for a in journal._actions if isinstance(a, argparse._SubParsersAction))
    return {
        option
        for action in sub.choices[argv[1]]._actions
        for option in action.option_strings
        if option.startswith("--") and option != "--help"
    }


def _synopsis(name: str) -> set[str]:
    block = SECTIONS["Reading it"].split("```")[1]
    entries = re.split(r"\n(?=dealer-station )", block.strip())
    (entry,) = [e for e in entries if e.startswith(f"dealer-station journal {name} ")]
    return set(re.findall(r"--[a-z][a-z-]*", entry))


@pytest.mark.parametrize("name", ["verify", "archive", "verify-archive", "recall", "export"])
def test_the_synopsis_lists_each_commands_options(name: str) -> None:
    assert _synopsis(name) == _options(["journal", name]), name


def test_the_checkpoint_interval_is_the_codes_where_the_docs_state_it() -> None:
    rows = f"{CHECKPOINT_ROWS:,} rows"
    operations = (DOCS / "operations.md").read_text()
    assert f"every {rows} while running" in JOURNAL
    assert f"once {rows} followed the last one" in " ".join(JOURNAL.split())
    assert f"the running station every {rows}" in " ".join(operations.split())


def test_the_bytes_a_round_are_those_performance_md_records() -> None:
    """The breakdown in "Where a round's bytes go" and the hand-recorded table of
    docs/performance.md come from one run of bench/journal_bytes.py."""
    performance = (DOCS / "performance.md").read_text()
    recorded = re.search(
        r"\| journal file a round \(SQLite, `dbstat`\) \| [^|]+ \| ([0-9,]+) bytes", performance
    )
    here = re.search(r"\| file a round \| [^|]+ \| ([0-9,]+) bytes", SECTIONS["Storage"])
    assert recorded and here and recorded.group(1) == here.group(1)
    archive = re.search(r"\| ([0-9,]+) bytes \(200 rounds, one segment\)", performance)
    assert archive and f"{archive.group(1)} bytes (200 rounds, one segment)" in JOURNAL


def test_the_docs_name_the_storage_format_of_a_new_journal() -> None:
    """The format ``creation.DEFAULT_FORMAT`` states in its source (the tests' own
    ``--journal-format`` sets it in this process), as docs/journal.md and
    docs/performance.md name it, and no document says otherwise."""
    source = (DOCS.parent / "controller" / "journal" / "creation.py").read_text()
    (code,) = re.findall(r"^DEFAULT_FORMAT = (\d)$", source, re.MULTILINE)
    performance = " ".join((DOCS / "performance.md").read_text().split())
    journal = " ".join(JOURNAL.split())
    assert re.findall(
        r"\*\*New journals are format (\d)\*\* \(`creation.DEFAULT_FORMAT = (\d)`", journal
    ) == [(code, code)]
    assert re.findall(
        r"New journals are format (\d) \(`controller.journal.creation.DEFAULT_FORMAT = (\d)`\)",
        performance,
    ) == [(code, code)]
    wrong = re.compile(
        r"new journals (?:are still|stay|are) (?:storage )?format (?!" + code + r")\d", re.I
    )
    for document in [*DOCS.glob("*.md"), DOCS.parent / "README.md"]:
        text = " ".join(document.read_text().replace("*", "").split())
        assert not wrong.search(text), (document.name, wrong.search(text))


def test_a_new_stations_journal_a_year_in_operations_md_is_the_bytes_a_round_it_keeps() -> None:
    """docs/operations.md's "how long a card lasts" for a new station (format 2) follows
    the bytes a round docs/performance.md records for format 2: a round a minute, 16
    hours a day, 365 days."""
    performance = " ".join((DOCS / "performance.md").read_text().split())
    operations = " ".join((DOCS / "operations.md").read_text().split())
    kept = re.search(r"\*\*([0-9,]+) bytes a round\*\* kept", performance)
    assert kept
    a_year = int(kept.group(1).replace(",", "")) * 60 * 16 * 365 / 1e9
    assert f"journal (format 2) grows by about {a_year:.1f} GB a year" in operations, a_year
