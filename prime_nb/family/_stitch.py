"""Stitch sessions into families: resolve ``parentSession``, tell forks from sub-agents,
break cycles, find copied prefixes and roll up spend once. Works on facts, opens no file.

The rules (a link tried as a path, a file name, then a session id; depth from
``rlmDepth`` or ``sub-xxxxxxxx`` folders; shared entries and attributed usage counted
once) are the ones docs/families.md gives; :func:`~prime_nb.family._facts.own_usage`
says how an assistant message's own share is found.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

import pandas as pd

from .._names import shown_name
from ._facts import ZERO, SessionFacts, Usage, add, own_usage

UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
SUB_FOLDER = re.compile(r"^sub-[0-9a-f]{8}$")

SESSION_COLUMNS: dict[str, str] = {
    "session": "str",
    "path": "str",
    "id": "str",
    "name": "str",
    "kind": "str",
    "parent": "str",
    "parent_session": "str",
    "resolved_by": "str",
    "rlm_depth": "Int64",
    "level": "int64",
    "family": "str",
    "forked_from": "str",
    "entries": "int64",
    "shared_entries": "int64",
    "tokens": "int64",
    "cost": "float64",
    "own_tokens": "int64",
    "own_cost": "float64",
    "child_tokens": "int64",
    "child_cost": "float64",
    "first_prompt": "str",
    "created": "datetime64[us, UTC]",
    "problems": "int64",
    "error": "str",
}
LINK_COLUMNS = ["parent", "parent_entry", "child", "child_root", "kind"]
PROBLEM_COLUMNS = ["session", "path", "kind", "message"]


def file_name(path: str) -> str:
    """The last part of a path written on any system (``/`` or ``\\``)."""
    return PureWindowsPath(path).name if "\\" in path else PurePosixPath(path).name


def path_depth(path: str) -> int:
    """The agent's legacy depth: how many ``sub-xxxxxxxx`` folders hold the file."""
    depth = 0
    for part in reversed(Path(path).parent.parts):
        if not SUB_FOLDER.match(part):
            break
        depth += 1
    return depth


def session_keys(facts: list[SessionFacts]) -> list[str]:
    """A unique name per file: its session id; later copies of an id get ``@<file name>``.

    The copy with the highest version (then the first path) keeps the bare id.
    """
    order = sorted(range(len(facts)), key=lambda k: (-(facts[k].version or 0), facts[k].path))
    keys: list[str] = [""] * len(facts)
    used: set[str] = set()
    for k in order:
        name = shown_name(Path(facts[k].path).name)
        base = facts[k].id or shown_name(Path(facts[k].path).stem)
        key = base
        if key in used:
            key = f"{base}@{name}"
        n = 2
        while key in used:
            key, n = f"{base}@{name}#{n}", n + 1
        used.add(key)
        keys[k] = key
    return keys


