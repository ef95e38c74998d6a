"""The dtypes of the corpus tables: the session rows' and each research table's.

Why a module of their own: the tables (``_local``, ``_dask``) give their columns these
dtypes, and the corpus cache checks the rows it reads back against them
(``_cache_rows``) before any table is built.
"""

from __future__ import annotations

from typing import Any

from ..analysis import SCHEMAS
from ._work import BRANCHES, COMPACTIONS, RETENTION

#: the corpus table's columns and their dtypes
CORPUS_DTYPES: dict[str, Any] = {
    "id": "str",
    "path": "str",
    "cwd": "str",
    "name": "str",
    "version": "Int64",
    "dialect": "str",
    "entries": "Int64",
    "leaves": "Int64",
    "forks": "Int64",
    "compactions": "Int64",
    "tool_calls": "Int64",
    # summed over the session's turns, as the agent's footer sums them
    "input_tokens": "Int64",
    "output_tokens": "Int64",
    "cache_read_tokens": "Int64",
    "cache_write_tokens": "Int64",
    # each turn's total summed: the cached context counts again on every turn
    "tokens": "Int64",
    "cost": "float64",
    "started": "datetime64[us, UTC]",
    "ended": "datetime64[us, UTC]",
    "duration": "timedelta64[us]",
    "first_user_message": "str",
    "problems": "Int64",
    "error": "str",
    # "reset" or "deleted": an OpenClaw archive of a session file (from its name)
    "archived": "str",
}

#: dtypes of the research tables (declared, so Dask never computes a partition to infer them)
RESEARCH_DTYPES: dict[str, dict[str, Any]] = {
    COMPACTIONS: {"session": "str", "path": "str", "id": "str", **SCHEMAS["compaction_forensics"]},
    BRANCHES: {"session": "str", "path": "str", **SCHEMAS["branches"]},
    RETENTION: {"session": "str", "path": "str", **SCHEMAS["compaction_retention"]},
}
