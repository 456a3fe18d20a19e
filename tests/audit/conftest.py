"""The audit tests drive the real clients as the harness tests do, with their helpers."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
for folder in (HERE, HERE.parent / "harnesses"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
