"""The console's vendored chart library (``floor.vendor``): the files in the tree match their
``SHA256SUMS``, anything else is refused in one line, and an update takes the tarball ``npm
pack`` gives only when it is the one the registry published (its integrity), then writes the
files and their sums. No registry is asked: a stand-in ``npm`` on ``PATH`` packs a tarball
made here (``tests/test_floor_figures.py`` checks the tree's files too, beside PostgreSQL).
"""

from __future__ import annotations

import base64
import hashlib
import io
import shutil
import tarfile
from pathlib import Path

import pytest

from floor import vendor
from floor.vendor import FILES, PACKAGE, SUMS, VERSION, VendorError, check, main, update


def _copy(tmp_path: Path) -> Path:
    copy = tmp_path / "uplot"
    shutil.copytree(vendor.DIRECTORY, copy)
    return copy


def test_the_files_in_the_tree_match_their_sums() -> None:
    check()
    sums = (vendor.DIRECTORY / SUMS).read_text(encoding="utf-8")
    assert sums.startswith(f"# uplot 1.6.32 from the npm registry, {vendor.INTEGRITY}\n")
    assert set(FILES.values()) == {"uPlot.iife.min.js", "uPlot.min.css", "LICENSE"}


def test_an_edited_file_is_refused_with_both_sums(tmp_path: Path) -> None:
    copy = _copy(tmp_path)
    css = copy / "uPlot.min.css"
    listed = next(
        line.split()[0] for line in (copy / SUMS).read_text().splitlines() if "min.css" in line
    )
    css.write_bytes(css.read_bytes() + b"\n")
    actual = hashlib.sha256(css.read_bytes()).hexdigest()
    with pytest.raises(VendorError) as raised:
        check(copy)
    assert str(raised.value) == f"uPlot.min.css: sha256 {actual}, SHA256SUMS says {listed}"


def test_a_missing_file_is_refused_in_one_line(tmp_path: Path) -> None:
    copy = _copy(tmp_path)
    (copy / "LICENSE").unlink()
    with pytest.raises(VendorError) as raised:
        check(copy)
    assert str(raised.value) == "LICENSE: No such file or directory"


def test_blank_lines_and_comments_in_the_sums_are_skipped(tmp_path: Path) -> None:
    copy = _copy(tmp_path)
    text = (copy / SUMS).read_text()
    (copy / SUMS).write_text("\n# a comment\n   \n" + text + "\n\n# the end\n")
    check(copy)


@pytest.mark.parametrize(
    ("change", "names"),
    [
        (lambda lines: lines[:-1], "['LICENSE', 'uPlot.iife.min.js']"),
        (
            lambda lines: [*lines, f"{'0' * 64}  extra.js"],
            "['LICENSE', 'extra.js', 'uPlot.iife.min.js', 'uPlot.min.css']",
        ),
    ],
)
def test_sums_naming_other_files_are_refused(tmp_path: Path, change: object, names: str) -> None:
    copy = _copy(tmp_path)
    lines = [x for x in (copy / SUMS).read_text().splitlines() if not x.startswith("#")]
    lines.sort(key=lambda x: x.split()[1] == "uPlot.min.css")  # the css last: the one dropped
    (copy / SUMS).write_text("\n".join(change(lines)) + "\n")  # type: ignore[operator]
    with pytest.raises(VendorError) as raised:
        check(copy)
    expected = "['LICENSE', 'uPlot.iife.min.js', 'uPlot.min.css']"
    assert str(raised.value) == f"SHA256SUMS names {names}, expected {expected}"


@pytest.mark.parametrize("text", ["abc def ghi\n", "justone\n"])
def test_a_sums_line_that_is_not_a_digest_and_a_name_is_refused(tmp_path: Path, text: str) -> None:
    copy = _copy(tmp_path)
    (copy / SUMS).write_text(text)
    with pytest.raises(VendorError, match=rf"^{copy / SUMS}: "):
        check(copy)


def test_a_directory_without_sums_is_refused(tmp_path: Path) -> None:
    with pytest.raises(VendorError, match=rf"^{tmp_path / SUMS}: .*No such file"):
        check(tmp_path)


# --- update ------------------------------------------------------------------------------------


