"""The one schema of each table: its columns and their dtypes, whatever the content.

Why: code downstream (analysis, plots, the widget, corpora, parquet files) compares and
concatenates tables of many sessions; a dtype that changes with the content (an empty
table, one missing value, a sub-millisecond timestamp) breaks that far from its cause.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

#: every time column: UTC, microseconds (±292,000 years; out-of-range values are NaT)
TIME = "datetime64[us, UTC]"

#: index name and dtype of each table (None: a plain RangeIndex); the entries index keeps
#: the object dtype it has always had
INDEX: dict[str, tuple[str, str] | None] = {
    "entries": ("id", "object"),
    "tool_calls": None,
    "compactions": ("id", "str"),
    "leaves": ("leaf_id", "str"),
    "problems": None,
}

SCHEMAS: dict[str, dict[str, str]] = {
    "entries": {
        "parent_id": "str",
        "type": "str",
        "role": "str",
        "timestamp": TIME,
        "line": "int64",
        "depth": "int64",
        "children": "int64",
        "text": "str",
        "tool_name": "str",
        "provider": "str",
        "model": "str",
        "input_tokens": "Int64",
        "output_tokens": "Int64",
        "cache_read_tokens": "Int64",
        "cache_write_tokens": "Int64",
        "total_tokens": "Int64",
        "cost": "float64",
        "stop_reason": "str",
        "is_error": "bool",
        "has_text": "bool",
        "has_thinking": "bool",
        "has_image": "bool",
        "n_tool_calls": "int64",
        "custom_type": "str",
        "label": "str",
        "is_leaf": "bool",
        "on_active_path": "bool",
        "byte_offset": "int64",
        "byte_length": "int64",
    },
    "tool_calls": {
        "call_id": "str",
        "name": "str",
        "arguments": "object",
        "assistant_id": "str",
        "result_id": "str",
        "is_error": "boolean",
        "latency": "float64",
        "timestamp": TIME,
    },
    "compactions": {
        "parent_id": "str",
        "first_kept_entry_id": "str",
        "first_kept_on_path": "bool",
        "tokens_before": "Int64",
        "tokens_after": "Int64",
        "summary": "str",
        "details": "object",
        "from_hook": "bool",
        "custom_instructions": "str",
        "line": "int64",
        "timestamp": TIME,
        "entries_summarised": "int64",
    },
    "leaves": {
        "depth": "int64",
        "path_length": "int64",
        "tokens": "int64",
        "cost": "float64",
        "last_timestamp": TIME,
        "type": "str",
        "role": "str",
        "is_active": "bool",
    },
    "problems": {
        "line": "int64",
        "kind": "str",
        "message": "str",
        "entry_id": "str",
        "severity": "str",
    },
}


def dtype_of(spec: str) -> Any:
    """The pandas dtype a schema string names (``"str"`` is pandas' string dtype)."""
    return pd.api.types.pandas_dtype(spec)