@dataclass
class Stitched:
    """The family structure of a set of sessions (one or many families)."""

    facts: dict[str, SessionFacts]
    parent: dict[str, str | None] = field(default_factory=dict)
    resolved_by: dict[str, str | None] = field(default_factory=dict)
    kind: dict[str, str] = field(default_factory=dict)
    depth: dict[str, int | None] = field(default_factory=dict)
    level: dict[str, int] = field(default_factory=dict)
    family: dict[str, str] = field(default_factory=dict)
    shared: dict[str, set[str]] = field(default_factory=dict)
    forked_from: dict[str, str | None] = field(default_factory=dict)
    own: dict[str, Usage] = field(default_factory=dict)
    child: dict[str, Usage] = field(default_factory=dict)
    unmatched: dict[str, Usage] = field(default_factory=dict)
    problems: list[dict[str, Any]] = field(default_factory=list)
    order: list[str] = field(default_factory=list)  # parents before children
    kids: dict[str | None, list[str]] = field(default_factory=dict)

    def children(self, key: str) -> list[str]:
        return self.kids.get(key, [])

    # -- tables -------------------------------------------------------------------------
    def sessions_frame(self) -> pd.DataFrame:
        rows = []
        for key in self.order:
            f = self.facts[key]
            own, child = self.own[key], self.child[key]
            rows.append(
                {
                    "session": key,
                    "path": shown_name(f.path),
                    "id": f.id,
                    "name": f.name,
                    "kind": self.kind[key],
                    "parent": self.parent[key],
                    "parent_session": f.parent_session,
                    "resolved_by": self.resolved_by[key],
                    "rlm_depth": self.depth[key],
                    "level": self.level[key],
                    "family": self.family[key],
                    "forked_from": self.forked_from[key],
                    "entries": len(f.entry_ids),
                    "shared_entries": len(self.shared[key]),
                    "tokens": f.tokens,
                    "cost": f.cost,
                    "own_tokens": own[4],
                    "own_cost": own[5],
                    "child_tokens": child[4],
                    "child_cost": child[5],
                    "first_prompt": f.first_prompt,
                    "created": pd.Timestamp(f.created_ms, unit="ms", tz="UTC")
                    if not math.isnan(f.created_ms)
                    else pd.NaT,
                    "problems": f.problems,
                    "error": shown_name(f.error) if f.error is not None else None,
                }
            )
        return typed(rows, SESSION_COLUMNS)

    def links_frame(self) -> pd.DataFrame:
        rows = []
        for key in self.order:
            parent = self.parent[key]
            if parent is None:
                continue
            roots = self.facts[key].roots
            rows.append(
                {
                    "parent": parent,
                    "parent_entry": self.forked_from[key],
                    "child": key,
                    "child_root": roots[0] if roots else None,
                    "kind": self.kind[key],
                }
            )
        return pd.DataFrame(rows, columns=LINK_COLUMNS).astype("str")

    def problems_frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.problems, columns=PROBLEM_COLUMNS).astype("str")

    def totals(self, keys: list[str] | None = None) -> dict[str, Any]:
        """Spend of ``keys`` (default: every session), each entry and child counted once."""
        keys = self.order if keys is None else keys
        total, naive = ZERO, ZERO
        unmatched = ZERO
        for key in keys:
            f = self.facts[key]
            total = add(total, self.own[key])
            unmatched = add(unmatched, self.unmatched[key])
            naive = add(naive, (0, 0, 0, 0, f.tokens, f.cost))
        total = add(total, unmatched)
        entries = sum(len(self.facts[k].entry_ids) for k in keys)
        return {
            "sessions": len(keys),
            "entries": entries,
            "unique_entries": entries - sum(len(self.shared[k]) for k in keys),
            "input_tokens": total[0],
            "output_tokens": total[1],
            "cache_read_tokens": total[2],
            "cache_write_tokens": total[3],
            "tokens": total[4],
            "cost": total[5],
            "unmatched_child_tokens": unmatched[4],
            "unmatched_child_cost": unmatched[5],
            "naive_tokens": naive[4],
            "naive_cost": naive[5],
        }


def typed(rows: list[dict[str, Any]], dtypes: dict[str, str]) -> pd.DataFrame:
    """Rows as a frame with exactly these columns and dtypes (however few rows); object
    first, so that no integer passes through a float on its way to ``Int64``."""
    return pd.DataFrame(rows, columns=list(dtypes), dtype=object).astype(dtypes)


