"""The card reader's USB gadget double (``drivers.simulated.ffs_gadget``) started in the guest
by the installed package's own interpreter, its arguments passed on, without rich.

structlog loads rich for its console tracebacks when it is installed, and the package's venv
has it (``dealer-station simulate`` uses it): seconds of a TCG guest's CPU, once per boot
test, for a double that prints no traceback to a console. The program's own commands keep
it out the same way (``controller.cli.main.USES_RICH``).
"""

from __future__ import annotations

import runpy
import sys

if __name__ == "__main__":
    sys.modules.setdefault("rich", None)  # type: ignore[arg-type]
    runpy.run_module("drivers.simulated.ffs_gadget", run_name="__main__", alter_sys=True)
