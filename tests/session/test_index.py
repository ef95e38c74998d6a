"""The tree index and the context built from it agree with plain walks up the path.

``session.context`` once walked the whole root-to-leaf path per call (and scanned the list
of compactions); it now jumps between context entries with the index's pointers. The
former walk is kept here as the oracle, and every entry of every matrix session (of the
big ones: the compactions, the entries after them, leaves and a sample), and of random
trees full of compactions and settings, must get the same context from both.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from session_matrix import LOADED_CASES

import prime_nb
from prime_nb.errors import SessionFormatError
from prime_nb.session._context import Context, _append, clone_usage, to_context_message
from prime_nb.session._index import CONTEXT_TYPES, nearest


def oracle_context(
    path: Sequence[int],
    cols: Any,
    read_rows: Callable[[Sequence[int]], list[dict[str, Any]]],
    child_usage: dict[int, int],
    spec_dialect: bool,
) -> Context:
    """The former ``build_context``: one walk down the whole path."""
    provider = model = None
    settings: dict[str, int] = {}
    compaction_pos = -1
    for pos, row in enumerate(path):
        kind = cols.types[row]
        if kind == "model_change" or cols.roles[row] == "assistant":
            if not spec_dialect or cols.models[row] is not None or kind == "model_change":
                provider, model = cols.providers[row], cols.models[row]
        elif kind in ("thinking_level_change", "service_tier_change", "git_state"):
            settings[kind] = pos
        elif kind == "compaction":
            compaction_pos = pos
    first_kept_pos = 0
    if compaction_pos >= 0:
        first_kept_pos = compaction_pos + 1
        kept = next(c for c in cols.compactions if c["index"] == path[compaction_pos])
        kept_row = cols.index_of.get(kept["first_kept_entry_id"] or "")
        for pos, row in enumerate(path[:compaction_pos]):
            if row == kept_row:
                first_kept_pos = pos
                break
    in_context = [
        row
        for pos, row in enumerate(path)
        if pos >= first_kept_pos and pos != compaction_pos and cols.types[row] in CONTEXT_TYPES
    ]
    usage_rows = {row: child_usage[row] for row in in_context if row in child_usage}
    wanted = [*in_context, *usage_rows.values(), *(path[pos] for pos in settings.values())]
    if compaction_pos >= 0:
        wanted.append(path[compaction_pos])
    entries = dict(zip(wanted, read_rows(wanted), strict=True))

    def setting(kind: str, key: str, default: Any) -> Any:
        pos = settings.get(kind)
        if pos is None:
            return default
        value = entries[path[pos]].get(key)
        return value if isinstance(value, dict if kind == "git_state" else str) else None

    def usage_of(row: int) -> dict[str, Any] | None:
        source = usage_rows.get(row)
        aggregate = entries[source].get("aggregateUsage") if source is not None else None
        return clone_usage(aggregate) if isinstance(aggregate, dict) else None

    messages: list[dict[str, Any]] = []
    if compaction_pos >= 0:
        retained: list[dict[str, Any]] = []
        after: list[dict[str, Any]] = []
        before = frozenset(path[:compaction_pos])
        for row in in_context:
            _append(retained if row in before else after, entries[row], usage_of(row))
        summary = to_context_message(entries[path[compaction_pos]], retained=len(retained))
        assert summary is not None
        messages = [summary, *retained, *after]
    else:
        for row in in_context:
            _append(messages, entries[row], usage_of(row))
    return Context(
        messages,
        leaf_id=cols.ids[path[-1]] if path else None,
        provider=provider,
        model=model,
        thinking_level=setting("thinking_level_change", "thinkingLevel", "off"),
        service_tier=setting("service_tier_change", "serviceTier", "default"),
        git=setting("git_state", "git", None),
        compaction_id=cols.ids[path[compaction_pos]] if compaction_pos >= 0 else None,
    )


def same(a: Context, b: Context) -> bool:
    fields = ("leaf_id", "provider", "model", "thinking_level", "service_tier", "git")
    return (
        list(a) == list(b)
        and all(getattr(a, f) == getattr(b, f) for f in fields)
        and (a.compaction_id == b.compaction_id)
    )


def rows_to_check(session: prime_nb.Session, most: int = 300) -> list[int]:
    """Every row of a small session; of a big one the compactions, the rows after each,
    the leaves' ends and a seeded sample (each context costs its path in the oracle)."""
    n = len(session._cols)
    if n <= most:
        return list(range(n))
    comps = [c["index"] for c in session._cols.compactions]
    after = [kid for c in comps for kid in session._tree.children[c]]
    leaves = [r for r, kids in enumerate(session._tree.children) if not kids]
    sample = random.Random(n).sample(range(n), most // 3)
    return sorted({*comps[:most], *after[:most], *leaves[: most // 3], *sample, n - 1})


def read_once(session: prime_nb.Session) -> Callable[[Sequence[int]], list[dict[str, Any]]]:
    """The oracle's reader: ``session._read_rows``, each row read from the file once for
    all the contexts checked (the oracle and the contexts it builds copy what they take
    from an entry, never change it); the contexts under test read as they do."""
    read: dict[int, dict[str, Any]] = {}

    def rows(wanted: Sequence[int]) -> list[dict[str, Any]]:
        missing = [row for row in dict.fromkeys(wanted) if row not in read]
        if missing:
            read.update(zip(missing, session._read_rows(missing), strict=True))
        return [read[row] for row in wanted]

    return rows


def check_every_row(session: prime_nb.Session) -> int:
    cols, tree = session._cols, session._tree
    oracle_rows = read_once(session)
    spec = session.dialect == "spec"
    targets = session._child_usage_targets
    header_git = session._header_canonical.get("git")
    rows = list(rows_to_check(session))
    # the messages alone (the forensics' count, many leaves read together): the same
    together = session._contexts_messages(rows)
    # the contexts of many leaves, each entry read once for all (what datasets use)
    reader = session.context_reader()
    for row, (messages, read) in zip(rows, together, strict=True):
        expected = oracle_context(tree.path(row), cols, oracle_rows, targets, spec)
        if expected.git is None and isinstance(header_git, dict):
            expected.git = header_git
        got = session.context(cols.ids[row])
        assert same(got, expected), (session.file, cols.ids[row])
        assert same(reader(cols.ids[row]), expected), (session.file, cols.ids[row])
        assert messages == list(expected), (session.file, row)
        assert read[row] == session._read_rows([row])[0]  # the leaf's own entry is read too
    empty = session.context() if not len(cols) else None
    if empty is not None:
        assert list(empty) == [] and empty.leaf_id is None
        assert same(reader(None), empty)
    return len(cols)


@pytest.mark.parametrize("name", LOADED_CASES)
def test_every_entry_of_the_matrix(
    name: str, matrix_session: Callable[[str], prime_nb.Session]
) -> None:
    try:
        session = matrix_session(name)
    except SessionFormatError:
        return  # no header: nothing to ask a context of (the loader's own tests cover it)
    check_every_row(session)


def random_session(seed: int, folder: Path, spec: bool) -> Path:
    """Forks everywhere, chains of compactions, settings and model changes, first kept
    entries on the path, off it, the compaction itself and missing."""
    rng = random.Random(seed)
    header = {"type": "header" if spec else "session", "version": 3, "id": f"r{seed}"}
    lines: list[dict[str, Any]] = [header]
    ids: list[str] = []
    for i in range(rng.randint(1, 80)):
        parent = rng.choice([None, *ids[-3:], *ids[-3:], *ids]) if ids else None
        entry_id = f"e{i}"
        entry: dict[str, Any] = {"id": entry_id, "parentId": parent, "timestamp": 1000 + i}
        r = rng.random()
        if r < 0.25:
            kept = rng.choice([*ids, entry_id, "missing", None]) if ids else None
            entry |= {"type": "compaction", "summary": f"s{i}", "firstKeptEntryId": kept}
            entry["tokensBefore"] = 10
        elif r < 0.35:
            kind = rng.choice(["thinking_level_change", "service_tier_change", "git_state"])
            value = {"thinking_level_change": ("thinkingLevel", rng.choice(["low", "high"]))}.get(
                kind, ("serviceTier", "priority")
            )
            if kind == "git_state":
                value = ("git", {"branch": f"b{i}"})
            entry |= {
                "type": kind if not spec or kind != "thinking_level_change" else "thinkingLevel",
                value[0]: value[1],
            }
        elif r < 0.42:
            entry |= {
                "type": "modelChange" if spec else "model_change",
                "provider": "p",
                "modelId": f"m{i}",
            }
        elif r < 0.5 and spec:
            entry |= {"type": "toolCall", "toolCallId": f"t{i}", "name": "read", "arguments": {}}
        elif r < 0.55:
            entry |= {"type": "custom_message", "customType": "x", "content": f"c{i}"}
        elif r < 0.6:
            entry |= {"type": "branch_summary", "summary": f"b{i}", "fromId": parent}
        elif r < 0.63:
            entry |= {"type": "label", "targetId": parent, "label": "l"}
        else:
            role = rng.choice(["user", "assistant", "assistant"])
            message: dict[str, Any] = {"role": role, "content": [{"type": "text", "text": f"t{i}"}]}
            if role == "assistant" and rng.random() < 0.7:
                message |= {"provider": "p", "model": f"a{i}"}
            entry |= {"type": "message", "message": message}
        lines.append(entry)
        ids.append(entry_id)
    path = folder / f"r{seed}.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


@pytest.mark.parametrize("spec", [False, True])
@pytest.mark.parametrize("seed", range(25))
def test_random_trees(seed: int, spec: bool, tmp_path: Path) -> None:
    session = prime_nb.load(random_session(seed, tmp_path, spec))
    assert (session.dialect == "spec") is spec
    check_every_row(session)


def test_an_empty_leaf_has_no_context_messages(tmp_path: Path) -> None:
    """An empty session's leaf (-1) asked with others has no messages and reads nothing."""
    session = prime_nb.load(random_session(0, tmp_path, spec=False))
    (empty, read), (first, _) = session._contexts_messages([-1, 0])
    assert empty == [] and read == {} and first == list(session.context(session._cols.ids[0]))


def naive_nearest(pointer: list[int], hit: list[bool]) -> list[int]:
    out = []
    for row in range(len(pointer)):
        while row >= 0 and not hit[row]:
            row = pointer[row]
        out.append(row)
    return out


@pytest.mark.parametrize("seed", range(30))
def test_nearest_is_the_first_hit_up_the_chain(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(0, 300)
    # parents before children in a random order: a forest without cycles
    order = list(range(n))
    rng.shuffle(order)
    pointer = [-1] * n
    for k, row in enumerate(order):
        if k and rng.random() < 0.9:
            pointer[row] = order[rng.randrange(max(0, k - 4), k)]
    hit = [rng.random() < rng.choice([0.0, 0.05, 0.5, 1.0]) for _ in range(n)]
    got = nearest(np.array(pointer, dtype=np.int64), np.array(hit, dtype=bool))
    assert got.tolist() == naive_nearest(pointer, hit)


@pytest.mark.parametrize("seed", range(10))
def test_ancestor_test_and_path_pieces_follow_the_tree(seed: int, tmp_path: Path) -> None:
    session = prime_nb.load(random_session(seed, tmp_path, spec=False))
    index, tree = session._index, session._tree
    for row in range(len(tree)):
        path = tree.path(row)
        on_path = set(path)
        for other in range(len(tree)):
            assert index.above_or_self(other, row) == (other in on_path)
        for depth in range(len(path) + 1):
            assert index.path_between(row, depth) == path[depth:]
