"""What the last attack round left, measured: a large UTF-16 file, and node lines of
unclosed Markdown marks.

``wide``: a session saved as UTF-16 (``--mb`` MB, 200 by default) given to ``load``,
``list_sessions`` of its folder, and ``append_message``; each must refuse it from its
first bytes. A line per reader: its CPU seconds and its peak memory (VmHWM) above the
interpreter's with prime_nb imported.

``labels``: ``widget._labels.first_line`` of a line of ``--kb`` KB (1,000 by default) made
of one unclosed Markdown mark repeated (``[``, ``![``, ``[a](``, ``**a ``, ``__a ``,
``~~a ``, spaces before a word, a table rule's spaces), and of closed marks for scale.
A line per kind: its CPU seconds.

``folders`` (this round's attacks): a folder nested ``--depth`` deep (1,200 by default)
read by ``list_sessions``, and a folder whose file names hold an escape sequence read by
``list_sessions`` and ``from_sessions`` (a symlink left out, a file skipped): a line
each, what was read and whether a warning held a raw ESC or BEL.

Each measure runs in a child process with a timeout (``--timeout``); ``--before
CHECKOUT`` runs it on that checkout's ``prime_nb`` too, old and new alternating.

Usage: python benchmarks/bench_hostile_leftovers.py [--only wide,labels,folders] [--mb N]
       [--kb N] [--depth N] [--before CHECKOUT] [--timeout S]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from machine import describe
from session_entries import assistant, head, lines, user

ROOT = Path(__file__).resolve().parents[1]

#: one unclosed mark per kind, repeated to fill the line; closed marks for scale
MARKS = {
    "brackets": "[",
    "images": "![",
    "link targets": "[a](",
    "bold": "**a ",
    "underscores": "__a ",
    "strikes": "~~a ",
    "spaces before a word": " ",
    "a table rule's spaces": " ",
    "closed links (scale)": "[a](b) ",
    "closed bold (scale)": "**a** ",
}

#: run in the child: ``measure(kind, argument)`` prints one JSON line
CHILD = r"""
import json, os, resource, sys, time, warnings
warnings.simplefilter("ignore")
import prime_nb
from prime_nb.session import list_sessions
from prime_nb.write import append_message
from prime_nb.widget._labels import first_line

def hwm():
    with open("/proc/self/status") as fh:
        return next(int(l.split()[1]) for l in fh if l.startswith("VmHWM")) / 1024

part, what, arg = sys.argv[1], sys.argv[2], sys.argv[3]
base = hwm()
start = time.process_time()
said = "ok"
try:
    if part == "folders":
        from prime_nb.datasets import from_sessions
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            found = list_sessions(arg)["entries"].tolist()
            if what == "escapes in names":
                from_sessions(arg, progress=False)
        raw = sum(any(c in str(w.message) for c in "\x1b\x07") for w in caught)
        said = f"entries {found}, {len(caught)} warnings, {raw} with raw escapes"
    elif part == "wide":
        if what == "load":
            prime_nb.load(arg)
        elif what == "list_sessions":
            said = f"entries {list_sessions(os.path.dirname(arg))['entries'].tolist()}"
        else:
            append_message(arg, None, {"role": "user", "content": "hi"})
    else:
        with open(arg, encoding="utf-8") as fh:
            line = fh.read()
        start = time.process_time()
        said = f"{len(first_line(line))} characters shown"
except Exception as exc:
    said = f"{type(exc).__name__}: {str(exc)[:90]}"