def _tarball(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, content in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
        directory = tarfile.TarInfo("package/dir")
        directory.type = tarfile.DIRTYPE
        archive.addfile(directory)
    return buffer.getvalue()


CONTENT = {
    "package/dist/uPlot.iife.min.js": b"var uPlot=1;",
    "package/dist/uPlot.min.css": b".u{}",
    "package/LICENSE": b"MIT",
    "package/README.md": b"not vendored",
}


def _npm(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    tarball: bytes,
    status: int = 0,
    error: str = "npm ERR! 404 Not Found",
) -> Path:
    """A stand-in ``npm`` first on PATH: records its arguments and working directory, and
    packs ``tarball`` (or fails with ``status``)."""
    tools = tmp_path / "tools"
    tools.mkdir()
    (tmp_path / "made.tgz").write_bytes(tarball)
    script = tools / "npm"
    script.write_text(
        "#!/bin/sh\n"
        f'echo "$@" > {tmp_path}/npm-args\n'
        f"pwd > {tmp_path}/npm-cwd\n"
        f"[ {status} = 0 ] || {{ echo '  {error}  ' >&2; exit {status}; }}\n"
        f"cp {tmp_path}/made.tgz ./{PACKAGE}-{VERSION}.tgz\n"
    )
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}:/usr/bin:/bin")
    return tmp_path


def _integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def test_an_update_writes_the_files_and_their_sums_from_the_published_tarball(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _tarball(CONTENT)
    _npm(tmp_path, monkeypatch, data)
    monkeypatch.setattr(vendor, "INTEGRITY", _integrity(data))
    target = tmp_path / "out" / "uplot"
    update(target)
    assert (tmp_path / "npm-args").read_text() == "pack uplot@1.6.32 --silent\n"
    assert (tmp_path / "npm-cwd").read_text().strip() != str(Path.cwd())  # a work folder
    assert sorted(p.name for p in target.iterdir()) == sorted([*FILES.values(), SUMS])
    for member, name in FILES.items():
        assert (target / name).read_bytes() == CONTENT[member]
    digest = {m: hashlib.sha256(c).hexdigest() for m, c in CONTENT.items()}
    assert (target / SUMS).read_text(encoding="utf-8") == (
        f"# uplot 1.6.32 from the npm registry, {_integrity(data)}\n"
        f"{digest['package/dist/uPlot.iife.min.js']}  uPlot.iife.min.js\n"
        f"{digest['package/dist/uPlot.min.css']}  uPlot.min.css\n"
        f"{digest['package/LICENSE']}  LICENSE\n"
    )
    check(target)
    update(target)  # again, over the files it wrote
    check(target)


def test_a_tarball_that_is_not_the_published_one_is_refused_before_anything_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _tarball(CONTENT)
    _npm(tmp_path, monkeypatch, data)
    target = tmp_path / "out"
    with pytest.raises(VendorError) as raised:
        update(target)
    assert str(raised.value) == (
        f"uplot-1.6.32.tgz: integrity {_integrity(data)}, expected {vendor.INTEGRITY}"
    )
    assert not target.exists()


def test_npm_failing_is_refused_with_its_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _npm(tmp_path, monkeypatch, b"", status=3)
    with pytest.raises(VendorError) as raised:
        update(tmp_path / "out")
    assert str(raised.value) == "npm pack failed: npm ERR! 404 Not Found"


def test_npms_message_is_cut_to_300_characters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    error = "npm ERR! " + "x" * 291 + "CUT HERE"
    _npm(tmp_path, monkeypatch, b"", status=1, error=error)
    with pytest.raises(VendorError) as raised:
        update(tmp_path / "out")
    assert str(raised.value) == "npm pack failed: " + error[:300]


def test_a_tarball_whose_file_is_a_directory_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _tarball(CONTENT)
    _npm(tmp_path, monkeypatch, data)
    monkeypatch.setattr(vendor, "INTEGRITY", _integrity(data))
    monkeypatch.setattr(vendor, "FILES", {**FILES, "package/dir": "dir"})
    with pytest.raises(VendorError, match=r"^package/dir is not a file in the tarball$"):
        update(tmp_path / "out")


def test_without_npm_an_update_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(
        VendorError, match=r"^npm is not installed \(Debian: apt-get install npm\)$"
    ):
        update(tmp_path / "out")
    assert main(["--update"]) == 1
    assert capsys.readouterr().err == (
        "floor.vendor: npm is not installed (Debian: apt-get install npm)\n"
    )


def test_the_command_checks_the_tree(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([]) == 0
    assert capsys.readouterr().out == "uplot 1.6.32: files match SHA256SUMS\n"
    monkeypatch.setattr(vendor, "FILES", {"other.js": "other.js"})
    assert main([]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("floor.vendor: SHA256SUMS names [")


def test_the_commands_help_says_what_it_checks_and_what_update_fetches(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as raised:
        main(["--help"])
    assert raised.value.code == 0
    out = capsys.readouterr().out
    assert "the console's vendored uPlot" in out.splitlines()  # the description's own line
    assert "--update    fetch uplot@1.6.32" in out
