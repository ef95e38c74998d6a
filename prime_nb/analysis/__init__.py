"""Research helpers: compaction forensics, branching, branch comparison, context tables.

Each function takes a loaded :class:`prime_nb.Session` and returns a DataFrame (or a small
result object), so the answers can be filtered, plotted and saved like any other table.
``corpus_branch_rows`` and ``corpus_compaction_rows`` give the same answers as rows for
the corpus tables, from the corpus's summary read (``read_columns(columns="summary")``).
"""

from ._branching import (
    abandoned_share,
    branch_segments,
    branches,
    corpus_branch_rows,
    fork_points,
)
from ._common import READ_TOOLS, estimate_tokens
from ._compaction import compaction_forensics, corpus_compaction_rows
from ._compare import Comparison, common_ancestor, compare
from ._context_frame import context_frame
from ._retention import compaction_retention, corpus_retention_rows
from ._schemas import SCHEMAS

__all__ = [
    "READ_TOOLS",
    "SCHEMAS",
    "Comparison",
    "abandoned_share",
    "branch_segments",
    "branches",
    "common_ancestor",
    "compaction_forensics",
    "compaction_retention",
    "compare",
    "context_frame",
    "corpus_branch_rows",
    "corpus_compaction_rows",
    "corpus_retention_rows",
    "estimate_tokens",
    "fork_points",
]
