"""Fuzz session loading for as long as asked: random mutations of the seed sessions.

Usage: python benchmarks/fuzz_sessions.py [--seconds 300] [--seed 0] [--keep DIR]
Each case is checked as in tests/session/test_fuzz.py (load, every table, the context at
every leaf, the widget's data, the HTML export, the research tables and their schemas, the
corpus pass, the family, a write to a copy, and every line an entry or a problem).
Prints the number of cases, crashes, silent drops and refusals (no header left); failing
cases are written to --keep (default: a temporary folder, printed) to reproduce them.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.append(str(Path(__file__).resolve().parents[1]))  # the session generators
from session_fuzz import MUTATIONS, Refused, check, mutate, seeds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=300.0, help="how long to run")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument("--keep", metavar="DIR", help="folder for failing cases")
    args = parser.parse_args()
    keep = Path(args.keep or tempfile.mkdtemp(prefix="fuzz-sessions-"))
    keep.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    names = sorted(seeds())
    counts: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    end = time.monotonic() + args.seconds
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        while time.monotonic() < end:
            name = rng.choice(names)
            ops = [
                (rng.randrange(len(MUTATIONS)), rng.randrange(10**6), rng.randrange(10**6))
                for _ in range(rng.randint(1, 6))
            ]
            torn = rng.random() < 0.2
            path = work / "case.jsonl"
            path.write_bytes(mutate(seeds()[name], ops, torn))
            counts["cases"] += 1
            try:
                dropped = check(path, work)
            except Refused:
                counts["refused"] += 1
                continue
            except Exception as exc:
                counts["crashes"] += 1
                kinds[f"{type(exc).__name__}: {str(exc)[:80]}"] += 1
                failed = keep / f"crash-{counts['crashes']:04d}.jsonl"
                failed.write_bytes(path.read_bytes())
                failed.with_suffix(".txt").write_text(
                    f"seed {name}, ops {ops}, torn {torn}\n{traceback.format_exc()}"
                )
                continue
            if dropped:
                counts["silent_drops"] += 1
                failed = keep / f"drop-{counts['silent_drops']:04d}.jsonl"
                failed.write_bytes(path.read_bytes())
                failed.with_suffix(".txt").write_text(
                    f"seed {name}, ops {ops}, torn {torn}\nlines dropped: {dropped}\n"
                )
    print(
        f"{counts['cases']} cases in {args.seconds:.0f} s: {counts['crashes']} crashes, "
        f"{counts['silent_drops']} with silent drops, {counts['refused']} refused (no header)"
    )
    for kind, n in kinds.most_common(10):
        print(f"  {n:5} x {kind}")
    if counts["crashes"] or counts["silent_drops"]:
        print(f"failing cases: {keep}")
    return 1 if counts["crashes"] or counts["silent_drops"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
