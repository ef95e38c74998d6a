"""``python -m sessiongen``: write the generators' sessions to a path, or rewrite the demo.

Why a command line: the docs and the benchmarks name shapes (``branchy``, ``big``, a
small file of every entry type, a family); a user reproducing a figure or a bug report
writes the same file with one command. Rewriting the bundled demo session is one of the
commands, never what a bare or unknown call does.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from ._core import write_jsonl
from ._family import synthetic_family
from ._large import write_large_session
from ._shapes import SHAPES, write_shape
from ._small import synthetic_session

PROG = "python -m sessiongen"


def _size(path: Path) -> str:
    return f"{path.stat().st_size:,} bytes"


def _demo(args: argparse.Namespace) -> list[str]:
    from prime_nb.datasets import demo_session_path

    from ._demo import demo_entries

    path = Path(args.output) if args.output else demo_session_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    write_jsonl(path, demo_entries())
    return [f"wrote {path} ({_size(path)})"]


def _shape(args: argparse.Namespace) -> list[str]:
    path = write_shape(args.output, args.shape, args.entries, seed=args.seed)
    return [f"wrote {path} ({args.shape}, {args.entries:,} entries, {_size(path)})"]


def _big(args: argparse.Namespace) -> list[str]:
    path = write_large_session(
        args.output, int(args.mb * 1_000_000), seed=args.seed, dialect=args.dialect
    )
    return [f"wrote {path} (big, {_size(path)})"]


def _small(args: argparse.Namespace) -> list[str]:
    path = synthetic_session(
        args.output,
        version=args.version,
        dialect=args.dialect,
        seed=args.seed,
        turns=args.turns,
        forks=args.forks,
    )
    return [f"wrote {path} (every entry type, version {args.version}, {_size(path)})"]


def _family(args: argparse.Namespace) -> list[str]:
    files = synthetic_family(args.output, seed=args.seed)
    return [f"wrote {path} ({role})" for role, path in files.items()]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Write generated Prime Agent session files (test data, deterministic "
        "for a seed): the scaling shapes, a big realistic session, a small file of every "
        "entry type, a family of forks and sub-agents, or the bundled demo session.",
        epilog=f"Example: {PROG} shape branchy branchy.jsonl -n 1000",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser(
        "shape",
        help="one of the scaling shapes (" + ", ".join(SHAPES) + ")",
        description="Write one of the shapes the scaling benchmark and the screenshots use.",
    )
    p.add_argument("shape", choices=list(SHAPES), metavar="SHAPE", help=", ".join(SHAPES))
    p.add_argument("output", metavar="OUT", help="the .jsonl file to write")
    p.add_argument("-n", "--entries", type=int, default=1000, help="entries (default: 1000)")
    p.set_defaults(run=_shape)

    p = sub.add_parser(
        "big",
        help="a big realistic branchy session (the benchmarks' 'big')",
        description="Stream a realistic branchy version 3 session of about MB megabytes.",
    )
    p.add_argument("output", metavar="OUT", help="the .jsonl file to write")
    p.add_argument("--mb", type=float, default=10.0, help="size in MB (default: 10)")
    p.add_argument("--dialect", choices=["prime", "spec"], default="prime")
    p.set_defaults(run=_big)

    p = sub.add_parser(
        "small",
        help="a small session holding every entry type",
        description="Write a small session holding every entry type of a version.",
    )
    p.add_argument("output", metavar="OUT", help="the .jsonl file to write")
    p.add_argument("--version", type=int, choices=[1, 2, 3], default=3)
    p.add_argument("--dialect", choices=["prime", "spec"], default="prime")
    p.add_argument("--turns", type=int, default=30, help="user turns (default: 30)")
    p.add_argument("--forks", type=int, default=3, help="forks (default: 3)")
    p.set_defaults(run=_small)

    p = sub.add_parser(
        "family",
        help="a family: forks and sub-agents in a folder",
        description="Write a 3-level family (forks, sub-agents) below a folder.",
    )
    p.add_argument("output", metavar="FOLDER", help="the folder to write into")
    p.set_defaults(run=_family)

    p = sub.add_parser(
        "demo",
        help="rewrite the demo session prime_nb ships (or write it to -o)",
        description="Rewrite the demo session in prime_nb/datasets/data/ from its script.",
    )
    p.add_argument("-o", "--output", metavar="OUT", help="write it here instead")
    p.set_defaults(run=_demo)

    for name in ("shape", "big", "small", "family"):
        sub.choices[name].add_argument("--seed", type=int, default=0, help="(default: 0)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``python -m sessiongen`` on ``argv``; return the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        lines = args.run(args)
    except (OSError, ValueError) as exc:
        parser.exit(1, f"{PROG}: error: {exc}\n")
    for line in lines:
        print(line)
    return 0
