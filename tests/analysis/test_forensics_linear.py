"""Compaction forensics walks each entry a bounded number of times (it walked the path to
each compaction's last leaf, scanned it for the previous compaction, the first turn and
the re-reads: quadratic on chained compactions). The former code is kept here as the
oracle: both must give the same table on the session matrix and on random trees full of
compactions, forks and read tool calls."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from session_matrix import LOADED_CASES, write_case

import prime_nb
from prime_nb.analysis import compaction_forensics
from prime_nb.analysis._common import (
    READ_TOOLS,
    estimate_tokens,
    relative_path,
    tool_path,
    tree_arrays,
)
from prime_nb.analysis._compaction import COLUMNS, _files
from prime_nb.analysis._schemas import conform
from prime_nb.errors import SessionFormatError
from prime_nb.session._index import CONTEXT_TYPES


def _recorded(value: Any) -> int | None:
    """A token count as the file records it: a whole number in 0..2**63-1, else None."""
    whole = value.__class__ is int or (value.__class__ is float and value.is_integer())
    return int(value) if whole and 0 <= value < 2**63 else None


def oracle(session: prime_nb.Session, ids: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per compaction (index: its id), in file order; ``ids`` picks some.

    - ``tokens_before``: as the agent recorded it; ``tokens_after``: recorded when the file
      carries it (specification dialect), else estimated (chars/4) from the context rebuilt
      at the compaction: its summary plus the kept messages (``tokens_after_source`` says
      which). ``compression_ratio`` = before / after.
    - ``first_turn_context_tokens``: input + cache tokens of the first assistant turn after
      the compaction on its continuation: what the provider actually counted.
    - ``summarised_ids``: the entries between the previous kept boundary on the path (the
      previous compaction's first kept entry, or the root) and this compaction's first kept
      entry: what this compaction folded into its summary.
    - ``read_files`` / ``modified_files``: from the compaction's details, relative to cwd.
    - ``reread_files``: those files that a ``read`` tool call opened again after the
      compaction, on the branch that continues from it (to the last leaf below it).
    """
    comps = all_comps = session.compactions
    if ids is not None:
        wanted = set(ids)
        comps = comps.loc[[i for i in comps.index if i in wanted]]
    entries = session.entries
    if comps.empty:
        return pd.DataFrame(columns=COLUMNS, index=pd.Index([], name="id", dtype=object))
    cwd = session.header.get("cwd")
    cwd = cwd if isinstance(cwd, str) else None
    arrays = tree_arrays(session)
    last_leaf = arrays.last_leaf()
    types = entries["type"].to_numpy()
    roles = entries["role"].to_numpy()
    stamps = entries["timestamp"]
    active = entries["on_active_path"].to_numpy()
    usage_in = (
        entries["input_tokens"].fillna(0).to_numpy(dtype=np.int64)
        + entries["cache_read_tokens"].fillna(0).to_numpy(dtype=np.int64)
        + entries["cache_write_tokens"].fillna(0).to_numpy(dtype=np.int64)
    )
    calls = session.tool_calls
    reads = calls[calls["name"].isin(READ_TOOLS)]
    read_paths: dict[str, list[str]] = {}
    for assistant_id, arguments in zip(reads["assistant_id"], reads["arguments"], strict=True):
        target = tool_path(arguments)
        if target is not None:
            read_paths.setdefault(assistant_id, []).append(relative_path(target, cwd))

    # a compaction's path is a prefix of the path to the last leaf below it: one path (and
    # one position map) per distinct leaf serves every compaction that continues to it
    leaf_paths: dict[int, tuple[list[str], dict[str, int]]] = {}
    rows: list[dict[str, Any]] = []
    for cid, comp in comps.iterrows():
        cid = str(cid)
        leaf_row = int(last_leaf[arrays.row_of[cid]])
        if leaf_row not in leaf_paths:
            full = session.path(arrays.ids[leaf_row])
            leaf_paths[leaf_row] = (full, {entry_id: k for k, entry_id in enumerate(full)})
        full, pos = leaf_paths[leaf_row]
        here = pos[cid]
        path = full[: here + 1]
        previous = next(
            (
                path[k]
                for k in range(here - 1, -1, -1)
                if types[arrays.row_of[path[k]]] == "compaction"
            ),
            None,
        )
        boundary = 0
        if previous is not None:
            prev_kept = str(all_comps.at[previous, "first_kept_entry_id"])
            prev_pos = pos[previous]
            boundary = pos[prev_kept] if pos.get(prev_kept, prev_pos) < prev_pos else prev_pos + 1
        kept = comp["first_kept_entry_id"]
        cut = pos[kept] if isinstance(kept, str) and pos.get(kept, here) < here else here
        summarised = path[boundary:cut]
        n_messages = sum(1 for e in summarised if types[arrays.row_of[e]] in CONTEXT_TYPES)

        context = session.context(cid)
        estimate = sum(estimate_tokens(m) for m in context)
        # the full entry, read here apart from the loader's columns
        raw = session.entry(cid)
        recorded = _recorded(raw.get("tokensAfter"))
        after = recorded if recorded is not None else estimate
        before_value = _recorded(raw.get("tokensBefore"))
        summary = comp["summary"] if isinstance(comp["summary"], str) else ""

        first_turn = next(
            (
                int(usage_in[arrays.row_of[e]])
                for e in full[here + 1 :]
                if roles[arrays.row_of[e]] == "assistant" and usage_in[arrays.row_of[e]] > 0
            ),
            None,
        )
        read_files = _files(comp["details"], "readFiles", cwd)
        modified_files = _files(comp["details"], "modifiedFiles", cwd)
        known = set(read_files) | set(modified_files)
        reread = sorted(
            {
                f
                for e, files in read_paths.items()
                if pos.get(e, -1) > here
                for f in files
                if f in known
            }
        )
        rows.append(
            {
                "id": cid,
                "timestamp": stamps.iloc[arrays.row_of[cid]],
                "tokens_before": before_value,
                "tokens_after": after,
                "tokens_after_source": "recorded" if recorded is not None else "estimated",
                "compression_ratio": before_value / after if before_value and after else np.nan,
                "first_turn_context_tokens": first_turn,
                "first_kept_entry_id": kept if isinstance(kept, str) else None,
                "summarised_ids": summarised,
                "summarised_entries": len(summarised),
                "summarised_messages": n_messages,
                "kept_messages": max(len(context) - 1, 0),
                "summary_chars": len(summary),
                "summary_tokens": estimate_tokens(
                    {"role": "compactionSummary", "summary": summary}
                ),
                "previous_compaction_id": previous,
                "since_previous": (
                    stamps.iloc[arrays.row_of[cid]] - stamps.iloc[arrays.row_of[previous]]
                )
                if previous is not None
                else None,
                "read_files": read_files,
                "modified_files": modified_files,
                "reread_files": reread,
                "reread_count": len(reread),
                "continued_to": arrays.ids[leaf_row],
                "from_hook": bool(comp["from_hook"]),
                "on_active_path": bool(active[arrays.row_of[cid]]),
            }
        )
    frame = pd.DataFrame(rows).set_index("id")
    for column in ("tokens_before", "tokens_after", "first_turn_context_tokens"):
        frame[column] = pd.array(frame[column].tolist(), dtype="Int64")
    # built from objects: a column of NaT alone (no compaction has a previous one on its
    # path: one compaction, or compactions on different branches) reads as datetime64
    frame["since_previous"] = pd.to_timedelta(frame["since_previous"].astype(object))
    return frame[COLUMNS]


