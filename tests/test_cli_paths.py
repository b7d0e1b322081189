"""Hostile paths at every station subcommand and in every path of ``station.toml``: a
device node, a directory, a symlink (to a file, to a directory, dangling), and the
journal's own files (the database, its WAL, its head record) while the station has it
open. Each command answers with its documented status and one line on stderr, and no file
is written over: a device node, a symlink's target or the journal (``journal setup-keys
--force`` once replaced whatever it was given, the journal included).

The in-process runner and the one-line assertion are ``tests/test_cli_hostile.py``'s.
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_cli_hostile import EXAMPLE, HYPOTHESIS, assert_refused, invoke, sandbox

from controller.journal.seal import new_sealing, save_state
from controller.journal.store import Journal

KINDS = (
    "device",
    "directory",
    "link-to-file",
    "link-to-directory",
    "dangling-link",
    "journal",
    "journal-wal",
    "journal-head",
)


@contextmanager
def hostile_tree() -> Iterator[tuple[Path, dict[str, Path]]]:
    """A sandbox holding one path of each kind in :data:`KINDS`, a sealing state and a
    station configuration naming the journal there; the journal is open for writing
    (the station runs) while the test acts."""
    with sandbox() as root:
        paths = {kind: root / kind for kind in KINDS[:5]}
        try:
            os.mknod(paths["device"], stat.S_IFCHR | 0o600, os.makedev(1, 5))  # a zero device
        except PermissionError:
            paths["device"] = Path("/dev/zero")  # read from only: nothing may write it
        paths["directory"].mkdir()
        (root / "target").write_text("keep me\n")
        paths["link-to-file"].symlink_to(root / "target")
        paths["link-to-directory"].symlink_to(paths["directory"])
        paths["dangling-link"].symlink_to(root / "nowhere")
        journal = root / "journal.sqlite3"
        key = root / "sealing-key"
        save_state(key, new_sealing("T1")[0])
        writer = Journal.open(journal, sealing=key)
        try:
            writer.append("station_started", {"table_id": "T1"})
            paths["journal"] = journal
            paths["journal-wal"] = journal.with_name(journal.name + "-wal")
            paths["journal-head"] = journal.with_name(journal.name + "-head")
            assert paths["journal-wal"].exists()
            config_text = (
                EXAMPLE.read_text()
                .replace("/var/lib/dealer-station/journal.sqlite3", str(journal))
                .replace("/var/lib/dealer-station/sealing-key", str(key))
            )
            (root / "station.toml").write_text(config_text)
            yield root, paths
        finally:
            writer.close()


def snapshot(root: Path) -> dict[str, tuple[str, str]]:
    """Every entry under ``root``: its type and its content's digest (a symlink's target);
    WAL index files left out (readers update them)."""
    found: dict[str, tuple[str, str]] = {}
    for path in sorted(root.rglob("*")):
        if path.name.endswith("-shm"):
            continue
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            found[str(path)] = ("link", os.readlink(path))
        elif stat.S_ISREG(info.st_mode):
            found[str(path)] = ("file", hashlib.sha256(path.read_bytes()).hexdigest())
        else:
            found[str(path)] = (stat.filemode(info.st_mode)[0], "")
    return found


def command(name: str, path: Path, root: Path) -> list[str]:
    """The command line of ``name`` with ``path`` where it takes a file."""
    config, journal = str(root / "station.toml"), str(root / "journal.sqlite3")
    return {
        "check-config": ["check-config", str(path)],
        "run --config": ["run", "--config", str(path)],
        "run --journal": ["run", "--config", config, "--journal", str(path)],
        "journal recall": ["journal", "recall", "--journal", str(path)],
        "journal verify": ["journal", "verify", "--journal", str(path)],
        "journal export": ["journal", "export", "--journal", str(path)],
        "journal anchor": ["journal", "anchor", "--journal", str(path)],
        "journal verify --config": ["journal", "verify", "--config", str(path)],
        "journal verify --key": ["journal", "verify", "--journal", journal, "--key", f"@{path}"],
        "journal export --output": [
            "journal",
            "export",
            "--journal",
            journal,
            "--output",
            str(path),
        ],
        "journal setup-keys": [
            "journal",
            "setup-keys",
            "--table",
            "T1",
            "--force",
            "--key-file",
            str(path),
        ],
        "replay": ["replay", str(path)],
        "simulate": ["simulate", "--plain", "--rounds", "1", "--journal", str(path)],
        "pair": ["pair", "shoe", "--config", str(path), "--timeout", "0.2"],
        "doubles": ["doubles", "--shoe", f"pty:{path}", "--control", str(root / "c.sock")],
        "doubles --control": ["doubles", "--shoe", f"pty:{root}/shoe", "--control", str(path)],
    }[name]


COMMANDS = (
    "check-config",
    "run --config",
    "run --journal",
    "journal recall",
    "journal verify",
    "journal export",
    "journal anchor",
    "journal verify --config",
    "journal verify --key",
    "journal export --output",
    "journal setup-keys",
    "replay",
    "simulate",
    "pair",
    "doubles",
    "doubles --control",
)
#: What may succeed: a read of the journal its own file names, and an export written to a
#: device (as to /dev/stdout; never through a symlink, nor over the journal's files).
READS_THE_JOURNAL = {"journal recall", "journal verify", "journal export", "journal anchor"}
EXPORTS = {"device"}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", COMMANDS)
def test_every_subcommand_answers_a_hostile_path_in_one_line(name: str, kind: str) -> None:
    """Every pair of a subcommand and a kind of path (a few dozen: each is run)."""
    with hostile_tree() as (root, paths):
        before = snapshot(root)
        status, out, err = invoke(command(name, paths[kind], root))
        exported = name == "journal export --output" and kind in EXPORTS
        if status == 0:
            assert (name in READS_THE_JOURNAL and kind == "journal") or exported, (name, kind)
            assert err == []
        else:
            assert_refused((status, out, err), {1, 2, 3})
        after = snapshot(root)
        changed = {
            p: after.get(p) for p in set(before) | set(after) if before.get(p) != after.get(p)
        }
        assert changed == {}, changed


CONFIG_PATHS = {
    "journal.path": ('path = "{journal}"', 'path = "{hostile}"'),
    "journal.sealing_key": ('sealing_key = "{key}"', 'sealing_key = "{hostile}"'),
    "pairing.directory": ("[pairing]", '[pairing]\ndirectory = "{hostile}"'),
    "devices.shoe.port": ('port = "/dev/dealer-shoe"', 'port = "{hostile}"'),
    "floor.password_file": (
        "",
        '\n[floor]\nbroker = "127.0.0.1"\nusername = "T1"\npassword_file = "{hostile}"\n'
        'ca_file = "{root}/target"\n',
    ),
    "floor.ca_file": (
        "",
        '\n[floor]\nbroker = "127.0.0.1"\nusername = "T1"\npassword_file = "{root}/target"\n'
        'ca_file = "{hostile}"\n',
    ),
}


@HYPOTHESIS
@given(
    st.sampled_from(sorted(CONFIG_PATHS)),
    st.sampled_from(KINDS),
    st.sampled_from(["check-config", "run", "journal setup-keys"]),
)
def test_every_path_of_the_configuration_answers_a_hostile_path_in_one_line(
    key: str, kind: str, action: str
) -> None:
    with hostile_tree() as (root, paths):
        text = (root / "station.toml").read_text()
        old, new = CONFIG_PATHS[key]
        values = {"journal": root / "journal.sqlite3", "key": root / "sealing-key", "root": root}
        old = old.format(**values)
        new = new.format(hostile=paths[kind], **values)
        if old:
            assert old in text, old
            text = text.replace(old, new, 1)
        else:
            text += new
        (root / "station.toml").write_text(text)
        before = snapshot(root)
        argv = {
            "check-config": ["check-config", str(root / "station.toml")],
            "run": ["run", "--config", str(root / "station.toml")],
            "journal setup-keys": [
                "journal",
                "setup-keys",
                "--force",
                "--config",
                str(root / "station.toml"),
            ],
        }[action]
        status, out, err = invoke(argv)
        if status != 0:
            assert_refused((status, out, err), {1, 2})
        after = snapshot(root)
        changed = {
            p: after.get(p) for p in set(before) | set(after) if before.get(p) != after.get(p)
        }
        # setup-keys may replace the station's own key file, and nothing else.
        changed.pop(str(root / "sealing-key"), None) if action == "journal setup-keys" else None
        assert changed == {}, (key, kind, action, changed)


# --- the cases the hand tester found, pinned ------------------------------------------------


def test_verify_reads_a_bounded_key_file() -> None:
    status, _out, err = invoke(["journal", "verify", "--journal", "x", "--key", "@/dev/zero"])
    assert_refused((status, _out, err), {2})
    assert "larger than 4096 bytes" in err[0]


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm", "-head", "-floor"])
def test_check_config_refuses_a_key_file_that_is_the_journal_or_one_of_its_files(
    suffix: str,
) -> None:
    with sandbox() as root:
        journal = root / "journal.sqlite3"
        text = EXAMPLE.read_text().replace("/var/lib/dealer-station/journal.sqlite3", str(journal))
        text = text.replace("/var/lib/dealer-station/sealing-key", f"{journal}{suffix}")
        (root / "station.toml").write_text(text)
        result = invoke(["check-config", str(root / "station.toml")])
        assert_refused(result, {2})
        assert "journal.sealing_key" in result[2][0] and "journal's own file" in result[2][0]


def test_check_config_refuses_one_port_for_two_devices() -> None:
    with sandbox() as root:
        text = EXAMPLE.read_text().replace(
            'port = "/dev/dealer-shuffler"', 'port = "/dev/dealer-shoe"'
        )
        assert text != EXAMPLE.read_text()
        (root / "station.toml").write_text(text)
        result = invoke(["check-config", str(root / "station.toml")])
        assert_refused(result, {2})
        assert "devices.shuffler.port" in result[2][0] and "devices.shoe.port" in result[2][0]


def test_check_config_refuses_a_password_file_that_is_a_directory() -> None:
    with sandbox() as root:
        (root / "secrets").mkdir()
        (root / "ca.pem").write_text("x")
        floor = (
            '\n[floor]\nbroker = "127.0.0.1"\nusername = "T1"\n'
            f'password_file = "{root}/secrets"\nca_file = "{root}/ca.pem"\n'
        )
        (root / "station.toml").write_text(EXAMPLE.read_text() + floor)
        result = invoke(["check-config", str(root / "station.toml")])
        assert_refused(result, {2})
        assert "floor.password_file" in result[2][0] and "directory" in result[2][0]


def test_run_on_a_journal_that_is_a_directory_says_so() -> None:
    with sandbox() as root:
        (root / "journal").mkdir()
        result = invoke(["run", "--config", str(EXAMPLE), "--journal", str(root / "journal")])
        assert_refused(result, {2})
        assert "is a directory" in result[2][0]


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (["--shoe-secret", "00" * 16], "32 bytes"),
        (["--shoe-serial", "SH\u00d6E-1"], "not a serial number"),
        (["--shuffler", "pty:{root}/shoe"], "one path a device"),
        (["--control", "{root}/shoe"], "one path a device"),
    ],
)
def test_doubles_refuses_what_it_cannot_serve(argv: list[str], problem: str) -> None:
    with sandbox() as root:
        base = ["doubles", "--shoe", f"pty:{root}/shoe"]
        extra = [a.format(root=root) for a in argv]
        control = [] if "--control" in extra else ["--control", str(root / "c.sock")]
        result = invoke(base + extra + control)
        assert_refused(result, {2})
        assert problem in result[2][0]
        assert list(root.iterdir()) == []


def test_pair_on_a_machine_without_gpio_says_so_in_one_line() -> None:
    """In a process of its own (gpiozero warns once a process, and a test's mock pins
    would answer instead): no warning about each pin library, one line."""
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli.main", "pair", "shoe", "--config", str(EXAMPLE),
         "--timeout", "0.2"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert "no GPIO on this machine" in done.stderr


# --- the sections the example configuration leaves out --------------------------------------

TOML_VALUES = st.one_of(
    st.integers(-(2**40), 2**40).map(str),
    st.text(max_size=24).map(lambda t: '"' + t.replace("\\", "").replace('"', "") + '"'),
    st.sampled_from(["true", "false", "[]", '["sim-1.0"]', "{}", '"/dev/zero"', '"."']),
)
FLOOR_KEYS = (
    "broker", "tls", "port", "username", "password_file", "ca_file", "batch_rows",
    "ack_timeout_seconds", "status_interval_seconds",
)  # fmt: skip
BOARD_KEYS = ("port", "serial", "baudrate", "rtscts", "firmware")


@HYPOTHESIS
@given(
    st.dictionaries(st.sampled_from(FLOOR_KEYS), TOML_VALUES, max_size=len(FLOOR_KEYS)),
    st.dictionaries(st.sampled_from(BOARD_KEYS), TOML_VALUES, max_size=len(BOARD_KEYS)),
    st.sampled_from(["check-config", "run"]),
)
def test_the_sections_the_example_leaves_out_answer_any_value_in_one_line(
    floor: dict[str, str], board: dict[str, str], action: str
) -> None:
    """``[floor]`` and ``[devices.panel_board]`` (in place of the GPIO panel), each key any
    value or missing: one line, or a configuration that checks out (``run`` then stops at
    the journal's directory, which does not exist)."""
    with sandbox() as root:
        text = EXAMPLE.read_text()
        text = text.replace("/var/lib/dealer-station/", f"{root}/missing/")
        panel = text.index("[devices.panel]")
        text = (
            text[:panel]
            + "[devices.panel_board]\n"
            + "".join(f"{key} = {value}\n" for key, value in board.items())
        )
        text += "\n[floor]\n" + "".join(f"{key} = {value}\n" for key, value in floor.items())
        (root / "station.toml").write_text(text)
        argv = ["check-config", str(root / "station.toml")]
        if action == "run":
            argv = ["run", "--config", str(root / "station.toml")]
        status, out, err = invoke(argv)
        if status == 0:
            assert action == "check-config" and err == []
        else:
            assert_refused((status, out, err), {1, 2})
        assert sorted(p.name for p in root.iterdir()) == ["station.toml"]
