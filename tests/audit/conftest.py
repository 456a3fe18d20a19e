"""The audit tests import the client drivers and the scripted model server of tests/harnesses,
and the session makers beside them."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path[:0] = [str(HERE), str(HERE.parent / "harnesses")]
