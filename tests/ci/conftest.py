"""The ci tests import their kit (cikit: reports shaped as `handrail ci` prints them)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
