"""Hostile input at every entry point of the command line (docs/style.md, Errors).

Whatever file or argument arrives, ``replay``, ``check-config``, ``run``, ``simulate``,
``journal *`` and ``pair`` answer with their documented status and one line on stderr:
never a traceback, never a file written. Hypothesis feeds them arbitrary bytes, arbitrary
text, and the example configuration with a line changed to anything; the eleven inputs found
by hand are pinned as explicit examples.
"""

from __future__ import annotations

import hashlib
import io
import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from controller.cli.main import main
from controller.rules.profiles import OPTION_FIELDS

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "station.toml"
EXAMPLE_LINES = EXAMPLE.read_text().splitlines()
DEEP_TOML = ("a = " + "[" * 5000 + "]" * 5000).encode()
#: A wager key "²" once passed isdigit() and failed int().
SUPERSCRIPT_SEAT = '[devices.panel.wagers]\n"\u00b2.main" = 9\n'
HYPOTHESIS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "").replace('"', "") + '"'


@st.composite
def mutated_config(draw: st.DrawFn, example: list[str] = EXAMPLE_LINES) -> bytes:
    """The example configuration (``example``'s lines) with one line replaced by anything,
    or one value changed to an arbitrary TOML value."""
    lines = list(example)
    index = draw(st.integers(0, len(lines) - 1))
    line = lines[index]
    if "=" in line and not line.lstrip().startswith("#") and draw(st.booleans()):
        key = line.split("=", 1)[0]
        value = draw(
            st.one_of(
                st.integers(-(2**70), 2**70).map(str),
                st.text(max_size=20).map(
                    lambda t: '"' + t.replace("\\", "").replace('"', "") + '"'
                ),
                st.sampled_from(['"²"', '"\\u0000"', '""', "-1", "[]", "[1, 2]", "{}", "true"]),
            )
        )
        lines[index] = f"{key}= {value}"
    else:
        lines[index] = draw(st.text(max_size=40))
    return "\n".join(lines).encode("utf-8", "surrogatepass")


FILES = st.one_of(
    st.binary(max_size=400),
    st.text(max_size=400).map(lambda t: t.encode("utf-8", "surrogatepass")),
    mutated_config(),
)


@contextmanager
def sandbox() -> Iterator[Path]:
    """A scratch directory that is also the working directory; fails if a command left
    anything in it beyond what the test put there."""
    previous = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.chdir(root)
        try:
            yield root
        finally:
            os.chdir(previous)


def invoke(argv: Sequence[str]) -> tuple[int, list[str], list[str]]:
    """Run the command line in-process: status, stdout lines, stderr lines."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            status = main(list(argv))
        except SystemExit as exit_:  # argparse's usage errors and --help
            status = int(exit_.code or 0)
    # Lines end at "\n" (str.splitlines also breaks at \x1c-\x1e, \x85 ... which a
    # terminal and the journal of systemd show inside one line).
    return status, _lines(out.getvalue()), _lines(err.getvalue())


def _lines(text: str) -> list[str]:
    return text.split("\n")[:-1] if text else []


def assert_refused(result: tuple[int, list[str], list[str]], statuses: set[int]) -> None:
    status, _out, err = result
    assert status in statuses, (status, err)
    assert len(err) == 1, err
    assert "Traceback" not in err[0]


def listing(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@HYPOTHESIS
@given(FILES)
@example(DEEP_TOML)
@example(
    EXAMPLE.read_bytes().replace(b'"1.main" = "BOARD7"', b'"\xc2\xb2.main" = 9')[:0]
    + b'table_id = "T"\nprofile = "PA"\ndecks = 6\n[devices.panel.wagers]\n"\xc2\xb2.main" = 9\n'
)
def test_check_config_answers_any_file_in_one_line(content: bytes) -> None:
    with sandbox() as root:
        (root / "station.toml").write_bytes(content)
        status, out, err = invoke(["check-config", str(root / "station.toml")])
        if status == 0:  # a mutation that is still a valid configuration
            # `ok: ...`, the `procedure: ...` line and every rules option with its value
            # and basis (docs/operations.md)
            assert len(out) == 3 + len(OPTION_FIELDS) and err == [] and ": ok: " in out[0]
            assert out[1].startswith("procedure: ") and out[2].startswith("options ")
            names = [line.split(" = ", 1)[0].strip() for line in out[3:]]
            assert names == list(OPTION_FIELDS)
        else:
            assert_refused((status, out, err), {2})
        assert listing(root) == ["station.toml"]


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (('path = "/var/lib/dealer-station/journal.sqlite3"', 'path = ""'), "journal.path"),
        (
            ('path = "/var/lib/dealer-station/journal.sqlite3"', 'path = "/var/lib/j\\u0000.db"'),
            "journal.path",
        ),
        (('port = "/dev/dealer-shoe"', 'port = "/dev/dealer\\u0000shoe"'), "devices.shoe.port"),
        (("vid = 0x1209", "vid = -1"), "devices.card_reader.vid"),
        (("pid = 0x5321", "pid = -5"), "devices.card_reader.pid"),
        (("interface = 0", "interface = -1"), "devices.card_reader.interface"),
        (
            (
                "[devices.panel.leds]",
                '[devices.panel.wagers]\n"\u00b2.main" = 9\n[devices.panel.leds]',
            ),
            "wagers",
        ),
    ],
)
def test_the_values_the_issue_found_are_refused_by_check_config(
    change: tuple[str, str], problem: str
) -> None:
    text = EXAMPLE.read_text()
    assert change[0] in text
    with sandbox() as root:
        (root / "station.toml").write_text(text.replace(change[0], change[1], 1))
        status, _out, err = invoke(["check-config", str(root / "station.toml")])
        assert_refused((status, _out, err), {2})
        assert problem in err[0]


@HYPOTHESIS
@given(st.one_of(st.binary(max_size=300), st.just(DEEP_TOML)))
def test_run_refuses_any_broken_configuration_in_one_line(content: bytes) -> None:
    with sandbox() as root:
        (root / "station.toml").write_bytes(content)
        result = invoke(["run", "--config", str(root / "station.toml")])
        assert_refused(result, {2})
        assert listing(root) == ["station.toml"]


#: The journal commands that take a journal (``--journal`` or ``--config``), as argv after
#: ``journal``; "." is the sandbox (a folder of garbage files, no segment in it).
JOURNAL_ACTIONS = (
    "recall",
    "verify",
    "export",
    "anchor",
    "migrate",
    "verify --archive .",
    "rotate --archive .",
    "rotate --check --archive .",
    "archive --to archive",
)
#: Those that write the journal when it is good: given only ``--journal`` (a station.toml
#: that is still valid names the default path, which a test machine may hold).
WRITERS = ("migrate", "rotate --archive .")


def digests(root: Path) -> dict[str, str]:
    """Every file under ``root`` and its content's digest (SQLite's ``-shm`` aside)."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.endswith("-shm")
    }


