"""One row per family: the table ``prime_nb.corpus.families`` returns, from facts alone."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ._facts import SessionFacts
from ._stitch import stitch, typed

FAMILY_COLUMNS: dict[str, str] = {
    "family": "str",
    "root_path": "str",
    "sessions": "int64",
    "forks": "int64",
    "subagents": "int64",
    "levels": "int64",
    "max_rlm_depth": "Int64",
    "entries": "int64",
    "unique_entries": "int64",
    "tokens": "int64",
    "cost": "float64",
    "naive_tokens": "int64",
    "naive_cost": "float64",
    "first_prompt": "str",
    "created": "datetime64[us, UTC]",
    "problems": "int64",
    "errors": "int64",
}


def families_frame(facts: list[SessionFacts]) -> pd.DataFrame:
    """Families of these sessions, one row each (root first by creation time)."""
    st = stitch(facts)
    sessions = st.sessions_frame()
    problems = st.problems_frame()
    rows: list[dict[str, Any]] = []
    for family, group in sessions.groupby("family", sort=False):
        keys = group["session"].tolist()
        totals = st.totals(keys)
        root = group.iloc[0]
        depths = group["rlm_depth"].dropna()
        rows.append(
            {
                "family": family,
                "root_path": root["path"],
                "sessions": len(group),
                "forks": int((group["kind"] == "fork").sum()),
                "subagents": int((group["kind"] == "subagent").sum()),
                "levels": int(group["level"].max()) + 1,
                "max_rlm_depth": int(depths.max()) if len(depths) else None,
                "entries": totals["entries"],
                "unique_entries": totals["unique_entries"],
                "tokens": totals["tokens"],
                "cost": totals["cost"],
                "naive_tokens": totals["naive_tokens"],
                "naive_cost": totals["naive_cost"],
                "first_prompt": root["first_prompt"],
                "created": group["created"].min(),
                "problems": int(problems["session"].isin(keys).sum()),
                "errors": int(group["error"].notna().sum()),
            }
        )
    return typed(rows, FAMILY_COLUMNS)
