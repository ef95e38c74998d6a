"""Datasets: sessions as chat data, and the demo session bundled with the package.

- :func:`from_sessions` / :func:`write_dataset`: branches as datasets (one chat example
  per leaf, compaction or turn), written to Parquet or JSONL.
- :func:`demo_session_path`: the demo session (its script sits in ``sessiongen``).

The session generators write test data, so they left for the repository's
``sessiongen`` folder; asking for one here (``MOVED``) says where it went.
"""

from __future__ import annotations

from pathlib import Path

from ._from_sessions import from_sessions
from ._writing import write_dataset

__all__ = ["demo_session_path", "from_sessions", "write_dataset"]

#: the names that moved to the repository's ``sessiongen`` folder, for the message below
MOVED = frozenset(
    {
        "SHAPES",
        "large_session_entries",
        "main",
        "shape_entries",
        "synthetic_entries",
        "synthetic_family",
        "synthetic_session",
        "write_jsonl",
        "write_large_session",
        "write_shape",
    }
)


def demo_session_path() -> Path:
    """Path of the bundled demo session (v3, prime dialect, ~200 entries)."""
    return Path(__file__).parent / "data" / "demo-session.jsonl"


def __getattr__(name: str) -> object:
    """Say where a session generator went, rather than only that it is missing.

    An ImportError, not an AttributeError: ``from ... import`` replaces an AttributeError
    by its own "cannot import name", which would drop the new address.
    """
    if name in MOVED:
        raise ImportError(
            f"prime_nb.datasets.{name} was removed: the session generators write test data, "
            f"so they left the package for the repository's sessiongen folder. In a checkout "
            f"of prime_nb, use `from sessiongen import {name}`"
            + (" (`python -m sessiongen` regenerates the demo)" if name == "main" else ""),
            name=name,
            path=__file__,
        )
    raise AttributeError(f"module 'prime_nb.datasets' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public names alone: what a notebook lists after ``datasets.`` (its helpers
    and the modules it imports stay out of the list, though still importable)."""
    return sorted(__all__)