@HYPOTHESIS
@given(FILES, st.sampled_from(JOURNAL_ACTIONS[:4]))
@example(DEEP_TOML, "verify")
def test_journal_commands_answer_any_file_in_one_line(content: bytes, action: str) -> None:
    """Whatever the file holds, the answer is one line and no file is written: the
    journal and the configuration hash the same after (an empty file is an empty
    journal, which verify finds intact)."""
    answer_any_file(content, action)


@settings(HYPOTHESIS, max_examples=25)
@given(FILES, st.sampled_from(JOURNAL_ACTIONS[4:]))
@example(b"", "migrate")
@example(b"", "rotate --check --archive .")
@example(DEEP_TOML, "rotate --archive .")
def test_the_newer_journal_commands_answer_any_file_in_one_line(
    content: bytes, action: str
) -> None:
    """migrate, rotate (and --check), verify --archive and archive, as the four above."""
    answer_any_file(content, action)


def answer_any_file(content: bytes, action: str) -> None:
    with sandbox() as root:
        (root / "journal.sqlite3").write_bytes(content)
        (root / "station.toml").write_bytes(content)
        before = digests(root)
        for location in ("--journal",) if action in WRITERS else ("--journal", "--config"):
            name = "journal.sqlite3" if location == "--journal" else "station.toml"
            argv = ["journal", *action.split(), location, str(root / name)]
            status, out, err = invoke(argv)
            if status == 0:  # an empty file is an empty journal (verify: ok, one line)
                assert err == [] and len(out) <= 1
            elif action.startswith("rotate --check") and status == 1 and err == []:
                assert len(out) == 1  # nothing to cut: "no", on stdout (the unit's test)
            elif action == "anchor" and status == 1 and out == []:
                assert len(err) == 1 and "Traceback" not in err[0]  # no sealed head yet
            else:
                assert_refused((status, out, err), {1, 2})
        assert listing(root) == ["journal.sqlite3", "station.toml"]
        assert digests(root) == before


@HYPOTHESIS
@given(FILES)
@example(b"[" * 5000)
def test_replay_answers_any_script_in_one_line(content: bytes) -> None:
    with sandbox() as root:
        (root / "round.json").write_bytes(content)
        result = invoke(["replay", str(root / "round.json")])
        assert_refused(result, {2})
        assert listing(root) == ["round.json"]


def test_replay_reads_a_bounded_amount() -> None:
    # `replay /dev/zero` once read without limit.
    result = invoke(["replay", "/dev/zero"])
    assert_refused(result, {2})
    assert "larger than 1048576 bytes" in result[2][0]


