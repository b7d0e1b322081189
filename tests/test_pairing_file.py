"""The pairing files on the station (drivers.pairing.PairingStore): where a secret is read
from, and that a saved pairing survives a power cut.

docs/operations.md: under systemd a device's secret may come as a credential
(``LoadCredential=shoe.key:...``); a credential of that name wins over the pairing directory's
file, and a kind without a credential is read from the directory. A pairing is written under
a temporary name, synced, renamed, and the directory synced: after a power cut the file is
either the old one or the new one, whole, and a completed ``dealer-station pair`` is never
lost (the device already keeps the new secret).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from fsync_support import spy
from hypothesis import given
from hypothesis import strategies as st

from drivers.pairing import CREDENTIALS_ENV, PairedDevice, PairingStore, PairingStoreError

SECRET_A = bytes(range(32))
SECRET_B = bytes(range(100, 132))


def _write(path: Path, serial: str, secret: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{serial} {secret.hex()}\n", encoding="ascii")


def test_a_credential_wins_over_the_pairing_directory_for_its_kind_only(tmp_path: Path) -> None:
    directory, credentials = tmp_path / "pairing", tmp_path / "credentials"
    _write(directory / "shoe.key", "SHO-FILE", SECRET_A)
    _write(credentials / "shoe.key", "SHO-CRED", SECRET_B)
    _write(directory / "card_reader.key", "CR-FILE", SECRET_A)
    store = PairingStore(directory, credentials)
    assert store.load("shoe") == PairedDevice("SHO-CRED", SECRET_B)
    assert store.path("shoe") == credentials / "shoe.key"
    # No credential for the card reader: its file in the pairing directory is the one.
    assert store.load("card_reader") == PairedDevice("CR-FILE", SECRET_A)
    assert store.path("card_reader") == directory / "card_reader.key"
    assert store.load("shuffler") is None


def test_systemds_credentials_directory_is_read_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory, credentials = tmp_path / "pairing", tmp_path / "credentials"
    _write(directory / "shoe.key", "SHO-FILE", SECRET_A)
    _write(credentials / "shoe.key", "SHO-CRED", SECRET_B)
    monkeypatch.setenv(CREDENTIALS_ENV, str(credentials))
    assert PairingStore(directory).load("shoe") == PairedDevice("SHO-CRED", SECRET_B)
    monkeypatch.setenv(CREDENTIALS_ENV, "")
    assert PairingStore(directory).load("shoe") == PairedDevice("SHO-FILE", SECRET_A)
    monkeypatch.delenv(CREDENTIALS_ENV)
    assert PairingStore(directory).load("shoe") == PairedDevice("SHO-FILE", SECRET_A)


def test_a_new_pairing_goes_to_the_directory_not_over_the_credential(tmp_path: Path) -> None:
    directory, credentials = tmp_path / "pairing", tmp_path / "credentials"
    _write(credentials / "shoe.key", "SHO-CRED", SECRET_B)
    store = PairingStore(directory, credentials)
    assert store.save("shoe", PairedDevice("SHO-NEW", SECRET_A)) == directory / "shoe.key"
    assert PairingStore(directory).load("shoe") == PairedDevice("SHO-NEW", SECRET_A)
    assert (credentials / "shoe.key").read_text() == f"SHO-CRED {SECRET_B.hex()}\n"
    assert stat.S_IMODE((directory / "shoe.key").stat().st_mode) == 0o600
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700


def test_save_syncs_the_whole_file_before_the_rename_and_the_directory_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The real calls run; the spy notes what each fsync reached and in which order.
    directory = tmp_path / "pairing"
    events = spy(monkeypatch)
    PairingStore(directory).save("shoe", PairedDevice("SHO-42", SECRET_A))
    line = f"SHO-42 {SECRET_A.hex()}\n".encode()
    renamed = events.index(("replace", str(directory / "shoe.key"), b""))
    synced_file = [i for i, e in enumerate(events) if e[0] == "fsync" and e[2] == line]
    synced_dir = [i for i, e in enumerate(events) if e[:2] == ("fsync", str(directory))]
    assert synced_file and synced_file[0] < renamed, events
    assert synced_dir and synced_dir[-1] > renamed, events


@pytest.mark.parametrize(
    "text",
    [
        "",
        "SHO-42\n",
        f" {SECRET_A.hex()}\n",
        f"SHO-42 {SECRET_A.hex()[:-2]}\n",  # 31 bytes
        f"SHO-42 {SECRET_A.hex()}00\n",  # 33 bytes
        f"SHO-42 {SECRET_A.hex()[:-1]}g\n",
    ],
)
def test_a_file_that_is_not_a_pairing_is_one_line_naming_it(tmp_path: Path, text: str) -> None:
    path = tmp_path / "shoe.key"
    path.write_text(text, encoding="ascii")
    with pytest.raises(PairingStoreError) as caught:
        PairingStore(tmp_path).load("shoe")
    assert str(caught.value) == f"{path}: not a pairing file (SERIAL HEX-SECRET)"


@given(st.binary(max_size=120))
def test_any_bytes_in_a_pairing_file_load_or_fail_in_one_line(data: bytes) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as name:
        (Path(name) / "shoe.key").write_bytes(data)
        try:
            device = PairingStore(Path(name)).load("shoe")
        except PairingStoreError as err:
            assert "\n" not in str(err) and str(err).startswith(name)
        else:
            assert device is not None and len(device.secret) == 32 and device.serial_number


def test_pairing_again_replaces_the_file_and_a_missing_directory_is_made(tmp_path: Path) -> None:
    directory = tmp_path / "state" / "pairing"  # neither exists yet
    store = PairingStore(directory)
    store.save("shoe", PairedDevice("SHO 42", SECRET_A))  # a serial number may hold a space
    store.save("shoe", PairedDevice("SHO 42", SECRET_B))
    assert store.load("shoe") == PairedDevice("SHO 42", SECRET_B)
    assert sorted(p.name for p in directory.iterdir()) == ["shoe.key"]


def test_the_new_file_is_written_beside_the_old_one_under_a_hidden_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A rename is atomic only within one file system: the temporary file is in the pairing
    # directory, hidden (".shoe.*") so that nothing reading "*.key" ever sees it half-written.
    renamed: list[Path] = []
    real_replace = os.replace

    def replace(src: str, dst: str) -> None:
        renamed.append(Path(src))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    PairingStore(tmp_path).save("shoe", PairedDevice("SHO-42", SECRET_A))
    (src,) = renamed
    assert src.parent == tmp_path and src.name.startswith(".shoe.")


def test_a_pairing_that_cannot_be_written_is_one_line_and_leaves_nothing_behind(
    tmp_path: Path,
) -> None:
    (tmp_path / "shoe.key").mkdir()  # the rename onto it fails
    with pytest.raises(PairingStoreError) as caught:
        PairingStore(tmp_path).save("shoe", PairedDevice("SHO-42", SECRET_A))
    assert str(caught.value).startswith(f"{tmp_path / 'shoe.key'}: cannot write: ")
    assert "\n" not in str(caught.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shoe.key"]


def test_a_pairing_file_that_is_not_ascii_cannot_be_read(tmp_path: Path) -> None:
    (tmp_path / "shoe.key").write_text(f"SHÖ-42 {SECRET_A.hex()}\n", encoding="utf-8")
    with pytest.raises(PairingStoreError, match=r"shoe\.key: cannot read: "):
        PairingStore(tmp_path).load("shoe")


def test_a_disk_error_at_the_directory_sync_is_still_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The file is already renamed when the directory sync fails (EIO): the error names the
    # file, and the cleanup of a temporary file that is no longer there does not hide it.
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        if Path(os.readlink(f"/proc/self/fd/{fd}")).is_dir():
            raise OSError(5, "Input/output error")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(PairingStoreError) as caught:
        PairingStore(tmp_path).save("shoe", PairedDevice("SHO-42", SECRET_A))
    assert str(caught.value) == (
        f"{tmp_path / 'shoe.key'}: cannot write: [Errno 5] Input/output error"
    )


def test_a_pairing_directory_that_is_a_file_is_one_line(tmp_path: Path) -> None:
    # Nothing was created yet when the directory fails: still the one-line error.
    (tmp_path / "pairing").write_text("not a directory")
    with pytest.raises(PairingStoreError) as caught:
        PairingStore(tmp_path / "pairing").save("shoe", PairedDevice("SHO-42", SECRET_A))
    assert str(caught.value).startswith(f"{tmp_path / 'pairing' / 'shoe.key'}: cannot write: ")