class _Index:
    """The sessions by resolved path, by file name and by header id."""

    def __init__(self, facts: dict[str, SessionFacts]) -> None:
        self.by_path: dict[str, str] = {}
        self.by_name: dict[str, list[str]] = defaultdict(list)
        self.by_id: dict[str, list[str]] = defaultdict(list)
        for key, f in facts.items():
            self.by_path[str(Path(f.path).resolve())] = key
            self.by_name[Path(f.path).name].append(key)
            if f.id:
                self.by_id[f.id].append(key)

    def candidates(self, child: SessionFacts) -> tuple[list[str], str | None]:
        """Sessions ``child.parent_session`` may name, and how they were matched.

        The child itself counts only when the path names it exactly (a real self-link,
        reported as a cycle); a file of the same name elsewhere is not the child's parent.
        """
        value = child.parent_session
        assert value is not None
        try:
            written = Path(value)
            target = written if written.is_absolute() else Path(child.path).parent / written
            key = self.by_path.get(str(target.resolve()))
        except (OSError, RuntimeError, ValueError):  # RuntimeError: a symlink loop
            key = None
        if key is not None:
            return [key], "path"
        me = self.by_path.get(str(Path(child.path).resolve()))
        name = file_name(value)
        found = [k for k in self.by_name.get(name, []) if k != me]
        if found:
            return found, "name"
        ids = UUID.findall(name)
        found = [k for k in self.by_id.get(ids[-1], []) if k != me] if ids else []
        if found:
            return found, "id"
        return [], None


def _problem(st: Stitched, key: str, kind: str, message: str) -> None:
    row = (key, shown_name(st.facts[key].path), kind, shown_name(message))
    st.problems.append(dict(zip(PROBLEM_COLUMNS, row, strict=True)))


def stitch(facts_list: list[SessionFacts]) -> Stitched:
    """Link the sessions, then roll up: the whole family computation on facts."""
    keys = session_keys(facts_list)
    facts = dict(zip(keys, facts_list, strict=True))
    st = Stitched(facts)
    for key in keys:
        f = facts[key]
        if f.error:
            _problem(st, key, "load_error", f"{f.path}: could not be read ({f.error})")
        if f.id and key != f.id:
            _problem(
                st,
                key,
                "duplicate_session",
                f"{f.path}: session id {f.id!r} is also in another file; this one is named {key!r}",
            )
    _link(st, keys)
    _break_cycles(st, keys)
    _order(st, keys)
    _kinds(st)
    _shares(st)
    _spend(st)
    return st


def _link(st: Stitched, keys: list[str]) -> None:
    index = _Index(st.facts)
    for key in keys:
        child = st.facts[key]
        st.parent[key], st.resolved_by[key] = None, None
        if child.parent_session is None:
            continue
        found, how = index.candidates(child)
        if not found:
            _problem(
                st,
                key,
                "missing_parent",
                f"{child.path}: parentSession {child.parent_session!r} is not among the "
                "sessions given; pass the folder that holds it (search=...)",
            )
            continue
        mine = set(child.entry_ids)
        found.sort(
            key=lambda k, mine=mine: (  # type: ignore[misc]
                -len(mine.intersection(st.facts[k].entry_ids)),
                -(st.facts[k].version or 0),
                st.facts[k].path,
            )
        )
        st.parent[key], st.resolved_by[key] = found[0], how
        if len(found) > 1:
            _problem(
                st,
                key,
                "ambiguous_parent",
                f"{child.path}: parentSession {child.parent_session!r} matches "
                f"{len(found)} sessions by {how}; chose {st.facts[found[0]].path}",
            )


def _break_cycles(st: Stitched, keys: list[str]) -> None:
    """Each session has at most one parent, so each cycle is found by walking up once."""
    state: dict[str, int] = {}  # 1: on the current walk, 2: done
    for start in keys:
        walk: list[str] = []
        key: str | None = start
        while key is not None and key not in state:
            state[key] = 1
            walk.append(key)
            key = st.parent[key]
        if key is not None and state[key] == 1:
            cycle = walk[walk.index(key) :]
            head = min(cycle, key=lambda k: (_created(st.facts[k]), k))
            names = " -> ".join(st.facts[k].path for k in [*cycle, cycle[0]])
            _problem(
                st,
                head,
                "cycle",
                f"{st.facts[head].path}: parentSession links form a cycle ({names}); "
                "this session is taken as the root",
            )
            st.parent[head], st.resolved_by[head] = None, None
        for k in walk:
            state[k] = 2


