"""Build hook for the optional compiled rules engine (mypyc); everything else is pyproject.toml.

A plain ``pip install .`` builds nothing here: the package is pure Python and needs no
compiler. With ``DEALER_STATION_MYPYC=1`` the modules listed under
``[tool.dealer-station] mypyc`` in pyproject.toml are compiled with mypyc into C extensions
that sit beside their ``.py`` files (Python imports the extension first). The build then
needs mypy (which carries mypyc), a C compiler and the Python headers; give it mypy with
``--no-build-isolation``:

    pip install mypy setuptools
    DEALER_STATION_MYPYC=1 pip install --no-build-isolation .

``make compiled`` does this into ``build/mypyc`` (docs/performance.md, "Compiled rules engine").
"""

from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent


def compiled_modules() -> list[str]:
    """The source files mypyc compiles, from pyproject.toml."""
    with (ROOT / "pyproject.toml").open("rb") as f:
        return list(tomllib.load(f)["tool"]["dealer-station"]["mypyc"])


def extensions() -> list[object]:
    """mypyc's extension modules when ``DEALER_STATION_MYPYC=1``, else none."""
    if os.environ.get("DEALER_STATION_MYPYC", "") != "1":
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        sys.exit(
            "DEALER_STATION_MYPYC=1 needs mypy (mypyc) in the build environment: "
            "pip install mypy, then pip install --no-build-isolation ."
        )
    # mypyc writes its C under build/ (rewritten on every build).
    return list(mypycify(compiled_modules(), opt_level="3", group_name="dealer_station_rules"))


# The objects in their own folder under build/ (ignored by git): setuptools reuses what it
# finds in its build folder, so a module dropped from the list would otherwise come back
# from an old build. ``make compiled`` empties it first.
if __name__ == "__main__":  # setuptools runs this file as __main__; tests import it
    setup(
        ext_modules=extensions(),
        options={"build": {"build_base": str(Path("build") / "mypyc-objects")}},
    )
