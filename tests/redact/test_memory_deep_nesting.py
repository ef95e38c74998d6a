"""Redaction's peak memory on a deep list of long leaves, each with a secret, and the
walk in place that keeps it down giving the file, report and suspects of the copy walk.

A line's parsed tree was walked into a new tree beside it: every changed leaf was held
twice (the old string and the new) with the lists that held them until the walk ended,
and glibc kept the old tree's freed heap resident while the new line's bytes were made.
Under 150 levels of lists, a list of 1 KB leaves each with ``pw=hunter2x`` grew 3.5-3.8x
its line (``load``: 3.0-3.3x; the report's field paths, 450 bytes a row here, are half
the line). The tree of a parsed line is the caller's alone, and nothing reads its old
entry after the walk: pass 2 changes it in place (``Scrubber.scrub_in_place``), each
old string let go as soon as its new one is made, and the peak is the parse's, as
``load``'s is.

The oracle: every line of samples of the secret corpora, of the stream walk's hostile
lines and of lines made for this walk (deep, repeated values, changed keys among changed
values, a key renamed apart, an image read by a type that changes before its data,
unchanged lines, glued values) redacts to the same file, report and suspects walked in
place and walked into a copy (the walk before); a walk in place that tells a change by
the tree's identity, as the copy walk did, copies changed lines as they were, and fails.
"""

from __future__ import annotations

import base64
import json
import sys
import weakref
from pathlib import Path
from typing import Any

import pytest
from secret_corpus import build, build_spec
from test_redact_memory import MB, assert_grew_at_most, measure
from test_redact_stream import HOSTILE, _sample

from prime_nb.redact import redact
from prime_nb.redact._embedded import StreamScrubber
from prime_nb.redact._lines import Line
from prime_nb.redact._pending import PendingTexts
from prime_nb.redact._report import HitColumns
from prime_nb.redact._rules import default_rules
from prime_nb.redact._scrub import Scrubber

_file = sys.modules["prime_nb.redact._file"]

DEEP = "deep nesting, long leaves, under a tool call's command"
LEAF = "x" * 1000 + " pw=hunter2x"
HEAD = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}


def _deep(depth: int, leaf: Any) -> Any:
    for _ in range(depth):
        leaf = [leaf]
    return leaf


def _command(value: Any) -> dict[str, Any]:
    """An assistant's tool call with ``value`` as its command (as the probe writes it)."""
    call = {"type": "toolCall", "id": "t1", "name": "bash", "arguments": {"command": value}}
    message = {"role": "assistant", "content": [call], "timestamp": 0}
    return {
        "type": "message",
        "id": "u1",
        "parentId": None,
        "timestamp": "2026",
        "message": message,
    }


def _line(shape: str, size: int) -> str:
    """The deep line, at twice ``size`` less 1 MB: the test's two sizes (1 and 1.5 MB)
    made 1 MB apart, so that the noise allowed at each weighs half as much."""
    assert shape == DEEP
    leaves = [LEAF] * ((2 * size - MB) // (len(LEAF) + 3))
    return json.dumps(_command(_deep(150, leaves)))


@pytest.fixture(scope="module")
def peaks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, float]]:
    """Redact's growth per byte of line between the two sizes."""
    return measure(tmp_path_factory.mktemp("deep"), [DEEP], line=_line)


def test_a_deep_list_of_changed_leaves_is_not_held_twice(
    peaks: dict[str, dict[str, float]],
) -> None:
    """3.6-3.8x the line walked into a copy; 3.2-3.3x in place (``load``: 3.0-3.3x;
    orjson's parse sets the peak of both). The line holds no string decoded apart, and
    is now walked as a stream (1.5-1.6x in the probe): the walk in place is pinned by
    count below."""
    assert_grew_at_most(peaks, DEEP, 3.1)


class _Leaf(str):
    """A leaf string that can be watched being let go (a ``str`` has no weak reference)."""


def test_an_old_leaf_is_let_go_as_soon_as_its_new_one_is_made() -> None:
    """Pinned by count, not by a traced peak: when the last leaf of the line is replaced,
    the old leaves still alive. Walked into a copy, all of them were (with the new ones
    made so far)."""
    leaves = [_Leaf(LEAF) for _ in range(64)]
    refs = [weakref.ref(leaf) for leaf in leaves]
    tree = _command(_deep(150, leaves))
    del leaves
    scrubber = StreamScrubber(default_rules([]))
    scrubber.learn(tree)
    scrubber.pending = PendingTexts()
    alive: list[int] = []
    scrub_text = scrubber.scrub_text

    def counted(text: str, *args: Any, **options: Any) -> str:
        if isinstance(text, _Leaf):
            alive.append(sum(ref() is not None for ref in refs))
        return scrub_text(text, *args, **options)

    scrubber.scrub_text = counted  # type: ignore[method-assign]
    held = [Line(2, 0, None, MB, b"", b"\n", tree, None)]
    del tree
    hits = HitColumns()
    _, parts, _ = _file._redacted_line(held, scrubber, None, None, hits)
    assert len(alive) == len(refs)
    assert alive[-1] == 1, alive  # the leaf being replaced, nothing before it
    assert parts is not None and parts[1].count(b"[REDACTED:") == len(refs)


_TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
#: a token that holds the words an image's type is read as text by
_SVG_TOKEN = "ghp_svgxmltext" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9v"
_PW = "password=hunter2xyz"


def _entry(n: int, data: Any) -> str:
    entry = {"type": "custom", "id": f"e{n}", "parentId": None, "customType": "x", "data": data}
    return json.dumps(entry)


def _image(mime: str, text: str) -> str:
    """A message with an image block whose type comes before its data."""
    data = base64.b64encode(text.encode()).decode()
    block = {"type": "image", "mimeType": mime, "data": data}
    message = {"role": "user", "content": [{"type": "text", "text": _PW}, block]}
    return json.dumps({"type": "message", "id": "m1", "parentId": None, "message": message})


#: lines the walk in place must write and report as the copy walk does
IN_PLACE = {
    "deep, long leaves": _entry(1, _deep(150, [LEAF, "ok", LEAF, 1, None])),
    "repeated values": _entry(2, [_PW, {"a": _PW, "b": [_PW, _PW]}, _PW, _TOKEN, _TOKEN]),
    "a changed key among changed values": _entry(
        3, {"a": _PW, "b": "kept", _TOKEN: _PW, "c": [_PW], "d": "kept"}
    ),
    "a key renamed apart": _entry(
        4, {"x": _PW, _TOKEN: 1, "[REDACTED:github-token:1]": 2, "k": _TOKEN, "z": _PW}
    ),
    "changed keys deep in lists": _entry(5, [[{_TOKEN: {_TOKEN: [_PW]}}], {"api_key": [1]}]),
    "secrets' keys": _entry(6, {"api_key": {"k": [_PW, 1]}, "password": ["a", {"b": 2}]}),
    "an image read by its type as it was": _image(_SVG_TOKEN, "\x01 " + _PW),
    "an image read by its type": _image("image/svg+xml", "\x01 " + _PW),
    "nothing to hide": _entry(7, {"a": ["plain", {"b": [1, 2.5, None, True]}]}),
    "nothing to hide, deep": _entry(8, _deep(150, ["plain"])),
    "glued": _entry(9, [_PW]) + _entry(10, {_TOKEN: "kept"}),
    "a top-level list": json.dumps([_PW, {"k": [_TOKEN]}]),
}


def _copy_walk(self: Scrubber, obj: Any, hits: Any, where: str = "entry") -> tuple[Any, bool]:
    """The walk before: a new tree beside the old, a change told by identity."""
    new = self.scrub(obj, hits, where)
    return new, new is not obj


def _by_identity(self: Scrubber, obj: Any, hits: Any, where: str = "entry") -> tuple[Any, bool]:
    """A broken walk in place: a change told by the tree's identity."""
    new = self._walk(obj, where, "", False, hits, True)
    return new, new is not obj


def _redacted(
    path: Path, monkeypatch: pytest.MonkeyPatch, walk: Any, name: str
) -> tuple[bytes, list[Any], list[Any]]:
    dest = path.with_name(f"{path.stem}.{name}.jsonl")
    dest.unlink(missing_ok=True)
    with monkeypatch.context() as patch:
        if walk is not None:
            patch.setattr(Scrubber, "scrub_in_place", walk)
        done = redact(path, dest, hostnames=[])
    report, suspects = (t.astype(str).values.tolist() for t in (done.report, done.suspects))
    return dest.read_bytes(), report, suspects


def _same_both_ways(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[bytes, list[Any], list[Any]]:
    in_place = _redacted(path, monkeypatch, None, "in-place")
    copied = _redacted(path, monkeypatch, _copy_walk, "copy")
    assert in_place[0] == copied[0]
    assert in_place[1] == copied[1]
    assert in_place[2] == copied[2]
    return in_place


def test_walked_in_place_the_corpora_redact_as_walked_into_a_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secrets = _sample(build(tmp_path / "full.jsonl").path, 96, tmp_path)
    spec = _sample(build_spec(tmp_path / "spec.jsonl").path, 6)
    for path, least in ((secrets, 250), (spec, 250)):
        _, report, _ = _same_both_ways(path, monkeypatch)
        assert len(report) > least


def test_walked_in_place_hostile_lines_redact_as_walked_into_a_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "hostile.jsonl"
    lines = [json.dumps(HEAD), *HOSTILE.values(), *IN_PLACE.values()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    written, report, _ = _same_both_ways(path, monkeypatch)
    images = [row for row in report if row[2] == "message.content[1].data"]
    assert len(images) == 2  # each image's type read as it was: its text decoded, read
    kept = [line for line in written.splitlines() if b"kept" in line or b"plain" in line]
    assert len(kept) == 4
    broken = _redacted(path, monkeypatch, _by_identity, "broken")
    assert broken[1] == report  # the same walk, the same rows
    assert broken[0] != written and _PW.encode() in broken[0]  # changed lines copied
