"""An IPython directory whose kernels see the wall clock moved ahead (``shift_clock.py`` as a
startup file; the shift is read from ``CTX_LAB_CLOCK_SHIFT_DAYS``).

``python tests/clock/ipython_dir.py`` makes one in a new temporary folder and prints its path
(scripts/test.sh sets ``IPYTHONDIR`` to it for the notebooks' second run).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

STARTUP = Path(__file__).resolve().parent / "shift_clock.py"


def make_ipython_dir(parent: str | None = None) -> Path:
    """A new IPython directory with the clock-shifting startup file."""
    where = Path(tempfile.mkdtemp(prefix="ctx-lab-shifted-clock-", dir=parent))
    startup = where / "profile_default" / "startup"
    startup.mkdir(parents=True)
    shutil.copy(STARTUP, startup / "00-shift-clock.py")
    return where


if __name__ == "__main__":
    print(make_ipython_dir())
