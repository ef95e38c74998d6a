"""Property tests: random appends, forks and labels keep the file loadable and the tree
as expected; random truncations and junk are always reported, never raised."""

from __future__ import annotations

import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from write_support import VARIANTS, canonical_entries, make_session

import prime_nb
from prime_nb import write
from prime_nb.format import js_trim, parse_line
from prime_nb.write import _appending as appending

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# an operation: (kind, a, b, text); a/b pick entries by index modulo the known ids
OPS = st.tuples(
    st.sampled_from(["message", "fork", "label", "summary", "compaction", "name"]),
    st.integers(0, 10_000),
    st.integers(0, 10_000),
    st.one_of(st.none(), st.text(max_size=12)),
)


@contextmanager
def _scratch() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as folder:
        yield Path(folder)


@contextmanager
def _quick_torn_checks() -> Iterator[None]:
    """Torn tails are certain here: no need to wait for a writer to finish them."""
    saved = appending.TORN_AFTER
    appending.TORN_AFTER = 0.0
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", prime_nb.TornLineWarning)
            yield
    finally:
        appending.TORN_AFTER = saved


class Model:
    """What the file should hold: parents, labels, name, active leaf."""

    def __init__(self, version: int) -> None:
        entries = canonical_entries(version)
        self.parent: dict[str, str | None] = {e["id"]: e["parentId"] for e in entries}
        self.order = list(self.parent)
        self.labels = {"a1": "greeting"}
        self.name: str | None = "first name"

    def pick(self, n: int) -> str:
        return self.order[n % len(self.order)]

    def path(self, entry_id: str) -> list[str]:
        out = [entry_id]
        while (parent := self.parent[out[-1]]) is not None:
            out.append(parent)
        return out[::-1]

    def add(self, entry_id: str, parent: str | None) -> None:
        self.parent[entry_id] = parent
        self.order.append(entry_id)

    def apply(self, path: Path, op: tuple[str, int, int, str | None]) -> None:
        kind, a, b, text = op
        target = self.pick(a)
        leaf = self.order[-1]
        if kind == "message":
            self.add(
                write.append_message(
                    path, target, {"role": "user", "content": text or ""}, fsync=False
                ),
                target,
            )
        elif kind == "fork":
            messages = [{"role": "user", "content": str(i)} for i in range(b % 3 + 1)]
            parent: str | None = target
            for new_id in write.append_fork(path, target, messages, fsync=False):
                self.add(new_id, parent)
                parent = new_id
        elif kind == "label":
            self.add(write.append_label(path, target, text, fsync=False), leaf)
            if text:
                self.labels[target] = text
            else:
                self.labels.pop(target, None)
        elif kind == "summary":
            self.add(write.append_branch_summary(path, target, text or "s", fsync=False), target)
        elif kind == "compaction":
            ancestors = self.path(target)
            kept = ancestors[b % len(ancestors)]
            self.add(
                write.append_compaction(path, "c", kept, b, parent_id=target, fsync=False), target
            )
        elif text and js_trim(text):
            self.add(write.append_session_name(path, text, fsync=False), leaf)
            self.name = js_trim(text)  # written and read trimmed, as the agent does


@SETTINGS
@given(variant=st.sampled_from(VARIANTS), ops=st.lists(OPS, min_size=1, max_size=10))
def test_random_appends_keep_the_tree(variant: tuple[int, str], ops: list[Any]) -> None:
    version, dialect = variant
    with _scratch() as folder:
        path = make_session(folder / "s.jsonl", version, dialect)
        before = path.read_bytes()
        model = Model(version)
        for op in ops:
            model.apply(path, op)
        assert path.read_bytes().startswith(before)
        s = prime_nb.load(path)
        assert len(s.problems) == 0
        assert list(s.entries.index) == model.order
        parents = [p if isinstance(p, str) else None for p in s.entries["parent_id"]]
        assert parents == [model.parent[i] for i in model.order]
        assert s.leaf_id == model.order[-1]
        assert s.path() == model.path(model.order[-1])
        assert s.labels == model.labels
        assert s.name == model.name


@SETTINGS
@given(
    variant=st.sampled_from(VARIANTS),
    cut=st.floats(0, 1),
    junk=st.lists(st.binary(max_size=40), max_size=3),
)
def test_truncation_and_junk_are_reported_never_raised(
    variant: tuple[int, str], cut: float, junk: list[bytes]
) -> None:
    version, dialect = variant
    with _scratch() as folder, _quick_torn_checks():
        path = make_session(folder / "s.jsonl", version, dialect)
        data = path.read_bytes()
        header_end = data.index(b"\n") + 1
        data = data[: header_end + int(cut * (len(data) - header_end))] + b"".join(junk)
        path.write_bytes(data)

        s = prime_nb.load(path)  # never raises
        tail = data[data.rindex(b"\n") + 1 :]
        if tail.strip() and parse_line(tail, 0)[0] is None:
            assert "torn_line" in s.problems["kind"].tolist()
        ids = set(s.entries.index)
        name_id = write.append_session_name(path, "after", fsync=False)
        assert path.read_bytes().startswith(data)
        assert path.read_bytes().endswith(b"\n")
        s.refresh()
        assert s.leaf_id == name_id and s.name == "after"
        assert set(s.entries.index) >= ids
        if "u1" in ids:
            write.append_label(path, "u1", "kept", fsync=False)
            assert prime_nb.load(path).labels.get("u1") == "kept"
