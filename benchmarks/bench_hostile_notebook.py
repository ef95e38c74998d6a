"""Hostile input to the notebook side: the widget's requests, refresh and load of a file
that changes under them.

The widget answers requests the browser sends (``SessionData.answer``: entry ids and
indices it chose, a search query), and ``Session.refresh()`` and ``load()`` read a file
an agent may be writing, cutting or replacing at that moment. Each attack runs in a
child process with a timeout and says ``ok`` or what broke: an exception other than
the clear refusal expected, ``TIMEOUT``, or a wrong answer (``WRONG: ...``).

Usage: python benchmarks/bench_hostile_notebook.py [--only NAME,...] [--timeout S]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from machine import describe

T0 = "2026-01-05T10:00:00Z"


def _line(obj: Any) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def _session(n: int, session_id: str = "s1", text: str = "hello") -> bytes:
    """A chain of ``n`` messages, user and assistant in turn."""
    parts = [_line({"type": "session", "version": 3, "id": session_id, "timestamp": T0})]
    parent = None
    for k in range(n):
        role = "user" if k % 2 == 0 else "assistant"
        content: Any = f"{text} {k}" if role == "user" else [{"type": "text", "text": f"ok {k}"}]
        message = {"role": role, "content": content, "timestamp": 0}
        entry = {"type": "message", "id": f"e{k}", "parentId": parent, "timestamp": T0}
        parts.append(_line({**entry, "message": message}))
        parent = f"e{k}"
    return b"".join(parts)


def _data(path: Path) -> Any:
    from prime_nb import load
    from prime_nb.widget._data import SessionData

    return SessionData(load(path))


def _refused(answer: Callable[[], Any]) -> None:
    """A request the widget must refuse with a ValueError (said to the browser)."""
    try:
        answer()
    except ValueError:
        return
    raise AssertionError("WRONG: answered a request it should refuse")


def requests_odd_index(path: Path) -> None:
    data = _data(path)
    for index in (True, False, -1, data.n, 10**18, 1.0, "0", None, [0], {"a": 1}):
        _refused(lambda index=index: data.answer({"what": "entry", "index": index}))
        _refused(lambda index=index: data.answer({"what": "preview", "index": index}))
        _refused(lambda index=index: data.answer({"what": "context", "index": index}))


def requests_odd_lists(path: Path) -> None:
    data = _data(path)
    for what in ("lines", "entries"):
        odd = [True, -1, 10**18, 1.5, "3", None, [1], {"i": 2}, data.n]
        answer = data.answer({"what": what, "indices": odd})
        got = answer[what]
        if len(got) != len(odd):
            raise AssertionError(f"WRONG: {what} gave {len(got)} answers for {len(odd)}")
        if what == "lines" and any(got):
            raise AssertionError(f"WRONG: lines of odd indices: {got}")
        if what == "entries" and not all("error" in e for e in got):
            raise AssertionError("WRONG: an entry for an odd index")
        big = data.answer({"what": what, "indices": list(range(10**6))})[what]
        if len(big) > 10_000:
            raise AssertionError(f"WRONG: {len(big)} {what} in one answer")


def requests_odd_search(path: Path) -> None:
    data = _data(path)
    for query in ("x " * 500_000, "a" * 5_000_000, {"a": 1}, ["e1"], 10**18, None):
        data.answer({"what": "search", "query": query})
    for what in (None, ["entry"], {"x": 1}, "unknown", 3):
        _refused(lambda what=what: data.answer({"what": what, "index": 0}))


def requests_thousands(path: Path) -> None:
    """20,000 requests of every kind: answered, memory bounded by the session."""
    import resource

    data = _data(path)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for k in range(20_000):
        index = k % data.n
        data.answer({"what": ("entry", "preview", "context")[k % 3], "index": index})
        data.answer({"what": "search", "query": f"hello {k}"})
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    if grown > 200_000:  # KiB
        raise AssertionError(f"WRONG: memory grew by {grown // 1024} MB")


def widget_messages(path: Path) -> None:
    """The comm handler: whatever the browser sends, one response or nothing, no raise."""
    from prime_nb.widget import SessionWidget

    widget = SessionWidget(path)
    sent: list[Any] = []
    widget.send = lambda content, buffers=None: sent.append(content)  # type: ignore[method-assign]
    odd: list[Any] = [
        None,
        [],
        "request",
        {"type": "request"},
        {"type": "request", "rid": [1], "what": "entry", "index": "x"},
        {"type": "request", "rid": 1, "what": "entries", "indices": "x"},
        {"type": "request", "rid": 2, "what": "lines", "indices": None},
        {"type": "request", "rid": 3, "what": "entry", "index": 10**18},
    ]
    for content in odd:
        widget._on_msg(widget, content, [])
    if len(sent) != 5 or not all("error" in s for s in sent):
        raise AssertionError(f"WRONG: {sent}")
    widget.selected_id = "e1"
    try:
        widget.selected_id = "not-there"
    except Exception as exc:
        if "no entry with id" not in str(exc):
            raise
    else:
        raise AssertionError("WRONG: an unknown id selected")


def show_odd_hits(path: Path) -> None:
    """A search hit with no entry id (a header line) opens unselected; an unknown id is
    refused with the file named."""
    import pandas as pd

    from prime_nb.widget import show

    for missing in (None, float("nan")):
        if show(pd.Series({"file": str(path), "entry_id": missing})).selected_id is not None:
            raise AssertionError("WRONG: a hit with no id selected something")
    try:
        show(pd.Series({"file": str(path), "entry_id": "x" * 100_000}))
    except Exception as exc:
        if not str(exc).startswith(f"{path}: ") or len(str(exc)) > 400:
            raise AssertionError(f"WRONG: said {str(exc)[:120]!r}...") from exc
    else:
        raise AssertionError("WRONG: an unknown id selected")


def _changed(path: Path, change: Callable[[Path], None], expect: Callable[[Any], None]) -> None:
    """Load, change the file, refresh: the same as a fresh load, or a clear error that
    leaves the session as it was and a later refresh that reads it."""
    from prime_nb import load

    session = load(path)
    before = list(session.entries.index)
    change(path)
    try:
        session.refresh()
    except Exception as exc:
        if list(session.entries.index) != before:
            raise AssertionError(f"WRONG: a failed refresh changed the session ({exc})") from exc
        expect(exc)
        return
    fresh = load(path)
    if list(session.entries.index) != list(fresh.entries.index):
        raise AssertionError("WRONG: refresh differs from a fresh load")
    if session.entries["text"].tolist() != fresh.entries["text"].tolist():
        raise AssertionError("WRONG: refresh kept texts a fresh load does not read")
    if session.id != fresh.id:
        raise AssertionError("WRONG: refresh kept the old header")
    session.entries.to_dict("records")
    list(session.read_entries(list(session.entries.index)))


def _any(exc: Any) -> None:
    pass


def refresh_truncated(path: Path) -> None:
    data = path.read_bytes()
    _changed(path, lambda p: p.write_bytes(data[: len(data) // 2]), _any)
    path.write_bytes(data)
    _changed(path, lambda p: p.write_bytes(data[: data.index(b"\n") + 1]), _any)
    path.write_bytes(data)
    _changed(path, lambda p: p.write_bytes(b""), _any)
    path.write_bytes(data)
    _changed(path, lambda p: p.write_bytes(data[:-7]), _any)  # the last line cut


def refresh_replaced(path: Path) -> None:
    data = path.read_bytes()
    other = _session(400, session_id="s2", text="world")
    same_size = data.replace(b'"hello ', b'"HELLO ')
    for new in (other, same_size, b"garbage\n" * 100, data + b"{not json\n"):
        path.write_bytes(data)

        def swap(p: Path, new: bytes = new) -> None:
            tmp = p.with_suffix(".new")
            tmp.write_bytes(new)
            os.replace(tmp, p)

        _changed(path, swap, _any)
        path.write_bytes(data)

        def rewrite(p: Path, new: bytes = new) -> None:
            p.write_bytes(new)  # in place: the same inode

        _changed(path, rewrite, _any)


def refresh_rewritten_in_place(path: Path) -> None:
    """The same size, the same inode, the first and last lines the same, a middle line
    changed: an editor's save or a rewrite in place (the mtime moves)."""
    data = _session(40_000)
    path.write_bytes(data)
    same_size = data.replace(b'"hello 20000"', b'"HELLO 20000"')

    def rewrite(p: Path) -> None:
        time.sleep(0.02)  # a later mtime on any clock
        with open(p, "r+b") as fh:
            fh.write(same_size)

    _changed(path, rewrite, _any)


