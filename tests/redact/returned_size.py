"""What a redaction returns, in bytes: its report and its suspects.

Why: redaction's memory bound (docs/redaction.md "Bounds") is of what it holds beyond
what it returns. The report has a row per replacement and the suspects a row per
finding, over the whole file, so they grow with the file's hits, not with its longest
line: a file of many short lines dense with secrets has a report many times its longest
line (``test_memory_report.py`` pins one). The memory tests and
``benchmarks/probe_redact_memory.py`` take this figure from a step's growth.
"""

from __future__ import annotations

from pathlib import Path

from prime_nb.redact import redact


def returned_bytes(path: Path) -> int:
    """The bytes the report and suspects of redacting ``path`` hold (pandas'
    ``memory_usage(deep=True)``: a column's buffers, its categories' texts once)."""
    done = redact(path, dry_run=True, hostnames=[])
    return int(
        done.report.memory_usage(deep=True).sum() + done.suspects.memory_usage(deep=True).sum()
    )
