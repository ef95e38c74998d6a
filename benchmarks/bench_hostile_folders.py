"""Folders that lie, run through every reader: what each reader did with each odd path.

A corpus folder holds one good session and beside it a FIFO, a socket, a link to
``/dev/zero``, a dangling link, two links that loop, a 0-byte file, a folder named
``*.jsonl``, a session whose name holds a newline and escape sequences, one whose name
is not UTF-8, a ``.jsonl.gz`` that is no gzip, a link to a session outside the folder
and a folder link that loops back. Each runs through ``list_sessions``,
``load_corpus``, ``search`` (with and without its index), ``prime-nb ls``, ``grep`` and
``validate`` of the folder, then ``load`` and ``info``, ``validate``, ``grep``,
``redact --dry-run`` and ``export`` of each path, in a child process with a timeout.

A line per step: ``ok`` and what it gave (for the CLI: exit code, lines, control
characters printed, whether the outside session showed), or what it raised.
``--concurrent N``: N processes search and load the same corpus into one new cache at
once, a few rounds; each one's exit code (a crash at exit shows as a negative code).

Usage: python benchmarks/bench_hostile_folders.py [--concurrent N]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from machine import describe

HEADER = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-05T10:00:00Z"}


def session(k: int) -> bytes:
    """A session ``s<k>`` whose one message holds "needle"."""
    message = {"role": "user", "content": "find the needle"}
    user = {"type": "message", "id": f"u{k}", "parentId": None, "message": message}
    return (json.dumps(dict(HEADER, id=f"s{k}")) + "\n" + json.dumps(user) + "\n").encode()


def build(root: Path) -> tuple[Path, socket.socket]:
    """The corpus folder (see the module docstring) and the socket bound in it."""
    folder = root / "corpus"
    folder.mkdir()
    (folder / "good.jsonl").write_bytes(session(0))
    os.mkfifo(folder / "fifo.jsonl")
    bound = socket.socket(socket.AF_UNIX)
    bound.bind(str(folder / "sock.jsonl"))
    (folder / "zero.jsonl").symlink_to("/dev/zero")
    (folder / "dangling.jsonl").symlink_to(folder / "nowhere.jsonl")
    (folder / "loop1.jsonl").symlink_to(folder / "loop2.jsonl")
    (folder / "loop2.jsonl").symlink_to(folder / "loop1.jsonl")
    (folder / "empty.jsonl").write_bytes(b"")
    (folder / "dir.jsonl").mkdir()
    (folder / "evil\n\x1b]0;pwned\x07\x1b[2J.jsonl").write_bytes(session(1))
    (folder / os.fsdecode(b"bad\xff\xfename.jsonl")).write_bytes(session(2))
    (folder / "fake.jsonl.gz").write_bytes(session(3))
    outside = root / "outside"
    outside.mkdir()
    (outside / "secret.jsonl").write_bytes(session(4))
    (folder / "link-out.jsonl").symlink_to(outside / "secret.jsonl")
    (folder / "sub").mkdir()
    (folder / "sub" / "up").symlink_to(folder)
    return folder, bound


def step(name: str, run: Callable[[], Any]) -> None:
    start = time.process_time()
    try:
        done = run()
        said = f"ok {str(len(done) if hasattr(done, 'entries') else done)[:160]}"
    except BaseException as exc:  # a reader's failure is what this reports
        said = f"RAISED {type(exc).__name__}: {str(exc)[:200]}"
    print(json.dumps([name, said, round(time.process_time() - start, 2)]), flush=True)


def cli(*args: str) -> str:
    """A command's exit code, its lines, control characters printed, and whether the
    session outside the folder showed."""
    from prime_nb.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    text = out.getvalue() + err.getvalue()
    controls = sum(ord(c) < 32 and c not in "\n\t" for c in text) + text.count("\x1b")
    lines = text.splitlines()
    shown = " | ".join(line[:90] for line in lines[:8])
    outside = "s4" in text or "link-out" in text
    return f"exit {code}, {len(lines)} lines, {controls} controls, outside {outside}: {shown}"


def child(folder: Path) -> None:
    warnings.simplefilter("ignore")
    import prime_nb
    from prime_nb.corpus import load_corpus, search

    cache = folder.parent / "cache"
    step("list_sessions", lambda: [p.name for p in map(Path, prime_nb.list_sessions(folder).path)])
    step("load_corpus", lambda: load_corpus(folder, workers=1, progress=False)["id"].tolist())
    step("search", lambda: sorted(search(folder, "needle", workers=1)["session_id"]))
    step("search cached", lambda: sorted(search(folder, "needle", cache=cache)["session_id"]))
    for command in (["ls"], ["grep", "needle"], ["validate"]):
        step(f"prime-nb {command[0]} folder", partial(cli, *command, str(folder)))
    out = str(folder.parent / "page.html")
    for name in sorted(os.listdir(folder)):
        path = str(folder / name)
        step(f"load {name!r}", partial(prime_nb.load, path))
        for command in (
            ["info"],
            ["validate"],
            ["grep", "needle"],
            ["redact", "--dry-run"],
            ["export", "-o", out, "--force"],
        ):
            step(f"prime-nb {command[0]} {name!r}", partial(cli, *command, path))


def concurrent(count: int, rounds: int) -> None:
    """``count`` processes at once build one new index and corpus cache, ``rounds`` times."""
    root = Path(tempfile.mkdtemp())
    folder = root / "corpus"
    folder.mkdir()
    for k in range(3):
        (folder / f"s{k}.jsonl").write_bytes(session(k))
    codes: list[int] = []
    for n in range(rounds):
        cache = str(root / f"cache{n}")
        given = f"{str(folder)!r}, workers=1, cache={cache!r}"
        code = (
            "import warnings; warnings.simplefilter('ignore')\n"
            "from prime_nb.corpus import load_corpus, search\n"
            f"assert len(search({given}, query='needle')) == 3\n"
            f"assert len(load_corpus({given}, progress=False)) == 3\n"
        )
        run = [sys.executable, "-c", code]
        procs = [subprocess.Popen(run, stderr=subprocess.PIPE, text=True) for _ in range(count)]
        for proc in procs:
            _, err = proc.communicate(timeout=300)
            codes.append(proc.returncode)
            if proc.returncode:
                print(f"round {n}: exit {proc.returncode}: {err.strip()[-200:]}")
    print(f"{count} at once, {rounds} rounds: {sum(c != 0 for c in codes)} of {len(codes)} failed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrent", type=int, default=0, help="processes at once")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(Path(args.child))
        return
    print(describe())
    if args.concurrent:
        concurrent(args.concurrent, args.rounds)
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder, bound = build(Path(tmp))
        with bound:
            try:
                done = subprocess.run(
                    [sys.executable, __file__, "--child", str(folder)],
                    capture_output=True,
                    text=True,
                    timeout=args.timeout,
                    check=False,
                )
                print(done.stdout, end="")
                if done.returncode:
                    print(f"process: exit {done.returncode}: {done.stderr[-300:]}")
            except subprocess.TimeoutExpired:
                print(f"process: TIMEOUT after {args.timeout} s")


if __name__ == "__main__":
    main()