def _created(f: SessionFacts) -> float:
    return f.created_ms if not math.isnan(f.created_ms) else math.inf


def _order(st: Stitched, keys: list[str]) -> None:
    """Parents before children; family = the root's key, level = generations below it."""
    kids: dict[str | None, list[str]] = defaultdict(list)
    for key in keys:
        kids[st.parent[key]].append(key)
    st.kids = dict(kids)
    roots = sorted(kids[None], key=lambda k: (_created(st.facts[k]), k))
    for root in roots:
        stack = [(root, 0)]
        while stack:
            key, level = stack.pop()
            st.order.append(key)
            st.level[key], st.family[key] = level, root
            for kid in sorted(kids[key], key=lambda k: (_created(st.facts[k]), k), reverse=True):
                stack.append((kid, level + 1))


def _kinds(st: Stitched) -> None:
    for key in st.order:
        f, parent = st.facts[key], st.parent[key]
        depth = f.rlm_depth
        if depth is None:
            here = path_depth(f.path)
            if parent is not None and st.depth[parent] is not None:
                above = st.depth[parent]
                assert above is not None
                depth = above + (1 if here > 0 else 0)
            else:
                depth = here
        st.depth[key] = depth
        if f.parent_session is None:
            st.kind[key] = "root"
        elif parent is None:
            st.kind[key] = "subagent" if depth > 0 else "fork"
        else:
            above = st.depth[parent] or 0
            st.kind[key] = "subagent" if depth > above else "fork"


def _shares(st: Stitched) -> None:
    for key in st.order:
        f, parent = st.facts[key], st.parent[key]
        st.shared[key], st.forked_from[key] = set(), None
        if parent is None:
            continue
        source = st.facts[parent]
        if st.kind[key] == "fork":
            types = dict(zip(source.entry_ids, source.entry_types, strict=True))
            shared = [
                eid
                for eid, kind in zip(f.entry_ids, f.entry_types, strict=True)
                if types.get(eid) == kind
            ]
            st.shared[key] = set(shared)
            st.forked_from[key] = shared[-1] if shared else None
        else:
            st.forked_from[key] = _spawning_entry(source, f.created_ms)


def _spawning_entry(parent: SessionFacts, created_ms: float) -> str | None:
    """The parent's assistant message that started a sub-agent: the last one written
    before the sub-agent's header, preferring messages that child usage was attributed to
    (the agent attributes a sub-agent's usage to the message whose tool call spawned it)."""
    if math.isnan(created_ms):
        return None
    targets = {target for _, target, _ in parent.attributions}
    best: tuple[int, float, str] | None = None
    rows = zip(parent.entry_ids, parent.entry_roles, parent.entry_time_ms, strict=True)
    for eid, role, ms in rows:
        if role != "assistant" or math.isnan(ms) or ms > created_ms:
            continue
        rank = (1 if eid in targets else 0, ms, eid)
        if best is None or rank[:2] >= best[:2]:
            best = rank
    return best[2] if best is not None else None


def _spend(st: Stitched) -> None:
    for key in st.order:
        f, shared = st.facts[key], st.shared[key]
        child_of: dict[str, Usage] = defaultdict(lambda: ZERO)
        for _, target, used in f.attributions:
            child_of[target] = add(child_of[target], used)
        own = ZERO
        for eid, used in f.usage.items():
            if eid not in shared:
                own = add(own, own_usage(used, child_of.get(eid, ZERO)))
        attributed = ZERO
        for aid, _, used in f.attributions:
            if aid not in shared:
                attributed = add(attributed, used)
        st.own[key], st.child[key] = own, attributed
    for key in st.order:
        present = ZERO
        for kid in st.children(key):
            if st.kind[kid] == "subagent":
                present = add(present, st.own[kid])
        attributed = st.child[key]
        st.unmatched[key] = (
            *(max(0, attributed[k] - present[k]) for k in range(5)),
            max(0.0, attributed[5] - present[5]),
        )  # type: ignore[assignment]