print(json.dumps([round(time.process_time() - start, 3), round(hwm() - base, 1), said]))
"""


def wide_file(folder: Path, mb: int) -> Path:
    """A session of ``mb`` MB saved as UTF-16 with a BOM, as an editor on Windows saves it."""
    path = folder / "wide" / "utf16.jsonl"
    path.parent.mkdir()
    entries = lines(*(user(f"u{k}", None, "x" * 200) for k in range(1000)))
    with path.open("wb") as out:
        out.write(lines(head(), assistant("a0", None)).decode().encode("utf-16"))
        block = entries.decode().encode("utf-16-le")
        while out.tell() < mb << 20:
            out.write(block)
    return path


def unmake(chain: list[Path]) -> None:
    """Remove the nested folders deepest first: ``shutil.rmtree`` recurses as well."""
    for level in reversed(chain):
        for entry in level.iterdir():
            entry.unlink()
        level.rmdir()


def folders(folder: Path, depth: int, chain: list[Path]) -> list[tuple[str, Path]]:
    """A folder nested ``depth`` deep (made level by level into ``chain``: ``os.makedirs``
    recurses), and a folder of a file and a symlink leading out whose names hold escapes."""
    deep = folder / "deep"
    chain.append(deep)
    for _ in range(depth):
        chain.append(chain[-1] / "d")
    for level in chain:
        level.mkdir()
    (chain[-1] / "s.jsonl").write_bytes(lines(head(), user("u1", None)))
    names = folder / "names"
    names.mkdir()
    nasty = "\x1b]0;pwned\x07\x1b[2J"
    (names / f"bad{nasty}.jsonl").write_text("not a session\n")
    (folder / "outside.jsonl").write_bytes(lines(head(), user("u1", None)))
    (names / f"link{nasty}.jsonl").symlink_to(folder / "outside.jsonl")
    return [("nested deep", deep), ("escapes in names", names)]


def label_file(folder: Path, kind: str, kb: int) -> Path:
    """One line of ``MARKS[kind]`` repeated to ``kb`` KB (the rule's dashes first)."""
    mark = MARKS[kind]
    body = mark * ((kb * 1000) // len(mark))
    text = {"spaces before a word": body + "x", "a table rule's spaces": "---" + body + "x"}
    path = folder / f"line-{len(list(folder.glob('line-*')))}.txt"
    path.write_text(text.get(kind, "x" + body), encoding="utf-8")
    return path


def measure(checkout: Path, part: str, what: str, arg: Path, timeout: float) -> str:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, part, what, str(arg)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            cwd=checkout,  # ``-c`` puts the working folder first on the path
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"TIMEOUT after {timeout:g} s"
    if done.returncode:
        return f"exit {done.returncode}: {done.stderr.strip()[-200:]}"
    cpu, grew, said = json.loads(done.stdout.strip().splitlines()[-1])
    return f"{cpu:8.3f} CPU s  {grew:7.1f} MB more  {said}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="wide,labels,folders")
    parser.add_argument("--mb", type=int, default=200, help="size of the UTF-16 file")
    parser.add_argument("--kb", type=int, default=1000, help="size of each hostile line")
    parser.add_argument("--depth", type=int, default=1200, help="levels of the deep folder")
    parser.add_argument("--before", type=Path, help="a checkout to measure too")
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args()
    checkouts = {"now": ROOT} | ({"before": args.before.resolve()} if args.before else {})
    parts = args.only.split(",")
    print(describe())
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        runs: list[tuple[str, str, Path]] = []
        if "wide" in parts:
            path = wide_file(folder, args.mb)
            print(f"wide: {path.stat().st_size / 1e6:.0f} MB of UTF-16")
            runs += [("wide", what, path) for what in ("load", "list_sessions", "append")]
        if "labels" in parts:
            print(f"labels: lines of {args.kb:,} KB")
            runs += [("labels", kind, label_file(folder, kind, args.kb)) for kind in MARKS]
        chain: list[Path] = []
        try:
            if "folders" in parts:
                made = folders(folder, args.depth, chain)
                runs += [("folders", what, arg) for what, arg in made]
            for part, what, arg in runs:
                for name, checkout in checkouts.items():
                    said = measure(checkout, part, what, arg, args.timeout)
                    print(f"{part:6}  {what:24}  {name:6}  {said}", flush=True)
        finally:
            unmake(chain)


if __name__ == "__main__":
    main()