@HYPOTHESIS
@given(
    st.text(max_size=60),
    st.lists(
        st.sampled_from(
            ["--rounds", "--seats", "--decks", "--seed", "--faults", "--profile", "--firmware"]
        ),
        max_size=3,
    ),
    st.lists(st.text(max_size=8), min_size=3, max_size=3),
)
@example("/nonexistent/x.sqlite3", [], ["", "", ""])
@example("a\0b", [], ["", "", ""])
@example("x" * 300, [], ["", "", ""])
def test_simulate_refuses_bad_arguments_before_it_deals(
    journal: str, options: list[str], values: list[str]
) -> None:
    with sandbox() as root:
        # Never a journal that could be created: the simulation must refuse, not run.
        path = journal if journal.startswith("/nonexistent") else f"missing/dir/{journal}"
        argv = ["simulate", "--plain", "--journal", path]
        for option, value in zip(options, values, strict=False):
            argv += [option, value]
        result = invoke(argv)
        assert_refused(result, {2})
        assert listing(root) == []


@HYPOTHESIS
@given(st.text(max_size=20), FILES)
@example("shoe", DEEP_TOML)
def test_pair_answers_any_device_and_configuration_in_one_line(device: str, content: bytes) -> None:
    with sandbox() as root:
        (root / "station.toml").write_bytes(content)
        argv = ["pair", device, "--config", str(root / "station.toml"), "--timeout", "0.2"]
        result = invoke(argv)
        assert_refused(result, {2, 3})
        assert listing(root) == ["station.toml"]


@HYPOTHESIS
@given(FILES)
@example(DEEP_TOML)
def test_setup_keys_answers_any_configuration_in_one_line(content: bytes) -> None:
    """``journal setup-keys --config FILE``: a configuration it cannot use is refused in one
    line and no sealing state is written."""
    with sandbox() as root:
        (root / "station.toml").write_bytes(content)
        key_file = root / "sealing-key"
        status, out, err = invoke(
            ["journal", "setup-keys", "--config", str(root / "station.toml"),
             "--key-file", str(key_file)]
        )  # fmt: skip
        if status == 0:  # a mutation that is still a valid configuration
            assert err == [] and key_file.exists()
        else:
            assert_refused((status, out, err), {1, 2})
            assert listing(root) == ["station.toml"]


@HYPOTHESIS
@given(st.text(max_size=80))
def test_setup_keys_answers_any_table_name_in_one_line(table: str) -> None:
    with sandbox() as root:
        key_file = root / "sealing-key"
        status, out, err = invoke(
            ["journal", "setup-keys", "--table", table, "--key-file", str(key_file)]
        )
        if status == 0:
            assert err == [] and key_file.exists() and (key_file.stat().st_mode & 0o077) == 0
        else:
            assert_refused((status, out, err), {1, 2})
            assert listing(root) == []


@pytest.mark.parametrize(
    "argv",
    [
        ["check-config", "{P}"],
        ["run", "--config", "{P}"],
        ["pair", "shoe", "--config", "{P}", "--timeout", "0.2"],
        ["journal", "verify", "--config", "{P}"],
        ["journal", "setup-keys", "--config", "{P}"],
        ["journal", "setup-keys", "--table", "T1", "--key-file", "{P}/key"],
        ["journal", "rotate", "--archive", ".", "--config", "{P}"],
    ],
)
@pytest.mark.parametrize("name", ["no\nsuch", "no\udcffsuch"])
def test_a_path_with_a_newline_or_not_utf8_is_named_on_one_line(argv: list[str], name: str) -> None:
    """A configuration's error (``ConfigError``) and setup-keys' own named the path as it
    was: a newline in it made the one line two."""
    with sandbox() as root:
        bad = str(root / name)
        status, out, err = invoke(
            [bad if part == "{P}" else part.replace("{P}", bad) for part in argv]
        )
        assert_refused((status, out, err), {2})
        assert repr(name)[1:-1] in err[0], err
        assert listing(root) == []


@HYPOTHESIS
@given(
    st.one_of(
        st.floats().map(repr),
        st.sampled_from(["nan", "-inf", "inf", "1e309", "0", "-0", "3600.0000001", "1_0"]),
        st.text(max_size=10),
    )
)
def test_pair_answers_any_timeout_in_one_line(timeout: str) -> None:
    """``--timeout``: 0 < SECONDS <= 3600, else a usage error; one taken goes on to the
    supervisor key (no GPIO here: refused in one line)."""
    with sandbox() as root:
        result = invoke(["pair", "shoe", "--config", str(EXAMPLE), f"--timeout={timeout}"])
        assert_refused(result, {2})
        try:
            seconds = float(timeout)
        except ValueError:
            assert "argument --timeout" in result[2][0]
        else:
            taken = 0 < seconds <= 3600
            assert ("between 0 and 3600 seconds" in result[2][0]) is not taken, result
        assert listing(root) == []
