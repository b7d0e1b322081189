"""The package's cache (vm_tests/debbuild.py), checked without building: a fresh clone of
sources built before takes the package kept under their hash; a build keeps its package;
only the last KEEP sources' packages stay; a cache that cannot be written costs nothing."""

from __future__ import annotations

import os
from pathlib import Path

import debbuild
import pytest


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """An empty build folder (a fresh clone's) and an empty cache, and a fixed hash."""
    out, cache = tmp_path / "out", tmp_path / "cache"
    monkeypatch.setattr(debbuild, "OUT", out)
    monkeypatch.setattr(debbuild, "CACHE", cache)
    monkeypatch.setattr(debbuild, "source_hash", lambda root=debbuild.ROOT: "a" * 64)
    monkeypatch.setattr(debbuild, "changelog_version", lambda root=debbuild.ROOT: "1.2.3")
    monkeypatch.setattr(debbuild, "host_arch", lambda: "amd64")
    return out, cache


def kept_package(cache: Path, digest: str, content: bytes) -> Path:
    """A package in the cache under the sources' hash ``digest``."""
    kept = cache / digest / "dealer-station_1.2.3_amd64.deb"
    kept.parent.mkdir(parents=True)
    kept.write_bytes(content)
    return kept


def test_a_package_kept_for_the_same_sources_is_taken_without_building(
    places: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    out, cache = places
    kept = kept_package(cache, "a" * 64, b"the package")

    def must_not_build(arch: str | None = None) -> Path:
        raise AssertionError("built a package the cache holds")

    monkeypatch.setattr(debbuild, "build", must_not_build)
    got = debbuild.built_deb()
    assert got == out / "dealer-station_1.2.3_amd64.deb"
    assert got.read_bytes() == b"the package"
    # The build folder's stamp says which sources it is, so the next call needs no cache.
    assert got.with_suffix(".source-hash").read_text() == "a" * 64 + "\n"
    kept.unlink()
    assert debbuild.built_deb() == got


def test_a_package_of_other_sources_is_not_taken(
    places: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    out, cache = places
    kept_package(cache, "b" * 64, b"another package")
    out.mkdir()
    (out / "dealer-station_1.2.3_amd64.deb").write_bytes(b"stale")
    (out / "dealer-station_1.2.3_amd64.source-hash").write_text("b" * 64 + "\n")
    built: list[str | None] = []

    def build(arch: str | None = None) -> Path:
        built.append(arch)
        return out / "built.deb"

    monkeypatch.setattr(debbuild, "build", build)
    assert debbuild.built_deb() == out / "built.deb"
    assert built == [None]


def test_a_built_package_is_kept_and_only_the_last_sources_packages_stay(
    places: tuple[Path, Path],
) -> None:
    out, cache = places
    for n in range(debbuild.KEEP):  # KEEP older sources' packages, oldest first
        folder = kept_package(cache, f"{n:064d}", b"old").parent
        os.utime(folder, (1_000_000 + n, 1_000_000 + n))
    out.mkdir()
    deb = out / "dealer-station_1.2.3_amd64.deb"
    deb.write_bytes(b"new package")
    debbuild.keep(deb, "a" * 64)
    assert (cache / ("a" * 64) / deb.name).read_bytes() == b"new package"
    left = sorted(f.name for f in cache.iterdir())
    assert len(left) == debbuild.KEEP
    assert f"{0:064d}" not in left  # the oldest went
    assert f"{1:064d}" in left and "a" * 64 in left
    assert not list(cache.glob("*/.*.partial"))


def test_a_cache_that_cannot_be_written_is_passed_over_in_one_line(
    places: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    out, cache = places
    cache.write_bytes(b"")  # a file where the folder should be
    out.mkdir()
    deb = out / "dealer-station_1.2.3_amd64.deb"
    deb.write_bytes(b"new package")
    debbuild.keep(deb, "a" * 64)
    err = capsys.readouterr().err
    assert err.startswith(f"debbuild: the package is not kept in {cache}: ")
    assert err.count("\n") == 1
    assert deb.read_bytes() == b"new package"
