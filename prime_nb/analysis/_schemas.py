"""The one schema of each research table: its columns and their dtypes, whatever the content.

Why: as for the Session's tables (``prime_nb.session._schema``), code that concatenates
many sessions' tables, or calls ``.str`` on a column, breaks on the one session whose
content gave another dtype (an empty table all ``object``, missing stop reasons
``float64``). Each function builds its table, then :func:`conform` gives it this schema.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pandas as pd

from ..session import TIME, dtype_of

#: index name and dtype of each table (None: a plain RangeIndex)
INDEX: dict[str, tuple[str, str] | None] = {
    "compaction_forensics": ("id", "str"),
    "branches": None,
    "fork_points": ("fork_id", "object"),
    "branch_segments": ("leaf_id", "str"),
    "context_frame": ("position", "int64"),
    "compare": ("turn", "int64"),
    "compaction_retention": None,
    "compaction_retention_detail": None,
    "compare_turns": ("turn", "int64"),
}

#: the spend of a branch or segment and how it ended (its last leaf), in both tables
OUTCOME = {
    "tokens": "int64",
    "cost": "float64",
    "last_type": "str",
    "last_role": "str",
    "stop_reason": "str",
    "is_active": "bool",
}

SCHEMAS: dict[str, dict[str, str]] = {
    "compaction_forensics": {
        "timestamp": TIME,
        "tokens_before": "Int64",
        "tokens_after": "Int64",
        "tokens_after_source": "str",
        "compression_ratio": "float64",
        "first_turn_context_tokens": "Int64",
        "first_kept_entry_id": "str",
        "summarised_ids": "object",
        "summarised_entries": "int64",
        "summarised_messages": "int64",
        "kept_messages": "int64",
        "summary_chars": "int64",
        "summary_tokens": "int64",
        "previous_compaction_id": "str",
        "since_previous": "timedelta64[us]",
        "read_files": "object",
        "modified_files": "object",
        "reread_files": "object",
        "reread_count": "int64",
        "continued_to": "str",
        "from_hook": "bool",
        "on_active_path": "bool",
    },
    "branches": {
        "fork_id": "str",
        "branch_id": "str",
        "leaf_id": "str",
        "entries": "int64",
        "leaves": "int64",
        "path_length": "int64",
        **OUTCOME,
        "started": TIME,
        "ended": TIME,
    },
    "fork_points": {
        "depth": "int64",
        "branches": "int64",
        "on_active_path": "bool",
        "active_branch_id": "str",
        "tokens": "int64",
        "cost": "float64",
        "abandoned_tokens": "int64",
        "abandoned_cost": "float64",
        "abandoned_cost_share": "float64",
    },
    "branch_segments": {
        "start_id": "str",
        "fork_id": "str",
        "entries": "int64",
        **OUTCOME,
    },
    "context_frame": {
        "entry_id": "str",
        "role": "str",
        "tools": "str",
        "chars": "int64",
        "tokens_est": "int64",
        "cumulative_tokens_est": "int64",
        "text": "str",
    },
    "compare": {
        f"{side}_{column}": dtype
        for column, dtype in (
            ("entry_id", "str"),
            ("tools", "str"),
            ("tokens", "Int64"),
            ("cost", "float64"),
            ("files", "object"),
            ("text", "str"),
        )
        for side in ("a", "b")
    },
    "compaction_retention": {
        "compaction_id": "str",
        "kind": "str",
        "in_span": "int64",
        "in_summary": "int64",
        "needed_later": "int64",
        "needed_later_tokens": "int64",
    },
    "compaction_retention_detail": {
        "compaction_id": "str",
        "kind": "str",
        "value": "str",
        "in_summary": "bool",
        "needed_later": "bool",
        "first_needed_id": "str",
    },
    "compare_turns": {
        "status": "str",
        **{
            f"{side}_{column}": dtype
            for side in ("a", "b")
            for column, dtype in (
                ("prompt_id", "str"),
                ("prompt", "str"),
                ("tools", "str"),
                ("tool_calls", "Int64"),
                ("tokens", "Int64"),
                ("errors", "Int64"),
            )
        },
    },
}


@cache
def _dtype(spec: str) -> Any:
    """The dtype of a schema string, looked up once: each table asks for a few dozen."""
    return dtype_of(spec)


def _missing(value: Any) -> bool:
    return (
        value is None
        or value is pd.NA
        or value is pd.NaT
        or (isinstance(value, float) and value != value)
    )


def _cast(items: list[Any], spec: str) -> Any:
    """Column values, ready to be a Series of the schema's dtype ``spec``."""
    if spec == "str":
        return [None if _missing(v) else v if isinstance(v, str) else str(v) for v in items]
    if spec == "Int64":
        return [None if _missing(v) else int(v) for v in items]
    if spec.startswith("datetime64"):
        return pd.to_datetime(pd.Series(items, dtype=object), utc=True).array
    if spec.startswith("timedelta64"):
        return pd.to_timedelta(pd.Series(items, dtype=object)).array
    return items  # objects as they are; numbers and flags cast by the Series


def conform(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """``frame`` with exactly the columns, dtypes and index of table ``name`` (its
    ``attrs`` kept); a column it lacks is all missing."""
    schema, spec = SCHEMAS[name], INDEX[name]
    if spec is None:
        index: pd.Index = pd.RangeIndex(len(frame))
    else:
        index = pd.Index(frame.index.tolist(), name=spec[0], dtype=spec[1])
    columns = {}
    for column, spec_of_column in schema.items():
        dtype = _dtype(spec_of_column)
        if column not in frame:
            items: list[Any] = [None] * len(frame)
        else:
            held = frame[column]
            if held.dtype == dtype:  # its values are already what the cast would give
                columns[column] = held.array.copy()
                continue
            items = held.tolist()
        columns[column] = pd.array(_cast(items, spec_of_column), dtype=dtype)
    out = pd.DataFrame(columns, index=index)  # arrays: one frame built, nothing aligned
    out.attrs.update(frame.attrs)
    return out
