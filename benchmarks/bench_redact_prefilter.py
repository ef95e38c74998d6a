"""How redaction's patterns are kept from reading every position: the candidates, side by side.

Every default rule's pattern (and the suspects') is run over the strings of a generated
session and over a text of LINE MB joined from them, four ways:

- ``scan``: ``pattern.finditer`` (the baseline);
- ``windows``: ``prime_nb.redact._literals.finditer``, the pattern tried only where its
  literals allow a match (what redaction uses);

and the literals of every pattern are looked for (presence in each string) with:

- ``in``: one substring test per literal (what ``windows`` does on a short text);
- ``re`` alternation: one compiled regex of all of a pattern's literals;
- ``pyahocorasick``, ``google-re2`` (``re2.Set``) and ``hyperscan``, when importable: they
  are not dependencies, so run this in a throwaway venv that has them (their wheels are
  on the package index)::

    PYTHONPATH=. python benchmarks/bench_redact_prefilter.py [--size 5] [--line 1]
"""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import orjson
from machine import describe

from prime_nb.redact._literals import finditer, plan_of
from prime_nb.redact._rules import default_rules
from prime_nb.redact._suspects import _BESIDE_WORD
from sessiongen import write_large_session


def strings(obj: Any, out: list[str]) -> None:
    if isinstance(obj, str):
        out.append(obj)
    elif isinstance(obj, dict):
        for key, value in obj.items():
            out.append(key)
            strings(value, out)
    elif isinstance(obj, list):
        for value in obj:
            strings(value, out)


def cpu(work: Callable[[], object]) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


def literal_finders(literals: tuple[str, ...]) -> dict[str, Callable[[str], bool]]:
    """Each candidate's test of whether a text holds one of ``literals``."""
    finders: dict[str, Callable[[str], bool]] = {
        "in": lambda text: any(s in text for s in literals),
    }
    alternation = re.compile("|".join(re.escape(s) for s in sorted(literals, key=len)[::-1]))
    finders["re alternation"] = lambda text: alternation.search(text) is not None
    try:
        import ahocorasick  # type: ignore[import-not-found,unused-ignore]

        automaton = ahocorasick.Automaton()
        for s in literals:
            automaton.add_word(s, s)
        automaton.make_automaton()
        finders["pyahocorasick"] = lambda text: next(automaton.iter(text), None) is not None
    except ImportError:
        pass
    try:
        import re2  # type: ignore[import-not-found,unused-ignore]

        found_set = re2.Set.SearchSet(re2.Options())
        for s in literals:
            found_set.Add(re.escape(s))
        found_set.Compile()
        finders["google-re2 Set"] = lambda text: bool(found_set.Match(text))
    except ImportError:
        pass
    try:
        import hyperscan  # type: ignore[import-not-found,unused-ignore]

        database = hyperscan.Database()
        database.compile(
            expressions=[re.escape(s).encode() for s in literals],
            ids=list(range(len(literals))),
            flags=[0] * len(literals),
        )

        def scan(text: str) -> bool:
            hits: list[int] = []

            def on_match(*args: Any) -> int:
                hits.append(1)
                return 1  # stop at the first

            with contextlib.suppress(hyperscan.ScanTerminated):  # stopped at the first hit
                database.scan(text.encode("utf-8", "surrogatepass"), match_event_handler=on_match)
            return bool(hits)

        finders["hyperscan"] = scan
    except ImportError:
        pass
    return finders


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=float, default=5, help="session, MB")
    parser.add_argument("--line", type=float, default=1, help="joined text, MB")
    args = parser.parse_args()
    print(describe())
    with tempfile.TemporaryDirectory() as folder:
        path = write_large_session(Path(folder) / "s.jsonl", int(args.size * 2**20), seed=7)
        texts: list[str] = []
        with open(path, "rb") as fh:
            for line in fh:
                strings(orjson.loads(line), texts)
    texts = list(dict.fromkeys(texts))
    joined = " ".join(texts)
    while len(joined) < args.line * 2**20:
        joined += " " + joined
    joined = joined[: int(args.line * 2**20)]
    mb = sum(map(len, texts)) / 2**20
    print(f"{len(texts)} distinct strings, {mb:.1f} MB; one text of {len(joined) / 2**20:.1f} MB")

    patterns = [r.pattern for r in default_rules(hostnames=[]) if r.pattern is not None]
    patterns.append(_BESIDE_WORD)
    planned = [p for p in patterns if plan_of(p) is not None]
    print(f"{len(planned)} of {len(patterns)} patterns have literals at a bounded distance")

    print(f"\n{'patterns, CPU s':24} {'strings':>9} {'long text':>10}")
    for name, run in (("scan", lambda p, t: p.finditer(t)), ("windows", finditer)):
        on_strings = cpu(lambda run=run: [list(run(p, t)) for p in patterns for t in texts])
        on_long = cpu(lambda run=run: [list(run(p, joined)) for p in patterns])
        print(f"{name:24} {on_strings:9.2f} {on_long:10.2f}")

    print(f"\n{'literals found with, CPU s':28} {'strings':>9}")
    totals: dict[str, float] = {}
    for pattern in planned:
        plan = plan_of(pattern)
        assert plan is not None
        for name, test in literal_finders(plan.literals).items():
            totals[name] = totals.get(name, 0.0) + cpu(lambda test=test: [test(t) for t in texts])
    for name, seconds in totals.items():
        print(f"{name:28} {seconds:9.2f}")
    every = tuple(sorted({s for p in planned for s in plan_of(p).literals}))  # type: ignore[union-attr]
    print(f"\nall {len(every)} literals of all patterns in one pass, CPU s (which are present)")
    for name, seconds in all_at_once(every, texts).items():
        print(f"{name:28} {seconds:9.2f}")


def all_at_once(literals: tuple[str, ...], texts: list[str]) -> dict[str, float]:
    """Which of ``literals`` each text holds: every candidate that can say it in one pass."""
    out = {"in": cpu(lambda: [[s for s in literals if s in t] for t in texts])}
    try:
        import re2

        found_set = re2.Set.SearchSet(re2.Options())
        for s in literals:
            found_set.Add(re.escape(s))
        found_set.Compile()
        out["google-re2 Set"] = cpu(lambda: [found_set.Match(t) for t in texts])
    except ImportError:
        pass
    try:
        import hyperscan

        database = hyperscan.Database()
        database.compile(
            expressions=[re.escape(s).encode() for s in literals],
            ids=list(range(len(literals))),
            flags=[hyperscan.HS_FLAG_SINGLEMATCH] * len(literals),
        )

        def scan(text: str) -> set[int]:
            ids: set[int] = set()
            database.scan(
                text.encode("utf-8", "surrogatepass"),
                match_event_handler=lambda i, *rest: ids.add(i),
            )
            return ids

        out["hyperscan"] = cpu(lambda: [scan(t) for t in texts])
    except ImportError:
        pass
    return out


if __name__ == "__main__":
    main()