def requests_after_a_change(path: Path) -> None:
    """The widget asked for an entry after the file changed, before any refresh: the
    entry as it is now in the file, or a clear error; never another entry's bytes."""
    data = _data(path)
    raw = path.read_bytes()
    for new in (raw[: len(raw) // 2], raw.replace(b'"hello 2"', b'"HELLO 2"'), b""):
        path.write_bytes(new)
        try:
            answer = data.answer({"what": "entry", "index": 2})
        except Exception as exc:
            if "refresh" not in str(exc):
                raise
            continue
        said = json.dumps(answer)
        if "hello 2" in said and b"hello 2" not in new:
            raise AssertionError("WRONG: an entry read that the file no longer holds")


def refresh_gone_or_not_a_file(path: Path) -> None:
    data = path.read_bytes()
    _changed(path, lambda p: p.unlink(), _any)
    path.write_bytes(data)

    def folder(p: Path) -> None:
        p.unlink()
        p.mkdir()

    _changed(path, folder, _any)
    path.rmdir()
    path.write_bytes(data)

    def fifo(p: Path) -> None:
        p.unlink()
        os.mkfifo(p)

    _changed(path, fifo, _any)


def load_while_growing(path: Path) -> None:
    """load() while another thread appends: a prefix of the entries, none torn."""
    from prime_nb import load

    data = _session(40_000)
    head_len = len(data) // 4
    path.write_bytes(data[:head_len])
    stop = threading.Event()

    def grow() -> None:
        at = head_len
        with open(path, "ab") as fh:
            while at < len(data) and not stop.is_set():
                fh.write(data[at : at + 4096])
                fh.flush()
                at += 4096

    for _ in range(3):
        path.write_bytes(data[:head_len])
        writer = threading.Thread(target=grow)
        writer.start()
        try:
            session = load(path)
            ids = list(session.entries.index)
            if ids != [f"e{k}" for k in range(len(ids))]:
                raise AssertionError("WRONG: not a prefix of the entries")
            session.read_entries(ids[-3:])
            session.refresh()
        finally:
            stop.set()
            writer.join()
            stop.clear()
        whole = load(path)
        session.refresh()
        if list(session.entries.index) != list(whole.entries.index):
            raise AssertionError("WRONG: refresh after growth differs from a fresh load")


ATTACKS: dict[str, Callable[[Path], None]] = {
    "requests_odd_index": requests_odd_index,
    "requests_odd_lists": requests_odd_lists,
    "requests_odd_search": requests_odd_search,
    "requests_thousands": requests_thousands,
    "widget_messages": widget_messages,
    "show_odd_hits": show_odd_hits,
    "refresh_truncated": refresh_truncated,
    "refresh_replaced": refresh_replaced,
    "refresh_rewritten_in_place": refresh_rewritten_in_place,
    "requests_after_a_change": requests_after_a_change,
    "refresh_gone_or_not_a_file": refresh_gone_or_not_a_file,
    "load_while_growing": load_while_growing,
}


def child(name: str, path: Path) -> None:
    start = time.process_time()
    try:
        ATTACKS[name](path)
        result = f"ok ({time.process_time() - start:.1f} CPU s)"
    except Exception as exc:
        text = str(exc).splitlines()[0][:200] if str(exc) else ""
        if isinstance(exc, AssertionError):
            result = text
        else:
            where = traceback.extract_tb(exc.__traceback__)[-1]
            result = f"{type(exc).__name__}: {text} [{Path(where.filename).name}:{where.lineno}]"
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="attacks to run, comma separated")
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], Path(args.child[1]))
        return
    print(describe())
    broke = 0
    for name in args.only.split(",") if args.only else list(ATTACKS):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "s.jsonl"
            path.write_bytes(_session(400))
            try:
                done = subprocess.run(
                    [sys.executable, __file__, "--child", name, str(path)],
                    capture_output=True,
                    text=True,
                    timeout=args.timeout,
                    check=False,
                )
                said = done.stdout.strip().splitlines()
                result = json.loads(said[-1]) if said else f"exit {done.returncode}"
                if done.returncode:
                    result += f" (exit {done.returncode}: {done.stderr.strip()[-200:]})"
            except subprocess.TimeoutExpired:
                result = f"TIMEOUT after {args.timeout} s"
        broke += not result.startswith("ok")
        print(f"{name}: {result}", flush=True)
    print(f"{broke} broken")


if __name__ == "__main__":
    main()
