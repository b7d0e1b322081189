"""The charting library the console serves from the package: uPlot (MIT), no CDN.

The files under ``floor/static/vendor/uplot/`` come from the npm registry's ``uplot``
package, version :data:`VERSION`, fetched with the ordinary npm client and checked against
the registry's published integrity (:data:`INTEGRITY`, sha512 of the tarball) before anything
is unpacked:

    .venv/bin/python -m floor.vendor            # check the files in the tree (tests do)
    .venv/bin/python -m floor.vendor --update   # npm pack uplot@VERSION, check, unpack

``SHA256SUMS`` beside the files names each file's sha256; :func:`check` compares them, so a
file edited by hand (or a partial update) fails the tests.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Final

PACKAGE: Final = "uplot"
VERSION: Final = "1.6.32"
INTEGRITY: Final = (
    "sha512-KIMVnG68zvu5XXUbC4LQEPnhwOxBuLyW1AHtpm6IKTXImkbLgkMy+"
    "jabjLgSLMasNuGGzQm/ep3tOkyTxpiQIw=="
)
#: tarball member -> file served under /static/vendor/uplot/
FILES: Final = {
    "package/dist/uPlot.iife.min.js": "uPlot.iife.min.js",
    "package/dist/uPlot.min.css": "uPlot.min.css",
    "package/LICENSE": "LICENSE",
}
DIRECTORY: Final = Path(__file__).resolve().parent / "static" / "vendor" / "uplot"
SUMS: Final = "SHA256SUMS"


class VendorError(RuntimeError):
    """The vendored files do not match their sums, or a fetched tarball its integrity."""


def _sums(directory: Path) -> dict[str, str]:
    sums = {}
    for line in (directory / SUMS).read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            digest, name = line.split()
            sums[name] = digest
    return sums


def check(directory: Path = DIRECTORY) -> None:
    """Raise :class:`VendorError` unless every vendored file matches ``SHA256SUMS``."""
    try:
        sums = _sums(directory)
    except (OSError, ValueError) as err:
        raise VendorError(f"{directory / SUMS}: {err}") from err
    if set(sums) != set(FILES.values()):
        raise VendorError(f"{SUMS} names {sorted(sums)}, expected {sorted(FILES.values())}")
    for name, digest in sums.items():
        try:
            actual = hashlib.sha256((directory / name).read_bytes()).hexdigest()
        except OSError as err:
            raise VendorError(f"{name}: {err.strerror}") from err
        if actual != digest:
            raise VendorError(f"{name}: sha256 {actual}, {SUMS} says {digest}")


def update(directory: Path = DIRECTORY) -> None:
    """Fetch ``uplot@VERSION`` with ``npm pack``, check its integrity, write the files.

    Raises:
        VendorError: npm failed, or the tarball is not the one the registry published.
    """
    if shutil.which("npm") is None:
        raise VendorError("npm is not installed (Debian: apt-get install npm)")
    with tempfile.TemporaryDirectory() as work:
        done = subprocess.run(
            ["npm", "pack", f"{PACKAGE}@{VERSION}", "--silent"],
            cwd=work, capture_output=True, text=True, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            raise VendorError(f"npm pack failed: {done.stderr.strip()[:300]}")
        tarball = Path(work) / f"{PACKAGE}-{VERSION}.tgz"
        data = tarball.read_bytes()
    digest = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
    if digest != INTEGRITY:
        raise VendorError(f"{tarball.name}: integrity {digest}, expected {INTEGRITY}")
    directory.mkdir(parents=True, exist_ok=True)
    lines = [f"# {PACKAGE} {VERSION} from the npm registry, {INTEGRITY}"]
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        for member, name in FILES.items():
            extracted = archive.extractfile(member)
            if extracted is None:
                raise VendorError(f"{member} is not a file in the tarball")
            content = extracted.read()
            (directory / name).write_bytes(content)
            lines.append(f"{hashlib.sha256(content).hexdigest()}  {name}")
    (directory / SUMS).write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """``python -m floor.vendor [--update]``."""
    parser = argparse.ArgumentParser(description="the console's vendored uPlot")
    parser.add_argument("--update", action="store_true", help=f"fetch {PACKAGE}@{VERSION}")
    args = parser.parse_args(argv)
    try:
        if args.update:
            update()
        check()
    except VendorError as err:
        print(f"floor.vendor: {err}", file=sys.stderr)
        return 1
    print(f"{PACKAGE} {VERSION}: files match {SUMS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
