"""Redaction's time and peak memory against ``load`` of the same file, in the same run.

Three inputs: a session file of SIZE MB (``sessiongen.write_large_session``), a file
whose one entry holds a single text of LINE MB (base64-like, the worst case for the
decoders; or prose dense with secrets, the most replacements; or chat with emoji and
typographic marks), and one object of KEYS
keys (each key a string the rules read). Each step runs in a fresh process so that its
peak (VmHWM) is its own: ``load`` (the baseline), then ``redact`` to a new file. Prints
wall and CPU seconds, the peak, and the ratios redact / load::

    PYTHONPATH=. python benchmarks/bench_redact.py [--size 100] [--line 200] [--keys 1e6]
        [--line-text base64|prose|chat] [--hyperscan-cache FOLDER]
        [--before CHECKOUT]  # each input also redacted by another checkout's code
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from machine import describe

from sessiongen import write_jsonl, write_large_session

#: this checkout (whose ``prime_nb`` the steps import unless told another)
ROOT = Path(__file__).resolve().parent.parent

STEP = r"""
import json, os, resource, sys, time
from pathlib import Path
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0
import prime_nb
from prime_nb.redact import redact
step, path = sys.argv[1], sys.argv[2]
if os.path.exists(path + ".redacted.jsonl"):  # an earlier step's (redact writes anew)
    os.remove(path + ".redacted.jsonl")
base = hwm()
t, c = time.perf_counter(), time.process_time()
if step == "load":
    len(prime_nb.load(path).entries)  # parsed whole: load itself is lazy
else:
    redact(path, path + ".redacted.jsonl", hostnames=[])
