"""What a family needs to know about one session file, small enough to send between processes.

Why: stitching sessions into families is a global step (a fork's source may be any other
file), but reading each file is not. So each file is read once, on its own (here, in a
worker process or on Dask), into :class:`SessionFacts`: plain values that pickle cheaply,
from which the stitching (``_stitch``) works without opening a file.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..errors import SessionFormatError
from ..format import header_object, header_to_canonical, header_version, rlm_depth_of
from ..session import table_time_ms, usage_tuple

if TYPE_CHECKING:
    from ..session import Session

#: input, output, cache read, cache write, total tokens, cost (USD)
Usage = tuple[int, int, int, int, int, float]
ZERO: Usage = (0, 0, 0, 0, 0, 0.0)


def add(a: Usage, b: Usage) -> Usage:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4], a[5] + b[5])


def own_usage(effective: Usage, child: Usage) -> Usage:
    """An assistant message's own usage: what the file says minus what children added.

    The agent adds each sub-agent reply's usage to the assistant message that started
    it (``child_usage_attributed``; the message's usage becomes ``aggregateUsage``), so
    the parent's own share is the difference, clamped at zero as the agent's own
    ``computeOwnAndTotalUsage`` does. ``totalTokens`` is special: the agent keeps it at
    the parent's context size, while other writers add the child's total; the smaller of
    the file's total and the sum of the own token fields is right in both cases.
    """
    if child == ZERO:
        return effective
    parts = [int(max(0, effective[k] - child[k])) for k in range(4)]
    total = min(int(effective[4]), sum(parts)) if effective[4] else 0
    return (parts[0], parts[1], parts[2], parts[3], total, max(0.0, effective[5] - child[5]))


@dataclass
class SessionFacts:
    """One file's header links, entries (ids, types, times) and usage; no Session needed."""

    path: str
    id: str | None = None
    version: int | None = None
    cwd: str | None = None
    name: str | None = None
    created_ms: float = math.nan
    parent_session: str | None = None
    rlm_depth: int | None = None
    entry_ids: list[str] = field(default_factory=list)
    entry_types: list[str] = field(default_factory=list)
    entry_roles: list[str | None] = field(default_factory=list)
    entry_time_ms: list[float] = field(default_factory=list)
    #: entry id -> usage as the file reads it (aggregate after child attribution)
    usage: dict[str, Usage] = field(default_factory=dict)
    #: (attribution entry id, target entry id, childUsage)
    attributions: list[tuple[str, str, Usage]] = field(default_factory=list)
    roots: list[str] = field(default_factory=list)
    first_prompt: str | None = None
    problems: int = 0
    error: str | None = None

    @property
    def tokens(self) -> int:
        return sum(u[4] for u in self.usage.values())

    @property
    def cost(self) -> float:
        return float(sum(u[5] for u in self.usage.values() if not math.isnan(u[5])))


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def header_facts(path: str | Path) -> SessionFacts:
    """Facts from the header line only (cheap: used to find a family before loading it)."""
    facts = SessionFacts(str(path))
    try:
        header = header_object(path)
    except (OSError, SessionFormatError) as exc:
        facts.error = f"{type(exc).__name__}: {exc}"
        return facts
    if header is None:
        facts.error = "SessionFormatError: no session header"
        return facts
    _fill_header(facts, header_to_canonical(header))
    return facts


def _fill_header(facts: SessionFacts, header: dict[str, Any]) -> None:
    facts.id = _str(str(header["id"]) if header.get("id") is not None else None)
    facts.version = header_version(header)[0]  # as the loader reads it ("3" is 3)
    facts.cwd = _str(header.get("cwd"))
    facts.created_ms = table_time_ms(header.get("timestamp"))
    facts.parent_session = _str(header.get("parentSession"))
    facts.rlm_depth = rlm_depth_of(header.get("rlmDepth"))


def session_facts(session: Session) -> SessionFacts:
    """Facts of a loaded session (its entries table, and its attribution entries re-read)."""
    facts = SessionFacts(str(session.file))
    _fill_header(facts, session._header_canonical)
    facts.version = session.version
    facts.name = session.name
    entries = session.entries
    ids = [str(i) for i in entries.index.tolist()]
    types = entries["type"].tolist()
    roles = entries["role"].tolist()
    facts.entry_ids, facts.entry_types = ids, types
    facts.entry_roles = [r if isinstance(r, str) else None for r in roles]
    since_epoch = entries["timestamp"] - pd.Timestamp(0, tz="UTC")
    facts.entry_time_ms = (since_epoch / pd.Timedelta(milliseconds=1)).astype("float64").tolist()
    # a row with any usage field counts, a total without the others included: a total
    # out of 0..2**63-1 in the file is kept as missing (counted as 0, as in the corpus)
    fields = ["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"]
    used = entries[[*fields, "total_tokens", "cost"]]
    used = used[used.notna().any(axis=1)]
    counts = used[[*fields, "total_tokens"]].fillna(0).astype("int64").to_numpy().tolist()
    costs = used["cost"].fillna(0.0).tolist()
    for eid, (inp, out, read, write, total), cost in zip(used.index, counts, costs, strict=True):
        facts.usage[str(eid)] = (inp, out, read, write, total, cost)
    attribution_ids = [i for i, t in zip(ids, types, strict=True) if t == "child_usage_attributed"]
    for entry in session.read_entries(attribution_ids) if attribution_ids else []:
        target, child = entry.get("targetId"), entry.get("childUsage")
        if isinstance(target, str) and isinstance(child, dict):
            # a field out of 0..2**63-1 is None, counted as 0
            inp, out, read, write, total, spent = usage_tuple(child)
            own: Usage = (
                inp or 0,
                out or 0,
                read or 0,
                write or 0,
                total or 0,
                spent if spent == spent else 0.0,
            )
            facts.attributions.append((entry["id"], target, own))
    parents = entries["parent_id"].tolist()
    facts.roots = [i for i, p in zip(ids, parents, strict=True) if not isinstance(p, str)]
    texts = entries["text"].tolist()
    facts.first_prompt = next(
        (str(t) for r, t in zip(roles, texts, strict=True) if r == "user" and isinstance(t, str)),
        None,
    )
    facts.problems = len(session.problems)
    return facts


def loaded_facts(path: str | Path) -> tuple[Session | None, SessionFacts]:
    """The session at ``path`` and its facts; a file that fails to load gives None and
    its header's facts with ``error``."""
    from ..session import load

    try:
        session = load(path)
        return session, session_facts(session)
    except Exception as exc:  # one bad file must not stop the family
        facts = header_facts(path)
        facts.error = f"{type(exc).__name__}: {exc}"
        return None, facts


def facts_of(path: str | Path) -> SessionFacts:
    """Facts of the file at ``path``; a file that fails to load gives facts with ``error``."""
    return loaded_facts(path)[1]
