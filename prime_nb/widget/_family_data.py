"""What the family view is sent: one record per session and where it branches off.

Plain JSON (a family has tens of sessions, not millions of entries). Text is sent as
text and the front end only ever sets it with ``textContent``: names and prompts come
from untrusted files.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from ..family import Family


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _first_new_prompt(family: Family, key: str, kind: str) -> str | None:
    """A fork's first own user message: its first prompt is its source's, by copy."""
    if kind != "fork":
        return None
    try:
        entries = family.session(key).entries
    except ValueError:
        return None
    copied = family.copied(key)
    users = entries[(entries["role"] == "user") & ~entries.index.isin(list(copied))]
    texts = users["text"].dropna()
    return str(texts.iloc[0]) if len(texts) else None


def family_payload(family: Family) -> dict[str, Any]:
    """Sessions in the family's order (parents before children) with their fork points.

    ``at`` is the row of the parent entry in the parent's file order (where the child's
    lane starts), -1 when unknown; ``new`` the entries not copied from a fork's source.
    """
    sessions = []
    for row in family.sessions.to_dict("records"):
        key, kind, parent = str(row["session"]), str(row["kind"]), _text(row["parent"])
        forked_from, entries = _text(row["forked_from"]), int(row["entries"])
        at = -1
        if parent is not None and forked_from is not None:
            try:
                found = family.session(parent).entries.index.get_loc(forked_from)
                at = found if isinstance(found, int) else -1
            except (KeyError, ValueError):
                at = -1
        label = _text(row["name"]) or _first_new_prompt(family, key, kind)
        label = label or _text(row["first_prompt"]) or Path(str(row["path"])).name
        depth = row["rlm_depth"]
        cost = float(row["own_cost"])
        sessions.append(
            {
                "key": key,
                "label": " ".join(label.split())[:200],
                "file": Path(str(row["path"])).name,
                "kind": kind,
                "parent": parent,
                "level": int(row["level"]),
                "rlmDepth": None if pd.isna(depth) else int(depth),
                "entries": entries,
                "new": entries - int(row["shared_entries"]),
                "at": at,
                "forkedFrom": forked_from,
                "ownCost": 0.0 if math.isnan(cost) else cost,
                "error": _text(row["error"]),
            }
        )
    totals = family.totals
    return {
        "sessions": sessions,
        "totals": {k: totals[k] for k in ("sessions", "unique_entries", "tokens", "cost")},
        "problems": len(family.problems),
    }