wall, cpu = time.perf_counter() - t, time.process_time() - c
print(json.dumps({"wall": wall, "cpu": cpu, "peak": hwm(), "base": base}))
"""


def run_step(step: str, path: Path, code: str = "") -> dict[str, Any]:
    """One step in a fresh process; ``code``: a checkout whose ``prime_nb`` it imports
    (default: this one's). It runs in the file's folder: ``python -c`` puts its working
    folder first on the path, which would hide ``code``'s."""
    env = {**os.environ, "PYTHONPATH": str(Path(code).resolve()) if code else str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", STEP, step, str(path.resolve())],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=path.resolve().parent,
    )
    Path(str(path) + ".redacted.jsonl").unlink(missing_ok=True)
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def dense_prose(r: random.Random) -> str:
    """About 3 MB of paragraphs, each with a password and a provider token in it."""
    tokens = ["ghp_" + r.randbytes(18).hex() for _ in range(40)]
    para = "The deploy failed on the staging host again, so I read the logs line by line. " * 24
    return "".join(
        f"{para} Then I ran mysql -u root -pS3cr3t{n % 40}x and used {tokens[n % 40]}. "
        for n in range(1600)
    )


#: sentences of chat as a chat client writes it: curly quotes and apostrophes, dashes,
#: bullets, emoji (narrowed to a byte a character by redaction, ``_narrow.py``)
CHAT = (
    "Hey, it\u2019s deployed \U0001f600 see https://example.com/docs/run?id=42 for the logs. ",
    "She said \u201cship it\u201d \U0001f389 and we did \u2014 3 times, at 10:45. ",
    "I\u2019m not sure why \U0001f914 the build\u2019s cache was cold; retry=3 fixed it. ",
    "\u2022 Thanks! \U0001f44d \u2705 That\u2019s 100% done \u2764\ufe0f ",
    "The DB is at postgres://app:Pg5ecret9x@db.internal:5432/app \U0001f648 oops. ",
)


def chat(r: random.Random) -> str:
    """About 3 MB of chat (:data:`CHAT`), a secret in one sentence of 20."""
    return "".join(CHAT[4] if r.randrange(20) == 0 else CHAT[r.randrange(4)] for _ in range(40000))


def write_long_line(path: Path, megabytes: float, kind: str = "base64") -> Path:
    """A session whose one user message is ``megabytes`` of base64-like text, of prose
    dense with secrets (``kind="prose"``), or of chat (``kind="chat"``)."""
    r = random.Random(5)
    texts = {"base64": lambda: base64.b64encode(r.randbytes(3 << 20)).decode()}
    chunk = {**texts, "prose": lambda: dense_prose(r), "chat": lambda: chat(r)}[kind]()
    size = int(megabytes * 2**20)
    text = (chunk * (size // len(chunk) + 1))[:size]
    message = {"role": "user", "content": text, "timestamp": 0}
    return one_entry_session(path, {"type": "message", "id": "u1", "message": message})


def write_many_keys(path: Path, keys: int) -> Path:
    """A session whose one custom entry's data is an object of ``keys`` keys."""
    data = dict.fromkeys((f"k{i}" for i in range(keys)), 1)
    return one_entry_session(path, {"type": "custom", "id": "c1", "data": data})


def one_entry_session(path: Path, entry: dict[str, Any]) -> Path:
    """A session file of a header and ``entry`` (made a root, with a timestamp)."""
    head = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-05T10:00:00Z"}
    entry = {"parentId": None, "timestamp": "2026-01-05T10:00:01Z", **entry}
    return write_jsonl(path, [head, entry])


def longest_line(path: Path) -> int:
    with open(path, "rb") as fh:
        return max(len(line) for line in fh)


def compare(name: str, path: Path, longest: int, before: str = "") -> None:
    load, red = run_step("load", path), run_step("redact", path)
    if before:  # the same file redacted by another checkout's code, in the same run
        old = run_step("redact", path, before)
        print(
            f"\n{name}: redact by {before}: cpu {old['cpu']:.2f} s "
            f"({old['cpu'] / load['cpu']:.1f} x load); this checkout: cpu {red['cpu']:.2f} s "
            f"({red['cpu'] / load['cpu']:.1f} x load), {old['cpu'] / red['cpu']:.2f} x faster; "
            f"growth x the longest line: before {(old['peak'] - old['base']) / longest:.1f}, "
            f"this checkout {(red['peak'] - red['base']) / longest:.1f}"
        )
    mb = 2**20
    print(f"\n{name}: {path.stat().st_size / mb:.0f} MB, longest line {longest / mb:.0f} MB")
    print(f"{'step':8} {'wall s':>8} {'cpu s':>8} {'peak MiB':>9} {'peak - start':>13}")
    for step, m in (("load", load), ("redact", red)):
        grow = (m["peak"] - m["base"]) / mb
        print(f"{step:8} {m['wall']:8.2f} {m['cpu']:8.2f} {m['peak'] / mb:9.0f} {grow:13.0f}")
    grow = (red["peak"] - red["base"]) / longest
    load_grow = (load["peak"] - load["base"]) / longest
    print(
        f"redact / load: wall {red['wall'] / load['wall']:.1f} x, cpu "
        f"{red['cpu'] / load['cpu']:.1f} x, peak {red['peak'] / load['peak']:.1f} x; "
        f"growth x the longest line: load {load_grow:.1f}, redact {grow:.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=float, default=100, help="session file, MB")
    parser.add_argument("--line", type=float, default=200, help="one line, MB")
    parser.add_argument("--keys", type=float, default=1e6, help="keys of one object")
    parser.add_argument("--only", default="", help="comma-separated: session,line,keys")
    parser.add_argument(
        "--hyperscan-cache",
        default="",
        help="a folder: keep compiled Hyperscan databases there (filled by a first, "
        "unmeasured redaction), as PRIME_NB_HYPERSCAN_CACHE does",
    )
    parser.add_argument("--line-text", default="base64", choices=["base64", "prose", "chat"])
    parser.add_argument(
        "--before",
        default="",
        help="a checkout whose redact the session and the line are also timed with",
    )
    args = parser.parse_args()
    print(describe())
    if args.hyperscan_cache:
        os.environ["PRIME_NB_HYPERSCAN_CACHE"] = args.hyperscan_cache
        with tempfile.TemporaryDirectory() as folder:
            run_step("redact", write_long_line(Path(folder) / "warm.jsonl", 2))
        print(f"compiled Hyperscan databases kept in {args.hyperscan_cache}")
    only = set(filter(None, args.only.split(","))) or {"session", "line", "keys"}
    with tempfile.TemporaryDirectory() as folder:
        if "session" in only:
            big = write_large_session(Path(folder) / "big.jsonl", int(args.size * 2**20), seed=7)
            compare("large session", Path(big), longest_line(Path(big)), args.before)
        if "line" in only:
            line = write_long_line(Path(folder) / "line.jsonl", args.line, args.line_text)
            compare(f"one long line of {args.line_text}", line, longest_line(line), args.before)
        if "keys" in only:
            keys = write_many_keys(Path(folder) / "keys.jsonl", int(args.keys))
            compare(f"one object of {int(args.keys)} keys", keys, longest_line(keys), args.before)


if __name__ == "__main__":
    main()
