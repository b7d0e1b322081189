"""The generator of docs/protocol.md's worked examples (``python -m firmware_bridge.examples``)
as a technician uses it: how it writes a message's bytes, where it puts a section's example,
what it prints when the document and the codec differ, its help, and that it reads and
writes the document as UTF-8 whatever the machine's locale."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import pytest

from firmware_bridge import codec, examples
from firmware_bridge.codec import Message, message
from firmware_bridge.examples import example_block, literal, render
from firmware_bridge.wire_types import U8

DOC = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"
TEXT = DOC.read_text(encoding="utf-8")
SHOE_EMPTY = re.compile(r"### 0x23 ShoeEmptyReport\n.*?(?=### )", re.S)


def _section(text: str = TEXT) -> str:
    found = SHOE_EMPTY.search(text)
    assert found is not None
    return found.group(0)


# --- bytes as the document writes them ----------------------------------------------------


@pytest.mark.parametrize(
    ("data", "written"),
    [
        (bytes(4), "bytes(4)"),
        # A run of consecutive bytes of two or more, up to 0xFF: a range.
        (b"\x00\x01", "bytes(range(2))"),
        (b"\xfe\xff", "bytes(range(254, 256))"),
        # A run cannot pass 0xFF: FE FF then 00 is no range (0x100 is no byte).
        (b"\xfe\xff\x00", "bytes.fromhex('FEFF00')"),
        (b"\x05", "bytes.fromhex('05')"),
        # At least half of the bytes printable ASCII (0x20 .. 0x7E): a bytes literal.
        (b" \x01", "b' \\x01'"),
        (b"~\x01", "b'~\\x01'"),
        (b"a\x01", "b'a\\x01'"),
        (b"\x7f\x01", "bytes.fromhex('7F01')"),
        (b"\x1f\x01", "bytes.fromhex('1F01')"),
        (b"a\x01\x02", "bytes.fromhex('610102')"),
    ],
)
def test_bytes_are_written_as_the_shortest_expression_that_reads_well(
    data: bytes, written: str
) -> None:
    assert literal(data) == written
    assert eval(written) == data


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ((), "()"),
        # A one-item tuple needs its comma, or Python reads the parentheses as grouping.
        ((24,), "(24,)"),
        ((24, 1), "(24, 1)"),
        ((24, 24, 1), "(24, 24, 1)"),
    ],
)
def test_a_tuple_is_written_as_python_reads_it_back(value: tuple[int, ...], written: str) -> None:
    assert literal(value) == written
    assert eval(written) == value


# --- sections and their example blocks ----------------------------------------------------


def test_a_section_written_without_its_example_gets_it_after_its_text_as_the_document_has_it() -> (
    None
):
    section = _section()
    bare = TEXT.replace(section, section.split("```text")[0])
    assert bare != TEXT and render(bare) == TEXT


@pytest.mark.parametrize("last_line", ["See also CARD-INDEX", "Two spaces end this line  "])
def test_the_text_before_a_new_example_is_kept_to_its_last_character(last_line: str) -> None:
    section = _section()
    table = section.split("```text")[0]
    made = render(TEXT.replace(section, f"{table.rstrip()}\n{last_line}\n\n"))
    assert f"\n{last_line}\n\n```text\nmessage: ShoeEmptyReport(draws=385)\n" in made


def test_only_a_sections_first_text_block_is_its_example() -> None:
    section = _section()
    second = (
        section.rstrip("\n") + "\n\nA trace, left as written:\n\n```text\nnot an example\n```\n\n"
    )
    with_second = TEXT.replace(section, second)
    assert render(with_second) == with_second
    stale = with_second.replace("payload: 01 81", "payload: 01 80")
    assert render(stale) == with_second


def test_every_missing_section_is_named_in_one_refusal() -> None:
    dealt = re.search(r"### 0x24 HoleCardDealtReport\n.*?(?=### )", TEXT, re.S)
    assert dealt is not None
    without_two = TEXT.replace(_section(), "").replace(dealt.group(0), "")
    with pytest.raises(ValueError) as caught:
        render(without_two)
    assert str(caught.value) == (
        "no section in the message catalogue for 0x23 ShoeEmptyReport, 0x24 HoleCardDealtReport"
    )


@pytest.fixture
def scratch_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Registrations in a test go into copies of the registry, gone after it."""
    monkeypatch.setattr(codec, "_BY_TYPE", dict(codec._BY_TYPE))
    monkeypatch.setattr(codec, "_BY_CLASS", dict(codec._BY_CLASS))


@pytest.mark.usefixtures("scratch_registry")
def test_a_message_without_an_example_is_refused_by_name() -> None:
    @dataclass(frozen=True, slots=True)
    class Unexampled(Message):
        value: Annotated[int, U8]

    message(0xFE, sender=None, device=None)(Unexampled)
    with pytest.raises(ValueError) as caught:
        example_block(Unexampled)
    assert str(caught.value) == "Unexampled declares no example (@message(..., example=...))"


# --- the command ----------------------------------------------------------------------------


def test_the_command_checks_docs_protocol_md_when_given_no_file(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert examples.main([]) == 0
    assert capsys.readouterr() == ("", "")


def test_the_command_explains_itself(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        examples.main(["--help"])
    assert stopped.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m firmware_bridge.examples [-h] [--write] [doc]\n")
    assert re.search(r"--write\s+write the examples into the file\n", out)


def test_a_difference_is_shown_as_a_diff_of_the_document_against_the_codec(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = tmp_path / "protocol.md"
    doc.write_text(TEXT.replace("payload: 01 81", "payload: 01 80"), encoding="utf-8")
    assert examples.main([str(doc)]) == 1
    lines = capsys.readouterr().out.splitlines(keepends=True)
    assert lines[:2] == [f"--- {doc}\n", "+++ made\n"]
    assert [line for line in lines[2:] if line[0] in "+-"] == [
        "-payload: 01 80\n",
        "+payload: 01 81\n",
    ]


_MAIN = "import sys; from firmware_bridge.examples import main; sys.exit(main(sys.argv[1:]))"


def _run_in_an_ascii_locale(*args: str) -> subprocess.CompletedProcess[str]:
    # The C locale without Python's UTF-8 mode: the platform's default text encoding is ASCII.
    env = {**os.environ, "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
    return subprocess.run(
        # main() imported by its module's name, as `python -m firmware_bridge.examples` runs
        # it (run as __main__, the module would escape the mutation tool's switch).
        [sys.executable, "-c", _MAIN, *args],
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
        timeout=60,
    )


def test_the_document_is_read_and_written_as_utf8_in_any_locale(tmp_path: Path) -> None:
    doc = tmp_path / "protocol.md"
    section = _section()
    accented = TEXT.replace(section, section.replace("Shoe -> station", "Sabot -> station (é)"))
    doc.write_text(accented, encoding="utf-8")
    # In this process's locale, then in an ASCII one. (This call also tells the mutation
    # tool, which picks a mutant's tests by what they call in process, that the test
    # reaches main.)
    assert examples.main([str(doc)]) == 0
    checked = _run_in_an_ascii_locale(str(doc))
    assert (checked.returncode, checked.stdout, checked.stderr) == (0, "", "")
    doc.write_text(accented.replace("payload: 01 81", "payload: 01 80"), encoding="utf-8")
    written = _run_in_an_ascii_locale(str(doc), "--write")
    assert (written.returncode, written.stderr) == (0, "")
    assert doc.read_text(encoding="utf-8") == accented
