"""Redaction's peak memory per byte of line, over many shapes of line: those over 3x.

Issue #43 asks that ``redact`` keep its peak within 3x the longest line on any input
``load()`` reads; ``tests/redact/test_redact_memory.py`` holds the shapes met. This
probe looks for the shapes nobody listed: long strings of each Unicode block and script
mixed with ASCII (raw and escaped as ``\\uXXXX``) and of the script alone, many small
values, deep nesting, long keys, a long string as a key, long numbers, one huge array of
tiny strings, JSON held in a string held in a string; each under several keys (a
message's content, a custom entry's description, a tool call's command, a key the walk
reads as it is, a secret's key).

Each shape's line is written at two sizes, and each is redacted by the test's own probe
(``test_redact_memory.PROBE``) in a fresh interpreter per shape that has redacted a small
file first: each size in a child of it, from the same heap, with glibc giving every
large block back when freed. A run's growth is the rise of its peak resident size
(VmHWM) over its size before; the figure is the growth between the two sizes per byte of
line between them (a fixed cost drops out). With ``--load``, ``load``'s figure is given
beside it: the goal is 3x, or ``load``'s own where it needs more, and only the shapes
over that are printed (``--all``: every shape). The goal is of what redaction holds
beyond what it returns (its report and suspects grow with the whole file's hits, not
with one line): for a shape over 3x, the bytes of its report and suspects per byte of
line are measured too (``returned``), and the shape counts as over only if its growth
less those is.

    python benchmarks/probe_redact_memory.py [--only TEXT] [--load] [--all]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import describe

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "redact"))
from returned_size import returned_bytes
from test_redact_memory import PROBE

MB = 1 << 20
#: the address space a run may take: a shape past it fails
LIMIT = 6 << 30
#: both over 1 MB (a shorter line is held as bytes until parsed: another path)
SIZES = (MB + MB // 8, 2 * MB + MB // 8)
HEAD = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}

#: (name, a character of it): a block or script of Unicode, each as one sample
BLOCKS = [
    ("Latin-1", "é"),
    ("Latin Extended", "ő"),
    ("Greek", "λ"),
    ("Cyrillic", "ж"),
    ("Armenian", "Ճ"),
    ("Hebrew", "ש"),
    ("Arabic", "ع"),
    ("Devanagari", "क"),
    ("Thai", "ก"),
    ("Georgian", "ა"),
    ("Hangul", "한"),
    ("Hiragana", "あ"),
    ("CJK", "中"),
    ("combining marks", "e\u0301"),
    ("punctuation", "\u2019"),
    ("arrows", "→"),
    ("box drawing", "─"),
    ("full-width", "\uff21"),
    ("zero-width", "\u200b"),
    ("private use", "\ue000"),
    ("emoji", "😀"),
    ("math letters", "\U0001d400"),
    ("CJK Extension B", "\U00020000"),
    ("tags", "\U000e0041"),
]

WORDS = "the deploy failed again so I read the logs password=hunter2xyz and retried "


def _mixed(char: str, size: int, every: int) -> str:
    """ASCII words with ``char`` after every ``every`` characters."""
    unit = WORDS[:every] + char
    return unit * (size // len(unit.encode()) + 1)


def _alone(char: str, size: int) -> str:
    """The script alone, with a space every 8 characters."""
    unit = char * 8 + " "
    return unit * (size // len(unit.encode()) + 1)


#: where a long value goes: (name, the entry holding ``value``)
def _content(value: Any) -> dict[str, Any]:
    message = {"role": "user", "content": value, "timestamp": 0}
    return {
        "type": "message",
        "id": "u1",
        "parentId": None,
        "timestamp": "2026",
        "message": message,
    }


def _custom(key: str) -> Callable[[Any], dict[str, Any]]:
    def entry(value: Any) -> dict[str, Any]:
        data = {key: value, "n": "password=Zq8vN2xL5pT7"}
        return {"type": "custom", "id": "c1", "parentId": None, "customType": "x", "data": data}

    return entry


def _command(value: Any) -> dict[str, Any]:
    call = {"type": "toolCall", "id": "t1", "name": "bash", "arguments": {"command": value}}
    return _content([call])


KEYS: dict[str, Callable[[Any], dict[str, Any]]] = {
    "content": _content,
    "description": _custom("description"),
    "command": _command,
    "value (read as it is)": _custom("value"),
    "api_key (a secret's key)": _custom("api_key"),
}


def _shapes(every_key: bool) -> dict[str, Callable[[int], str]]:
    """Each shape's line at a size in bytes (about)."""
    shapes: dict[str, Callable[[int], str]] = {}

    def line(
        entry: Callable[[Any], dict[str, Any]], value: Callable[[int], Any], ascii_: bool
    ) -> Callable[[int], str]:
        return lambda size: json.dumps(entry(value(size)), ensure_ascii=ascii_)

    keys = KEYS if every_key else {"content": _content}
    for name, char in BLOCKS:
        for key, entry in keys.items():
            at = f" under {key}"
            shapes[f"{name} in ASCII, raw{at}"] = line(
                entry, functools.partial(_mixed, char, every=50), False
            )
            shapes[f"{name} in ASCII, escaped{at}"] = line(
                entry, functools.partial(_mixed, char, every=50), True
            )
            shapes[f"{name} alone, raw{at}"] = line(entry, functools.partial(_alone, char), False)
    for key, entry in KEYS.items():
        at = f" under {key}"
        shapes[f"many small strings{at}"] = line(
            entry, lambda n: ["ab", "pw=hunter2x"] * (n // 12), True
        )
        shapes[f"many small numbers{at}"] = line(entry, lambda n: list(range(n // 7)), True)
        shapes[f"huge array of tiny strings{at}"] = line(entry, lambda n: ["a"] * (n // 4), True)
        shapes[f"json in a string in a string{at}"] = line(
            entry, lambda n: json.dumps(json.dumps([{"k": WORDS}] * (n // 110))), True
        )
        shapes[f"deep nesting, long leaves{at}"] = line(
            entry, lambda n: _deep(150, ["x" * 1000 + " pw=hunter2x"] * (n // 1020)), True
        )
        shapes[f"long keys{at}"] = line(
            entry, lambda n: {f"{i}" + "k" * 4000: "pw=hunter2x" for i in range(n // 4020)}, True
        )
        shapes[f"a long string as a key{at}"] = line(entry, lambda n: {WORDS * (n // 75): 1}, True)
        shapes[f"many keys, short{at}"] = line(
            entry, lambda n: {f"k{i}": i for i in range(n // 12)}, True
        )
    shapes["a long number"] = lambda size: (
        json.dumps(_content("x"))[:-1] + ', "n": ' + "9" * size + "}"
    )
    shapes["a long float"] = lambda size: (
        json.dumps(_content("x"))[:-1] + ', "n": 1.' + "5" * size + "}"
    )
    return shapes


def _deep(depth: int, leaf: Any) -> Any:
    for _ in range(depth):
        leaf = [leaf]
    return leaf


def _grown(folder: Path, warm: Path, lines: list[str], load: bool) -> dict[str, Any] | None:
    """Each line's growth in a child of one fresh, warmed interpreter (the test's own
    probe, ``test_redact_memory.PROBE``): redact's, and load's where ``load``."""
    paths = []
    for i, text in enumerate(lines):
        path = folder / f"line{i}.jsonl"
        path.write_text(json.dumps(HEAD) + "\n" + text + "\n", encoding="utf-8")
        for old in folder.glob(f"line{i}.jsonl.out"):
            old.unlink()
        paths.append(str(path))
    for old in folder.glob("warm.jsonl.out"):
        old.unlink()
    env = {**os.environ, "MALLOC_MMAP_THRESHOLD_": str(1 << 16)}
    run = subprocess.run(
        [sys.executable, "-c", PROBE, str(warm), json.dumps(paths if load else []), *paths],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        preexec_fn=_limited,
    )
    if run.returncode != 0:
        print(run.stderr.strip().splitlines()[-1][:200], file=sys.stderr)
        return None
    grown: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    if any(grown[path]["redact"] is None for path in paths):  # a child that died
        print("a run failed (over the memory limit?)", file=sys.stderr)
        return None
    return {step: [grown[path].get(step) for path in paths] for step in ("redact", "load")}


def _returned(folder: Path, lines: list[str]) -> int:
    """How many more bytes the report and suspects returned hold at the larger size."""
    sizes = []
    for text in lines:
        path = folder / "returned.jsonl"
        path.write_text(json.dumps(HEAD) + "\n" + text + "\n", encoding="utf-8")
        sizes.append(returned_bytes(path))
    return sizes[1] - sizes[0]


def _limited() -> None:
    """A run's memory capped (a shape that blows up fails, not the machine)."""
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="", help="shapes whose name holds this text")
    parser.add_argument("--load", action="store_true", help="load's growth beside")
    parser.add_argument(
        "--all", action="store_true", help="print every shape, not those over the goal"
    )
    parser.add_argument("--every-key", action="store_true", help="each block under every key")
    args = parser.parse_args()
    print(describe())
    shapes = {k: v for k, v in _shapes(args.every_key).items() if args.only in k}
    over: list[str] = []
    over_goal: list[str] = []
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        warm = folder / "warm.jsonl"
        warm.write_text(json.dumps(HEAD) + "\n" + json.dumps(_content("password=abc123xyz")) + "\n")
        print(f"{'shape':58} {'redact':>7} {'load':>7} {'returned':>8}  (per byte of line)")
        for shape, make in shapes.items():
            lines = [make(size) for size in SIZES]
            apart = len(lines[1].encode()) - len(lines[0].encode())
            grown = _grown(folder, warm, lines, args.load)
            figures = [
                float("nan") if grown is None else (grown[step][1] - grown[step][0]) / apart
                for step in (("redact", "load") if args.load else ("redact",))
            ]
            redact = figures[0]
            returned = _returned(folder, lines) / apart if redact > 3.0 else 0.0
            shown = f"{shape:58} {redact:7.2f}" + (f" {figures[1]:7.2f}" if args.load else "")
            shown += f" {returned:8.2f}" if returned else ""
            if redact != redact:
                shown += "  (failed)"
            beyond = redact - returned
            goal = max(3.0, figures[1]) if args.load else 3.0
            if args.all or not beyond <= goal:
                print(shown, flush=True)
            if not beyond <= 3.0:
                over.append(shape)
            if not beyond <= goal:
                over_goal.append(shape)
    print(f"\n{len(over)} of {len(shapes)} shapes over 3x beyond what they return")
    if args.load:
        print(f"{len(over_goal)} of {len(shapes)} over the goal (3x, or load's where more)")


if __name__ == "__main__":
    main()
