"""How a research table differs from its schema, for the tests that check every table.

Only tests ask this (the package conforms its tables and never checks them), so it sits
here rather than in ``prime_nb.analysis``.
"""

from __future__ import annotations

import pandas as pd

from prime_nb.analysis._schemas import INDEX, SCHEMAS
from prime_nb.session import frame_mismatches


def mismatches(name: str, frame: pd.DataFrame) -> list[str]:
    """How ``frame`` differs from the schema of research table ``name`` (empty: it
    conforms)."""
    return frame_mismatches(frame, SCHEMAS[name], INDEX[name])