def check(session: prime_nb.Session, ids: Sequence[str] | None = None) -> int:
    expected = conform(oracle(session, ids), "compaction_forensics")  # its values, our dtypes
    got = compaction_forensics(session, ids)
    pd.testing.assert_frame_equal(got, expected)
    return len(got)


#: the version 2 twins load to their version 3 twins' sessions (session_matrix.TWINS)
WITH_COMPACTIONS = [
    c for c in LOADED_CASES if c.startswith(("synthetic-", "comp-", "fixture-", "odd-first"))
]


@pytest.mark.parametrize("name", WITH_COMPACTIONS)
def test_the_matrix_agrees_with_the_former_code(name: str, tmp_path: Path) -> None:
    try:
        session = prime_nb.load(write_case(name, tmp_path))
    except SessionFormatError:
        return
    check(session)


def random_session(seed: int, folder: Path) -> Path:
    rng = random.Random(seed)
    files = ["a.py", "b.py", "c.py", "/w/d.py", "/elsewhere/e.py"]
    lines: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": "r", "cwd": "/w"}]
    ids: list[str] = []
    for i in range(rng.randint(1, 90)):
        parent = rng.choice([None, *ids[-3:], *ids[-3:], *ids]) if ids else None
        entry_id = f"e{i}"
        entry: dict[str, Any] = {"id": entry_id, "parentId": parent}
        entry["timestamp"] = f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}.000Z"
        r = rng.random()
        if r < 0.25:
            kept = rng.choice([*ids, entry_id, "missing", None]) if ids else None
            details = {
                "readFiles": rng.sample(files, rng.randint(0, 3)),
                "modifiedFiles": rng.sample(files, rng.randint(0, 2)),
            }
            entry |= {"type": "compaction", "summary": f"s{i}", "firstKeptEntryId": kept}
            entry |= {"tokensBefore": rng.choice([10, 5000, None]), "details": details}
            if rng.random() < 0.3:
                entry["tokensAfter"] = 99
        elif r < 0.6:
            calls = [
                {
                    "type": "toolCall",
                    "id": f"t{i}-{k}",
                    "name": rng.choice([*READ_TOOLS, "bash"]),
                    "arguments": {"path": "/w/" + rng.choice(files).lstrip("/w")},
                }
                for k in range(rng.randint(0, 2))
            ]
            usage = {"input": rng.choice([0, 7]), "output": 1, "cacheRead": 0, "cacheWrite": 0}
            usage["totalTokens"] = usage["input"] + 1
            message = {"role": "assistant", "content": calls, "usage": usage}
            entry |= {"type": "message", "message": message}
        elif r < 0.65:
            entry |= {"type": "branch_summary", "summary": f"b{i}", "fromId": parent}
        elif r < 0.7:
            entry |= {"type": "label", "targetId": parent, "label": "l"}
        else:
            message = {"role": "user", "content": f"u{i}"}
            entry |= {"type": "message", "message": message}
        lines.append(entry)
        ids.append(entry_id)
    path = folder / f"r{seed}.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


@pytest.mark.parametrize("seed", range(40))
def test_random_trees_agree_with_the_former_code(seed: int, tmp_path: Path) -> None:
    session = prime_nb.load(random_session(seed, tmp_path))
    check(session)
    comps = list(session.compactions.index)
    if comps:
        check(session, random.Random(seed).sample(comps, (len(comps) + 1) // 2))


def test_chained_compactions_agree(tmp_path: Path) -> None:
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "c"},
        {
            "type": "message",
            "id": "u0",
            "parentId": None,
            "message": {"role": "user", "content": "x"},
        },
    ]
    previous = "u0"
    for i in range(200):
        kept = "u0" if i % 2 else previous
        lines.append(
            {
                "type": "compaction",
                "id": f"c{i}",
                "parentId": previous,
                "summary": "s",
                "firstKeptEntryId": kept,
                "tokensBefore": 5,
            }
        )
        previous = f"c{i}"
    path = tmp_path / "chain.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert check(prime_nb.load(path)) == 200
