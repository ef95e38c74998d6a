"""Session shapes for scaling checks: each one stresses a way a cost can grow too fast.

Why: a cost that is linear on an ordinary chat can be quadratic on a comb of leaves or on a
chain of compactions. ``benchmarks/bench_scaling.py`` times every operation on each shape
at 1x, 2x, 4x and 8x a base size; these generators make the files, streamed (nothing
beyond a bounded window is held) and deterministic for a seed.

Every generator yields the header, then exactly ``n`` entries (v3, Prime Agent's
dialect), in the form :func:`sessiongen.write_jsonl` writes.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path

import orjson

from ._core import BASE_MS, Builder, Converter, Entry, tool_call_id
from ._large import PATHS, SENTENCES, USER_PROMPTS, large_session_entries

CWD = "/home/dev/projects/sample-app"


def _start(seed: int) -> tuple[random.Random, Builder, Converter]:
    rng = random.Random(seed)
    b = Builder(rng, cwd=CWD, prune=4_096)
    return rng, b, Converter(3, "prime", b.new_id)


def _drain(b: Builder, conv: Converter) -> Iterator[Entry]:
    out, b.out = b.out, []
    for e in out:
        yield from conv.convert(e)


def linear_chat(n: int, *, seed: int = 0) -> Iterator[Entry]:
    """Many small entries on one path: user, assistant with a read, its result, a reply.

    About 450 bytes per entry: the densest realistic file, where per-entry costs weigh most.
    """
    rng, b, conv = _start(seed)
    yield conv.header(b.header)
    kinds = ("user", "call", "result", "reply")
    call = ""
    for i in range(n):
        kind = kinds[i % 4]
        if kind == "user":
            b.user(rng.choice(USER_PROMPTS))
        elif kind == "call":
            call = tool_call_id(rng)
            args = {"path": f"{CWD}/{rng.choice(PATHS)}"}
            b.assistant([{"type": "toolCall", "id": call, "name": "read", "arguments": args}])
        elif kind == "result":
            b.tool_result(call, "read", rng.choice(SENTENCES))
        else:
            b.assistant([{"type": "text", "text": rng.choice(SENTENCES)}])
        yield from _drain(b, conv)


def branchy(n: int, *, seed: int = 0) -> Iterator[Entry]:
    """A realistic branchy session: a fork every ~50 entries, a compaction every ~400,
    rewinds with branch summaries, labels (``large_session_entries``, small texts)."""
    return large_session_entries(n, seed=seed)


def chained_compactions(n: int, *, seed: int = 0) -> Iterator[Entry]:
    """A user message, then ``n - 1`` compactions in one chain (each the child of the one
    before), every one keeping that first message: each compaction's first kept entry
    sits at the far end of its path."""
    rng, b, conv = _start(seed)
    yield conv.header(b.header)
    if n <= 0:
        return
    first = b.user(rng.choice(USER_PROMPTS))
    yield from _drain(b, conv)
    for _ in range(n - 1):
        b.compaction(rng.choice(SENTENCES), first, {"readFiles": [], "modifiedFiles": []})
        yield from _drain(b, conv)


def comb(n: int, *, seed: int = 0) -> Iterator[Entry]:
    """One long path of user and assistant messages with a leaf hanging off every entry
    (an abandoned reply or follow-up): about ``n / 2`` leaves, contexts up to ``n / 2`` long.

    Each leaf follows its path entry in the file; the last entry is the path's own end.
    """
    rng, b, conv = _start(seed)
    yield conv.header(b.header)
    made = 0
    spine_user = True
    while made < n:
        head = b.user(rng.choice(USER_PROMPTS)) if spine_user else _reply(b, rng)
        made += 1
        if made < n - 1:  # the last entry stays on the path: the active leaf ends it
            if spine_user:
                _reply(b, rng)
            else:
                b.user(rng.choice(USER_PROMPTS))
            b.head = head
            made += 1
        spine_user = not spine_user
        yield from _drain(b, conv)


def _reply(b: Builder, rng: random.Random) -> str:
    return b.assistant([{"type": "text", "text": rng.choice(SENTENCES)}])


def reverse_siblings(n: int, *, seed: int = 0) -> Iterator[Entry]:
    """A user message with ``n - 1`` follow-ups (siblings), appended newest first: every
    new sibling's timestamp is earlier than all before it, so each goes to the front."""
    rng, b, conv = _start(seed)
    yield conv.header(b.header)
    if n <= 0:
        return
    root = b.user(rng.choice(USER_PROMPTS))
    yield from _drain(b, conv)
    start = b.now
    for i in range(n - 1):
        ms = start + 1_000 * (n - i)
        message = {
            "role": "user",
            "content": rng.choice(SENTENCES),
            "timestamp": ms,
        }
        b.add("message", {"message": message}, ms=ms, parent=root)
        yield from _drain(b, conv)


def orphans(n: int, *, seed: int = 0) -> Iterator[Entry]:
    """``n`` user messages whose parents are not in the file: ``n`` orphan roots."""
    rng, b, conv = _start(seed)
    yield conv.header(b.header)
    for i in range(n):
        eid = b.new_id()
        ms = BASE_MS + 1_000 * (i + 1)
        message = {"role": "user", "content": rng.choice(USER_PROMPTS), "timestamp": ms}
        entry = {
            "type": "message",
            "id": eid,
            "parentId": f"gone{i:07d}",
            "timestamp": ms,
            "message": message,
        }
        yield from conv.convert(entry)


#: name -> generator of ``header, n entries``
SHAPES: dict[str, Callable[..., Iterator[Entry]]] = {
    "linear": linear_chat,
    "branchy": branchy,
    "chained_compactions": chained_compactions,
    "comb": comb,
    "reverse_siblings": reverse_siblings,
    "orphans": orphans,
}


def shape_entries(shape: str, n: int, *, seed: int = 0) -> Iterator[Entry]:
    """Header and ``n`` entries of one of :data:`SHAPES`."""
    try:
        make = SHAPES[shape]
    except KeyError:
        raise ValueError(f"unknown shape {shape!r}; choose one of {', '.join(SHAPES)}") from None
    if n < 0:
        raise ValueError(f"n must be >= 0, not {n!r}")
    return make(n, seed=seed)


def write_shape(path: str | Path, shape: str, n: int, *, seed: int = 0) -> Path:
    """Write :func:`shape_entries` to ``path`` (streamed, one line per entry); return it."""
    out = Path(path)
    with out.open("wb", buffering=1 << 20) as fh:
        for entry in shape_entries(shape, n, seed=seed):
            fh.write(orjson.dumps(entry) + b"\n")
    return out
